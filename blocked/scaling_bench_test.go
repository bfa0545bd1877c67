package blocked

import (
	"fmt"
	"testing"

	"github.com/sift-go/sift/internal/edgetest"
)

// BenchmarkConcurrentScaling measures Concurrent's adds and lookups with 1,
// 2, 4, ... GOMAXPROCS goroutines splitting the same keys: ns/key is wall
// time over all keys, so perfect scaling halves it with each doubling.
// n = 1e6 (1.2 MB, in cache) and 1e7 (12 MB, beyond most L2s).
//
//	go test -run '^$' -bench ConcurrentScaling -benchtime 20x ./blocked
func BenchmarkConcurrentScaling(b *testing.B) {
	for _, n := range []uint64{1e6, 1e7} {
		c, err := NewConcurrent(n, 0.01)
		if err != nil {
			b.Fatal(err)
		}
		hs := hashes(int(n), 7)
		for _, g := range edgetest.GoroutineCounts() {
			b.Run(fmt.Sprintf("n=%.0e/op=add/goroutines=%d", float64(n), g), func(b *testing.B) {
				for b.Loop() {
					c.Reset()
					edgetest.InParallel(g, hs, c.AddHashes)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(hs)), "ns/key")
			})
		}
		c.AddHashes(hs)
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
