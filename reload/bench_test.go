package reload_test

import (
	"path/filepath"
	"testing"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/reload"
)

// benchFile writes a blocked filter of 1e5 keys (in cache) and returns its
// path.
func benchFile(b *testing.B) string {
	path := filepath.Join(b.TempDir(), "f.sift")
	publish(b, path, encode(b, sift.KindBlocked, keysOf("k", 100000), 1, 0))
	return path
}

// BenchmarkLookup compares a lookup through reload.Filter with the same
// lookup on a blocked.View of the same file: the difference is the read
// path's cost (the reader count and sift.View's call into the kind's view). Parallel runs one
// goroutine per GOMAXPROCS.
func BenchmarkLookup(b *testing.B) {
	path := benchFile(b)
	keys := keysOf("k", 1024)
	b.Run("view", func(b *testing.B) {
		v, err := blocked.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer v.Close()
		n := 0
		for i := 0; b.Loop(); i++ {
			if v.ContainsString(keys[i&1023]) {
				n++
			}
		}
		sink = n
	})
	b.Run("reload", func(b *testing.B) {
		f, err := reload.Open(path, reload.WithInterval(0))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		n := 0
		for i := 0; b.Loop(); i++ {
			if f.ContainsString(keys[i&1023]) {
				n++
			}
		}
		sink = n
	})
	b.Run("view-parallel", func(b *testing.B) {
		v, err := blocked.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer v.Close()
		b.RunParallel(func(pb *testing.PB) {
			i, n := 0, 0
			for pb.Next() {
				if v.ContainsString(keys[i&1023]) {
					n++
				}
				i++
			}
			sinkAdd(n)
		})
	})
	b.Run("reload-parallel", func(b *testing.B) {
		f, err := reload.Open(path, reload.WithInterval(0))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		b.RunParallel(func(pb *testing.PB) {
			i, n := 0, 0
			for pb.Next() {
				if f.ContainsString(keys[i&1023]) {
					n++
				}
				i++
			}
			sinkAdd(n)
		})
	})
}

// BenchmarkPoll is the cost of one check of an unchanged file (Reload):
// a stat of the path and a read of its first 128 bytes, what the Filter
// spends each interval.
func BenchmarkPoll(b *testing.B) {
	path := benchFile(b)
	f, err := reload.Open(path, reload.WithInterval(0))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for b.Loop() {
		if err := f.Reload(); err != nil {
			b.Fatal(err)
		}
	}
	if f.Version().Swaps != 0 {
		b.Fatal("an unchanged file was reloaded")
	}
}

// TestLookupAllocs: lookups through a Filter allocate nothing.
func TestLookupAllocs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.sift")
	publish(t, path, encode(t, sift.KindBlocked, keysOf("k", 100), 1, 0))
	f, err := reload.Open(path, reload.WithInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	key := []byte("k-5")
	if a := testing.AllocsPerRun(100, func() {
		f.Contains(key)
		f.ContainsString("k-7")
		f.ContainsUint64(9)
		s := f.Acquire()
		s.ContainsHash(s.Hash(key))
		s.Release()
	}); a != 0 {
		t.Fatalf("%v allocations per lookup", a)
	}
}

var sink int

var sinkMu = make(chan struct{}, 1)

func sinkAdd(n int) {
	sinkMu <- struct{}{}
	sink += n
	<-sinkMu
}
