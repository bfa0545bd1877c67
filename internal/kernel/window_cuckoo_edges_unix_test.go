//go:build unix

package kernel_test

// Edge tests of the windowed batch probe and the cuckoo lookups, from a
// mutation audit of the arm64 kernels: each kills a mutant of the assembly
// (window_arm64.s, cuckoo_arm64.s) that survived every other test of this
// package under qemu-aarch64, and runs on every assembly kernel set of
// every architecture.

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/sift-go/sift/internal/cpu"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
	"golang.org/x/sys/unix"
)

// edgeFill adds each of keys to generation i%g of a windowed table of nb
// groups (nb may exceed the groups blocks holds when the keys' groups are
// low: see lowHashes).
func edgeFill(blocks []kernel.Block, nb uint64, g, k int, keys []uint64) {
	for i, h := range keys {
		refAddLane(blocks, nb, g, i%g, k, h)
	}
}

// edgeCompare runs the batch probe of the set in use (through run) and
// the generic twin and fails on the first difference.
func edgeCompare(t *testing.T, what string, blocks []kernel.Block, nb uint64, g int, live uint64, k int, hs []uint64, out []bool,
	run func(blocks []kernel.Block, nb uint64, g int, live uint64, k int, hs []uint64, out []bool) int) {
	t.Helper()
	want := make([]bool, len(hs))
	wantN := kernel.BlockedContainsGensGeneric(blocks, nb, g, live, k, hs, want)
	gotN := run(blocks, nb, g, live, k, hs, out)
	for i := range hs {
		if out[i] != want[i] {
			t.Fatalf("%s nb=%d g=%d live=%#x k=%d len=%d: answer %d (hash %#x) is %v, generic %v", what, nb, g, live, k, len(hs), i, hs[i], out[i], want[i])
		}
	}
	if gotN != wantN {
		t.Fatalf("%s nb=%d g=%d live=%#x k=%d len=%d: count %d, generic %d", what, nb, g, live, k, len(hs), gotN, wantN)
	}
}

// TestWindowHugeGroupCount checks the windowed batch probe's group
// index, (h>>32)*nb>>32, at group counts near MaxBlocks without the
// memory (the hashes' groups are low), as TestBlockedHugeBlockCount does
// for the blocked kernels. Small tables cannot see an index computed from
// the whole hash (umulh(h, nb) instead of umulh(h&^0xffffffff, nb)): the
// two differ with probability about nb/2^32 per key.
func TestWindowHugeGroupCount(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		if impl == cpu.Generic {
			t.Skip("no assembly kernel")
		}
		r := rand.New(rand.NewPCG(41, 42))
		const groups = 16 // lowHashes' groups
		for _, nb := range []uint64{kernel.MaxBlocks - 1, 1<<31 + 12345, 3 << 30} {
			for _, g := range []int{2, 4, 64} {
				for _, k := range []int{1, 8, 9, 16} {
					p := uint64(kernel.WindowLines(g))
					// A spare group after the 16: an index one too high
					// reads memory that is there.
					blocks := make([]kernel.Block, (groups+1)*p)
					hs := lowHashes(r, 200, nb)
					edgeFill(blocks, nb, g, k, hs[:100])
					all := uint64(1)<<uint(g) - 1
					for _, live := range []uint64{all, 1, 1 << uint(g-1)} {
						edgeCompare(t, "huge", blocks, nb, g, live, k, hs, make([]bool, len(hs)), kernel.BlockedContainsGensN)
					}
				}
			}
		}
	})
}

// TestWindowGuardPage runs the windowed batch probe on hashes and
// results that end exactly at a PROT_NONE page, every length 0..140 and a
// few longer, on every loop (g = 2 and g >= 4, k <= 8 and k > 8): a kernel
// that reads a hash past the end (a prefetch load one key too far) faults.
// The other batch kernels have such a test (TestBlockedGuardPage,
// TestSBBFGuardPage, ...); the windowed one had none.
func TestWindowGuardPage(t *testing.T) {
	eachKernelMode(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(43, 44))
		lens := make([]int, 0, 150)
		for n := 0; n <= 140; n++ {
			lens = append(lens, n)
		}
		lens = append(lens, 200, 257, 300)
		const maxN = 300
		ghs, gout := kerneltest.GuardedUint64s(t, maxN), kerneltest.GuardedBools(t, maxN)
		const nb = 7
		for _, g := range []int{2, 4, 8, 64} {
			for _, k := range []int{1, 8, 9, 16} {
				blocks := make([]kernel.Block, nb*uint64(kernel.WindowLines(g)))
				keys := randHashes(r, 3*nb*g)
				edgeFill(blocks, nb, g, k, keys)
				for _, n := range lens {
					hs := ghs[maxN-n:]
					for i := range hs {
						if i%2 == 0 {
							hs[i] = keys[r.IntN(len(keys))]
						} else {
							hs[i] = r.Uint64()
						}
					}
					live := r.Uint64() | 1<<uint(r.IntN(g))
					edgeCompare(t, "guarded", blocks, nb, g, live, k, hs, gout[maxN-n:], kernel.BlockedContainsGens)
				}
			}
		}
	})
}

