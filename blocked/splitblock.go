package blocked

import (
	"math"
	"runtime"
	"unsafe"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/mem"
)

// splitCore is what SplitBlock and SplitBlockView share: the blocks and
// where their memory came from.
type splitCore struct {
	// blocks comes first: the single-key kernels take &blocks, a pointer
	// to the slice header, as their one memory argument.
	blocks []kernel.SBBFBlock
	region *mem.Region
}

// alloc sets c up with n zeroed blocks from mem.AllocWords (64-byte
// aligned; mapped with huge-page advice from 4 MiB).
func (c *splitCore) alloc(n uint64) {
	words, region := mem.AllocWords(int(n) * (SplitBlockBytes / 8))
	c.setBlocks(unsafe.Slice((*kernel.SBBFBlock)(unsafe.Pointer(unsafe.SliceData(words))), n), region)
}

// setBlocks makes blocks, from region, c's memory; mapped memory gets a
// finalizer on its Region (see core.setWords).
func (c *splitCore) setBlocks(blocks []kernel.SBBFBlock, region *mem.Region) {
	if region.Mapped() {
		runtime.SetFinalizer(region, (*mem.Region).Free)
	}
	c.blocks, c.region = blocks, region
}

// free releases mapped memory and leaves c empty: a later probe panics with
// an index out of range instead of touching freed memory.
func (c *splitCore) free() error {
	r := c.region
	c.blocks, c.region = nil, nil
	return freeRegion(r)
}

// replace swaps c's memory for d's and frees c's old memory.
func (c *splitCore) replace(d splitCore) {
	old := c.region
	*c = d
	_ = freeRegion(old)
}

func (c *splitCore) mustOpen() {
	if len(c.blocks) == 0 {
		panic("blocked: use of a closed split-block filter")
	}
}

func (c *splitCore) fill() splitBlockFill {
	var s splitBlockFill
	s.add(c.blocks)
	runtime.KeepAlive(c)
	return s
}

func (c *splitCore) containsHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("blocked: ContainsHashes: len(out) < len(hs)")
	}
	if len(hs) == 0 {
		return 0
	}
	c.mustOpen()
	n := kernel.SBBFContains(c.blocks, hs, out)
	runtime.KeepAlive(c)
	return n
}

// SplitBlock is Apache Parquet's split-block Bloom filter (SBBF), bit for
// bit as the specification (parquet-format's BloomFilter.md) defines it
// and parquet-mr, Arrow, parquet-go and DuckDB write it: 256-bit blocks of
// eight 32-bit words, each key setting one bit in every word of one block,
// keys hashed with XXH64 (seed 0) of their Parquet plain encoding. Its
// bytes are a Parquet bitset: MarshalParquet and ParseParquet read and
// write them with the BloomFilterHeader that precedes them in a Parquet
// file, MarshalBinary and OpenSplitBlock use sift's checksummed file
// format. See "Split-block filters" in the package documentation.
//
// Lookups (the Contains methods, ContainsHashes and the other read-only
// methods) may run from many goroutines at once; adds, Union, Fold, Reset
// and decoding into the filter must not run concurrently with anything
// else. Filters of 4 MiB and more live in memory mapped outside the Go
// heap: Close returns it at once (a finalizer does otherwise). The zero
// SplitBlock has no blocks: it is only good as the target of
// UnmarshalBinary, UnmarshalParquet or ReadFrom. Do not copy a SplitBlock
// value; use Clone.
type SplitBlock struct {
	splitCore
}

// NewSplitBlock returns a split-block filter for n distinct keys whose
// false-positive rate after those n adds is at most fpp, with the least
// number of blocks that ensures it (SplitBlockOptimalSize; any block
// count: Parquet readers accept any, and none needs a power of two but
// Fold). For the size parquet-mr and Arrow would choose, use
// NewSplitBlockWithSize(SplitBlockParquetSize(n, fpp)). n = 0 is treated as
// 1. It returns ErrInvalidFPP for fpp outside (0, 1) or NaN and ErrTooLarge
// beyond SplitBlockMaxBlocks blocks.
func NewSplitBlock(n uint64, fpp float64) (*SplitBlock, error) {
	blocks, err := splitBlockOptimalBlocks(n, fpp)
	if err != nil {
		return nil, err
	}
	return newSplitBlock(blocks)
}

// NewSplitBlockWithSize returns an empty split-block filter of numBytes
// bytes, rounded up to whole 32-byte blocks (0 becomes one block): the
// size of a Parquet filter's bitset (the BloomFilterHeader's numBytes). It
// returns ErrTooLarge beyond SplitBlockMaxBlocks blocks.
func NewSplitBlockWithSize(numBytes uint64) (*SplitBlock, error) {
	blocks := max(1, numBytes/SplitBlockBytes+min(1, numBytes%SplitBlockBytes))
	return newSplitBlock(blocks)
}

