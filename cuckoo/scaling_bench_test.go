package cuckoo

import (
	"fmt"
	"testing"

	"github.com/sift-go/sift/internal/edgetest"
)

// BenchmarkConcurrentScaling measures Concurrent's adds (to 90% load, where
// relocation chains, which take the exclusive lock, are common) and
// lookups with 1, 2, 4, ... GOMAXPROCS goroutines splitting the same keys:
// ns/key is wall time over all keys, so perfect scaling halves it with each
// doubling. Capacity 1e6 (2 MB of 16-bit fingerprints) and 1e7.
//
//	go test -run '^$' -bench ConcurrentScaling -benchtime 20x ./cuckoo
func BenchmarkConcurrentScaling(b *testing.B) {
	for _, n := range []uint64{1e6, 1e7} {
		c, err := NewConcurrent(n)
		if err != nil {
			b.Fatal(err)
		}
		hs := make([]uint64, n*90/100)
		for i := range hs {
			hs[i] = c.f.HashUint64(uint64(i))
		}
		for _, g := range edgetest.GoroutineCounts() {
			b.Run(fmt.Sprintf("n=%.0e/op=add/goroutines=%d", float64(n), g), func(b *testing.B) {
				for b.Loop() {
					c.Reset()
					edgetest.InParallel(g, hs, func(part []uint64) {
						for _, h := range part {
							if err := c.AddHash(h); err != nil {
								panic(err)
							}
						}
					})
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(hs)), "ns/key")
			})
		}
		for _, g := range edgetest.GoroutineCounts() {
			b.Run(fmt.Sprintf("n=%.0e/op=contains/goroutines=%d", float64(n), g), func(b *testing.B) {
				for b.Loop() {
					edgetest.InParallel(g, hs, func(part []uint64) {
						for _, h := range part {
							if !c.ContainsHash(h) {
								panic("false negative")
							}
						}
					})
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(hs)), "ns/key")
			})
		}
		c.Close()
	}
}
