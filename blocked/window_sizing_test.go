package blocked

import (
	"math"
	"testing"
)

// TestLaneModelMatchesBlock checks the lane model against the block model
// it generalizes: at eight words a lane (a 512-bit block) laneMoments must
// give blockMoments' rate and square for every k and a range of loads,
// and at two and four words it must agree with a direct computation of
// the rate (every word's c probes all finding set bits, no collision
// term) where the probes cannot coincide (one probe a word).
func TestLaneModelMatchesBlock(t *testing.T) {
	for k := 1; k <= MaxK; k++ {
		ones, twos := wordsByProbes(k)
		for _, load := range []float64{0, 1, 3, 7.5, 20, 60} {
			hit, sq := laneMoments(load, k, 8)
			wantHit, wantSq := blockMoments(load, ones, twos)
			if math.Abs(hit-wantHit) > 1e-12*math.Max(wantHit, 1e-300)+1e-300 || math.Abs(sq-wantSq) > 1e-9*wantSq+1e-300 {
				t.Fatalf("k=%d load %g: lane model %g / %g, block model %g / %g", k, load, hit, sq, wantHit, wantSq)
			}
		}
	}
	// One probe a word (k <= w): the word's bit is set after load draws
	// with 1-(63/64)^load, and the words are independent.
	for _, w := range []int{2, 4} {
		for k := 1; k <= w; k++ {
			for _, load := range []float64{1, 10, 40} {
				hit, _ := laneMoments(load, k, w)
				want := math.Pow(1-math.Pow(63.0/64, load), float64(k))
				collide := -math.Expm1(load * math.Log1p(-0x1p-32))
				want += (1 - want) * collide
				if math.Abs(hit-want) > 1e-12 {
					t.Fatalf("w=%d k=%d load %g: %g, want %g", w, k, load, hit, want)
				}
			}
		}
	}
}
