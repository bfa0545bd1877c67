package bloommath_test

import (
	"fmt"
	"math"

	"github.com/sift-go/sift/internal/bloommath"
)

// A toy block design: a key sets one of a block's 64 bits, and an absent
// key is a false positive when its bit is set. LoadMoments averages that
// rate over the binomial load of 10,000 keys in 1,000 blocks, and
// LeastBlocksBy finds the least block count that keeps the expected rate
// plus Sigmas standard deviations under 10%.
func Example() {
	at := func(load uint64) (hit, sq float64) {
		h := -math.Expm1(float64(load) * math.Log1p(-1.0/64))
		return h, h * h
	}
	mean, _ := bloommath.LoadMoments(1000, 10_000, at)
	fmt.Printf("expected rate %.4f\n", mean)
	bound := func(blocks uint64) float64 {
		mean, sq := bloommath.LoadMoments(blocks, 10_000, at)
		return mean + bloommath.Sigmas*math.Sqrt(max(0, sq-mean*mean)/float64(blocks))
	}
	fmt.Println("blocks for 10%:", bloommath.LeastBlocksBy(0.1, 1000, 1<<20, bound))
	// Output:
	// expected rate 0.1447
	// blocks for 10%: 1528
}
