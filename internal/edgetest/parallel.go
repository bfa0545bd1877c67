package edgetest

import (
	"runtime"
	"sync"
	"sync/atomic"
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

// Until runs f(g, i) for i = 0, 1, 2, ... on each of n goroutines (g = 0
// to n-1), until f returns false or stop is called: the writers a test
// runs beside the reads it checks. stop waits for the goroutines; it may
// be called more than once (deferred, and before a t.Fatal).
func Until(n int, f func(g int, i uint64) bool) (stop func()) {
	var halt atomic.Bool
	var wg sync.WaitGroup
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := uint64(0); !halt.Load() && f(g, i); i++ {
			}
		}()
	}
	return sync.OnceFunc(func() { halt.Store(true); wg.Wait() })
}
