package blocked

import (
	"runtime"
	"unsafe"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/cpu"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/mem"
	"github.com/sift-go/sift/internal/nocopy"
	"github.com/sift-go/sift/internal/race"
)

// batchThreshold is the batch length from which AddHashes and
// ContainsHashes hand the whole batch to the assembly kernels in
// internal/kernel. Measured with the AVX2 kernels on a filter in cache,
// per key: contains 6.0 ns (kernel) against 7.7 (Go loop) at 2 keys, 3.1
// against 6.8 at 8, 2.7 against 6.7 at 64; adds 4.6 against 8.7 at 2 keys.
// At 1 key they tie for lookups.
const batchThreshold = 2

// useKernel reports whether a batch of n keys goes to internal/kernel: only
// when an assembly kernel is in use. The portable Go kernel measured 3x
// slower than the unrolled single-key probe in a loop (19.5 against 6.5 ns
// per key in cache, 98 against 62 in DRAM), so without assembly the loop
// runs instead; both give identical results (TestBatchEquivalence).
func useKernel(n int) bool {
	return n >= batchThreshold && kernel.Impl() != cpu.Generic
}

// core is the state every filter type shares: the blocks, viewed both as
// cache lines and as words, the probe count, the seed, and where the memory
// came from.
type core struct {
	// t is the block array and k, side by side as the single-key kernels
	// read them through one pointer.
	t      kernel.BlockedTable
	words  []uint64
	seed   uint64
	h64    hash.Uint64Hasher // hash.Uint64 with seed folded in
	region *mem.Region
	// maxBytes is the WithMaxSize bound the filter was made with, which
	// its decoders (UnmarshalBinary, ReadFrom) apply; 0: none.
	maxBytes uint64
}

// alloc sets c up with blocks zeroed blocks from mem.Alloc, or returns
// why the memory cannot be had (an error wrapping ErrTooLarge).
func (c *core) alloc(blocks uint64, k int, seed uint64) error {
	words, region, err := mem.Alloc(int(blocks) * kernel.BlockWords)
	if err != nil {
		return prefix(err)
	}
	c.setWords(words, region, k, seed)
	return nil
}

// mustAlloc is alloc for the methods that copy a filter and have no error
// to return (Clone, Concurrent.Filter): when the copy's memory cannot be
// had they panic with the error, which a caller can recover, rather than
// leave the Go runtime to end the process.
func (c *core) mustAlloc(blocks uint64, k int, seed uint64) {
	if err := c.alloc(blocks, k, seed); err != nil {
		panic(err)
	}
}

// setWords makes words, from region, c's memory. Mapped memory is freed by
// the Region's finalizer (package mem) when the Region, which only the
// filter holding these words references, becomes unreachable.
func (c *core) setWords(words []uint64, region *mem.Region, k int, seed uint64) {
	c.words = words
	c.t = kernel.BlockedTable{
		Blocks: unsafe.Slice((*kernel.Block)(unsafe.Pointer(unsafe.SliceData(words))), len(words)/kernel.BlockWords),
		K:      k,
	}
	c.seed = seed
	c.h64 = hash.NewUint64Hasher(seed)
	c.region = region
}

// free releases mapped memory and leaves c without blocks, as a zero
// filter: any later probe panics instead of touching freed memory.
func (c *core) free() error {
	r := c.region
	c.t.Blocks, c.words, c.region = nil, nil, nil
	return r.Free()
}

// closed reports whether c has no blocks: it was closed, or is a zero
// value never made by a constructor or decoder.
func (c *core) closed() bool { return len(c.t.Blocks) == 0 }

// The core methods that read or write words keep c alive to the end: if
// the filter became unreachable during the call, the finalizer of its
// mapped memory could otherwise unmap it under the loop.

func (c *core) stats() *fillStats {
	mustOpen(c)
	s := &fillStats{k: c.t.K}
	s.add(c.words)
	runtime.KeepAlive(c)
	return s
}

func (c *core) estimatedCount() uint64 { return c.stats().count() }

func (c *core) fpp() float64 { return c.stats().fpr() }

