package sbbf_test

import (
	"fmt"

	"github.com/sift-go/sift/sbbf"
)

// A loop of lookups that inlines the probe where the build offers it
// (GOEXPERIMENT=simd on amd64 with AVX2) and calls ContainsHash elsewhere;
// both loops give the same answers.
func ExampleFilter_Probe() {
	f, err := sbbf.New(1000, 0.01)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	for i := range int64(100) {
		f.AddInt64(i)
	}
	found := 0
	if p, ok := f.Probe(); ok {
		for i := range int64(200) {
			if p.ContainsHash(sbbf.HashInt64(i)) {
				found++
			}
		}
	} else {
		for i := range int64(200) {
			if f.ContainsHash(sbbf.HashInt64(i)) {
				found++
			}
		}
	}
	fmt.Println(found >= 100)
	// Output: true
}
