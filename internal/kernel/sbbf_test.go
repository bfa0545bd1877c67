package kernel_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"unsafe"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// The split-block kernels against their Generic twins and against the
// specification's definition (refSBBF*: BlockIndex picks the block,
// SBBFMask the bits), for every kernel set the machine has: the whole
// memory image after every insert batch, every answer and count, every
// batch length 0..maxLen, unaligned blocks, hashes and results, slices that
// end at a guard page, block counts up to SBBFMaxBlocks.

func refSBBFAdd(blocks []kernel.SBBFBlock, n uint64, h uint64) {
	b := &blocks[kernel.BlockIndex(h, n)]
	m := kernel.SBBFMask(h)
	for w := range b {
		b[w] |= m[w]
	}
}

func refSBBFContains(blocks []kernel.SBBFBlock, n uint64, h uint64) bool {
	b, m := blocks[kernel.BlockIndex(h, n)], kernel.SBBFMask(h)
	for w := range b {
		if m[w]&^b[w] != 0 {
			return false
		}
	}
	return true
}

// sbbfFilter returns nb blocks holding nkeys random keys inserted by the
// generic kernel, starting off uint32 words past a 64-byte boundary.
func sbbfFilter(r *rand.Rand, nb, nkeys, off int) []kernel.SBBFBlock {
	raw := make([]uint32, nb*kernel.SBBFBlockWords+32)
	p := unsafe.Pointer(&raw[0])
	for uintptr(p)%64 != uintptr(off*4) {
		p = unsafe.Add(p, 4)
	}
	b := unsafe.Slice((*kernel.SBBFBlock)(p), nb)
	kernel.SBBFAddGeneric(b, randHashes(r, nkeys))
	return b
}

// checkSBBF inserts adds into a copy of base with the kernel in use and
// with the generic kernel, compares the memory images, then probes with
// both and compares every answer and the count.
func checkSBBF(t *testing.T, base, blocks []kernel.SBBFBlock, adds, probes []uint64, out []bool) {
	t.Helper()
	copy(blocks, base)
	want := slices.Clone(base)
	kernel.SBBFAdd(blocks, adds)
	kernel.SBBFAddGeneric(want, adds)
	for i := range want {
		if blocks[i] != want[i] {
			t.Fatalf("nblocks=%d len=%d: block %d after SBBFAdd = %x, generic %x", len(want), len(adds), i, blocks[i], want[i])
		}
	}
	wantOut := make([]bool, len(probes))
	wantN := kernel.SBBFContainsGeneric(want, probes, wantOut)
	n := kernel.SBBFContains(blocks, probes, out)
	trues := 0
	for i := range probes {
		if out[i] != wantOut[i] {
			t.Fatalf("nblocks=%d len=%d: out[%d] = %v, generic %v (hash %#x)", len(want), len(probes), i, out[i], wantOut[i], probes[i])
		}
		if out[i] {
			trues++
		}
	}
	if n != wantN || n != trues {
		t.Fatalf("nblocks=%d len=%d: count %d, generic %d, trues written %d", len(want), len(probes), n, wantN, trues)
	}
}

func TestSBBFLengths(t *testing.T) {
	eachKernelMode(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(31, 32))
		nbs := []int{1, 2, 7, 67, 1001}
		if testing.Short() {
			nbs = nbs[:4]
		}
		for _, nb := range nbs {
			base := sbbfFilter(r, nb, nb*8, 0)
			blocks := make([]kernel.SBBFBlock, nb)
			for n := 0; n <= maxLen; n++ {
				adds := offsetHashes(randHashes(r, n), n%8)
				probes := offsetHashes(probesFor(r, adds, n), (n/8)%8)
				out, guard := guardedOut(n, n%8)
				checkSBBF(t, base, blocks, adds, probes, out)
				guard(t)
			}
		}
	})
}

func TestSBBFLarge(t *testing.T) {
	eachKernelMode(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(33, 34))
		lens := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 47, 48, 49, 51, 52, 53, 55, 56, 57, 63, 64, 65, 300, 1021, 4099}
		nbs := []int{1<<16 + 1, 1<<21 - 3}
		if testing.Short() {
			lens, nbs = []int{0, 1, 5, 21, 53, 300, 4099}, nbs[:1]
		}
		for _, nb := range nbs {
			base := sbbfFilter(r, nb, 20000, 0)
			blocks := make([]kernel.SBBFBlock, nb)
			for _, n := range lens {
				adds := randHashes(r, n)
				probes := probesFor(r, adds, n)
				out, guard := guardedOut(n, 3)
				checkSBBF(t, base, blocks, adds, probes, out)
				guard(t)
			}
		}
	})
}

