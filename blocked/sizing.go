package blocked

import (
	"math"
	"math/bits"

	"github.com/sift-go/sift/internal/bloommath"
	"github.com/sift-go/sift/internal/kernel"
)

// Size limits.
const (
	// MaxK is the largest number of probes per key.
	MaxK = kernel.MaxK
	// BlockBits is the size of a block, one 64-byte cache line, in bits.
	BlockBits = kernel.BlockBytes * 8
	// MaxBlocks is the largest block count: the block index is computed
	// from 32 bits of the hash.
	MaxBlocks = kernel.MaxBlocks
	// MaxBits is the largest filter, in bits: MaxBlocks blocks, 256 GiB.
	MaxBits = MaxBlocks * BlockBits
	// MinFPP is the lowest false-positive rate New and NewScalable accept.
	// Below it the chance that an absent key's 32-bit in-block hash equals a
	// stored key's (about the block's load / 2^32) dominates, and only
	// emptier blocks can lower it: 68 bits per key at 1e-8 (1.8 times the
	// classic optimum), 126 at 1e-9, 1,192 at 1e-10, 119,209 at 1e-12 (see
	// "Supported rates" in the package documentation). A classic Bloom
	// filter (package classic) serves lower rates.
	MinFPP = 1e-8
)

// maxPlatformBlocks is the most blocks this platform can address as a Go
// slice of uint64 words.
const maxPlatformBlocks = math.MaxInt / kernel.BlockBytes

// blockLimit is the largest block count a constructor accepts here. The
// sizing functions (OptimalSize, OptimalWindowSize) are arithmetic and
// size against MaxBlocks on every platform; a constructor on a 32-bit
// one refuses what its address space cannot hold (checkSize).
func blockLimit() uint64 { return min(uint64(MaxBlocks), uint64(maxPlatformBlocks)) }

// probe design constants: a probe lands on one of 64 bits of its word.
const (
	miss1 = 63.0 / 64 // a given bit survives one uniform probe
	miss2 = miss1 * miss1
)

// wordsByProbes returns how many of a block's 8 words receive one probe per
// key (ones) and how many receive two (twos): probe j goes to word j mod 8.
func wordsByProbes(k int) (ones, twos int) {
	if k <= kernel.BlockWords {
		return k, 0
	}
	twos = k - kernel.BlockWords
	return kernel.BlockWords - twos, twos
}

// The in-block model. Every probe position is uniform on a word's 64 bits
// and independent. For a word that receives c probes from each of the load
// keys in the block (c = 1 or 2, see wordsByProbes), the chance that m
// independent query positions all find set bits is
//
//	sum over d of P(d distinct among m) * P(d given bits all set after c*load draws)
//
// where P(d distinct among m) = S(m,d) 64!/(64-d)! / 64^m (S: Stirling
// numbers of the second kind) and, by inclusion-exclusion,
// P(d given bits set after D draws) = sum_i (-1)^i C(d,i) (1 - i/64)^D.
// A query puts m = c positions in the word; the square of a block's
// false-positive rate, used for the spread across filters, needs m = 2c.
// Words are independent given the load, so a block's value is the product
// over its words.

// distinct[m][d] is P(d distinct among m uniform draws from 64), m = 1, 2, 4.
var distinct = func() (t [5][5]float64) {
	stirling := [5][5]float64{1: {1: 1}, 2: {1: 1, 2: 1}, 4: {1: 1, 2: 7, 3: 6, 4: 1}}
	for _, m := range []int{1, 2, 4} {
		for d := 1; d <= m; d++ {
			falling := 1.0
			for i := 0; i < d; i++ {
				falling *= float64(64 - i)
			}
			t[m][d] = stirling[m][d] * falling / math.Pow(64, float64(m))
		}
	}
	return t
}()

// allSet returns, for d = 1..maxD, P(d given bits are all set after draws
// uniform draws), from pw[i] = (1 - i/64)^draws.
func allSet(pw *[5]float64, d int) float64 {
	binom := [5][5]float64{1: {1, 1}, 2: {1, 2, 1}, 3: {1, 3, 3, 1}, 4: {1, 4, 6, 4, 1}}
	s, sign := 0.0, 1.0
	for i := 0; i <= d; i++ {
		s += sign * binom[d][i] * pw[i]
		sign = -sign
	}
	return max(s, 0)
}