// compatible reports why two filters cannot be combined, or nil.
func (c *core) compatible(o *core) error {
	switch {
	case c.closed() || o.closed():
		return errorf(ErrClosed, "cannot combine a closed or zero filter")
	case len(c.t.Blocks) != len(o.t.Blocks):
		return errorf(ErrIncompatible, "block counts differ (%d and %d)", len(c.t.Blocks), len(o.t.Blocks))
	case c.t.K != o.t.K:
		return errorf(ErrIncompatible, "k differs (%d and %d)", c.t.K, o.t.K)
	case c.seed != o.seed:
		return errorf(ErrIncompatible, "seeds differ (%#x and %#x)", c.seed, o.seed)
	}
	return nil
}

// nilOther is what compatible says of a nil other filter: ErrIncompatible,
// as sbbf's and classic's Union say, after c's own ErrClosed (c first).
func (c *core) nilOther() error {
	if c.closed() {
		return errorf(ErrClosed, "cannot combine a closed or zero filter")
	}
	return errorf(ErrIncompatible, "nil filter")
}

// mustOpen panics, with an error wrapping ErrClosed, if c has no blocks
// (closed, or a zero value): the kernels require at least one block.
func mustOpen(c *core) {
	if c.closed() {
		panic(errUse)
	}
}

// checkSize validates a block count for a constructor: k, the design's
// limit, the caller's WithMaxSize and this platform's address space.
func checkSize(blocks uint64, k int, maxBytes uint64) error {
	if err := checkShape(blocks, k, maxBytes); err != nil {
		return err
	}
	if blocks > blockLimit() {
		return errorf(ErrTooLarge, "%d blocks (%d bytes) are more than this platform's address space holds (at most %d blocks)", blocks, blocks*kernel.BlockBytes, blockLimit())
	}
	return nil
}

// checkShape is checkSize without the platform's address space: the
// checks of a size computed and not allocated (OptimalWindowSize), which
// are the same on every platform.
func checkShape(blocks uint64, k int, maxBytes uint64) error {
	if k < 1 || k > MaxK {
		return errorf(ErrInvalidK, "k = %d is not in 1..%d", k, MaxK)
	}
	if blocks > MaxBlocks {
		return errorf(ErrTooLarge, "%d blocks exceed the maximum of %d", blocks, uint64(MaxBlocks))
	}
	if maxBytes != 0 && blocks > maxBytes/kernel.BlockBytes {
		return errorf(ErrTooLarge, "a filter of %d blocks (%d bytes) exceeds the maximum size of %d bytes (WithMaxSize)", blocks, blocks*kernel.BlockBytes, maxBytes)
	}
	return nil
}

// Filter is a blocked Bloom filter: every key sets and tests k bits inside
// one 64-byte block, so an add or a lookup touches one cache line.
//
// Contains and its variants (and every other read-only method) may be
// called from many goroutines at once; adding, Union, Intersect, Reset,
// ReadFrom and UnmarshalBinary must not run concurrently with anything
// else on the same Filter. For concurrent adds use Concurrent.
//
// Filters of 4 MiB and more live in memory mapped outside the Go heap; call
// Close when done with one to return it at once (a finalizer frees it
// otherwise, when the garbage collector finds the filter unreachable). The
// zero Filter has no blocks, like a closed one: it is only good as the
// target of UnmarshalBinary or ReadFrom, and any other use fails loudly
// (see Close). Do not copy a Filter value: a copy shares its memory, and
// closing either releases it under the other; use Clone (go vet's copylocks
// check reports a copy).
type Filter struct {
	_ nocopy.NoCopy // go vet reports copies; no space
	core
}

// New returns a filter for n distinct keys with a false-positive rate of at
// most fpp after those n adds, using the least memory this design allows
// (see OptimalSize). n = 0 is treated as 1. It returns ErrInvalidFPP for fpp
// outside (0, 1) or NaN, ErrFPPTooLow for fpp below MinFPP, and ErrTooLarge
// when the filter would exceed MaxBits or the WithMaxSize limit, or when
// the machine cannot provide its memory: from 4 MiB up the blocks are an
// anonymous mapping, and a mapping the system refuses (or, on Linux, one
// larger than the memory available: free RAM and swap, within a
// container's memory limit) is that error, never the Go runtime's fatal
// out-of-memory error nor the kernel's out-of-memory killer (see package
// internal/mem for the policy). Options: WithSeed, WithMaxSize.
func New(n uint64, fpp float64, opts ...Option) (*Filter, error) {
	blocks, k, err := optimalBlocks(n, fpp)
	if err != nil {
		return nil, err
	}
	return newFilter(blocks, k, collect(opts))
}

