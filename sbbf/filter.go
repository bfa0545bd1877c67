package sbbf

import (
	"math"
	"runtime"
	"unsafe"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/mem"
	"github.com/sift-go/sift/internal/nocopy"
	"github.com/sift-go/sift/internal/race"
)

// core is what Filter and View share: the blocks and where their memory
// came from.
type core struct {
	// blocks comes first: the single-key kernels take &blocks, a pointer
	// to the slice header, as their one memory argument.
	blocks []kernel.SBBFBlock
	region *mem.Region
}

// alloc sets c up with n zeroed blocks from mem.Alloc (64-byte aligned;
// mapped, with huge-page advice on Linux, from 4 MiB), or returns why the
// memory cannot be had (an error wrapping ErrTooLarge).
func (c *core) alloc(n uint64) error {
	words, region, err := mem.Alloc(int(n) * (BlockBytes / 8))
	if err != nil {
		return prefix(err)
	}
	c.setBlocks(unsafe.Slice((*kernel.SBBFBlock)(unsafe.Pointer(unsafe.SliceData(words))), n), region)
	return nil
}

// mustAlloc is alloc for Clone, which has no error to return: it panics
// with the error.
func (c *core) mustAlloc(n uint64) {
	if err := c.alloc(n); err != nil {
		panic(err)
	}
}

// setBlocks makes blocks, from region, c's memory (the Region's finalizer
// frees a mapping once unreachable).
func (c *core) setBlocks(blocks []kernel.SBBFBlock, region *mem.Region) {
	c.blocks, c.region = blocks, region
}

// free releases mapped memory and leaves c without blocks, as a zero
// filter: a later probe panics (ErrClosed) instead of touching freed
// memory.
func (c *core) free() error {
	r := c.region
	c.blocks, c.region = nil, nil
	return r.Free()
}

// replace swaps c's memory for d's and frees c's old memory.
func (c *core) replace(d core) {
	old := c.region
	*c = d
	_ = old.Free()
}

// closed reports whether c has no blocks: closed, or a zero value.
func (c *core) closed() bool { return len(c.blocks) == 0 }

// mustOpen panics with an error wrapping ErrClosed if c has no blocks.
func (c *core) mustOpen() {
	if c.closed() {
		panic(errUse)
	}
}

func (c *core) fill() fillStats {
	c.mustOpen()
	var s fillStats
	s.add(c.blocks)
	runtime.KeepAlive(c)
	return s
}

func (c *core) containsHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("sbbf: ContainsHashes: len(out) < len(hs)")
	}
	c.mustOpen() // an empty batch too, as blocked's
	if len(hs) == 0 {
		return 0
	}
	n := kernel.SBBFContains(c.blocks, hs, out)
	runtime.KeepAlive(c)
	return n
}

// Filter is Apache Parquet's split-block Bloom filter (SBBF), bit for
// bit as the specification (parquet-format's BloomFilter.md) defines it
// and parquet-mr, Arrow, parquet-go and DuckDB write it: 256-bit blocks of
// eight 32-bit words, each key setting one bit in every word of one block,
// keys hashed with XXH64 (seed 0) of their Parquet plain encoding. Its
// bytes are a Parquet bitset: MarshalParquet and ParseParquet read and
// write them with the BloomFilterHeader that precedes them in a Parquet
// file, MarshalBinary and Open use sift's checksummed file format. See
// the package documentation.
//
// Lookups (the Contains methods, ContainsHashes and the other read-only
// methods) may run from many goroutines at once; adds, Union, Fold, Reset
// and decoding into the filter must not run concurrently with anything
// else. Filters of 4 MiB and more live in memory mapped outside the Go
// heap: Close returns it at once (a finalizer does otherwise). The zero
// Filter has no blocks: it is only good as the target of UnmarshalBinary,
// UnmarshalParquet or ReadFrom. Do not copy a Filter value: a copy shares
// its memory, and closing either releases it under the other; use Clone (go
// vet's copylocks check reports a copy).
type Filter struct {
	_ nocopy.NoCopy // go vet reports copies; no space
	core
	// maxBytes is the WithMaxSize bound the filter was made with (New,
	// NewWithSize, ReadFilter), which UnmarshalBinary, ReadFrom and
	// UnmarshalParquet apply to what they decode into it; 0: none.
	maxBytes uint64
}

