package blocked

import (
	"math"
	"math/bits"

	"github.com/sift-go/sift/internal/kernel"
)

// Split-block sizes.
const (
	// SplitBlockBytes is the size of a split-block filter's block: 256 bits.
	SplitBlockBytes = kernel.SBBFBlockBytes
	// SplitBlockMaxBlocks is the most blocks a split-block filter may have:
	// the Parquet specification bounds the count below 2^31 (a 64 GiB
	// filter).
	SplitBlockMaxBlocks = kernel.SBBFMaxBlocks
	// ParquetMaxBytes is the largest filter parquet-mr, Arrow C++ and
	// arrow-go write (and the largest arrow-go reads): 128 MiB.
	// SplitBlockParquetSize never exceeds it; sift itself has no such
	// limit below SplitBlockMaxBlocks.
	ParquetMaxBytes = 128 << 20
)

// splitBlockLimit is the largest block count a constructor accepts here.
func splitBlockLimit() uint64 {
	return min(uint64(SplitBlockMaxBlocks), uint64(math.MaxInt/SplitBlockBytes))
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

// splitBlockMoments returns, for a block holding load other keys, the
// chance that an absent key is a false positive and the expected square of
// the block's rate (without the collision term).
func splitBlockMoments(load uint64) (hit, sq float64) {
	l := float64(load)
	q1 := math.Exp(l * math.Log1p(-1.0/32))
	q2 := math.Exp(l * math.Log1p(-2.0/32))
	p := math.Pow(1-q1, kernel.SBBFBlockWords)
	w2 := (1-q1)/32 + 31.0/32*(1-2*q1+q2)
	sq = math.Pow(max(w2, 0), kernel.SBBFBlockWords)
	collide := -math.Expm1(l * math.Log1p(-0x1p-32))
	return p + (1-p)*collide, sq
}

// splitBlockMomentsOf averages splitBlockMoments over the binomial load of
// n keys in blocks blocks.
func splitBlockMomentsOf(blocks, n uint64) (mean, sq float64) {
	return loadMoments(blocks, n, splitBlockMoments)
}

// SplitBlockFalsePositiveRate returns the expected false-positive rate of a
// split-block filter of numBytes bytes (rounded up to whole 32-byte blocks)
// after n distinct keys: the rate of an absent key given the binomial load
// of its block, computed exactly for the specification's design (see the
// package documentation), not from the specification's approximate
// formula. It is 0 for n = 0 and NaN for numBytes outside 1 ..
// SplitBlockMaxBlocks*32.
func SplitBlockFalsePositiveRate(numBytes, n uint64) float64 {
	if numBytes == 0 || numBytes > SplitBlockMaxBlocks*SplitBlockBytes {
		return math.NaN()
	}
	mean, _ := splitBlockMomentsOf((numBytes+SplitBlockBytes-1)/SplitBlockBytes, n)
	return mean
}

// splitBlockBound is the rate NewSplitBlock holds to fpp: the expected rate
// plus sizingSigmas standard deviations of a filter's actual rate, as New
// does for the blocked filter.
func splitBlockBound(blocks, n uint64) float64 {
	mean, sq := splitBlockMomentsOf(blocks, n)
	return mean + sizingSigmas*math.Sqrt(max(0, sq-mean*mean)/float64(blocks))
}

// SplitBlockOptimalSize returns the size in bytes, a multiple of 32, of the
// smallest split-block filter whose false-positive rate after n distinct
// keys is at most fpp: the least block count whose expected rate
// (SplitBlockFalsePositiveRate) plus three standard deviations of the rate
// across filters is at most fpp, any count, not only powers of two. This
// is NewSplitBlock's size. n = 0 is treated as 1. It returns ErrInvalidFPP
// for fpp outside (0, 1) and ErrTooLarge when even SplitBlockMaxBlocks
// blocks cannot meet the bound.
func SplitBlockOptimalSize(n uint64, fpp float64) (numBytes uint64, err error) {
	blocks, err := splitBlockOptimalBlocks(n, fpp)
	return blocks * SplitBlockBytes, err
}

func splitBlockOptimalBlocks(n uint64, fpp float64) (uint64, error) {
	if !(fpp > 0 && fpp < 1) {
		return 0, errorf(ErrInvalidFPP, "false-positive rate %v is not in (0, 1)", fpp)
	}
	n = max(n, 1)
	limit := splitBlockLimit()
	tooLarge := errorf(ErrTooLarge, "%d keys at a false-positive rate of %v need more than %d split blocks", n, fpp, limit)
	if float64(n)*-math.Log2(fpp) > float64(limit)*SplitBlockBytes*8 {
		return 0, tooLarge
	}
	// The specification's approximation starts the bracket.
	start := uint64(min(float64(limit), math.Max(1, math.Ceil(splitBlockSpecBits(n, fpp)/(SplitBlockBytes*8)))))
	blocks := leastBlocksBy(fpp, start, limit, func(b uint64) float64 { return splitBlockBound(b, n) })
	if blocks == 0 {
		return 0, tooLarge
	}
	return blocks, nil
}

// splitBlockSpecBits is the specification's size estimate in bits,
// -8n / ln(1 - fpp^(1/8)): the size of a classic Bloom filter with eight
// hash functions, which ignores the uneven load of the blocks.
func splitBlockSpecBits(n uint64, fpp float64) float64 {
	return -8 * float64(n) / math.Log1p(-math.Pow(fpp, 1.0/8))
}

// SplitBlockParquetSize returns the size in bytes that parquet-mr, Arrow
// C++ and arrow-go give a filter for n distinct values at false-positive
// rate fpp: the specification's estimate -8n / ln(1 - fpp^(1/8)) bits,
// truncated, clamped to 32 bytes .. ParquetMaxBytes, and rounded up to a
// power of two. Filters of that size built from the same values are byte
// for byte those writers' filters. The estimate ignores the uneven load of
// the blocks, so the actual rate can exceed fpp (SplitBlockFalsePositiveRate
// tells by how much; the power-of-two rounding often makes up for it); a
// power-of-two size is also what Fold needs. It returns ErrInvalidFPP for
// fpp outside (0, 1).
func SplitBlockParquetSize(n uint64, fpp float64) (numBytes uint64, err error) {
	if !(fpp > 0 && fpp < 1) {
		return 0, errorf(ErrInvalidFPP, "false-positive rate %v is not in (0, 1)", fpp)
	}
	const maxBits = ParquetMaxBytes * 8
	m := splitBlockSpecBits(n, fpp)
	var numBits uint64
	if m < 0 || m > maxBits || math.IsNaN(m) {
		numBits = maxBits
	} else {
		numBits = uint64(m)
	}
	numBits = max(numBits, SplitBlockBytes*8)
	if numBits&(numBits-1) != 0 {
		numBits = 1 << bits.Len64(numBits)
	}
	return numBits / 8, nil
}

// splitBlockEstimate inverts the expected number of set bits: with a
// binomial load of n keys over B blocks, each of a block's 256 bits is
// clear with probability (1 - 1/(32B))^n, so n = ln(1 - set/(256 B)) /
// ln(1 - 1/(32 B)). A full filter gives +Inf.
func splitBlockEstimate(set, blocks uint64) float64 {
	total := float64(blocks) * SplitBlockBytes * 8
	if float64(set) >= total {
		return math.Inf(1)
	}
	return math.Log1p(-float64(set)/total) / math.Log1p(-1/(32*float64(blocks)))
}

// splitBlockFill accumulates what FPP and EstimatedCount need from blocks:
// the set bits, and the sum over blocks of the product over words of the
// word's share of set bits, which is the chance that an absent key landing
// in the block finds all eight probe bits set.
type splitBlockFill struct {
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

func (s *splitBlockFill) add(blocks []kernel.SBBFBlock) {
	for i := range blocks {
		s.addBlock(&blocks[i])
	}
}

func (s *splitBlockFill) addBlock(b *kernel.SBBFBlock) {
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
func (s *splitBlockFill) folded(blocks []kernel.SBBFBlock, times int) {
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

func (s *splitBlockFill) count() uint64 {
	if s.blocks == 0 {
		return 0
	}
	return roundCount(splitBlockEstimate(s.set, s.blocks))
}

func (s *splitBlockFill) fpr() float64 {
	if s.blocks == 0 {
		return 0
	}
	fpr := s.sum / float64(s.blocks)
	load := splitBlockEstimate(s.set, s.blocks) / float64(s.blocks)
	if math.IsInf(load, 1) {
		return 1
	}
	collide := -math.Expm1(load * math.Log1p(-0x1p-32))
	return fpr + (1-fpr)*collide
}
