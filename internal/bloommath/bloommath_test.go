package bloommath

import (
	"math"
	"testing"
)

// TestLogChoose compares both of logChoose's branches with the log of
// exactly computed binomial coefficients and with each other.
func TestLogChoose(t *testing.T) {
	for _, c := range []struct {
		n, m uint64
		want float64
	}{
		{0, 0, 0}, {5, 0, 0}, {5, 5, 0}, {5, 2, math.Log(10)}, {52, 5, math.Log(2598960)},
		{100, 50, math.Log(1.0089134454556419e29)},
	} {
		if got := logChoose(c.n, c.m); math.Abs(got-c.want) > 1e-12*math.Max(1, c.want) {
			t.Errorf("logChoose(%d, %d) = %v, want %v", c.n, c.m, got, c.want)
		}
	}
	// Past 2^16 the lgamma form takes over; it must agree with the sum.
	n, m := uint64(1<<20), uint64(1<<16+1)
	sum := 0.0
	for i := uint64(0); i < m; i++ {
		sum += math.Log(float64(n-i)) - math.Log(float64(i+1))
	}
	if got := logChoose(n, m); math.Abs(got-sum) > 1e-9*sum {
		t.Errorf("logChoose(%d, %d) = %v, want %v", n, m, got, sum)
	}
}

// TestLoadMoments checks the binomial average against a direct sum of the
// binomial distribution, for a rate linear in the load (whose mean is
// known in closed form) and a saturating one.
func TestLoadMoments(t *testing.T) {
	for _, c := range []struct{ blocks, n uint64 }{{1, 10}, {2, 7}, {10, 100}, {100, 3000}} {
		at := func(load uint64) (float64, float64) {
			h := 1 - math.Exp(-float64(load)/8)
			return h, h * h
		}
		mean, sq := LoadMoments(c.blocks, c.n, at)
		var wantMean, wantSq float64
		p := 1 / float64(c.blocks)
		for l := uint64(0); l <= c.n; l++ {
			w := math.Exp(logChoose(c.n, l) + float64(l)*math.Log(p) + float64(c.n-l)*math.Log1p(-p))
			if c.blocks == 1 {
				w = 0
				if l == c.n {
					w = 1
				}
			}
			h, s := at(l)
			wantMean += w * h
			wantSq += w * s
		}
		if math.Abs(mean-wantMean) > 1e-12 || math.Abs(sq-wantSq) > 1e-12 {
			t.Errorf("blocks=%d n=%d: %v %v, want %v %v", c.blocks, c.n, mean, sq, wantMean, wantSq)
		}
	}
	if m, s := LoadMoments(10, 0, nil); m != 0 || s != 0 {
		t.Errorf("n = 0: %v %v", m, s)
	}
	// Far past saturation the answer is 1 without summing.
	if m, s := LoadMoments(2, 1e12, func(uint64) (float64, float64) { t.Fatal("summed"); return 0, 0 }); m != 1 || s != 1 {
		t.Errorf("saturated: %v %v, want 1 1", m, s)
	}
}

// TestLeastBlocksBy checks the bracket search against a linear scan for
// bounds of every shape around the start.
func TestLeastBlocksBy(t *testing.T) {
	for _, need := range []uint64{1, 2, 3, 7, 64, 65, 1000, 4095, 4096} {
		bound := func(blocks uint64) float64 { return float64(need) / float64(blocks) }
		for _, start := range []uint64{1, 2, 5, 100, 5000} {
			if got := LeastBlocksBy(1, start, 4096, bound); got != need {
				t.Errorf("need %d start %d: got %d", need, start, got)
			}
		}
	}
	if got := LeastBlocksBy(1, 10, 100, func(b uint64) float64 { return 200 / float64(b) }); got != 0 {
		t.Errorf("beyond the limit: got %d, want 0", got)
	}
}

func TestRoundCount(t *testing.T) {
	for _, c := range []struct {
		e    float64
		want uint64
	}{{0, 0}, {1.4, 1}, {1.5, 2}, {math.Inf(1), math.MaxUint64}, {1e30, math.MaxUint64}} {
		if got := RoundCount(c.e); got != c.want {
			t.Errorf("RoundCount(%v) = %d, want %d", c.e, got, c.want)
		}
	}
}

func TestCollision(t *testing.T) {
	for _, c := range []struct{ load, want float64 }{
		{0, 0},
		{1, 0x1p-32},
		{1000, 1000 * 0x1p-32 * (1 - 999*0x1p-33)}, // the binomial series' first two terms
		{0x1p32, 1 - 1/math.E},
	} {
		if got := Collision(c.load); math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("Collision(%v) = %v, want %v", c.load, got, c.want)
		}
	}
}