// wordMoment is the chance that m query positions in a word all find set
// bits after draws uniform draws into it.
func wordMoment(pw *[5]float64, m int) float64 {
	s := 0.0
	for d := 1; d <= m; d++ {
		s += distinct[m][d] * allSet(pw, d)
	}
	return s
}

// blockMoments returns, for a block holding load other keys, the chance
// that an absent key is a false positive (hit, with the hash-collision term:
// the key's 32-bit in-block hash equals a stored key's, so every probe
// matches) and the expected square of the block's false-positive rate over
// the randomness of the stored keys' bits (sq, without the collision term).
func blockMoments(load float64, ones, twos int) (hit, sq float64) {
	var pw1, pw2 [5]float64
	for i := range pw1 {
		l := math.Log1p(-float64(i) / 64)
		pw1[i] = math.Exp(load * l)
		pw2[i] = math.Exp(2 * load * l)
	}
	p := 1.0
	sq = 1.0
	if ones > 0 {
		p = math.Pow(wordMoment(&pw1, 1), float64(ones))
		sq = math.Pow(wordMoment(&pw1, 2), float64(ones))
	}
	if twos > 0 {
		p *= math.Pow(wordMoment(&pw2, 2), float64(twos))
		sq *= math.Pow(wordMoment(&pw2, 4), float64(twos))
	}
	collide := bloommath.Collision(load)
	return p + (1-p)*collide, sq
}

// FalsePositiveRate returns the expected false-positive rate of a filter of
// bits bits (rounded up to whole 512-bit blocks, as NewWithSize does) with k
// probes per key after n distinct keys have been added.
//
// It is exact for this package's probe design rather than the classic
// formula: the load of the block an absent key lands in is binomial
// (n keys over the blocks), computed in log space and summed over loads
// until the remaining terms cannot change the result; within the block,
// the words that receive one or two probes per key, and the query's own
// probes coinciding, are treated exactly (see the package documentation);
// and the chance that the key's 32-bit in-block hash collides with a stored
// key's is added. The result is 0 for n = 0 and NaN for k outside 1..MaxK
// or bits outside 1..MaxBits.
func FalsePositiveRate(bits uint64, k int, n uint64) float64 {
	if k < 1 || k > MaxK || bits == 0 || bits > MaxBits {
		return math.NaN()
	}
	mean, _ := fprMoments((bits+BlockBits-1)/BlockBits, k, n, nil)
	return mean
}

// fprBound is the rate New holds to fpp: the expected rate plus
// bloommath.Sigmas standard deviations of a filter's actual rate, which varies
// with how the keys happen to fall into blocks and bits. The blocks'
// rates are treated as independent (their loads are in fact slightly
// negatively correlated, which makes this a little conservative).
func fprBound(blocks uint64, k int, n uint64) float64 {
	return fprBoundCached(blocks, k, n, nil)
}

func fprBoundCached(blocks uint64, k int, n uint64, cache *momentCache) float64 {
	mean, sq := fprMoments(blocks, k, n, cache)
	variance := max(0, sq-mean*mean) / float64(blocks)
	return mean + bloommath.Sigmas*math.Sqrt(variance)
}

// momentCache remembers blockMoments by load for one k: the sizing search
// evaluates the same loads over and over.
type momentCache struct {
	hit, sq []float64 // by load; NaN where not computed yet
}

const cachedLoads = 1 << 10

func (c *momentCache) get(load uint64, ones, twos int) (float64, float64) {
	if c == nil || load >= cachedLoads {
		return blockMoments(float64(load), ones, twos)
	}
	if c.hit == nil {
		c.hit = make([]float64, cachedLoads)
		c.sq = make([]float64, cachedLoads)
		for i := range c.hit {
			c.hit[i] = math.NaN()
		}
	}
	if math.IsNaN(c.hit[load]) {
		c.hit[load], c.sq[load] = blockMoments(float64(load), ones, twos)
	}
	return c.hit[load], c.sq[load]
}

