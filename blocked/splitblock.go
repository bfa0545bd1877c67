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

// alloc sets c up with n zeroed blocks from mem.Alloc (64-byte aligned;
// mapped, with huge-page advice on Linux, from 4 MiB), or returns why the
// memory cannot be had (an error wrapping ErrTooLarge).
func (c *splitCore) alloc(n uint64) error {
	words, region, err := mem.Alloc(int(n) * (SplitBlockBytes / 8))
	if err != nil {
		return prefix(err)
	}
	c.setBlocks(unsafe.Slice((*kernel.SBBFBlock)(unsafe.Pointer(unsafe.SliceData(words))), n), region)
	return nil
}

// mustAlloc is alloc for Clone, which has no error to return: it panics
// with the error (see core.mustAlloc).
func (c *splitCore) mustAlloc(n uint64) {
	if err := c.alloc(n); err != nil {
		panic(err)
	}
}

// setBlocks makes blocks, from region, c's memory (the Region's finalizer
// frees a mapping once unreachable; see core.setWords).
func (c *splitCore) setBlocks(blocks []kernel.SBBFBlock, region *mem.Region) {
	c.blocks, c.region = blocks, region
}

// free releases mapped memory and leaves c without blocks, as a zero
// filter: a later probe panics (ErrClosed) instead of touching freed
// memory.
func (c *splitCore) free() error {
	r := c.region
	c.blocks, c.region = nil, nil
	return r.Free()
}

// replace swaps c's memory for d's and frees c's old memory.
func (c *splitCore) replace(d splitCore) {
	old := c.region
	*c = d
	_ = old.Free()
}

// closed reports whether c has no blocks: closed, or a zero value.
func (c *splitCore) closed() bool { return len(c.blocks) == 0 }

// mustOpen panics with an error wrapping ErrClosed if c has no blocks.
func (c *splitCore) mustOpen() {
	if c.closed() {
		panic(errUse)
	}
}

func (c *splitCore) fill() splitBlockFill {
	c.mustOpen()
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
// 1. It returns ErrInvalidFPP for fpp outside (0, 1) or NaN, and
// ErrTooLarge beyond SplitBlockMaxBlocks blocks, WithMaxSize, or what the
// machine can provide. Options: WithMaxSize.
func NewSplitBlock(n uint64, fpp float64, opts ...Option) (*SplitBlock, error) {
	blocks, err := splitBlockOptimalBlocks(n, fpp)
	if err != nil {
		return nil, err
	}
	return newSplitBlock(blocks, collect(opts))
}

// NewSplitBlockWithSize returns an empty split-block filter of numBytes
// bytes, rounded up to whole 32-byte blocks (0 becomes one block): the
// size of a Parquet filter's bitset (the BloomFilterHeader's numBytes). It
// returns ErrTooLarge beyond SplitBlockMaxBlocks blocks, WithMaxSize, or
// what the machine can provide. Options: WithMaxSize.
func NewSplitBlockWithSize(numBytes uint64, opts ...Option) (*SplitBlock, error) {
	blocks := max(1, numBytes/SplitBlockBytes+min(1, numBytes%SplitBlockBytes))
	return newSplitBlock(blocks, collect(opts))
}

func newSplitBlock(blocks uint64, o options) (*SplitBlock, error) {
	if blocks > splitBlockLimit() {
		return nil, errorf(ErrTooLarge, "%d split blocks exceed the maximum of %d", blocks, splitBlockLimit())
	}
	if o.maxBytes != 0 && blocks > o.maxBytes/SplitBlockBytes {
		return nil, errorf(ErrTooLarge, "a split-block filter of %d blocks (%d bytes) exceeds the maximum size of %d bytes (WithMaxSize)", blocks, blocks*SplitBlockBytes, o.maxBytes)
	}
	f := &SplitBlock{}
	if err := f.alloc(blocks); err != nil {
		return nil, err
	}
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
// other must have the same number of blocks, else ErrIncompatible; a
// closed or zero filter on either side is ErrClosed.
func (f *SplitBlock) Union(other *SplitBlock) error {
	if f.closed() || other.closed() {
		return errorf(ErrClosed, "cannot combine a closed or zero filter")
	}
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
// block count. It returns ErrInvalidFPP for maxFPP outside (0, 1) or NaN,
// ErrClosed for a closed or zero filter, and ErrTooLarge if the memory of
// the folded filter cannot be had (then f is unchanged).
func (f *SplitBlock) Fold(maxFPP float64) (int, error) {
	if !(maxFPP > 0 && maxFPP < 1) {
		return 0, errorf(ErrInvalidFPP, "false-positive rate %v is not in (0, 1)", maxFPP)
	}
	if f.closed() {
		return 0, errorf(ErrClosed, "cannot fold a closed or zero filter")
	}
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
// a multiple of 2^times; ErrClosed and ErrTooLarge as Fold does.
func (f *SplitBlock) FoldN(times int) error {
	if f.closed() {
		return errorf(ErrClosed, "cannot fold a closed or zero filter")
	}
	if times == 0 {
		return nil
	}
	n := uint64(len(f.blocks))
	if times < 0 || times > 31 || n%(1<<times) != 0 {
		return errorf(ErrIncompatible, "%d blocks cannot be halved %d times", n, times)
	}
	var d splitCore
	if err := d.alloc(n >> times); err != nil {
		return err
	}
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

// Clone returns an independent copy of f, in memory of its own. When that
// memory cannot be had it panics with an error wrapping ErrTooLarge (see
// Filter.Clone); on a closed or zero filter, with one wrapping ErrClosed.
func (f *SplitBlock) Clone() *SplitBlock {
	f.mustOpen()
	c := &SplitBlock{}
	c.mustAlloc(uint64(len(f.blocks)))
	copy(c.blocks, f.blocks)
	runtime.KeepAlive(f)
	return c
}

// Close releases the filter's memory now if it was mapped outside the Go
// heap (filters of 4 MiB and more) and is harmless otherwise, and more
// than once. Afterwards the filter is as a zero SplitBlock: adding or
// querying panics with an error wrapping ErrClosed (never a fault on
// unmapped memory), and the methods that return errors return one. Close
// must not run concurrently with other methods. Its error, if any, is
// munmap's.
func (f *SplitBlock) Close() error { return f.free() }

// FalsePositiveRate returns the expected false-positive rate of this
// filter's size after n distinct keys (SplitBlockFalsePositiveRate).
func (f *SplitBlock) FalsePositiveRate(n uint64) float64 {
	if f.closed() {
		return math.NaN()
	}
	return SplitBlockFalsePositiveRate(f.NumBytes(), n)
}
