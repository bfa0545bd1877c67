package blocked

import (
	"runtime"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/cpu"
	"github.com/sift-go/sift/internal/kernel"
)

// Add-if-new: the AddNew methods add a key and report whether it was new,
// in one probe of its block (the block and the k bit positions computed
// once, each probe word read, tested and written). The polarity is Guava's
// BloomFilter.put, which returns true when the bits changed; true means
// "first time seen", the answer a de-duplicating loop branches on:
//
//	if f.AddNewString(line) {
//		emit(line)
//	}
//
// bits-and-blooms/bloom's TestAndAdd and sync.Map's LoadOrStore report the
// opposite (whether it was already there); a name that says "New" makes
// the polarity part of the name. A key that is a false positive (all its
// bits set by other keys) is reported not new, with the filter's
// false-positive rate: de-duplication with a Bloom filter drops that share
// of new keys and never passes a repeated one.

// AddNew adds key to the filter and reports whether it was new: true if at
// least one of its bits was clear, so the filter did not contain it; false
// if Contains(key) was true before the call (the key was added before, or
// is a false positive).
func (f *Filter) AddNew(key []byte) bool { return f.AddNewHash(hash.Bytes(key, f.seed)) }

// AddNewString is AddNew for a string key.
func (f *Filter) AddNewString(key string) bool { return f.AddNewHash(hash.String(key, f.seed)) }

// AddNewUint64 is AddNew for x's eight little-endian bytes.
func (f *Filter) AddNewUint64(x uint64) bool { return f.AddNewHash(f.h64.Hash(x)) }

// AddNewHash is AddNew for a key whose hash (see Hash) is h: it equals
// !ContainsHash(h) followed by AddHash(h).
//
// Where the single-key assembly kernels run (amd64 with AVX2 or AVX-512)
// it is exactly those two calls, without a branch between them: the second
// finds the block in L1. The fused Go probe (addNew: block and bit
// positions computed once, each word read, tested and written) measured
// 3.7x a plain AddHash there, the two kernel calls 1.8x (BenchmarkAddNew,
// n = 1e6, 1%, AMD EPYC Zen 5); a fused test-and-set assembly kernel is
// what would bring it to AddHash's cost. Elsewhere the single-key kernels
// are Go and the fused Go probe runs.
func (f *Filter) AddNewHash(h uint64) bool {
	if singleKeyAsm() {
		r := !kernel.BlockedContains1(&f.t, h)
		kernel.BlockedAdd1(&f.t, h)
		return r
	}
	r := addNew(f.t.Blocks, h, f.t.K)
	runtime.KeepAlive(f)
	return r
}

// singleKeyAsm reports whether kernel.BlockedContains1 and BlockedAdd1 run
// assembly: on amd64 whenever a SIMD kernel set is in use
// (internal/kernel/blocked_amd64.go); on arm64 they are Go.
func singleKeyAsm() bool {
	return runtime.GOARCH == "amd64" && kernel.Impl() != cpu.Generic
}

// AddNewHashes sets out[i] = AddNewHash(hs[i]) for i in order and returns
// how many are true. The answers are those of the one-at-a-time calls in
// order: a hash repeated in hs is new at most once, and keys that share a
// block see each other's bits. It panics if len(out) < len(hs); out beyond
// len(hs) is left alone.
//
// It looks up a chunk of keys with the SIMD batch kernel first (prefetched,
// so the cache misses overlap), then adds, one at a time and in order, the
// keys the lookup found absent: bits only get set during the call, so a key
// present at the lookup is still present at its turn. The adds are Go; a
// SIMD add-if-new kernel is not written yet.
func (f *Filter) AddNewHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("blocked: AddNewHashes: len(out) < len(hs)")
	}
	mustOpen(&f.core)
	var n int
	if useKernel(len(hs)) {
		n = filterAddNewHashes(f.t.Blocks, f.t.K, hs, out)
	} else {
		n = addNewHashes(f.t.Blocks, f.t.K, hs, out, false, addNew)
	}
	runtime.KeepAlive(f)
	return n
}

