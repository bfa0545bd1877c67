package clock_test

import (
	"fmt"

	"github.com/sift-go/sift/internal/clock"
)

func ExampleSteady() {
	start := clock.Steady()
	// ... the work to time ...
	fmt.Println(clock.Steady().Sub(start) >= 0)
	// Output: true
}
