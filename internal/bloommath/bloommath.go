// Package bloommath is the block-load model that the blocked Bloom filter
// (package blocked) and Parquet's split-block filter (package sbbf) share:
// both put each key's bits in one block chosen uniformly from the key's
// hash, so the number of other keys in the block an absent key lands in is
// binomial, and a filter's expected false-positive rate is the average of
// the block's rate over that load. Each filter supplies its block's rate as
// a function of the load (its in-block model); this package averages it
// (LoadMoments), finds the least block count that meets a bound
// (LeastBlocksBy), and rounds the key-count estimates both invert from a
// filter's fill (RoundCount). DESIGN.md §4 describes both designs.
package bloommath

import "math"

// Sigmas is how many standard deviations of the rate across filters the
// constructors keep below the requested rate: the bound a filter is sized
// to is the expected rate plus Sigmas times the spread of a filter's
// actual rate (from LoadMoments' second moment) around it.
const Sigmas = 3

// Collision returns the chance that an absent key's 32 in-block hash bits
// equal those of at least one of load keys stored in its block, which makes
// every probe match whatever the design: 1 - (1 - 2^-32)^load. Both
// designs add it to their block's rate (hit + (1-hit)*Collision(load)).
func Collision(load float64) float64 {
	return -math.Expm1(load * math.Log1p(-0x1p-32))
}

// LoadMoments averages a block's false-positive rate (hit) and its square
// (sq), given by at as functions of the number of keys in the block, over
// the binomial load of the block an absent key lands in: n keys over
// blocks blocks. at must be increasing in the load (every design here is),
// and its rate must be 1, to float64 precision, from a load of 4096 on.
func LoadMoments(blocks, n uint64, at func(load uint64) (hit, sq float64)) (mean, sq float64) {
	if n == 0 {
		return 0, 0
	}
	if blocks == 1 {
		return at(n)
	}
	// Binomial(n, p) load, p = 1/blocks, summed outward from the mode.
	p := 1 / float64(blocks)
	nf := float64(n)
	// From about 2500 keys per block every probed bit is set to within
	// float64 precision (1 - e^(-load/64) rounds to 1). When practically all
	// the probability lies beyond that, the rate is 1, and summing the
	// O(sqrt(load)) terms of a huge load would only cost time.
	if lambda := nf * p; lambda-40*math.Sqrt(lambda) > 4096 {
		return 1, 1
	}
	logp, logq := math.Log(p), math.Log1p(-p)
	mode := uint64(math.Floor((nf + 1) * p))
	if mode > n {
		mode = n
	}
	logMode := logChoose(n, mode) + float64(mode)*logp + (nf-float64(mode))*logq
	logOdds := logp - logq
	add := func(logPMF float64, load uint64) float64 {
		w := math.Exp(logPMF)
		h, s := at(load)
		mean += w * h
		sq += w * s
		return w * h
	}
	add(logMode, mode)
	// Upward: the rate is at most 1, so the rest of the tail is bounded by
	// the remaining probability mass, which shrinks geometrically past the
	// mode; stop when it can no longer move the sum by 1e-13 relative.
	lp := logMode
	for l := mode; l < n; l++ {
		lp += math.Log(float64(n-l)/float64(l+1)) + logOdds
		add(lp, l+1)
		ratio := float64(n-l-1) / float64(l+2) * p / (1 - p)
		if ratio < 1 && math.Exp(lp)/(1-ratio) <= 1e-13*mean {
			break
		}
	}
	// Downward: the rate increases with the load, so each further term is
	// at most the current one times a shrinking ratio.
	lp = logMode
	for l := mode; l > 0; l-- {
		lp += math.Log(float64(l)/float64(n-l+1)) - logOdds
		term := add(lp, l-1)
		ratio := float64(l-1) / float64(n-l+2) / (p / (1 - p))
		if ratio < 1 && term/(1-ratio) <= 1e-13*mean {
			break
		}
	}
	return min(mean, 1), sq
}

// logChoose returns log C(n, m). For moderate m it sums logs, which stays
// exact where lgamma differences of huge arguments would cancel.
func logChoose(n, m uint64) float64 {
	if m > n-m {
		m = n - m
	}
	if m <= 1<<16 {
		lg, _ := math.Lgamma(float64(m) + 1)
		s := -lg
		for i := uint64(0); i < m; i++ {
			s += math.Log(float64(n - i))
		}
		return s
	}
	a, _ := math.Lgamma(float64(n) + 1)
	b, _ := math.Lgamma(float64(m) + 1)
	c, _ := math.Lgamma(float64(n-m) + 1)
	return a - b - c
}

// LeastBlocksBy returns the least block count, at most limit, whose
// bound(blocks) is at most fpp, or 0 if there is none; bound must
// decrease as blocks grow, and start is where the bracket search begins.
func LeastBlocksBy(fpp float64, start, limit uint64, bound func(blocks uint64) float64) uint64 {
	// Find lo < hi with bound(lo) > fpp (or lo = 0) and bound(hi) <= fpp.
	lo, hi := uint64(0), start
	if bound(hi) <= fpp {
		for hi > 1 && bound(hi/2) <= fpp {
			hi /= 2
		}
		lo = hi / 2
	} else {
		for {
			lo = hi
			if lo >= limit {
				return 0
			}
			hi = min(limit, 2*lo)
			if bound(hi) <= fpp {
				break
			}
		}
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if bound(mid) <= fpp {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// RoundCount rounds an estimated key count, math.MaxUint64 for a full
// filter's +Inf.
func RoundCount(e float64) uint64 {
	if e >= math.MaxUint64 {
		return math.MaxUint64
	}
	return uint64(math.Round(e))
}
