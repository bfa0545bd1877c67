package blocked_test

import (
	"fmt"

	"github.com/sift-go/sift/blocked"
)

// A loop of lookups that inlines the probe where the build offers it
// (GOEXPERIMENT=simd on amd64 with AVX2) and calls ContainsHash elsewhere;
// both loops give the same answers.
func ExampleFilter_Probe() {
	f, err := blocked.New(1000, 0.01)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	for i := range 100 {
		f.AddUint64(uint64(i))
	}
	hs := make([]uint64, 200)
	for i := range hs {
		hs[i] = f.HashUint64(uint64(i))
	}
	found := 0
	if p, ok := f.Probe(); ok {
		for _, h := range hs {
			if p.ContainsHash(h) {
				found++
			}
		}
	} else {
		for _, h := range hs {
			if f.ContainsHash(h) {
				found++
			}
		}
	}
	fmt.Println(found >= 100)
	// Output: true
}
