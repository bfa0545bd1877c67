package blocked

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/nocopy"
)

// Concurrent is a blocked Bloom filter that many goroutines may add to and
// query at the same time, without a lock: adds set bits with atomic OR
// (sync/atomic.OrUint64), writing only the words that lack some of the
// key's bits, and single-key lookups read words with atomic loads, so no
// add is lost. A key whose Add has returned is reported present by every
// later Contains, in any goroutine (no false negatives); a Contains racing
// with the key's Add may answer either way.
//
// ContainsHashes, AddHashes and AddNewHashes read the blocks with the same
// SIMD batch kernels as Filter (internal/kernel), which are plain vector
// loads, not atomic ones. That is still correct because bits only ever go
// from 0 to 1 (Reset and decoding aside, which must not run concurrently
// anyway): however a vector load interleaves with racing ORs, each bit it
// reads is the value before or after the OR that sets it, so a lookup of a
// key being added sees all of the key's bits (as after the add) or misses
// one (as before it), and every bit of an add that returned before the
// lookup began is seen set. Lookups are thus linearizable to before a
// racing add, and never miss a completed one. Under the race
// detector, which cannot see the kernels' reads, the batch calls run the
// atomic single-key probes instead.
//
// AddNew and its variants report whether the key was new (see
// Concurrent.AddNewHash for the guarantee under races).
//
// Its bits are the same as Filter's for the same keys, size, k and seed, and
// so is its serialized form: a Concurrent can be saved and loaded as a
// Filter and the reverse. Do not copy a Concurrent value: a copy shares its
// memory, and closing either unmaps it under the other; use Clone (go
// vet's copylocks check reports a copy).
type Concurrent struct {
	_ nocopy.NoCopy // go vet reports copies; no space
	core
}

// NewConcurrent is New for a Concurrent filter (the same errors and
// options).
func NewConcurrent(n uint64, fpp float64, opts ...Option) (*Concurrent, error) {
	blocks, k, err := optimalBlocks(n, fpp)
	if err != nil {
		return nil, err
	}
	return newConcurrent(blocks, k, collect(opts))
}

// NewConcurrentWithSize is NewWithSize for a Concurrent filter (the same
// errors and options).
func NewConcurrentWithSize(bits uint64, k int, opts ...Option) (*Concurrent, error) {
	if bits > MaxBits {
		return nil, errorf(ErrTooLarge, "%d bits exceed the maximum of %d", bits, uint64(MaxBits))
	}
	return newConcurrent(max(1, (bits+BlockBits-1)/BlockBits), k, collect(opts))
}

func newConcurrent(blocks uint64, k int, o options) (*Concurrent, error) {
	if err := checkSize(blocks, k, o.maxBytes); err != nil {
		return nil, err
	}
	c := &Concurrent{}
	if err := c.alloc(blocks, k, o.seed); err != nil {
		return nil, err
	}
	c.maxBytes = o.maxBytes
	return c, nil
}

// Hash returns the hash the filter uses for key (see Filter.Hash).
func (c *Concurrent) Hash(key []byte) uint64 { return hash.Bytes(key, c.seed) }

// HashString is Hash for a string key.
func (c *Concurrent) HashString(key string) uint64 { return hash.String(key, c.seed) }

// HashUint64 is Hash for x's eight little-endian bytes.
func (c *Concurrent) HashUint64(x uint64) uint64 { return c.h64.Hash(x) }

// Add adds key to the filter. It is safe to call concurrently with any
// method but Reset, ReadFrom, UnmarshalBinary and Close.
func (c *Concurrent) Add(key []byte) { c.AddHash(hash.Bytes(key, c.seed)) }

// AddString adds key to the filter.
func (c *Concurrent) AddString(key string) { c.AddHash(hash.String(key, c.seed)) }

// AddUint64 adds x (its eight little-endian bytes) to the filter.
func (c *Concurrent) AddUint64(x uint64) { c.AddHash(c.h64.Hash(x)) }

// AddHash adds the key whose hash is h. Only the words of the block that
// lack some of the key's bits are written (one atomic OR each), so adds of
// present keys do not contend for the cache line.
func (c *Concurrent) AddHash(h uint64) {
	insertAtomic(c.t.Blocks, h, c.t.K)
	runtime.KeepAlive(c)
}

// Contains reports whether key may have been added.
func (c *Concurrent) Contains(key []byte) bool { return c.ContainsHash(hash.Bytes(key, c.seed)) }

// ContainsString is Contains for a string key.
func (c *Concurrent) ContainsString(key string) bool {
	return c.ContainsHash(hash.String(key, c.seed))
}