// NewWithSize returns a filter of bits bits, rounded up to whole 512-bit
// blocks (0 becomes one block), with k probes per key. It returns
// ErrInvalidK for k outside 1..MaxK and ErrTooLarge for more than MaxBits,
// more than the WithMaxSize limit or more than the machine can provide (see
// New). Options: WithSeed, WithMaxSize.
func NewWithSize(bits uint64, k int, opts ...Option) (*Filter, error) {
	if bits > MaxBits {
		return nil, errorf(ErrTooLarge, "%d bits exceed the maximum of %d", bits, uint64(MaxBits))
	}
	return newFilter(max(1, (bits+BlockBits-1)/BlockBits), k, collect(opts))
}

func newFilter(blocks uint64, k int, o options) (*Filter, error) {
	if err := checkSize(blocks, k, o.maxBytes); err != nil {
		return nil, err
	}
	f := &Filter{}
	if err := f.alloc(blocks, k, o.seed); err != nil {
		return nil, err
	}
	f.maxBytes = o.maxBytes
	return f, nil
}

// Hash returns the hash the filter uses for key: AddHash(f.Hash(key)) is
// Add(key). Hash once and probe many filters that share the seed, or feed
// the batch methods.
func (f *Filter) Hash(key []byte) uint64 { return hash.Bytes(key, f.seed) }

// HashString is Hash for a string key.
func (f *Filter) HashString(key string) uint64 { return hash.String(key, f.seed) }

// HashUint64 is Hash for x's eight little-endian bytes: AddHash of it is
// AddUint64(x).
func (f *Filter) HashUint64(x uint64) uint64 { return f.h64.Hash(x) }

// Add adds key to the filter.
func (f *Filter) Add(key []byte) { f.AddHash(hash.Bytes(key, f.seed)) }

// AddString adds key to the filter; it equals Add([]byte(key)).
func (f *Filter) AddString(key string) { f.AddHash(hash.String(key, f.seed)) }

// AddUint64 adds x to the filter; it equals Add of x's eight little-endian
// bytes.
func (f *Filter) AddUint64(x uint64) { f.AddHash(f.h64.Hash(x)) }

// AddHash adds the key whose hash (with the filter's seed, see Hash) is h.
func (f *Filter) AddHash(h uint64) {
	// BlockedAdd1 keeps &f.t, so f, alive to its end: no KeepAlive
	// here (it would push ContainsHash over the inlining budget).
	kernel.BlockedAdd1(&f.t, h)
}

// Contains reports whether key may have been added: false means it
// certainly was not; true is wrong with probability about FPP().
func (f *Filter) Contains(key []byte) bool { return f.ContainsHash(hash.Bytes(key, f.seed)) }

// ContainsString is Contains for a string key.
func (f *Filter) ContainsString(key string) bool { return f.ContainsHash(hash.String(key, f.seed)) }

// ContainsUint64 is Contains for x's eight little-endian bytes.
func (f *Filter) ContainsUint64(x uint64) bool { return f.ContainsHash(f.h64.Hash(x)) }

// ContainsHash is Contains for a key whose hash (see Hash) is h. It computes
// all k probes and tests them at once, without a branch per probe.
func (f *Filter) ContainsHash(h uint64) bool {
	// BlockedContains1 keeps &f.t, so f, alive to its end (see
	// AddHash).
	return kernel.BlockedContains1(&f.t, h)
}

// AddHashes adds every key whose hash is in hs. Batches of two and more run
// in one assembly kernel call (AVX2 or NEON, where available) that computes
// block addresses ahead of the memory accesses so the cache misses overlap.
func (f *Filter) AddHashes(hs []uint64) {
	mustOpen(&f.core)
	if !useKernel(len(hs)) {
		for _, h := range hs {
			kernel.BlockedAdd1(&f.t, h)
		}
		runtime.KeepAlive(f)
		return
	}
	kernel.BlockedAdd(f.t.Blocks, f.t.K, hs)
	runtime.KeepAlive(f)
}

// ContainsHashes sets out[i] = ContainsHash(hs[i]) for every i and returns
// how many are true. It panics if len(out) < len(hs); out beyond len(hs) is
// left alone.
func (f *Filter) ContainsHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("blocked: ContainsHashes: len(out) < len(hs)")
	}
	mustOpen(&f.core)
	if !useKernel(len(hs)) {
		n := probeAll(&f.t, hs, out)
		runtime.KeepAlive(f)
		return n
	}
	n := kernel.BlockedContains(f.t.Blocks, f.t.K, hs, out)
	runtime.KeepAlive(f)
	return n
}

