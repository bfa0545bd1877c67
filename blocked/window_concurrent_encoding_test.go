package blocked

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sift-go/sift/internal/edgetest"
)

// TestConcurrentWindowEncoding: driven by one goroutine as a Window is,
// a ConcurrentWindow encodes to the Window's bytes, by time and by count,
// at every checkpoint (MarshalBinary, AppendBinary and WriteTo alike); and
// one resumed from those bytes (ConcurrentWindowFromBytes,
// ReadConcurrentWindow) goes on answering as the Window does.
func TestConcurrentWindowEncoding(t *testing.T) {
	for _, byCount := range []bool{false, true} {
		clk := newSimClock()
		window, opts := 4*time.Second, []Option{WithGenerations(8), WithClock(clk.Now), WithSeed(3)}
		if byCount {
			window, opts = 0, append(opts, WithSliceKeys(300))
		}
		w, c := windowPair(t, 1200, 0.01, window, opts...)
		rng := rand.New(rand.NewPCG(7, 8))
		hs := make([]uint64, 50)
		out1, out2 := make([]bool, 50), make([]bool, 50)
		step := func(i int, cs ...*ConcurrentWindow) {
			t.Helper()
			clk.now = clk.now.Add(time.Duration(rng.Int64N(int64(20 * time.Millisecond))))
			x := rng.Uint64N(5000)
			a := w.AddNewUint64(x)
			for _, c := range cs {
				if b := c.AddNewUint64(x); a != b {
					t.Fatalf("by count %v, step %d: AddNew %v and %v", byCount, i, a, b)
				}
			}
			for j := range hs {
				hs[j] = w.HashUint64(rng.Uint64N(5000))
			}
			n := w.ContainsHashes(hs, out1)
			for _, c := range cs {
				if m := c.ContainsHashes(hs, out2); n != m {
					t.Fatalf("by count %v, step %d: ContainsHashes %d and %d", byCount, i, n, m)
				}
			}
		}
		for i := range 2000 {
			step(i, c)
			if i%250 != 249 {
				continue
			}
			want, err := w.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("by count %v, step %d: the ConcurrentWindow's encoding differs from the Window's", byCount, i)
			}
			var buf bytes.Buffer
			if n, err := c.WriteTo(&buf); err != nil || n != int64(len(want)) || !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("by count %v, step %d: WriteTo wrote %d bytes (%v), not MarshalBinary's", byCount, i, n, err)
			}
			if app, err := c.AppendBinary([]byte("x")); err != nil || !bytes.Equal(app, append([]byte("x"), want...)) {
				t.Fatalf("by count %v, step %d: AppendBinary: %v", byCount, i, err)
			}
			if i == 999 { // resume two copies and drive all three on
				c1, err := ConcurrentWindowFromBytes(got, opts...)
				if err != nil {
					t.Fatal(err)
				}
				c2, err := ReadConcurrentWindow(bytes.NewReader(got), opts...)
				if err != nil {
					t.Fatal(err)
				}
				for j := range 600 {
					step(i+1+j, c, c1, c2)
				}
				again, _ := c1.MarshalBinary()
				if now, _ := w.MarshalBinary(); !bytes.Equal(again, now) {
					t.Fatalf("by count %v: a resumed ConcurrentWindow's encoding differs from the Window's", byCount)
				}
				c1.Close()
				c2.Close()
			}
		}
	}
}

// TestConcurrentWindowSaveWhileAdding: snapshots taken while other
// goroutines add hold every key whose add returned before the snapshot
// began (run it with -race).
func TestConcurrentWindowSaveWhileAdding(t *testing.T) {
	c, err := NewConcurrentWindow(200_000, 0.01, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const writers = 2
	var done [writers]atomic.Uint64 // keys 1..done[w] of writer w are added
	halt := edgetest.Until(writers, func(wr int, i uint64) bool {
		if i++; i >= 50_000 {
			return false
		}
		c.AddUint64(uint64(wr)<<32 | i)
		done[wr].Store(i)
		return true
	})
	defer halt()
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	for r := range rounds {
		var before [writers]uint64
		for wr := range writers {
			before[wr] = done[wr].Load()
		}
		b, err := c.MarshalBinary()
		var w *Window
		if err == nil {
			w, err = WindowFromBytes(b)
		}
		if err != nil {
			t.Fatal(err)
		}
		for wr := range writers {
			for i := uint64(1); i <= before[wr]; i++ {
				if !w.ContainsUint64(uint64(wr)<<32 | i) {
					t.Fatalf("snapshot %d: writer %d's key %d, added before the snapshot began, is missing", r, wr, i)
				}
			}
		}
		w.Close()
	}
	halt()
	c.Close()
	if _, err := c.MarshalBinary(); !errors.Is(err, ErrClosed) {
		t.Errorf("MarshalBinary of a closed window: %v, want ErrClosed", err)
	}
	if _, err := c.WriteTo(&bytes.Buffer{}); !errors.Is(err, ErrClosed) {
		t.Errorf("WriteTo of a closed window: %v, want ErrClosed", err)
	}
}

// TestConcurrentWindowSaveWhileRotating: snapshots of a window by count
// whose slices end every 50 adds, taken while two goroutines add and
// rotate it, decode as a Window and as a ConcurrentWindow (the adds saved
// for the current slice never exceed the slice, which the decoder checks),
// and a resumed one takes adds and finds them (run it with -race). Which
// keys a snapshot holds is not checked here: by count, the other
// goroutine's adds move the window on, so even the latest add of one
// goroutine may have left it.
func TestConcurrentWindowSaveWhileRotating(t *testing.T) {
	c, err := NewConcurrentWindow(1000, 0.01, 0, WithSliceKeys(50))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	defer edgetest.Until(2, func(wr int, i uint64) bool {
		c.AddNewUint64(uint64(wr)<<32 | (i + 1))
		return true
	})()
	rounds := 300
	if testing.Short() {
		rounds = 50
	}
	for range rounds {
		b, err := c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		w, err := WindowFromBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		cw, err := ConcurrentWindowFromBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		if cw.AddUint64(1 << 63); !cw.ContainsUint64(1 << 63) {
			t.Fatal("a resumed window did not take a new key")
		}
		cw.Close()
	}
}