// New returns a split-block filter for n distinct keys whose false-positive
// rate after those n adds is at most fpp, with the least number of blocks
// that ensures it (OptimalSize): any block count, seldom a power of two,
// and above ParquetMaxBytes (128 MiB) from about 102 million keys at 1%.
// parquet-go, arrow-rs and DuckDB read a Parquet filter of any such size,
// parquet-mr and arrow-go any up to 128 MiB, but Arrow C++ (pyarrow, Velox,
// Doris and other readers built on its code) only a power of two from 32
// bytes to 128 MiB, and throws on any other (see the package
// documentation's Sizing). For a Parquet file Arrow C++ may read, use
// NewWithSize(ParquetSize(n, fpp)), the size Arrow itself chooses; for
// parquet-mr's size, ParquetMRSize. n = 0 is treated as 1. It returns
// ErrInvalidFPP for fpp outside (0, 1) or NaN, and ErrTooLarge beyond
// MaxBlocks blocks, WithMaxSize, or what the machine can provide. Options:
// WithMaxSize (the filter keeps the bound for what is later decoded into
// it).
func New(n uint64, fpp float64, opts ...Option) (*Filter, error) {
	blocks, err := optimalBlocks(n, fpp)
	if err != nil {
		return nil, err
	}
	return newFilter(blocks, collect(opts))
}

// NewWithSize returns an empty split-block filter of numBytes
// bytes, rounded up to whole 32-byte blocks (0 becomes one block): the
// size of a Parquet filter's bitset (the BloomFilterHeader's numBytes). It
// returns ErrTooLarge beyond MaxBlocks blocks, WithMaxSize, or
// what the machine can provide. Options: WithMaxSize.
func NewWithSize(numBytes uint64, opts ...Option) (*Filter, error) {
	blocks := max(1, numBytes/BlockBytes+min(1, numBytes%BlockBytes))
	return newFilter(blocks, collect(opts))
}

func newFilter(blocks uint64, o options) (*Filter, error) {
	if blocks > blockLimit() {
		return nil, errorf(ErrTooLarge, "%d split blocks exceed the maximum of %d", blocks, blockLimit())
	}
	if o.maxBytes != 0 && blocks > o.maxBytes/BlockBytes {
		return nil, errorf(ErrTooLarge, "a split-block filter of %d blocks (%d bytes) exceeds the maximum size of %d bytes (WithMaxSize)", blocks, blocks*BlockBytes, o.maxBytes)
	}
	f := &Filter{maxBytes: o.maxBytes}
	if err := f.alloc(blocks); err != nil {
		return nil, err
	}
	return f, nil
}

// Add adds a BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY or INT96 value: its bytes,
// with no length prefix.
func (f *Filter) Add(v []byte) { f.AddHash(Hash(v)) }

// AddString adds a string value (a UTF8 BYTE_ARRAY); it equals
// Add([]byte(v)).
func (f *Filter) AddString(v string) { f.AddHash(HashString(v)) }

// AddInt32 adds an INT32 value (see HashInt32).
func (f *Filter) AddInt32(v int32) { f.AddHash(HashInt32(v)) }

// AddInt64 adds an INT64 value (see HashInt64).
func (f *Filter) AddInt64(v int64) { f.AddHash(HashInt64(v)) }

// AddFloat32 adds a FLOAT value by its bits (see HashFloat32).
func (f *Filter) AddFloat32(v float32) { f.AddHash(HashFloat32(v)) }

// AddFloat64 adds a DOUBLE value by its bits (see HashFloat64).
func (f *Filter) AddFloat64(v float64) { f.AddHash(HashFloat64(v)) }

// AddHash adds the value whose hash (Hash and its siblings) is
// h: the specification's filter_insert(h).
func (f *Filter) AddHash(h uint64) {
	// SBBFAdd1 keeps &f.blocks, so f, alive to its end.
	kernel.SBBFAdd1(&f.blocks, h)
}

// Contains reports whether a BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY or INT96
// value may have been added: false means certainly not.
func (f *Filter) Contains(v []byte) bool { return f.ContainsHash(Hash(v)) }

// ContainsString is Contains for a string value.
func (f *Filter) ContainsString(v string) bool {
	return f.ContainsHash(HashString(v))
}

// ContainsInt32 is Contains for an INT32 value.
func (f *Filter) ContainsInt32(v int32) bool { return f.ContainsHash(HashInt32(v)) }

// ContainsInt64 is Contains for an INT64 value.
func (f *Filter) ContainsInt64(v int64) bool { return f.ContainsHash(HashInt64(v)) }

// ContainsFloat32 is Contains for a FLOAT value, by its bits.
func (f *Filter) ContainsFloat32(v float32) bool {
	return f.ContainsHash(HashFloat32(v))
}

// ContainsFloat64 is Contains for a DOUBLE value, by its bits.
func (f *Filter) ContainsFloat64(v float64) bool {
	return f.ContainsHash(HashFloat64(v))
}

