package sbbf

import (
	"math"
	"math/bits"

	"github.com/sift-go/sift/internal/bloommath"
	"github.com/sift-go/sift/internal/kernel"
)

// Split-block sizes.
const (
	// BlockBytes is the size of a split-block filter's block: 256 bits.
	BlockBytes = kernel.SBBFBlockBytes
	// MaxBlocks is the most blocks a split-block filter may have:
	// the Parquet specification bounds the count below 2^31 (a 64 GiB
	// filter).
	MaxBlocks = kernel.SBBFMaxBlocks
	// ParquetMaxBytes is the largest filter parquet-mr, Arrow C++ and
	// arrow-go write, and the largest they read (parquet-mr skips a larger
	// filter, arrow-go and Arrow C++ fail on it): 128 MiB. ParquetSize
	// and ParquetMRSize never exceed it; sift itself has no such limit
	// below MaxBlocks.
	ParquetMaxBytes = 128 << 20
	// ParquetMRDefaultMaxBytes is parquet-mr's default bound on a filter's
	// size (its parquet.bloom.filter.max.bytes): 1 MiB, the maxBytes to
	// give ParquetMRSize for a writer left at its defaults.
	ParquetMRDefaultMaxBytes = 1 << 20
)

// blockLimit is the largest block count a constructor accepts here.
func blockLimit() uint64 {
	return min(uint64(MaxBlocks), uint64(math.MaxInt/BlockBytes))
}

// The split-block model. A key sets one bit in each of a block's eight
// 32-bit words, at a position the specification's salts make uniform. So
// with load other keys in the block, a given bit of a word is clear with
// probability q1 = (31/32)^load, an absent key's eight probes all find set
// bits with probability (1 - q1)^8, and two independent positions in one
// word both find set bits with probability
//
//	1/32 (1 - q1) + 31/32 (1 - 2 q1 + q2),  q2 = (30/32)^load,
//
// (the same position, or two different ones, by inclusion-exclusion): the
// expected square of a word's share of set bits, whose eighth power is
// the expected square of the block's rate, for the spread across filters.
// To the rate comes the chance that the absent key's 32 in-block hash bits
// equal a stored key's, which sets all eight probes.

// blockMoments returns, for a block holding load other keys, the
// chance that an absent key is a false positive and the expected square of
// the block's rate (without the collision term).
func blockMoments(load uint64) (hit, sq float64) {
	l := float64(load)
	q1 := math.Exp(l * math.Log1p(-1.0/32))
	q2 := math.Exp(l * math.Log1p(-2.0/32))
	p := math.Pow(1-q1, kernel.SBBFBlockWords)
	w2 := (1-q1)/32 + 31.0/32*(1-2*q1+q2)
	sq = math.Pow(max(w2, 0), kernel.SBBFBlockWords)
	collide := bloommath.Collision(l)
	return p + (1-p)*collide, sq
}

// momentsOf averages blockMoments over the binomial load of n keys in
// blocks blocks.
func momentsOf(blocks, n uint64) (mean, sq float64) {
	return bloommath.LoadMoments(blocks, n, blockMoments)
}

// FalsePositiveRate returns the expected false-positive rate of a
// split-block filter of numBytes bytes (rounded up to whole 32-byte blocks)
// after n distinct keys: the rate of an absent key given the binomial load
// of its block, computed exactly for the specification's design (see the
// package documentation), not from the specification's approximate
// formula. It is 0 for n = 0 and NaN for numBytes outside 1 ..
// MaxBlocks*32.
func FalsePositiveRate(numBytes, n uint64) float64 {
	if numBytes == 0 || numBytes > MaxBlocks*BlockBytes {
		return math.NaN()
	}
	mean, _ := momentsOf((numBytes+BlockBytes-1)/BlockBytes, n)
	return mean
}

// fprBound is the rate New holds to fpp: the expected rate plus
// bloommath.Sigmas standard deviations of a filter's actual rate, as
// package blocked sizes its filter.
func fprBound(blocks, n uint64) float64 {
	mean, sq := momentsOf(blocks, n)
	return mean + bloommath.Sigmas*math.Sqrt(max(0, sq-mean*mean)/float64(blocks))
}

// OptimalSize returns the size in bytes, a multiple of 32, of the
// smallest split-block filter whose false-positive rate after n distinct
// keys is at most fpp: the least block count whose expected rate
// (FalsePositiveRate) plus three standard deviations of the rate
// across filters is at most fpp, any count, not only powers of two. This
// is New's size. n = 0 is treated as 1. It returns ErrInvalidFPP
// for fpp outside (0, 1) and ErrTooLarge when even MaxBlocks
// blocks cannot meet the bound.
func OptimalSize(n uint64, fpp float64) (numBytes uint64, err error) {
	blocks, err := optimalBlocks(n, fpp)
	return blocks * BlockBytes, err
}

