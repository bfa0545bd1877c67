package bench_test

import (
	"fmt"

	"github.com/sift-go/sift/bench"
)

// Build one library's filter through its adapter, fill it with the
// deterministic key set, and measure its false-positive rate and size.
func Example() {
	spec, _ := bench.Lookup("bits-and-blooms")
	f, err := spec.New(10000, 0.01)
	if err != nil {
		panic(err)
	}
	present, absent := bench.MakeKeys(10000, bench.Present), bench.MakeKeys(100000, bench.Absent)
	if err := f.Insert(present); err != nil {
		panic(err)
	}
	fmt.Println("input:", spec.Input)
	fmt.Println("all present keys found:", f.CountContains(present, 0, present.Len()) == present.Len())
	fmt.Printf("%.2f bits/key\n", bench.BitsPerKey(f, present.Len()))
	fmt.Println("FPR near 1%:", bench.MeasureFPR(f, absent) < 0.012)
	// Output:
	// input: bytes
	// all present keys found: true
	// 9.59 bits/key
	// FPR near 1%: true
}

// The memory probe's prefetching assembly reads exactly what the plain Go
// loop reads.
func ExampleProbe() {
	p := bench.NewProbe(1 << 20)
	defer p.Free()
	hs := bench.MakeKeys(1000, bench.Absent).Hashes
	fmt.Println(p.Bytes(), p.ProbePrefetch(hs, 128) == p.ProbeRandom(hs))
	// Output: 1048576 true
}