// ContainsUint64 is Contains for x's eight little-endian bytes.
func (c *Concurrent) ContainsUint64(x uint64) bool { return c.ContainsHash(c.h64.Hash(x)) }

// ContainsHash is Contains for a key whose hash is h.
func (c *Concurrent) ContainsHash(h uint64) bool {
	r := probeAtomic(c.t.Blocks, h, c.t.K)
	runtime.KeepAlive(c)
	return r
}

// AddHashes adds every key whose hash is in hs.
//
// A batch of at least one key per block (two on filters over 16 MiB, and
// none over 128 MiB) is first built, without atomics, in a private buffer
// with the SIMD insert kernel (one 16 MiB stripe of the filter at a
// time), then merged into the filter word by word, with one atomic OR per
// word that lacks some of the batch's bits: keys that share a block cost
// one locked OR a word instead of one a key. The keys become visible
// during the merge, all by the time AddHashes returns. The buffers, as
// large as the filter up to 16 MiB, are kept in a sync.Pool (so the
// garbage collector frees them when such batches stop).
//
// Smaller batches are looked up a chunk at a time with the batch lookup
// kernel (prefetched, so the cache misses overlap), and only the keys it
// found absent are added, each with AddHash's atomic ORs.
func (c *Concurrent) AddHashes(hs []uint64) {
	mustOpen(&c.core)
	blocks, k := c.t.Blocks, c.t.K
	switch {
	case mergePays(len(hs), len(blocks)):
		mergeAdd(blocks, k, hs)
	case !c.batchKernel(len(hs)):
		for _, h := range hs {
			insertAtomic(blocks, h, k)
		}
	default:
		var present [addChunk]bool
		for len(hs) > 0 {
			part := hs[:min(len(hs), addChunk)]
			kernel.BlockedContains(blocks, k, part, present[:len(part)])
			for i, h := range part {
				if !present[i] {
					insertAtomic(blocks, h, k)
				}
			}
			hs = hs[len(part):]
		}
	}
	runtime.KeepAlive(c)
}

// The merge path of Concurrent.AddHashes: a batch of at least
// mergeMinKeysPerBlock keys a block is built in a buffer of at most
// mergeStripeBlocks blocks (16 MiB) per stripe of the filter, for filters
// of at most mergeMaxStripes stripes; filters of several stripes need
// twice as many keys a block, since each stripe is a pass over the batch.
// Those thresholds are where the merge and the atomic path crossed in
// BenchmarkConcurrentMerge (merge time / atomic time, fresh filter, n keys
// in calls of the given keys a block):
//
//	keys a block                           0.5        1          2
//	Intel Xeon family 6 model 207 (Emerald Rapids), 16 cores:
//	  1e6, 1e7 (one stripe), 1 goroutine    1.03-1.10  0.77-0.82  0.57-0.64
//	  1e6, 1e7 (one stripe), 16 goroutines  0.89-1.15  0.69-0.87  0.58-0.59
//	  5e7 (4 stripes), 1 and 16 goroutines  1.31-1.69  1.14-1.16  0.81-1.03
//	AMD EPYC family 26 model 2 (Zen 5), 2 cores:
//	  1e6 (one stripe), 1 and 2 goroutines  1.01-1.11  0.73-0.79  0.50-0.62
//	  2e7, 5e7, 1e8 (2-8 stripes), 1 goroutine   -     0.96-1.09  0.69-0.85
//
// (The 2e7 and 1e8 rows ran this benchmark with those sizes added to its
// list for the measurement; it keeps 1e6, 1e7 and 5e7.)
// Below that, too few words of a touched block get more than one key's
// bit for the pass over the whole filter to pay.
const mergeMaxStripes = 8

// mergeMinKeysPerBlock and mergeStripeBlocks are variables so that tests
// can take the many-stripe path with small filters, and benchmarks can
// move the threshold (BenchmarkConcurrentBatch's -blocked.mergemin).
var (
	mergeMinKeysPerBlock = 1
	mergeStripeBlocks    = 1 << 18
)

// mergePays reports whether AddHashes takes a batch of n keys into a
// filter of blocks blocks through the merge buffer.
func mergePays(n, blocks int) bool {
	if blocks > mergeMaxStripes*mergeStripeBlocks {
		return false
	}
	perBlock := uint64(mergeMinKeysPerBlock) // uint64: no overflow where int is 32 bits
	if blocks > mergeStripeBlocks {
		perBlock *= 2
	}
	return uint64(n) >= perBlock*uint64(blocks)
}

// mergeBuffers holds *[]kernel.Block merge buffers, zeroed (mergeAdd
// zeroes what it used before putting one back).
var mergeBuffers sync.Pool

