package blocked

import (
	"math"

	"github.com/sift-go/sift/internal/bloommath"
	"github.com/sift-go/sift/internal/kernel"
)

// The Window's sizing model. A generation of a Window is a blocked filter
// whose blocks are lanes of w = 8/kernel.WindowLanes(G) words (4 words, 256
// bits, at G = 2; 2 words, 128 bits, above): probe j of a key goes to word
// j mod w of its lane, so a word receives floor(k/w) or ceil(k/w) probes
// from each key, up to 8, where a 512-bit block's words receive one or two.
// The model is the block model of sizing.go with c probes a word for any c:
// P(d distinct among m) for m up to 16 by the recurrence of drawing one
// position after another, and P(d given bits set) by inclusion-exclusion
// over up to 16 terms (the float error, about 1e-12 of the largest
// binomial, is far below the rates sized for). TestLaneModelMatchesBlock
// checks that at w = 8 it gives the block model's values.

// maxLaneM is the most query positions one word's moment needs: 2c for the
// square, c up to MaxK/2 = 8 at two-word lanes.
const maxLaneM = 2 * MaxK / 2

// distinctLane[m][d] is P(d distinct among m uniform draws from 64).
var distinctLane = func() (t [maxLaneM + 1][maxLaneM + 1]float64) {
	t[0][0] = 1
	for m := 1; m <= maxLaneM; m++ {
		for d := 1; d <= m; d++ {
			// The m-th draw repeats one of d positions, or is new.
			t[m][d] = t[m-1][d]*float64(d)/64 + t[m-1][d-1]*float64(64-d+1)/64
		}
	}
	return t
}()

// laneWordMoment is the chance that m query positions in a word all find
// set bits after draws uniform draws into it.
func laneWordMoment(draws float64, m int) float64 {
	var pw [maxLaneM + 1]float64
	for i := 0; i <= m; i++ {
		pw[i] = math.Exp(draws * math.Log1p(-float64(i)/64))
	}
	s := 0.0
	for d := 1; d <= m; d++ {
		set, sign, binom := 0.0, 1.0, 1.0
		for i := 0; i <= d; i++ {
			set += sign * binom * pw[i]
			sign = -sign
			binom = binom * float64(d-i) / float64(i+1)
		}
		s += distinctLane[m][d] * max(set, 0)
	}
	return s
}

// laneMoments is blockMoments for a lane of w words: the chance that an
// absent key is a false positive in a lane holding load other keys (with
// the 32-bit hash-collision term) and the expected square of the lane's
// rate.
func laneMoments(load float64, k, w int) (hit, sq float64) {
	c, extra := k/w, k%w
	p, sq := 1.0, 1.0
	for _, cls := range [2]struct{ probes, words int }{{c, w - extra}, {c + 1, extra}} {
		if cls.probes == 0 || cls.words == 0 {
			continue
		}
		draws := float64(cls.probes) * load
		p *= math.Pow(laneWordMoment(draws, cls.probes), float64(cls.words))
		sq *= math.Pow(laneWordMoment(draws, 2*cls.probes), float64(cls.words))
	}
	collide := bloommath.Collision(load)
	return p + (1-p)*collide, sq
}

// laneBound is fprBound for a generation of lanes lanes of w words: the
// expected rate after n keys plus bloommath.Sigmas standard deviations.
// memo, if not nil, remembers laneMoments by load for this k and w.
func laneBound(lanes uint64, k, w int, n uint64, memo map[uint64][2]float64) float64 {
	mean, sq := bloommath.LoadMoments(lanes, n, func(load uint64) (float64, float64) {
		if v, ok := memo[load]; ok {
			return v[0], v[1]
		}
		hit, sq := laneMoments(float64(load), k, w)
		if memo != nil {
			memo[load] = [2]float64{hit, sq}
		}
		return hit, sq
	})
	variance := max(0, sq-mean*mean) / float64(lanes)
	return mean + bloommath.Sigmas*math.Sqrt(variance)
}

// WindowFalsePositiveRate returns the expected false-positive rate of one
// generation of a Window of g generations in groups groups (each giving
// the generation one lane) with k probes after n distinct keys were added
// to it: the rate sizing holds each generation to. A lookup of the whole
// window probes every live generation, so its rate is 1-(1-r)^live. It is
// NaN for g not a power of two in 2..MaxGenerations, k outside 1..MaxK or
// groups 0, and 0 for n = 0.
func WindowFalsePositiveRate(groups uint64, k, g int, n uint64) float64 {
	if !kernel.ValidGenerations(g) || k < 1 || k > MaxK || groups == 0 {
		return math.NaN()
	}
	mean, _ := bloommath.LoadMoments(groups, n, func(load uint64) (float64, float64) {
		return laneMoments(float64(load), k, kernel.LaneWords(g))
	})
	return mean
}

// windowGroups returns the least number of groups, and its k, for which a
// generation of lanes of g generations holds n keys within the rate p (the
// expected rate plus the margin, as New sizes a Filter); limit bounds the
// groups.
func windowGroups(n uint64, p float64, g int, limit uint64) (groups uint64, k int, err error) {
	n, w := max(n, 1), kernel.LaneWords(g)
	return searchK(n, p, limit, float64(64*w), " a generation", "groups", func(k int) func(uint64) float64 {
		memo := map[uint64][2]float64{}
		return func(lanes uint64) float64 { return laneBound(lanes, k, w, n, memo) }
	})
}