// TestSBBFAlignment: blocks that start at every 4-byte offset within a
// cache line (so half the blocks straddle two lines), and hashes and
// results at every offset.
func TestSBBFAlignment(t *testing.T) {
	eachKernelMode(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(35, 36))
		const nb = 37
		for blkOff := 0; blkOff < 16; blkOff++ {
			base := sbbfFilter(r, nb, 100, 0)
			blocks := sbbfFilter(r, nb, 0, blkOff)
			for hOff := 0; hOff < 8; hOff++ {
				for outOff := 0; outOff < 8; outOff += 3 {
					for _, n := range []int{0, 1, 3, 4, 5, 8, 9, 33, 257} {
						adds := offsetHashes(randHashes(r, n), hOff)
						probes := offsetHashes(probesFor(r, adds, n+1), (hOff+1)%8)[1:]
						out, guard := guardedOut(n, outOff)
						checkSBBF(t, base, blocks, adds, probes, out)
						guard(t)
					}
				}
			}
		}
	})
}

// TestSBBFGuardPage: hashes and results end exactly at a page followed by a
// PROT_NONE page, so any read or write past the end faults.
func TestSBBFGuardPage(t *testing.T) {
	if !kerneltest.Guarded {
		t.Log("no guard pages on this OS: the slices are plain")
	}
	eachKernelMode(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(37, 38))
		const nb = 513
		lens := []int{255, 256, 257, 511, 512, 513, 1000}
		for n := 0; n <= 70; n++ {
			lens = append(lens, n)
		}
		base := sbbfFilter(r, nb, 2000, 0)
		blocks := make([]kernel.SBBFBlock, nb)
		for _, n := range lens {
			adds := kerneltest.GuardedUint64s(t, n)
			copy(adds, randHashes(r, n))
			probes := kerneltest.GuardedUint64s(t, n)
			copy(probes, probesFor(r, adds, n))
			out := kerneltest.GuardedBools(t, n)
			checkSBBF(t, base, blocks, adds, probes, out)
		}
	})
}

// TestSBBFPerKey checks the batch kernels against the definition, so a
// mistake shared by a kernel and its twin is caught too.
func TestSBBFPerKey(t *testing.T) {
	eachKernelMode(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(39, 40))
		for _, nb := range []int{1, 3, 1000, 65537} {
			adds := randHashes(r, 700)
			batch := make([]kernel.SBBFBlock, nb)
			kernel.SBBFAdd(batch, adds)
			single := make([]kernel.SBBFBlock, nb)
			for _, h := range adds {
				refSBBFAdd(single, uint64(nb), h)
			}
			if !slices.Equal(batch, single) {
				t.Fatalf("nblocks=%d: batch insert differs from the definition", nb)
			}
			probes := probesFor(r, adds, 900)
			out := make([]bool, len(probes))
			n := kernel.SBBFContains(batch, probes, out)
			count := 0
			for i, h := range probes {
				want := refSBBFContains(batch, uint64(nb), h)
				if out[i] != want {
					t.Fatalf("nblocks=%d: out[%d] = %v, definition %v", nb, i, out[i], want)
				}
				if want {
					count++
				}
			}
			if n != count {
				t.Fatalf("nblocks=%d: count %d, definition %d", nb, n, count)
			}
			if n := kernel.SBBFContains(batch, adds, out[:len(adds)]); n != len(adds) {
				t.Fatalf("nblocks=%d: %d of %d inserted keys found", nb, n, len(adds))
			}
		}
	})
}

func TestSBBFShortOut(t *testing.T) {
	eachKernel(t, func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Fatal("SBBFContains with len(out) < len(hs) did not panic")
			}
		}()
		kernel.SBBFContains(make([]kernel.SBBFBlock, 4), make([]uint64, 10), make([]bool, 9))
	})
}