// mergeAdd adds hs to blocks through a private buffer (see AddHashes).
func mergeAdd(blocks []kernel.Block, k int, hs []uint64) {
	nb := uint64(len(blocks))
	p, _ := mergeBuffers.Get().(*[]kernel.Block)
	if want := min(nb, uint64(mergeStripeBlocks)); p == nil || uint64(len(*p)) < want {
		buf := make([]kernel.Block, want)
		p = &buf
	}
	buf := *p
	for start := uint64(0); start < nb; start += uint64(mergeStripeBlocks) {
		size := min(nb-start, uint64(mergeStripeBlocks))
		stripe := buf[:size]
		if size == nb {
			// One stripe: its block indexes are the filter's.
			kernel.BlockedAdd(stripe, k, hs)
		} else {
			stripeAdd(stripe, k, hs, start, nb)
		}
		dst := blocks[start : start+size]
		for i := range stripe {
			for w, m := range &stripe[i] {
				if m == 0 {
					continue
				}
				stripe[i][w] = 0
				if miss := m &^ atomic.LoadUint64(&dst[i][w]); miss != 0 {
					atomic.OrUint64(&dst[i][w], miss)
				}
			}
		}
	}
	mergeBuffers.Put(p)
}

// stripeAdd adds to stripe, blocks start to start+len(stripe) of a filter
// of nb blocks, those of hs that fall in it, with the SIMD insert kernel:
// each such hash is handed to the kernel rebased, its high half replaced
// so that its block index in the stripe (kernel.BlockIndex) is its index
// in the filter less start, its low half (which picks the bits) kept. The
// rebased hashes go in chunks of 1024 (8 KiB on the stack).
//
// The Go loop it replaced, which ORed each key's mask into the buffer
// (one random read-modify-write of the 16 MiB buffer a key, no
// prefetches), made the merge of a 24 MiB and a 60 MiB filter 1.3-1.7x
// slower than the atomic path it is meant to beat, at 4 and 8 keys a
// block (AMD EPYC family 26 model 2, Zen 5, one goroutine).
func stripeAdd(stripe []kernel.Block, k int, hs []uint64, start, nb uint64) {
	var part [1024]uint64
	size := uint64(len(stripe))
	m := 0
	for _, h := range hs {
		if i := kernel.BlockIndex(h, nb) - start; i < size {
			part[m] = stripeHash(i, size) | h&(1<<32-1)
			if m++; m == len(part) {
				kernel.BlockedAdd(stripe, k, part[:])
				m = 0
			}
		}
	}
	kernel.BlockedAdd(stripe, k, part[:m])
}

// stripeHash returns the high half of a hash whose block index among size
// blocks is i < size <= 2^31: the least multiple-of-2^32 value h with
// kernel.BlockIndex(h, size) == i. (With hi = ceil(i*2^32/size), hi*size
// lies in [i*2^32, i*2^32+size), so (hi*size)>>32 is i.)
func stripeHash(i, size uint64) uint64 {
	return (i<<32 + size - 1) / size << 32
}

// addChunk is how many keys the batch adds look up with the kernel before
// adding the absent ones: 256 blocks are 16 KiB, so they are still in L1
// (32 KiB and more on current cores) when the adds come.
const addChunk = 256

// batchKernel reports whether a batch of n keys reads c's blocks with the
// assembly kernels: as for Filter (useKernel), and never under the race
// detector (see race.go).
func (c *Concurrent) batchKernel(n int) bool { return !raceEnabled && useKernel(n) }

// ContainsHashes sets out[i] = ContainsHash(hs[i]) for every i and returns
// how many are true. It panics if len(out) < len(hs); out beyond len(hs) is
// left alone. It runs Filter's SIMD batch kernel; a lookup racing with an
// add answers as if it ran before or after that add (see Concurrent).
func (c *Concurrent) ContainsHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("blocked: ContainsHashes: len(out) < len(hs)")
	}
	mustOpen(&c.core)
	if c.batchKernel(len(hs)) {
		n := kernel.BlockedContains(c.t.Blocks, c.t.K, hs, out)
		runtime.KeepAlive(c)
		return n
	}
	out = out[:len(hs)]
	n := 0
	for i, h := range hs {
		r := probeAtomic(c.t.Blocks, h, c.t.K)
		out[i] = r
		if r {
			n++
		}
	}
	runtime.KeepAlive(c)
	return n
}