func newSplitBlock(blocks uint64) (*SplitBlock, error) {
	if blocks > splitBlockLimit() {
		return nil, errorf(ErrTooLarge, "%d split blocks exceed the maximum of %d", blocks, splitBlockLimit())
	}
	f := &SplitBlock{}
	f.alloc(blocks)
	return f, nil
}

// Add adds a BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY or INT96 value: its bytes,
// with no length prefix.
func (f *SplitBlock) Add(v []byte) { f.AddHash(SplitBlockHash(v)) }

// AddString adds a string value (a UTF8 BYTE_ARRAY); it equals
// Add([]byte(v)).
func (f *SplitBlock) AddString(v string) { f.AddHash(SplitBlockHashString(v)) }

// AddInt32 adds an INT32 value (see SplitBlockHashInt32).
func (f *SplitBlock) AddInt32(v int32) { f.AddHash(SplitBlockHashInt32(v)) }

// AddInt64 adds an INT64 value (see SplitBlockHashInt64).
func (f *SplitBlock) AddInt64(v int64) { f.AddHash(SplitBlockHashInt64(v)) }

// AddFloat32 adds a FLOAT value by its bits (see SplitBlockHashFloat32).
func (f *SplitBlock) AddFloat32(v float32) { f.AddHash(SplitBlockHashFloat32(v)) }

// AddFloat64 adds a DOUBLE value by its bits (see SplitBlockHashFloat64).
func (f *SplitBlock) AddFloat64(v float64) { f.AddHash(SplitBlockHashFloat64(v)) }

// AddHash adds the value whose hash (SplitBlockHash and its siblings) is
// h: the specification's filter_insert(h).
func (f *SplitBlock) AddHash(h uint64) {
	// SBBFAdd1 keeps &f.blocks, so f, alive to its end.
	kernel.SBBFAdd1(&f.blocks, h)
}

// Contains reports whether a BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY or INT96
// value may have been added: false means certainly not.
func (f *SplitBlock) Contains(v []byte) bool { return f.ContainsHash(SplitBlockHash(v)) }

// ContainsString is Contains for a string value.
func (f *SplitBlock) ContainsString(v string) bool {
	return f.ContainsHash(SplitBlockHashString(v))
}

// ContainsInt32 is Contains for an INT32 value.
func (f *SplitBlock) ContainsInt32(v int32) bool { return f.ContainsHash(SplitBlockHashInt32(v)) }

// ContainsInt64 is Contains for an INT64 value.
func (f *SplitBlock) ContainsInt64(v int64) bool { return f.ContainsHash(SplitBlockHashInt64(v)) }

// ContainsFloat32 is Contains for a FLOAT value, by its bits.
func (f *SplitBlock) ContainsFloat32(v float32) bool {
	return f.ContainsHash(SplitBlockHashFloat32(v))
}

// ContainsFloat64 is Contains for a DOUBLE value, by its bits.
func (f *SplitBlock) ContainsFloat64(v float64) bool {
	return f.ContainsHash(SplitBlockHashFloat64(v))
}

// ContainsHash reports whether the value whose hash is h may have been
// added: the specification's filter_check(h).
func (f *SplitBlock) ContainsHash(h uint64) bool {
	// SBBFContains1 keeps &f.blocks, so f, alive to its end.
	return kernel.SBBFContains1(&f.blocks, h)
}

// AddHashes adds every value whose hash is in hs, in one kernel call that
// computes block addresses ahead of the memory accesses so the cache misses
// overlap (AVX-512, AVX2 or NEON where available).
func (f *SplitBlock) AddHashes(hs []uint64) {
	if len(hs) == 0 {
		return
	}
	f.mustOpen()
	kernel.SBBFAdd(f.blocks, hs)
	runtime.KeepAlive(f)
}

// ContainsHashes sets out[i] = ContainsHash(hs[i]) for every i and returns
// how many are true. It panics if len(out) < len(hs); out beyond len(hs) is
// left alone.
func (f *SplitBlock) ContainsHashes(hs []uint64, out []bool) int {
	return f.containsHashes(hs, out)
}

// Union adds every key of other to f (the OR of the bitsets): afterwards f
// answers for both sets of keys, exactly as a filter built from both.
// other must have the same number of blocks, else ErrIncompatible.
func (f *SplitBlock) Union(other *SplitBlock) error {
	if len(f.blocks) != len(other.blocks) {
		return errorf(ErrIncompatible, "block counts differ (%d and %d)", len(f.blocks), len(other.blocks))
	}
	for i := range f.blocks {
		for w := range f.blocks[i] {
			f.blocks[i][w] |= other.blocks[i][w]
		}
	}
	runtime.KeepAlive(other)
	runtime.KeepAlive(f)
	return nil
}

