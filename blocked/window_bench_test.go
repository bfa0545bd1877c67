package blocked

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkWindowContains compares lookups of a Window (G generations, 1%,
// n keys per window, filled at a steady rate over the window) with those of
// a Filter of the same total size holding the same keys: single-key
// (ContainsHash) and batch (ContainsHashes, 1024 keys a call). The queries
// are random hashes, almost all absent, the Window's worst case: every live
// generation is probed. impl=window reads a simulated clock, which costs
// nothing, so it measures the probes; impl=window-now reads time.Now, as a
// Window does by default, once per ContainsHash and once per batch.
func BenchmarkWindowContains(b *testing.B) {
	for _, n := range []uint64{1e6, 1e7} {
		for _, g := range []int{2, 4} {
			benchWindowContains(b, n, g)
		}
	}
}

func benchWindowContains(b *testing.B, n uint64, g int) {
	clk := newSimClock()
	w, err := NewWindow(n, 0.01, time.Hour, WithClock(clk.Now), WithGenerations(g))
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	f, err := NewWithSize(w.Blocks()*BlockBits, w.K())
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	step := w.Window() / time.Duration(n)
	for range n {
		clk.now = clk.now.Add(step)
		h := rng.Uint64()
		w.AddHash(h)
		f.AddHash(h)
	}
	qs := make([]uint64, 1<<16)
	for i := range qs {
		qs[i] = rng.Uint64()
	}
	out := make([]bool, 1024)
	for _, impl := range []string{"window", "window-now", "filter"} {
		contains := w.ContainsHash
		containsHashes := w.ContainsHashes
		switch impl {
		case "filter":
			contains = f.ContainsHash
			containsHashes = f.ContainsHashes
		case "window-now":
			// Serve with the real clock, inside the current slice.
			w.clock = time.Now
			w.start = time.Now().UnixNano()
		}
		name := fmt.Sprintf("n=%.0e/G=%d/impl=%s", float64(n), g, impl)
		b.Run(name+"/op=ContainsHash", func(b *testing.B) {
			i := 0
			for b.Loop() {
				contains(qs[i&(len(qs)-1)])
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i), "ns/key")
		})
		b.Run(name+"/op=ContainsHashes", func(b *testing.B) {
			i, keys := 0, 0
			for b.Loop() {
				j := i & (len(qs)/len(out) - 1) * len(out)
				containsHashes(qs[j:j+len(out)], out)
				i++
				keys += len(out)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(keys), "ns/key")
		})
	}
}