// Union adds every key of other to c, with atomic ORs: safe alongside adds
// and lookups on c (other must not change meanwhile, or its concurrent adds
// may be missed). other must have the same block count, k and seed, else
// ErrIncompatible.
func (c *Concurrent) Union(other *Concurrent) error {
	if other == nil {
		return c.nilOther()
	}
	if err := c.compatible(&other.core); err != nil {
		return err
	}
	for i := range other.words {
		if w := atomic.LoadUint64(&other.words[i]); w != 0 {
			atomic.OrUint64(&c.words[i], w)
		}
	}
	runtime.KeepAlive(other)
	runtime.KeepAlive(c)
	return nil
}

// snapshot copies the words with atomic loads into memory from
// mem.Alloc (the caller frees it), or returns why it cannot: ErrClosed,
// or memory the machine cannot provide. Bits only ever get set, so the copy
// holds every key added before the call began, possibly some of those
// added during it, and is a state the filter passed through word by word (a
// key added during the copy may be partly in it: it then tests absent in
// the copy, never wrongly present beyond the usual rate).
func (c *Concurrent) snapshot() (core, error) {
	if c.closed() {
		return core{}, errorf(ErrClosed, "cannot encode a closed or zero filter")
	}
	s, err := c.atomicCopy()
	runtime.KeepAlive(c)
	return s, err
}

// atomicCopy returns a core of its own memory holding c's geometry, seed,
// size bound and words, the words read with atomic loads (adds may run):
// the snapshots of Concurrent and ConcurrentWindow.
func (c *core) atomicCopy() (core, error) {
	var s core
	if err := s.alloc(uint64(len(c.t.Blocks)), c.t.K, c.seed); err != nil {
		return s, err
	}
	s.maxBytes = c.maxBytes
	for i := range c.words {
		s.words[i] = atomic.LoadUint64(&c.words[i])
	}
	return s, nil
}

// Filter returns a Filter holding a snapshot of c's keys (see MarshalBinary
// for what adds running during the copy mean), for single-goroutine use with
// the faster batch kernels or for Union with other Filters. It panics (with
// an error wrapping ErrClosed or ErrTooLarge) on a closed filter or when
// the copy's memory cannot be had.
func (c *Concurrent) Filter() *Filter {
	s, err := c.snapshot()
	if errors.Is(err, ErrClosed) {
		panic(errUse)
	}
	if err != nil {
		panic(err)
	}
	return &Filter{core: s}
}

// stats reads the words with atomic loads, a chunk at a time.
func (c *Concurrent) stats() *fillStats {
	mustOpen(&c.core)
	s := &fillStats{k: c.t.K}
	var buf [512]uint64
	for off := 0; off < len(c.words); off += len(buf) {
		chunk := buf[:min(len(buf), len(c.words)-off)]
		for i := range chunk {
			chunk[i] = atomic.LoadUint64(&c.words[off+i])
		}
		s.add(chunk)
	}
	runtime.KeepAlive(c)
	return s
}

// EstimatedCount estimates how many distinct keys were added (see
// Filter.EstimatedCount). Adds running meanwhile may or may not count.
func (c *Concurrent) EstimatedCount() uint64 { return c.stats().count() }

// FPP returns the false-positive rate the filter has now (see Filter.FPP).
func (c *Concurrent) FPP() float64 { return c.stats().fpr() }

// Bits returns the filter's size in bits.
func (c *Concurrent) Bits() uint64 { return uint64(len(c.t.Blocks)) * BlockBits }

// Blocks returns the number of 64-byte blocks.
func (c *Concurrent) Blocks() uint64 { return uint64(len(c.t.Blocks)) }

// SizeBytes returns the memory the blocks take, 64 bytes each.
func (c *Concurrent) SizeBytes() uint64 { return uint64(len(c.t.Blocks)) * kernel.BlockBytes }

// K returns the number of probes per key.
func (c *Concurrent) K() int { return c.t.K }

// Seed returns the hash seed.
func (c *Concurrent) Seed() uint64 { return c.seed }

// Reset removes every key. Adds running concurrently with Reset may be lost
// (partly or wholly): call it when no other goroutine uses the filter.
func (c *Concurrent) Reset() {
	mustOpen(&c.core)
	for i := range c.words {
		atomic.StoreUint64(&c.words[i], 0)
	}
	runtime.KeepAlive(c)
}

// Clone returns an independent Concurrent holding a snapshot of c (it
// panics as Filter does).
func (c *Concurrent) Clone() *Concurrent {
	return &Concurrent{core: c.Filter().core}
}

// Close releases mapped memory now (see Filter.Close, also for what using
// the filter afterwards does; Concurrent's single-key methods panic with an
// error wrapping ErrClosed). No other goroutine may use the filter during
// or after Close.
func (c *Concurrent) Close() error {
	return c.free()
}
