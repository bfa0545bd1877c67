package blocked

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// goroutineCounts returns 1, 2, 4, ... up to GOMAXPROCS (and GOMAXPROCS
// itself).
func goroutineCounts() []int {
	var gs []int
	p := runtime.GOMAXPROCS(0)
	for g := 1; g < p; g *= 2 {
		gs = append(gs, g)
	}
	return append(gs, p)
}

// inParallel runs f(i, part) on g goroutines, part being the i-th of g
// equal slices of hs, and waits for them.
func inParallel(g int, hs []uint64, f func(part []uint64)) {
	var wg sync.WaitGroup
	for i := range g {
		part := hs[i*len(hs)/g : (i+1)*len(hs)/g]
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(part)
		}()
	}
	wg.Wait()
}

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
		for _, g := range goroutineCounts() {
			b.Run(fmt.Sprintf("n=%.0e/op=add/goroutines=%d", float64(n), g), func(b *testing.B) {
				for b.Loop() {
					c.Reset()
					inParallel(g, hs, c.AddHashes)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(hs)), "ns/key")
			})
		}
		c.AddHashes(hs)
		for _, g := range goroutineCounts() {
			b.Run(fmt.Sprintf("n=%.0e/op=contains/goroutines=%d", float64(n), g), func(b *testing.B) {
				for b.Loop() {
					inParallel(g, hs, func(part []uint64) {
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