// Fold halves the filter as many times as it can while its false-positive
// rate stays at most maxFPP, and returns how many times it did. This is
// how a writer that does not know the number of distinct values in
// advance gets a filter of the right size: build one for the most values
// there can be (the rows of a row group, say), with a power-of-two block
// count, add the values, then fold to the target rate.
//
// Halving ORs blocks 2j and 2j+1 into block j: with the block index
// (h>>32)*n>>32, a key in block i of n blocks is in block i>>1 of n/2, and
// its bits within the block do not change. So a folded filter is exactly,
// bit for bit, the filter built at the smaller size from the same keys,
// and its false-positive rate is that filter's (SplitBlockFalsePositiveRate
// predicts it from the number of keys). Fold decides from the bits it has,
// computing each candidate's rate (FPP) before halving; it stops at an odd
// block count. It returns ErrInvalidFPP for maxFPP outside (0, 1) or NaN.
func (f *SplitBlock) Fold(maxFPP float64) (int, error) {
	if !(maxFPP > 0 && maxFPP < 1) {
		return 0, errorf(ErrInvalidFPP, "false-positive rate %v is not in (0, 1)", maxFPP)
	}
	f.mustOpen()
	times := 0
	for n := len(f.blocks); n%2 == 0; n /= 2 {
		var s splitBlockFill
		s.folded(f.blocks, times+1)
		if s.fpr() > maxFPP {
			break
		}
		times++
	}
	runtime.KeepAlive(f)
	return times, f.FoldN(times)
}

// FoldN halves the filter times times (see Fold), whatever its rate
// becomes: for example to bring a filter down to another's size for Union.
// It returns ErrIncompatible, changing nothing, unless the block count is
// a multiple of 2^times.
func (f *SplitBlock) FoldN(times int) error {
	f.mustOpen()
	if times == 0 {
		return nil
	}
	n := uint64(len(f.blocks))
	if times < 0 || times > 31 || n%(1<<times) != 0 {
		return errorf(ErrIncompatible, "%d blocks cannot be halved %d times", n, times)
	}
	var d splitCore
	d.alloc(n >> times)
	step := 1 << times
	for j := range d.blocks {
		d.blocks[j] = orBlocks(f.blocks[j*step : (j+1)*step])
	}
	f.replace(d)
	return nil
}

// EstimatedCount estimates how many distinct keys were added, from the
// number of set bits (inverting the expected fill). It reads the whole
// filter. A completely full filter returns math.MaxUint64.
func (f *SplitBlock) EstimatedCount() uint64 {
	s := f.fill()
	return s.count()
}

// FPP returns the false-positive rate the filter has now: for each block,
// the chance that an absent key's eight probes all find set bits given
// the block's actual words, averaged over the blocks, plus the chance of a
// full 32-bit collision with a stored key. It reads the whole filter.
func (f *SplitBlock) FPP() float64 {
	s := f.fill()
	return s.fpr()
}

// Blocks returns the number of 32-byte blocks.
func (f *SplitBlock) Blocks() uint64 { return uint64(len(f.blocks)) }

// NumBytes returns the size of the bitset in bytes: the numBytes of its
// Parquet BloomFilterHeader.
func (f *SplitBlock) NumBytes() uint64 { return uint64(len(f.blocks)) * SplitBlockBytes }

// Reset removes every key, keeping the size.
func (f *SplitBlock) Reset() {
	clear(f.blocks)
	runtime.KeepAlive(f)
}

// Clone returns an independent copy of f, in memory of its own.
func (f *SplitBlock) Clone() *SplitBlock {
	c := &SplitBlock{}
	c.alloc(uint64(len(f.blocks)))
	copy(c.blocks, f.blocks)
	runtime.KeepAlive(f)
	return c
}

// Close releases the filter's memory now if it was mapped outside the Go
// heap (filters of 4 MiB and more on Unix systems) and is harmless
// otherwise, and more than once. Afterwards adding or querying panics (an
// index out of range, never a fault on unmapped memory). Close must not
// run concurrently with other methods. Its error, if any, is munmap's.
func (f *SplitBlock) Close() error { return f.free() }

// FalsePositiveRate returns the expected false-positive rate of this
// filter's size after n distinct keys (SplitBlockFalsePositiveRate).
func (f *SplitBlock) FalsePositiveRate(n uint64) float64 {
	if len(f.blocks) == 0 {
		return math.NaN()
	}
	return SplitBlockFalsePositiveRate(f.NumBytes(), n)
}
