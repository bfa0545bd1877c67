package race_test

import (
	"testing"

	"github.com/sift-go/sift/internal/race"
)

// TestClear: Clear zeroes every element, of any element type, and
// accepts an empty or nil slice.
func TestClear(t *testing.T) {
	w := []uint64{1, 2, 3}
	race.Clear(w)
	b := []bool{true, true}
	race.Clear(b)
	type block [8]uint64
	bl := []block{{1, 2}, {3}}
	race.Clear(bl)
	race.Clear([]int(nil))
	race.Clear([]int{})
	if w[0]|w[1]|w[2] != 0 || b[0] || b[1] || bl[0] != (block{}) || bl[1] != (block{}) {
		t.Fatalf("not cleared: %v %v %v", w, b, bl)
	}
}