// checkFPP returns ErrInvalidFPP unless fpp is in (0, 1) (NaN is not).
func checkFPP(fpp float64) error {
	if !(fpp > 0 && fpp < 1) {
		return errorf(ErrInvalidFPP, "false-positive rate %v is not in (0, 1)", fpp)
	}
	return nil
}

// ceilPow2 returns the least power of two at least x (x > 0).
func ceilPow2(x uint64) uint64 {
	if x&(x-1) != 0 {
		return 1 << bits.Len64(x)
	}
	return x
}

func optimalBlocks(n uint64, fpp float64) (uint64, error) {
	if err := checkFPP(fpp); err != nil {
		return 0, err
	}
	n = max(n, 1)
	limit := blockLimit()
	tooLarge := errorf(ErrTooLarge, "%d keys at a false-positive rate of %v need more than %d split blocks", n, fpp, limit)
	if float64(n)*-math.Log2(fpp) > float64(limit)*BlockBytes*8 {
		return 0, tooLarge
	}
	// The specification's approximation starts the bracket.
	start := uint64(min(float64(limit), math.Max(1, math.Ceil(specBits(n, fpp)/(BlockBytes*8)))))
	blocks := bloommath.LeastBlocksBy(fpp, start, limit, func(b uint64) float64 { return fprBound(b, n) })
	if blocks == 0 {
		return 0, tooLarge
	}
	return blocks, nil
}

// specBits is the specification's size estimate in bits,
// -8n / ln(1 - fpp^(1/8)): the size of a classic Bloom filter with eight
// hash functions, which ignores the uneven load of the blocks.
func specBits(n uint64, fpp float64) float64 {
	return -8 * float64(n) / math.Log1p(-math.Pow(fpp, 1.0/8))
}

// ParquetSize returns the size in bytes that Arrow C++ and arrow-go give
// a filter for n distinct values at false-positive rate fpp: the
// specification's estimate -8n / ln(1 - fpp^(1/8)) bits, computed as those
// writers compute it (math.Log(1 - math.Pow(fpp, 1.0/8)), not log1p: the
// two differ in the last bit, which at an estimate just above a power of
// two changes the size by a factor of two), truncated, clamped to 32
// bytes .. ParquetMaxBytes, and rounded up to a power of two. Filters of
// that size built from the same values are byte for byte those writers'
// filters, and every Parquet reader, Arrow C++'s included, reads them
// (see New). (parquet-mr rounds differently and caps at 1 MiB by
// default: ParquetMRSize.) The estimate ignores the uneven load of the
// blocks, so the actual rate can exceed fpp (FalsePositiveRate tells by
// how much; the power-of-two rounding often makes up for it); a
// power-of-two size is also what Fold needs. It returns ErrInvalidFPP for
// fpp outside (0, 1).
func ParquetSize(n uint64, fpp float64) (numBytes uint64, err error) {
	if err := checkFPP(fpp); err != nil {
		return 0, err
	}
	const maxBits = ParquetMaxBytes * 8
	// Exactly arrow-go's optimalNumBits (and Arrow C++'s
	// OptimalNumOfBits), not specBits: log(1 - x) where specBits takes
	// log1p(-x).
	m := -8 * float64(n) / math.Log(1-math.Pow(fpp, 1.0/8))
	// NaN (0/0: n = 0 where 1 - fpp^(1/8) rounds to 1) stays 0, as
	// arrow-go's uint32 conversion makes it on amd64 and arm64.
	var numBits uint64
	switch {
	case m < 0 || m > maxBits:
		numBits = maxBits
	case m >= 0:
		numBits = uint64(m)
	}
	return ceilPow2(max(numBits, BlockBytes*8)) / 8, nil
}

