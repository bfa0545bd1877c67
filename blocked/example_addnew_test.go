package blocked_test

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/sift-go/sift/blocked"
)

// De-duplicating a stream: print each line the first time it is seen. A
// false positive drops a new line (at most about 1% of new lines here);
// a repeated line is never printed twice.
func ExampleFilter_AddNewString() {
	seen, err := blocked.New(1_000_000, 0.01)
	if err != nil {
		panic(err)
	}
	defer seen.Close()
	for _, line := range []string{"GET /a", "GET /b", "GET /a", "GET /c", "GET /b"} {
		if seen.AddNewString(line) {
			fmt.Println(line)
		}
	}
	// Output:
	// GET /a
	// GET /b
	// GET /c
}

// The batch form answers as one-at-a-time calls in order would, so a hash
// repeated inside the batch is new once.
func ExampleFilter_AddNewHashes() {
	f, _ := blocked.New(1000, 0.001)
	keys := []string{"x", "y", "x", "z", "y"}
	hs := make([]uint64, len(keys))
	for i, k := range keys {
		hs[i] = f.HashString(k)
	}
	out := make([]bool, len(hs))
	fmt.Println(f.AddNewHashes(hs, out), out)
	// Output:
	// 3 [true true false true false]
}

// Many goroutines de-duplicating into one Concurrent: every key is
// reported new by at least one of them, and by none once an add of it has
// returned. More than one report for a key happens only when racing
// goroutines each set a different one of its bits at the same moment.
func ExampleConcurrent_AddNewUint64() {
	c, _ := blocked.NewConcurrent(10_000, 0.001)
	var firsts atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for x := range uint64(100) {
				if c.AddNewUint64(x) {
					firsts.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	fmt.Println(firsts.Load() >= 100, c.AddNewUint64(7))
	// Output:
	// true false
}
