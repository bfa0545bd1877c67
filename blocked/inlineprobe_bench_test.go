package blocked

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkProbe compares a loop of Probe.ContainsHash (inlined, in a
// GOEXPERIMENT=simd build) with a loop of Filter.ContainsHash (one
// assembly call a key) over the same queries, half present, at 1%:
//
//	GOEXPERIMENT=simd go test -run '^$' -bench Probe -count 8 ./blocked
//
// Without the experiment Probe is not offered and op=Probe is skipped.
func BenchmarkProbe(b *testing.B) {
	for _, n := range []int{1e5, 1e6} {
		f, err := New(uint64(n), 0.01)
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, 6))
		qs := make([]uint64, 1<<16)
		for i := range n {
			h := rng.Uint64()
			f.AddHash(h)
			if i < len(qs)/2 {
				qs[2*i] = h
			}
		}
		for i := 1; i < len(qs); i += 2 {
			qs[i] = rng.Uint64()
		}
		b.Run(fmt.Sprintf("n=%.0e/op=ContainsHash", float64(n)), func(b *testing.B) {
			found := 0
			for b.Loop() {
				for _, h := range qs {
					if f.ContainsHash(h) {
						found++
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(qs)), "ns/key")
		})
		b.Run(fmt.Sprintf("n=%.0e/op=Probe", float64(n)), func(b *testing.B) {
			p, ok := f.Probe()
			if !ok {
				b.Skip("Probe not offered: build with GOEXPERIMENT=simd on amd64 with AVX2")
			}
			found := 0
			for b.Loop() {
				for _, h := range qs {
					if p.ContainsHash(h) {
						found++
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(qs)), "ns/key")
		})
		f.Close()
	}
}