// ParquetMRSize returns the size in bytes that parquet-mr (parquet-java,
// the writer of Spark, Hive and most JVM engines) gives a filter for n
// distinct values at false-positive rate fpp when its writer is told the
// column's distinct count (parquet.bloom.filter.expected.ndv), with
// maxBytes its parquet.bloom.filter.max.bytes (ParquetMRDefaultMaxBytes
// unless configured). Filters of that size built from the same values are
// byte for byte parquet-mr's. Its rule differs from Arrow's
// (ParquetSize), so for some n and fpp the size is twice ParquetSize's,
// and the default cap makes it smaller for large n:
//
//   - the same estimate, -8n / ln(1 - fpp^(1/8)) bits, truncated, taken
//     as 2^30 bits (ParquetMaxBytes) when larger;
//   - 255 bits added and the bit of 256 cleared (parquet-mr's rounding to
//     whole 256-bit blocks, which clears only that bit: 968 bits become
//     1223), at least 256 bits, then divided by 8;
//   - at least 32 bytes, rounded up to a power of two, and then at most
//     maxBytes, where parquet-mr takes a maxBytes of 32 or from
//     ParquetMaxBytes on as ParquetMaxBytes.
//
// At n = 100 and fpp = 0.01 that is 256 bytes against ParquetSize's 128;
// at 1e6 and 0.01, 1 MiB under the default cap against 2 MiB. n is
// parquet-mr's long: -8n wraps beyond n = 2^60 as it does there (n =
// 2^62 gives 32 bytes). It returns ErrInvalidFPP for fpp outside (0, 1),
// and ErrInvalidArgument for a maxBytes below 32 (which parquet-mr
// refuses: its minimum, 32 bytes, would exceed it) and where maxBytes
// caps the size at a count that is not whole 32-byte blocks (parquet-mr
// would leave the bytes after the last whole block unused, which no
// split-block filter here reproduces).
func ParquetMRSize(n uint64, fpp float64, maxBytes uint64) (numBytes uint64, err error) {
	if err := checkFPP(fpp); err != nil {
		return 0, err
	}
	if maxBytes < BlockBytes {
		return 0, errorf(ErrInvalidArgument, "parquet-mr refuses a maximum of %d bytes, below its minimum of %d", maxBytes, BlockBytes)
	}
	const maxBits = ParquetMaxBytes * 8
	// parquet-mr computes -8n in 64-bit integers (wrapping, as Go's int64
	// does), then log(1 - p^(1/8)), not log1p, and truncates to a Java int
	// (which saturates), then takes anything above 2^30 bits, or a
	// negative estimate, as 2^30.
	m := float64(-8*int64(n)) / math.Log(1-math.Pow(fpp, 1.0/8))
	var numBits uint64 // NaN (0/0: n = 0 where 1 - fpp^(1/8) rounds to 1) stays 0, as Java's (int) makes it
	switch {
	case m < 0 || m > maxBits:
		numBits = maxBits
	case m >= 0:
		numBits = uint64(m)
	}
	numBits = max((numBits+255)&^256, BlockBytes*8)
	numBytes = ceilPow2(numBits / 8) // at least 32, parquet-mr's minimum
	limit := maxBytes
	if limit == BlockBytes || limit >= ParquetMaxBytes {
		limit = ParquetMaxBytes
	}
	if numBytes > limit {
		numBytes = limit
		if numBytes%BlockBytes != 0 {
			return 0, errorf(ErrInvalidArgument, "parquet-mr caps this filter at maxBytes = %d, which is not whole %d-byte blocks", maxBytes, BlockBytes)
		}
	}
	return numBytes, nil
}

// estimateCount inverts the expected number of set bits: with a
// binomial load of n keys over B blocks, each of a block's 256 bits is
// clear with probability (1 - 1/(32B))^n, so n = ln(1 - set/(256 B)) /
// ln(1 - 1/(32 B)). A full filter gives +Inf.
func estimateCount(set, blocks uint64) float64 {
	total := float64(blocks) * BlockBytes * 8
	if float64(set) >= total {
		return math.Inf(1)
	}
	return math.Log1p(-float64(set)/total) / math.Log1p(-1/(32*float64(blocks)))
}

// fillStats accumulates what FPP and EstimatedCount need from blocks:
// the set bits, and the sum over blocks of the product over words of the
// word's share of set bits, which is the chance that an absent key landing
// in the block finds all eight probe bits set.
type fillStats struct {
	sum    float64
	set    uint64
	blocks uint64
}

// wordShare[c] is c/32, the chance a uniform probe finds a set bit in a
// word with c set bits.
var wordShare = func() (t [33]float64) {
	for i := range t {
		t[i] = float64(i) / 32
	}
	return t
}()

func (s *fillStats) add(blocks []kernel.SBBFBlock) {
	for i := range blocks {
		s.addBlock(&blocks[i])
	}
}

func (s *fillStats) addBlock(b *kernel.SBBFBlock) {
	p := 1.0
	for _, w := range b {
		c := bits.OnesCount32(w)
		s.set += uint64(c)
		p *= wordShare[c]
	}
	s.sum += p
	s.blocks++
}

// folded accounts for blocks folded 2^times to one, without building them:
// the OR of each run of 2^times blocks.
func (s *fillStats) folded(blocks []kernel.SBBFBlock, times int) {
	step := 1 << times
	for i := 0; i+step <= len(blocks); i += step {
		b := orBlocks(blocks[i : i+step])
		s.addBlock(&b)
	}
}

// orBlocks returns the OR of bs.
func orBlocks(bs []kernel.SBBFBlock) (b kernel.SBBFBlock) {
	for i := range bs {
		for w := range b {
			b[w] |= bs[i][w]
		}
	}
	return b
}

func (s *fillStats) count() uint64 {
	if s.blocks == 0 {
		return 0
	}
	return bloommath.RoundCount(estimateCount(s.set, s.blocks))
}

func (s *fillStats) fpr() float64 {
	if s.blocks == 0 {
		return 0
	}
	fpr := s.sum / float64(s.blocks)
	load := estimateCount(s.set, s.blocks) / float64(s.blocks)
	if math.IsInf(load, 1) {
		return 1
	}
	collide := bloommath.Collision(load)
	return fpr + (1-fpr)*collide
}