// fprMoments returns the expected false-positive rate of blocks blocks
// with k probes after n keys, and the expected square of a block's rate.
// cache, if not nil, must have been used only with this k.
func fprMoments(blocks uint64, k int, n uint64, cache *momentCache) (mean, sq float64) {
	ones, twos := wordsByProbes(k)
	return bloommath.LoadMoments(blocks, n, func(load uint64) (float64, float64) { return cache.get(load, ones, twos) })
}

// OptimalSize returns the smallest filter, in bits (a multiple of 512), and
// its k, that keeps the false-positive rate after n distinct keys at most
// fpp: for every k in 1..MaxK it binary-searches the least block count
// whose expected rate (FalsePositiveRate) plus three standard deviations of
// the rate across filters is at most fpp, and keeps the least memory (the
// smaller k on a tie, which is faster). The margin is what makes the bound
// hold for the filter one actually gets, not only on average: it is about
// 1% of the memory at a million keys and shrinks as filters grow. n = 0 is
// treated as 1. It returns ErrInvalidFPP for fpp outside (0, 1),
// ErrFPPTooLow for fpp below MinFPP, and ErrTooLarge when even MaxBits
// cannot meet the bound. The sizes are the same on every platform; on a
// 32-bit one New refuses those past its address space.
func OptimalSize(n uint64, fpp float64) (bits uint64, k int, err error) {
	blocks, k, err := optimalBlocks(n, fpp)
	return blocks * BlockBits, k, err
}

func optimalBlocks(n uint64, fpp float64) (blocks uint64, k int, err error) {
	if err := checkFPP(fpp); err != nil {
		return 0, 0, err
	}
	return searchBlocks(n, fpp)
}

// searchBlocks is optimalBlocks for any fpp in (0, 1), MinFPP aside (the
// sizing table's test shows what rates below it would cost).
func searchBlocks(n uint64, fpp float64) (blocks uint64, k int, err error) {
	n = max(n, 1)
	return searchK(n, fpp, MaxBlocks, BlockBits, "", "blocks", func(k int) func(uint64) float64 {
		cache := new(momentCache)
		return func(blocks uint64) float64 { return fprBoundCached(blocks, k, n, cache) }
	})
}

// searchK is the sizing search of a Filter (searchBlocks) and of a
// Window's generations (windowGroups): the least number of units (blocks
// of unitBits bits, or groups), at most limit, and its k, for which
// bound(k)(units) is at most fpp after n keys; bound(k) returns the bound
// for one k, with a cache of its own, for the same n, which the callers
// take as at least 1 (n = 0 would fit every k in one unit). what and unit
// name the sizing in ErrTooLarge's message.
func searchK(n uint64, fpp float64, limit uint64, unitBits float64, what, unit string, bound func(k int) func(units uint64) float64) (units uint64, k int, err error) {
	n = max(n, 1)
	// No approximate-membership structure can beat log2(1/fpp) bits per key.
	if float64(n)*-math.Log2(fpp) > float64(limit)*unitBits {
		return 0, 0, errorf(ErrTooLarge, "%d keys%s at a false-positive rate of %g need more than %d %s", n, what, fpp, limit, unit)
	}
	// The classic optimum is about what this design needs; it starts the
	// bracket so the binary search is short.
	start := uint64(min(float64(limit), math.Max(1, math.Ceil(float64(n)*-math.Log2(fpp)/math.Ln2/unitBits))))
	// Search k = 8 (one probe per word, usually best) fully; any other k
	// can only win if it meets the bound with fewer units (or as many, for
	// a smaller k), which one evaluation tells.
	best := uint64(0)
	for _, kk := range [MaxK]int{8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15, 16} {
		b := bound(kk)
		if best != 0 {
			try := best - 1
			if kk < k {
				try = best
			}
			if try == 0 || b(try) > fpp {
				continue
			}
			start = try
		}
		if u := bloommath.LeastBlocksBy(fpp, start, limit, b); u != 0 && (best == 0 || u < best || u == best && kk < k) {
			best, k = u, kk
		}
	}
	if best == 0 {
		return 0, 0, errorf(ErrTooLarge, "%d keys%s at a false-positive rate of %g need more than %d %s", n, what, fpp, limit, unit)
	}
	return best, k, nil
}

