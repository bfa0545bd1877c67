package blocked

import (
	"runtime"

	"github.com/sift-go/sift/hash"
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
// !ContainsHash(h) followed by AddHash(h), in one probe of the block.
//
// It is one call of kernel.BlockedAddNew1, a fused test-and-set: on amd64
// with AVX2 or AVX-512 an assembly kernel that builds the mask as AddHash's
// does, loads the block once, tests, ORs and stores it; elsewhere the
// fused Go probe (block and bit positions computed once, each word read,
// tested and written).
//
// Measured against AddHash into an empty filter, 1%, in thread CPU time
// (`go test -run '^$' -bench AddNewPaired -benchtime 6x ./blocked`, whose
// loop branches on each answer as a de-duplicating loop does; AMD EPYC
// family 26 model 2, Zen 5, 2 shared vCPUs, medians of 5 runs interleaved
// with the code before this kernel): 1.21x at n = 1e6 and 1.19x at 1e7,
// where the contains-then-add it replaced
// took 2.35x and 2.09x. On the Zen 4 (AMD EPYC family 25 model 17, three
// runs on 2026-11-28): 1.18-1.21x at 1e6 and 1.28-1.29x at 1e7, and with
// the answers unused 1.05-1.08x at 1e6. That is about the ratio of the
// instructions a key (k = 8, the AVX-512 path the table runs): AddHash's
// kernel runs 25 (entry and tail jump, block offset, mask, one OR with
// the block in memory, store), this one 28 (the block loaded into a
// register, VPTESTNMQ, and the KMOVB of the opmask of the probes that
// were clear to the stack, where Go's assembly calling convention
// returns it); the benchmark's loop around AddHash compiles to 15 (the
// call clobbers every register, so the loop's state is spilled and
// reloaded), around AddNewHash to 20 (the reload of the answer, the
// branch, and the benchmark's own count of new keys in memory): 48
// against 40 a key, and 43 against 40 with the answers unused. Testing
// and ORing with the block in memory (two loads of the line, one
// instruction fewer) measured slower: 1.23x against 1.17x at 1e6 (five
// alternated runs of the branching loop on the Zen 5 below, the
// opmask answer in both; 1.13x when this kernel was written).
//
// The opmask stored as it is replaced a KORTESTB and a SETCC, which
// wait for the block's load too: at 1e7, with the answers unused, the
// median per-pair ratio (median-pair-ratio; 15 alternated runs of
// -benchtime 12x-16x, AMD EPYC family 26 model 2, Zen 5) went from
// 1.12-1.15 to 1.02-1.04, level at 1e6 (1.04 both). With the
// benchmark's branch on each answer it is 1.14-1.15x at 1e6 and 1.2-1.3x
// at 1e7 (medians of those runs; single rounds 0.95-1.5x at 1e7 on this
// shared VM) before and after: the caller's use of an answer that
// depends on the block's load, not the kernel, is the rest.
//
// Called as a de-duplicating server calls it, AddNewString against
// AddString on URL-like keys of 40-60 bytes with the caller branching on
// each answer (call=string in the same benchmark, three runs on the AMD
// EPYC family 26 model 2, Zen 5, in the same hour as call=single's
// 1.15x, 1.15x, 1.16x at 1e6 and 1.15x, 1.21x, 1.09x at 1e7): 1.09x,
// 1.09x, 1.08x at 1e6 and 1.15x, 1.03x, 1.00x at 1e7. The hash is the
// same in both and its cost shrinks the ratio; the absolute gap, about
// 1 ns a key at 1e6, is larger than the hash form's 0.4.
func (f *Filter) AddNewHash(h uint64) bool {
	// BlockedAddNew1 keeps &f.t, so f, alive to its end.
	return kernel.BlockedAddNew1(&f.t, h)
}

// AddNewHashes sets out[i] = AddNewHash(hs[i]) for i in order and returns
// how many are true. The answers are those of the one-at-a-time calls in
// order: a hash repeated in hs is new at most once, and keys that share a
// block see each other's bits. It panics if len(out) < len(hs); out beyond
// len(hs) is left alone.
//
// Batches of two keys and more run kernel.BlockedAddNew where an assembly
// kernel set is in use: AddHashes' loop (masks built in vector registers,
// blocks prefetched 48 keys ahead, 128 on filters from 4 MiB that fit the
// last-level cache, and on every filter from 4 MiB on CPUs where that
// measured faster, as AMD's Zen 5) with a key step that loads the block,
// tests the mask, ORs and stores it, key after key, so a later key reads
// an earlier one's store. Without assembly it is a loop of AddNewHash.
//
// Measured against AddHashes as AddNewHash is (BenchmarkAddNewPaired, one
// call for all n keys): 1.16x at n = 1e6 and 1.14x at 1e7, where the
// lookup, deferred adds and one-at-a-time path for keys sharing a block
// that it replaced took 3.85x and 2.94x. At 1e7 the ratio is bimodal:
// in runs where AddHashes into the freshly cleared filter takes about
// 1.5 ns a key instead of 2.5 (blocks still in cache), add-if-new gains
// less: over 11 runs on a quieter machine 1.15-1.54x, median 1.35x.
// In calls of 1024 keys, as sift dedup makes (call=batch1024, 12 runs on
// a quiet machine): 1.13x at 1e6 and 1.16x at 1e7 (1.11-1.25x), the
// answers staying in L1; the one-call figure at 1e7 pays for n answers
// streamed through the cache the filter shares. The kernels alone: 1.12x
// at both sizes (internal/kernel/addnew_amd64.go). On a Zen 4 (AMD EPYC
// family 25 model 17, 2 vCPUs), where the table runs AddHashes on avx2 and
// AddNewHashes on avx512, medians of six rounds: 1.17x (one call) and
// 1.10x (calls of 1024) at 1e6, 1.15x and 1.19x at 1e7; with avx2 for
// both, 1.28x and 1.26x at 1e6 (internal/kernel/table.go). When the add
// kernels took their far prefetch mode at 1e7, add-if-new fell to 1.43x
// and 1.26x there (six rounds on a fresh VM of that Zen 4); with the far
// mode of its own and avx2 from 4 MiB, the same six rounds gave 1.18x
// (1.14-1.29) and 1.12x at 1e7, and at 1e6, unchanged, 1.11x and 1.09x.
func (f *Filter) AddNewHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("blocked: AddNewHashes: len(out) < len(hs)")
	}
	mustOpen(&f.core)
	var n int
	if useKernel(len(hs)) {
		n = kernel.BlockedAddNew(f.t.Blocks, f.t.K, hs, out)
	} else {
		out = out[:len(hs)]
		for i, h := range hs {
			r := kernel.BlockedAddNew1(&f.t, h)
			out[i] = r
			if r {
				n++
			}
		}
	}
	runtime.KeepAlive(f)
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
//     positive is, or a plain Add of it, which reports nothing, set the
//     bits first);
//   - once an add of a key has returned, every later AddNew of it, in any
//     goroutine, reports false.
//
// Several racing calls may all report true (each set a different one of
// the key's bits).
//
// A clear bit is set with OrUint64 whose old value is used, which amd64
// compiles to a LOCK CMPXCHG loop rather than AddHash's LOCK OR: into an
// empty filter it measured 1.0x AddHash at n = 1e6 and 1.8x at 1e7
// (BenchmarkAddNew, AMD EPYC family 26 model 2, Zen 5); present keys take
// no locked instruction at all.
func (c *Concurrent) AddNewHash(h uint64) bool {
	r := addNewAtomic(c.t.Blocks, h, c.t.K)
	runtime.KeepAlive(c)
	return r
}