// filterAddNewHashes is Filter.AddNewHashes with the batch kernels. For
// each chunk of addChunk keys it looks them all up (kernel.BlockedContains,
// prefetched). A present key's answer is false. An absent key whose block
// no earlier absent key of the chunk touched finds its block as the lookup
// did, so its answer is true, and its add is deferred to one
// kernel.BlockedAdd call with the others (adds commute: the order of ORs
// does not change the bits). Any other absent key is answered one at a
// time: the deferred adds are flushed first, then addNew tests and sets it
// against the current block.
//
// The blocks touched are tracked in a 16384-bit set of block-index hashes
// per chunk (at most 256 entries, so a key in an untouched block meets a
// set bit about 1% of the time or less): a set bit only sends the key down
// the exact one-at-a-time path, so a hash collision costs time, never a
// wrong answer. Against an exact open-addressing set of block indexes
// (whose probe loop mispredicts) the batch ran 6.2 against 15.7 ns a key
// at n = 1e6 and 7.8 against 14.0 at 1e7 (BenchmarkAddNew, 1%, medians of
// 3 interleaved runs, AMD EPYC Zen 5, 2 shared vCPUs).
func filterAddNewHashes(blocks []kernel.Block, k int, hs []uint64, out []bool) int {
	out = out[:len(hs)]
	nb := uint64(len(blocks))
	n := 0
	var touched [256]uint64
	var deferred [addChunk]uint64
	for len(hs) > 0 {
		c := min(len(hs), addChunk)
		part, res := hs[:c], out[:c]
		kernel.BlockedContains(blocks, k, part, res)
		clear(touched[:])
		nd := 0
		for i, h := range part {
			if res[i] {
				res[i] = false
				continue
			}
			s := kernel.BlockIndex(h, nb) * 0x9e3779b97f4a7c15 >> 50 // 14 bits
			w, bit := s>>6, uint64(1)<<(s&63)
			if touched[w]&bit == 0 {
				touched[w] |= bit
				deferred[nd] = h
				nd++
				res[i] = true
				n++
				continue
			}
			if nd > 0 {
				kernel.BlockedAdd(blocks, k, deferred[:nd])
				nd = 0
			}
			if addNew(blocks, h, k) {
				res[i] = true
				n++
			}
		}
		if nd > 0 {
			kernel.BlockedAdd(blocks, k, deferred[:nd])
		}
		hs, out = hs[c:], out[c:]
	}
	return n
}

// AddNew adds key to the filter and reports whether it was new (see
// Filter.AddNew and Concurrent.AddNewHash).
func (c *Concurrent) AddNew(key []byte) bool { return c.AddNewHash(hash.Bytes(key, c.seed)) }

// AddNewString is AddNew for a string key.
func (c *Concurrent) AddNewString(key string) bool {
	return c.AddNewHash(hash.String(key, c.seed))
}

// AddNewUint64 is AddNew for x's eight little-endian bytes.
func (c *Concurrent) AddNewUint64(x uint64) bool { return c.AddNewHash(c.h64.Hash(x)) }

// AddNewHash adds the key whose hash is h and reports whether it was new:
// whether this call set one of its bits. Under races, exactly the calls
// whose atomic OR turned a clear bit of the key on report true, so:
//
//   - a key added by several goroutines at once is reported new by at
//     least one of them (unless it was already present, as a false
//     positive is);
//   - once an add of a key has returned, every later AddNew of it, in any
//     goroutine, reports false.
//
// Several racing calls may all report true (each set a different one of
// the key's bits).
//
// A clear bit is set with OrUint64 whose old value is used, which amd64
// compiles to a LOCK CMPXCHG loop rather than AddHash's LOCK OR: into an
// empty filter it measured 1.0x AddHash at n = 1e6 and 1.8x at 1e7
// (BenchmarkAddNew, AMD EPYC Zen 5); present keys take no locked
// instruction at all.
func (c *Concurrent) AddNewHash(h uint64) bool {
	r := addNewAtomic(c.t.Blocks, h, c.t.K)
	runtime.KeepAlive(c)
	return r
}

// AddNewHashes sets out[i] = AddNewHash(hs[i]) for i in order and returns
// how many are true: the answers of the one-at-a-time calls in order (see
// Filter.AddNewHashes), each with AddNewHash's guarantee under races. It
// panics if len(out) < len(hs).
func (c *Concurrent) AddNewHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("blocked: AddNewHashes: len(out) < len(hs)")
	}
	mustOpen(&c.core)
	n := addNewHashes(c.t.Blocks, c.t.K, hs, out, c.batchKernel(len(hs)), addNewAtomic)
	runtime.KeepAlive(c)
	return n
}

// addNewHashes is the batch add-if-new of both types, add1 being addNew or
// addNewAtomic. With lookup, each chunk of addChunk keys is first looked up
// with the batch kernel, written into out (true: present), and only the
// absent keys go through add1; a present key's answer is false, as add1's
// would be (bits only get set). Without, every key goes through add1.
func addNewHashes(blocks []kernel.Block, k int, hs []uint64, out []bool, lookup bool, add1 func([]kernel.Block, uint64, int) bool) int {
	out = out[:len(hs)]
	n := 0
	if !lookup {
		for i, h := range hs {
			r := add1(blocks, h, k)
			out[i] = r
			if r {
				n++
			}
		}
		return n
	}
	for len(hs) > 0 {
		c := min(len(hs), addChunk)
		part, res := hs[:c], out[:c]
		kernel.BlockedContains(blocks, k, part, res)
		for i, h := range part {
			r := !res[i] && add1(blocks, h, k)
			res[i] = r
			if r {
				n++
			}
		}
		hs, out = hs[c:], out[c:]
	}
	return n
}