// checkFPP validates a false-positive rate a filter is to be sized for.
func checkFPP(fpp float64) error {
	if !(fpp > 0 && fpp < 1) {
		return errorf(ErrInvalidFPP, "false-positive rate %v is not in (0, 1)", fpp)
	}
	if fpp < MinFPP {
		return errorf2(ErrFPPTooLow, ErrInvalidArgument, "false-positive rate %g is below MinFPP = %g, the least this design reaches at a sane cost; a classic Bloom filter (package classic) needs %.1f bits per key for it", fpp, MinFPP, classicBitsPerKey(fpp))
	}
	return nil
}

// classicBitsPerKey is the classic Bloom filter's optimum for fpp,
// -ln(fpp) / ln(2)^2 bits per key.
func classicBitsPerKey(fpp float64) float64 { return -math.Log(fpp) / (math.Ln2 * math.Ln2) }

// estimateCount inverts the expected number of set bits of this design:
// with a binomial load of n keys over B blocks (p = 1/B), a word receiving
// c probes per key keeps a given bit clear with probability
// (1 - p(1 - (63/64)^c))^n, so the expected set bits are
// 64 B sum_w (1 - (1 - p a_w)^n) with a_w = 1 - (63/64)^c_w. It solves that
// for n given the observed count. A full filter gives +Inf.
func estimateCount(setBits, blocks uint64, k int) float64 {
	if setBits == 0 {
		return 0
	}
	ones, twos := wordsByProbes(k)
	p := 1 / float64(blocks)
	capacity := float64(blocks) * 64 * float64(ones+twos)
	if float64(setBits) >= capacity {
		return math.Inf(1)
	}
	// g(n) = expected clear bits / (64 B) on the probed words.
	l1 := math.Log1p(-p * (1 - miss1))
	l2 := math.Log1p(-p * (1 - miss2))
	target := (capacity - float64(setBits)) / (64 * float64(blocks))
	if twos == 0 {
		return math.Log(target/float64(ones)) / l1
	}
	g := func(n float64) float64 {
		return float64(ones)*math.Exp(n*l1) + float64(twos)*math.Exp(n*l2)
	}
	lo, hi := 0.0, 1.0
	for g(hi) > target {
		lo, hi = hi, hi*2
	}
	for range 100 {
		mid := (lo + hi) / 2
		if g(mid) > target {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo <= 1e-9*hi {
			break
		}
	}
	return (lo + hi) / 2
}

// fillStats accumulates, block by block, what FPP and EstimatedCount need
// from a filter's words.
//
// The false-positive rate of a filter as it is: an absent key lands on a
// uniform block, and each of its probes in word w is a uniform position,
// set with probability popcount(w)/64, independently. So the rate is the
// mean over blocks of the product over words of (popcount/64)^(probes in
// that word). To that fpr adds the chance that the key's 32-bit in-block
// hash equals a stored key's, with the load estimated from the fill, as
// FalsePositiveRate does.
type fillStats struct {
	k      int
	sum    float64 // sum over blocks of the block's rate
	set    uint64  // set bits
	blocks uint64
}

var bitShare = func() (t [65]float64) {
	for i := range t {
		t[i] = float64(i) / 64
	}
	return t
}()

// add accounts for words, a whole number of blocks.
func (s *fillStats) add(words []uint64) {
	ones, twos := wordsByProbes(s.k)
	probed := ones + twos
	for b := 0; b+kernel.BlockWords <= len(words); b += kernel.BlockWords {
		blk := words[b : b+kernel.BlockWords]
		p := 1.0
		for w := range kernel.BlockWords {
			c := bits.OnesCount64(blk[w])
			s.set += uint64(c)
			if w >= probed {
				continue
			}
			x := bitShare[c]
			if w < twos {
				x *= x
			}
			p *= x
		}
		s.sum += p
		s.blocks++
	}
}

func (s *fillStats) count() uint64 {
	if s.blocks == 0 {
		return 0
	}
	return bloommath.RoundCount(estimateCount(s.set, s.blocks, s.k))
}

func (s *fillStats) fpr() float64 {
	if s.blocks == 0 {
		return 0
	}
	fpr := s.sum / float64(s.blocks)
	load := estimateCount(s.set, s.blocks, s.k) / float64(s.blocks)
	if math.IsInf(load, 1) {
		return 1
	}
	collide := bloommath.Collision(load)
	return fpr + (1-fpr)*collide
}