// TestWindowDirtyVectorRegisters calls the windowed batch probe right
// after SHA-256, whose arm64 assembly (with the SHA2 extension, which
// qemu-aarch64 and nearly every arm64 CPU have) leaves its round constants
// in V28..V31: a kernel that relies on a vector register it did not set
// (window_arm64.s compares the misses with V29, which it must zero) gives
// wrong answers. Go's ABI promises no vector register's value; the
// kernel's other tests happen to run with V29 zero.
func TestWindowDirtyVectorRegisters(t *testing.T) {
	eachKernel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(45, 46))
		msg := make([]byte, 256)
		for i := range msg {
			msg[i] = byte(r.Uint32())
		}
		const nb = 11
		for _, g := range []int{2, 4, 64} {
			for _, k := range []int{1, 8, 16} {
				blocks := make([]kernel.Block, nb*uint64(kernel.WindowLines(g)))
				keys := randHashes(r, 2*nb*g)
				edgeFill(blocks, nb, g, k, keys)
				hs := make([]uint64, 64)
				for i := range hs {
					hs[i] = keys[r.IntN(len(keys))] // all present
				}
				var sum [sha256.Size]byte
				edgeCompare(t, "after sha256", blocks, nb, g, 1<<uint(g)-1, k, hs, make([]bool, len(hs)),
					func(blocks []kernel.Block, nb uint64, g int, live uint64, k int, hs []uint64, out []bool) int {
						sum = sha256.Sum256(msg)
						return kernel.BlockedContainsGens(blocks, nb, g, live, k, hs, out)
					})
				msg[0] ^= sum[0]
			}
		}
	})
}

// TestCuckooLargeBucketCount probes a cuckoo table of 2^26+3 buckets
// (256 or 512 MiB of address space, mapped but left untouched except for
// the buckets the inserted keys land in) with every batch lookup kernel
// (NEON and scalar on arm64): the contains tests stop at 4099 buckets
// (short) or 2^20+3, where a bucket index computed from the whole hash
// (umulh(h, n) instead of umulh(h&^0xffffffff, n)) differs for about
// n/2^32 of the keys, i.e. never in 340 keys. At 2^26 buckets one key in
// 64 differs. The locate kernels have such sizes
// (TestCuckooLocateEquivalence); the lookups, whose BUCKETS could be
// written apart, did not.
func TestCuckooLargeBucketCount(t *testing.T) {
	defer kernel.SetCuckooBatchMin(1)()
	const n = 1<<26 + 3
	r := rand.New(rand.NewPCG(47, 48))
	for _, fpBits := range []uint{8, 16} {
		words := kernel.CuckooWords(n, fpBits)
		mem, err := unix.Mmap(-1, 0, int(words*8), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
		if err != nil {
			t.Skipf("mmap of %d MiB: %v", words*8>>20, err)
		}
		tb := &kernel.CuckooTable{Words: unsafe.Slice((*uint64)(unsafe.Pointer(&mem[0])), words), Buckets: n, FPBits: fpBits}
		keys := randHashes(r, 1000)
		if got, _ := kernel.CuckooInsertGeneric(tb, keys, nil); got != len(keys) {
			t.Fatalf("f=%d: inserted %d keys of %d", fpBits, got, len(keys))
		}
		hs := make([]uint64, 2*len(keys))
		copy(hs, keys)
		for i := len(keys); i < len(hs); i++ {
			hs[i] = r.Uint64() // absent, but for false positives
		}
		r.Shuffle(len(hs), func(i, j int) { hs[i], hs[j] = hs[j], hs[i] })
		want := make([]bool, len(hs))
		wantN := kernel.CuckooContainsGeneric(tb, hs, want)
		check := func(t *testing.T) {
			got := make([]bool, len(hs))
			gotN := kernel.CuckooContains(tb, hs, got)
			for i := range hs {
				if got[i] != want[i] {
					t.Fatalf("answer %d (hash %#x) is %v, generic %v", i, hs[i], got[i], want[i])
				}
			}
			if gotN != wantN {
				t.Fatalf("count %d, generic %d", gotN, wantN)
			}
		}
		t.Run(fmt.Sprintf("f=%d", fpBits), func(t *testing.T) {
			kerneltest.Run(t, func(t *testing.T, impl string) {
				if impl == cpu.Generic {
					t.Skip("no assembly kernel")
				}
				if impl == cpu.NEON {
					t.Run("variant=scalar", func(t *testing.T) {
						defer kernel.SetCuckooScalar(true)()
						check(t)
					})
				}
				check(t)
			})
		})
		unix.Munmap(mem)
	}
}