// ContainsHash reports whether the value whose hash is h may have been
// added: the specification's filter_check(h).
func (f *Filter) ContainsHash(h uint64) bool {
	// SBBFContains1 keeps &f.blocks, so f, alive to its end.
	return kernel.SBBFContains1(&f.blocks, h)
}

// AddHashes adds every value whose hash is in hs, in one kernel call that
// computes block addresses ahead of the memory accesses so the cache misses
// overlap (AVX-512, AVX2 or NEON where available).
func (f *Filter) AddHashes(hs []uint64) {
	f.mustOpen() // an empty batch too, as blocked's
	if len(hs) == 0 {
		return
	}
	kernel.SBBFAdd(f.blocks, hs)
	runtime.KeepAlive(f)
}

// ContainsHashes sets out[i] = ContainsHash(hs[i]) for every i and returns
// how many are true. It panics if len(out) < len(hs); out beyond len(hs) is
// left alone.
func (f *Filter) ContainsHashes(hs []uint64, out []bool) int {
	return f.containsHashes(hs, out)
}

// Union adds every key of other to f (the OR of the bitsets): afterwards f
// answers for both sets of keys, exactly as a filter built from both.
// other must have the same number of blocks, else ErrIncompatible (a nil
// other too); a closed or zero filter on either side is ErrClosed (f
// first, as classic's Union checks).
func (f *Filter) Union(other *Filter) error {
	if f.closed() {
		return errorf(ErrClosed, "cannot combine a closed or zero filter")
	}
	if other == nil {
		return errorf(ErrIncompatible, "nil filter")
	}
	if other.closed() {
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
// and its false-positive rate is that filter's (FalsePositiveRate
// predicts it from the number of keys). Fold decides from the bits it has,
// computing each candidate's rate (FPP) before halving; it stops at an odd
// block count. It returns ErrInvalidFPP for maxFPP outside (0, 1) or NaN,
// ErrClosed for a closed or zero filter, and ErrTooLarge if the memory of
// the folded filter cannot be had (then f is unchanged).
func (f *Filter) Fold(maxFPP float64) (int, error) {
	if err := checkFPP(maxFPP); err != nil {
		return 0, err
	}
	if f.closed() {
		return 0, errorf(ErrClosed, "cannot fold a closed or zero filter")
	}
	times := 0
	for n := len(f.blocks); n%2 == 0; n /= 2 {
		var s fillStats
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
func (f *Filter) FoldN(times int) error {
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
	var d core
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
func (f *Filter) EstimatedCount() uint64 {
	s := f.fill()
	return s.count()
}

// FPP returns the false-positive rate the filter has now: for each block,
// the chance that an absent key's eight probes all find set bits given
// the block's actual words, averaged over the blocks, plus the chance of a
// full 32-bit collision with a stored key. It reads the whole filter.
func (f *Filter) FPP() float64 {
	s := f.fill()
	return s.fpr()
}

// Blocks returns the number of 32-byte blocks.
func (f *Filter) Blocks() uint64 { return uint64(len(f.blocks)) }

// NumBytes returns the size of the bitset in bytes: the numBytes of its
// Parquet BloomFilterHeader.
func (f *Filter) NumBytes() uint64 { return uint64(len(f.blocks)) * BlockBytes }

// Reset removes every key, keeping the size. On a closed or zero filter it
// panics with an error wrapping ErrClosed.
func (f *Filter) Reset() {
	f.mustOpen()
	race.Clear(f.blocks) // the builtin's clear is invisible to -race
	runtime.KeepAlive(f)
}

// Clone returns an independent copy of f, in memory of its own. When that
// memory cannot be had it panics with an error wrapping ErrTooLarge, as it
// has no error to return; on a closed or zero filter, with one wrapping
// ErrClosed.
func (f *Filter) Clone() *Filter {
	f.mustOpen()
	c := &Filter{maxBytes: f.maxBytes}
	c.mustAlloc(uint64(len(f.blocks)))
	copy(c.blocks, f.blocks)
	runtime.KeepAlive(f)
	return c
}

// Close releases the filter's memory now if it was mapped outside the Go
// heap (filters of 4 MiB and more) and is harmless otherwise, and more
// than once. Afterwards the filter is as a zero Filter: adding or
// querying panics with an error wrapping ErrClosed (never a fault on
// unmapped memory), and the methods that return errors return one. Close
// must not run concurrently with other methods. Its error, if any, is
// munmap's.
func (f *Filter) Close() error { return f.free() }

// FalsePositiveRate returns the expected false-positive rate of this
// filter's size after n distinct keys (the function FalsePositiveRate).
func (f *Filter) FalsePositiveRate(n uint64) float64 {
	if f.closed() {
		return math.NaN()
	}
	return FalsePositiveRate(f.NumBytes(), n)
}
