package edgetest

import (
	"runtime"
	"sync"
)

// GoroutineCounts returns 1, 2, 4, ... below GOMAXPROCS, then GOMAXPROCS:
// the goroutine counts of the Concurrent scaling benchmarks.
func GoroutineCounts() []int {
	var gs []int
	p := runtime.GOMAXPROCS(0)
	for g := 1; g < p; g *= 2 {
		gs = append(gs, g)
	}
	return append(gs, p)
}

// InParallel runs f on g goroutines, each with the i-th of g equal slices
// of hs, and waits for them.
func InParallel(g int, hs []uint64, f func(part []uint64)) {
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