func TestSBBFAllocs(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(41, 42))
		blocks := make([]kernel.SBBFBlock, 1000)
		hs := randHashes(r, 1000)
		out := make([]bool, len(hs))
		if a := testing.AllocsPerRun(20, func() {
			kernel.SBBFAdd(blocks, hs)
			kernel.SBBFContains(blocks, hs, out)
			for _, h := range hs[:100] {
				kernel.SBBFAdd1(&blocks, h)
				if !kernel.SBBFContains1(&blocks, h) {
					panic("inserted key absent")
				}
			}
		}); a != 0 {
			t.Fatalf("%v allocations per round", a)
		}
	})
}

// hugeSlice returns a slice over real's memory whose length and capacity
// claim n elements, for the huge-block-count tests, which never index it
// past len(real). The header is built by hand, not with unsafe.Slice,
// whose checkptr check (on under -race) rejects a result longer than its
// allocation.
func hugeSlice[T any](real []T, n uint64) []T {
	hdr := struct {
		data     *T
		len, cap int
	}{&real[0], int(n), int(n)}
	return *(*[]T)(unsafe.Pointer(&hdr))
}

// lowHashes returns n hashes whose blocks, among nb, are below 16: the
// huge-block-count tests of every filter layout put 16 real blocks under a
// slice header claiming nb.
func lowHashes(r *rand.Rand, n int, nb uint64) []uint64 {
	hs := make([]uint64, n)
	for i := range hs {
		for {
			hs[i] = r.Uint64N(1<<36) | uint64(r.Uint32())
			if kernel.BlockIndex(hs[i], nb) < 16 {
				break
			}
		}
	}
	return hs
}

// TestSBBFHugeBlockCount checks the batch kernels' block index up to
// SBBFMaxBlocks (offsets past 2^32 bytes) without the memory: the hashes'
// high halves are small, so they land in the first blocks.
func TestSBBFHugeBlockCount(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		if impl == "generic" || kernel.SBBFAsmAddN == nil {
			t.Skip("no assembly kernel")
		}
		eachMode(t, func(t *testing.T) {
			r := rand.New(rand.NewPCG(43, 44))
			for _, n := range []uint64{kernel.SBBFMaxBlocks, kernel.SBBFMaxBlocks - 1, 1<<30 + 12345, 3 << 29} {
				hs := lowHashes(r, 300, n)
				want := make([]kernel.SBBFBlock, 16)
				for _, h := range hs[:150] {
					refSBBFAdd(want, n, h)
				}
				got := make([]kernel.SBBFBlock, 16)
				kernel.SBBFAsmAddN(got, n, hs[:150])
				if !slices.Equal(got, want) {
					t.Fatalf("nblocks=%d: insert image differs", n)
				}
				out := make([]bool, len(hs))
				count := kernel.SBBFAsmContainsN(got, n, hs, out)
				trues := 0
				for i, h := range hs {
					if w := refSBBFContains(want, n, h); out[i] != w {
						t.Fatalf("nblocks=%d: out[%d] = %v, want %v", n, i, out[i], w)
					}
					if out[i] {
						trues++
					}
				}
				if count != trues {
					t.Fatalf("nblocks=%d: count %d, want %d", n, count, trues)
				}
			}
		})
	})
}

// TestSBBF1 checks the single-key kernels and their Go twins against the
// definition: the memory image after the inserts, the answers for present
// and random keys.
func TestSBBF1(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(45, 46))
		for _, nb := range []int{1, 2, 3, 5, 64, 1000, 65537} {
			adds := randHashes(r, 400)
			got := make([]kernel.SBBFBlock, nb)
			gen := make([]kernel.SBBFBlock, nb)
			want := make([]kernel.SBBFBlock, nb)
			for _, h := range adds {
				kernel.SBBFAdd1(&got, h)
				kernel.SBBFAdd1Generic(gen, h)
				refSBBFAdd(want, uint64(nb), h)
			}
			if !slices.Equal(got, want) || !slices.Equal(gen, want) {
				t.Fatalf("nblocks=%d: single-key insert image differs from the definition", nb)
			}
			for i, h := range probesFor(r, adds, 800) {
				w := refSBBFContains(want, uint64(nb), h)
				if c := kernel.SBBFContains1(&got, h); c != w {
					t.Fatalf("nblocks=%d: probe %d (hash %#x) = %v, want %v", nb, i, h, c, w)
				}
				if c := kernel.SBBFContains1Generic(got, h); c != w {
					t.Fatalf("nblocks=%d: generic probe %d (hash %#x) = %v, want %v", nb, i, h, c, w)
				}
			}
		}
	})
}