// Union adds every key of other to f: afterwards f reports present every
// key either filter did, with the false-positive rate of a filter holding
// both sets. other must have the same block count, k and seed (filters made
// by the same constructor call arguments do), else ErrIncompatible.
func (f *Filter) Union(other *Filter) error {
	if other == nil {
		return f.nilOther()
	}
	if err := f.compatible(&other.core); err != nil {
		return err
	}
	for i, w := range other.words {
		f.words[i] |= w
	}
	runtime.KeepAlive(other)
	runtime.KeepAlive(f)
	return nil
}

// Intersect keeps in f only the bits also set in other. Every key added to
// both filters is still reported present (no false negatives), but the
// result is not the filter of the intersection: bits that two different
// keys set in the two filters survive, so its false-positive rate is at
// least that of a filter built from the common keys and at most f's before
// the call, and EstimatedCount overestimates the common keys. other must
// have the same block count, k and seed, else ErrIncompatible.
func (f *Filter) Intersect(other *Filter) error {
	if other == nil {
		return f.nilOther()
	}
	if err := f.compatible(&other.core); err != nil {
		return err
	}
	for i, w := range other.words {
		f.words[i] &= w
	}
	runtime.KeepAlive(other)
	runtime.KeepAlive(f)
	return nil
}

// EstimatedCount estimates how many distinct keys were added, from the
// number of set bits (inverting this design's expected fill). It reads the
// whole filter. A completely full filter returns math.MaxUint64.
func (f *Filter) EstimatedCount() uint64 { return f.estimatedCount() }

// FPP returns the false-positive rate the filter has now: for each block,
// the chance that an absent key's probes all find set bits given the
// block's actual bits, averaged over blocks. It reads the whole filter.
func (f *Filter) FPP() float64 { return f.fpp() }

// Bits returns the filter's size in bits, a multiple of 512.
func (f *Filter) Bits() uint64 { return uint64(len(f.t.Blocks)) * BlockBits }

// Blocks returns the number of 64-byte blocks.
func (f *Filter) Blocks() uint64 { return uint64(len(f.t.Blocks)) }

// SizeBytes returns the memory the blocks take, 64 bytes each.
func (f *Filter) SizeBytes() uint64 { return uint64(len(f.t.Blocks)) * kernel.BlockBytes }

// K returns the number of probes per key.
func (f *Filter) K() int { return f.t.K }

// Seed returns the hash seed.
func (f *Filter) Seed() uint64 { return f.seed }

// Reset removes every key, keeping size, k and seed.
func (f *Filter) Reset() {
	mustOpen(&f.core)
	race.Clear(f.words) // the builtin's clear is invisible to -race
	runtime.KeepAlive(f)
}

// Clone returns an independent copy of f, in memory of its own. If that
// memory cannot be had it panics with an error wrapping ErrTooLarge.
func (f *Filter) Clone() *Filter {
	mustOpen(&f.core)
	c := &Filter{}
	c.mustAlloc(uint64(len(f.t.Blocks)), f.t.K, f.seed)
	c.maxBytes = f.maxBytes
	copy(c.words, f.words)
	runtime.KeepAlive(f)
	return c
}

// Close releases the filter's memory now if it was mapped outside the Go
// heap (filters of 4 MiB and more on Unix systems) and is harmless
// otherwise, and more than once. Close is optional: a finalizer frees the
// memory once the filter is unreachable, but only Close does so promptly.
// Close must not run concurrently with other methods. Its error, if any, is
// munmap's.
//
// After Close the filter has no blocks, like the zero Filter, and using it
// fails loudly, never touching freed memory: MarshalBinary, WriteTo, Union
// and Intersect return an error wrapping ErrClosed; AddHashes,
// ContainsHashes, FPP, EstimatedCount, Reset and Clone panic with such an
// error, the single-key Add and Contains methods from the kernel's probe
// (see "Memory" in the package documentation). Bits, Blocks and SizeBytes
// return 0; K and Seed keep their values. UnmarshalBinary and ReadFrom make
// it a filter again.
func (f *Filter) Close() error {
	return f.free()
}