// AddNewHashes sets out[i] = AddNewHash(hs[i]) for i in order and returns
// how many are true: the answers of the one-at-a-time calls in order (see
// Filter.AddNewHashes), each with AddNewHash's guarantee under races. It
// panics if len(out) < len(hs); out beyond len(hs) is left alone.
func (c *Concurrent) AddNewHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("blocked: AddNewHashes: len(out) < len(hs)")
	}
	mustOpen(&c.core)
	n := addNewHashes(c.t.Blocks, c.t.K, hs, out, c.batchKernel(len(hs)))
	runtime.KeepAlive(c)
	return n
}

// addNewHashes is Concurrent's batch add-if-new. With lookup, each chunk
// of addChunk keys is first looked up with the batch kernel, written into
// out (true: present), and only the absent keys go through addNewAtomic; a
// present key's answer is false, as addNewAtomic's would be (bits only get
// set). Without, every key goes through addNewAtomic.
func addNewHashes(blocks []kernel.Block, k int, hs []uint64, out []bool, lookup bool) int {
	out = out[:len(hs)]
	n := 0
	if !lookup {
		for i, h := range hs {
			r := addNewAtomic(blocks, h, k)
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
			r := !res[i] && addNewAtomic(blocks, h, k)
			res[i] = r
			if r {
				n++
			}
		}
		hs, out = hs[c:], out[c:]
	}
	return n
}