// TestSBBF1OneBitMissing: a block holding all of a key's bits but one
// answers false for every choice of the missing bit, in every word: the
// single-key and batch probes test all eight words.
func TestSBBF1OneBitMissing(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(47, 48))
		blocks := make([]kernel.SBBFBlock, 3)
		for _, h := range randHashes(r, 200) {
			m := kernel.SBBFMask(h)
			for w := range m {
				for i := range blocks {
					blocks[i] = m
				}
				blocks[kernel.BlockIndex(h, 3)][w] = ^m[w] // every bit but the key's
				out := make([]bool, 1)
				if kernel.SBBFContains1(&blocks, h) || kernel.SBBFContains(blocks, []uint64{h}, out) != 0 || out[0] {
					t.Fatalf("hash %#x with word %d's bit missing reported present", h, w)
				}
			}
			for i := range blocks {
				blocks[i] = m
			}
			if !kernel.SBBFContains1(&blocks, h) {
				t.Fatalf("hash %#x with exactly its bits reported absent", h)
			}
		}
	})
}

// TestSBBF1HugeBlockCount: the single-key block index up to SBBFMaxBlocks,
// with a slice header claiming that many blocks over 16 real ones.
func TestSBBF1HugeBlockCount(t *testing.T) {
	if strconv.IntSize < 64 {
		t.Skip("block counts above 2^31 bytes need 64-bit ints")
	}
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(49, 50))
		for _, n := range []uint64{kernel.SBBFMaxBlocks, kernel.SBBFMaxBlocks - 1, 1<<30 + 12345, 3 << 29} {
			real := make([]kernel.SBBFBlock, 16)
			huge := hugeSlice(real, n)
			want := make([]kernel.SBBFBlock, 16)
			hs := lowHashes(r, 200, n)
			for _, h := range hs[:100] {
				kernel.SBBFAdd1(&huge, h)
				refSBBFAdd(want, n, h)
			}
			if !slices.Equal(real, want) {
				t.Fatalf("nblocks=%d: insert image differs", n)
			}
			for _, h := range hs {
				if got, w := kernel.SBBFContains1(&huge, h), refSBBFContains(want, n, h); got != w {
					t.Fatalf("nblocks=%d hash %#x: %v, want %v", n, h, got, w)
				}
			}
		}
	})
}

// TestSBBF1Empty: the single-key calls panic with ErrNoSBBFBlocks on an empty
// filter (the assembly hands it to the Go twin) instead of reading memory.
func TestSBBF1Empty(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		var empty []kernel.SBBFBlock
		for name, call := range map[string]func(){
			"SBBFContains1":        func() { kernel.SBBFContains1(&empty, 0x123456789) },
			"SBBFAdd1":             func() { kernel.SBBFAdd1(&empty, 0x123456789) },
			"SBBFContains1Generic": func() { kernel.SBBFContains1Generic(empty, 0x123456789) },
			"SBBFAdd1Generic":      func() { kernel.SBBFAdd1Generic(empty, 0x123456789) },
		} {
			func() {
				defer func() {
					if r := recover(); r != kernel.ErrNoSBBFBlocks {
						t.Errorf("%s on an empty filter: panic %v, want ErrNoSBBFBlocks", name, r)
					}
				}()
				call()
			}()
		}
	})
}

// TestSBBFSaltConstants: the constants the unrolled probes use are the
// salts, and those are the specification's.
func TestSBBFSaltConstants(t *testing.T) {
	c := [8]uint32{kernel.SBBFSalt0, kernel.SBBFSalt1, kernel.SBBFSalt2, kernel.SBBFSalt3,
		kernel.SBBFSalt4, kernel.SBBFSalt5, kernel.SBBFSalt6, kernel.SBBFSalt7}
	spec := [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}
	if c != kernel.SBBFSalts || c != spec {
		t.Fatalf("salt constants %x, SBBFSalts %x, specification %x", c, kernel.SBBFSalts, spec)
	}
}

func ExampleSBBFContains() {
	blocks := make([]kernel.SBBFBlock, 16)
	kernel.SBBFAdd(blocks, []uint64{0x0123456789abcdef, 0xfedcba9876543210})
	out := make([]bool, 3)
	n := kernel.SBBFContains(blocks, []uint64{0x0123456789abcdef, 0xfedcba9876543210, 42}, out)
	fmt.Println(n, out)
	// Output: 2 [true true false]
}
