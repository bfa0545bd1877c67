package cuckoo

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// TestConcurrentStress runs adders, removers and readers at once, up to and
// past full: no key whose Add succeeded (and that was not removed) may ever
// be reported absent, during or after the run. Run it with -race.
func TestConcurrentStress(t *testing.T) {
	capacity, workers := uint64(20000), 4
	if testing.Short() {
		capacity = 3000
	}
	for _, fb := range []int{8, 16} {
		c, err := NewConcurrent(capacity, WithFingerprintBits(fb))
		if err != nil {
			t.Fatal(err)
		}
		// Keys k*workers+w belong to worker w. Even keys stay, odd keys
		// are removed again after being added. Kept keys are published
		// (slot written, then the atomic length) for the readers to check.
		var kept [8][]uint64 // fixed headers: only elements are written
		var published [8]atomic.Int64
		for w := range workers {
			kept[w] = make([]uint64, 2*capacity) // more than the slots
		}
		var fails atomic.Int64
		var stop atomic.Bool
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := uint64(0); ; k++ {
					key := k*uint64(workers) + uint64(w)
					err := c.AddUint64(key)
					if errors.Is(err, ErrFull) {
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
					if key%2 == 1 {
						if !c.RemoveUint64(key) {
							fails.Add(1)
						}
						continue
					}
					n := published[w].Load()
					kept[w][n] = key
					published[w].Store(n + 1)
					if !c.ContainsUint64(key) {
						fails.Add(1)
					}
				}
			}()
		}
		// Readers look up published keys (which must be present) and
		// random ones, single and batched, while relocations run.
		var rg sync.WaitGroup
		var checked atomic.Int64
		for r := range 2 {
			rg.Add(1)
			go func() {
				defer rg.Done()
				rng := rand.New(rand.NewPCG(uint64(r), 9))
				for !stop.Load() {
					w := rng.IntN(workers)
					if n := published[w].Load(); n > 0 {
						key := kept[w][rng.Int64N(n)]
						if !c.ContainsUint64(key) {
							fails.Add(1)
						}
						checked.Add(1)
					}
					hs := []uint64{rng.Uint64(), rng.Uint64()}
					c.ContainsHashes(hs, make([]bool, 2))
				}
			}()
		}
		wg.Wait()
		stop.Store(true)
		rg.Wait()
		t.Logf("f=%d: %d concurrent lookups of present keys", fb, checked.Load())
		if n := fails.Load(); n != 0 {
			t.Fatalf("f=%d: %d lookups or removes of present keys failed", fb, n)
		}
		total := 0
		for w := range workers {
			kept[w] = kept[w][:published[w].Load()]
			for _, k := range kept[w] {
				if !c.ContainsUint64(k) {
					t.Fatalf("f=%d: kept key %d lost", fb, k)
				}
			}
			total += len(kept[w])
		}
		if c.Count() != uint64(total) {
			t.Fatalf("f=%d: count %d, kept %d", fb, c.Count(), total)
		}
		if c.LoadFactor() < 0.5 {
			t.Fatalf("f=%d: full at load %.3f", fb, c.LoadFactor())
		}
		// The snapshot is a plain filter with the same keys.
		s := c.Snapshot()
		for w := range workers {
			for _, k := range kept[w] {
				if !s.ContainsUint64(k) {
					t.Fatalf("snapshot lost key %d", k)
				}
			}
		}
		s.Close()
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConcurrentMatchesFilter: used from one goroutine, Concurrent behaves
// exactly like Filter and encodes to the same bytes.
func TestConcurrentMatchesFilter(t *testing.T) {
	for _, fb := range []int{8, 16} {
		f := mustNew(t, 500, WithFingerprintBits(fb), WithSeed(3))
		c, _ := NewConcurrent(500, WithFingerprintBits(fb), WithSeed(3))
		rng := rand.New(rand.NewPCG(4, 5))
		var hs []uint64
		for {
			h := rng.Uint64()
			e1, e2 := f.AddHash(h), c.AddHash(h)
			if (e1 == nil) != (e2 == nil) {
				t.Fatalf("Add diverges: %v vs %v", e1, e2)
			}
			if e1 != nil {
				break
			}
			hs = append(hs, h)
		}
		for i, h := range hs {
			if i%3 == 0 && f.RemoveHash(h) != c.RemoveHash(h) {
				t.Fatal("Remove diverges")
			}
		}
		a, _ := f.MarshalBinary()
		b, _ := c.MarshalBinary()
		if !bytes.Equal(a, b) {
			t.Fatal("encodings differ")
		}
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil || !bytes.Equal(buf.Bytes(), a) {
			t.Fatal("WriteTo differs")
		}
		var d Concurrent
		if _, err := d.ReadFrom(&buf); err != nil || d.Count() != f.Count() || d.FPP() != f.FPP() {
			t.Fatalf("ReadFrom: %v", err)
		}
		g := NewConcurrentFrom(f)
		if g.Count() != f.Count() || g.Capacity() != f.Capacity() || g.Seed() != 3 || g.FingerprintBits() != fb {
			t.Fatal("NewConcurrentFrom")
		}
		g.Reset()
		if g.Count() != 0 || g.ContainsHash(hs[1]) && g.ContainsHash(hs[2]) && g.ContainsHash(hs[4]) {
			t.Fatal("Reset")
		}
		if err := g.Add([]byte("a")); err != nil || !g.Contains([]byte("a")) || !g.Remove([]byte("a")) {
			t.Fatal("bytes API")
		}
		if err := g.AddString("a"); err != nil || !g.ContainsString("a") || !g.RemoveString("a") {
			t.Fatal("string API")
		}
		if n, err := g.AddHashes(hs[:10]); n != 10 || err != nil {
			t.Fatal("AddHashes")
		}
	}
}
