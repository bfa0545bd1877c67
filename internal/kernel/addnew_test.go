package kernel_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// The add-if-new kernels are checked against refAddNew, the package doc's
// definition of one key, called for each hash in order: the batch kernels'
// answers, counts and memory images must be those of one-at-a-time calls,
// whatever repeats and block sharing the batch holds.

// refAddNew inserts h by the definition and reports whether one of its
// bits was clear.
func refAddNew(blocks []kernel.Block, n uint64, k int, h uint64) bool {
	b := &blocks[kernel.BlockIndex(h, n)]
	m := kernel.BlockMask(h, k)
	var miss uint64
	for w := range b {
		miss |= m[w] &^ b[w]
		b[w] |= m[w]
	}
	return miss != 0
}

// addNewInput returns n hashes for a filter of nb blocks in which about
// one in four repeats an earlier hash (one in eight the one just before)
// and one in eight shares an earlier hash's block with other bits.
func addNewInput(r *rand.Rand, n int) []uint64 {
	hs := randHashes(r, n)
	for i := 1; i < n; i++ {
		switch r.IntN(8) {
		case 0:
			hs[i] = hs[i-1]
		case 1:
			hs[i] = hs[r.IntN(i)]
		case 2:
			hs[i] = hs[r.IntN(i)]&^0xffffffff | uint64(r.Uint32())
		}
	}
	return hs
}

type addNewFunc func(blocks []kernel.Block, k int, hs []uint64, out []bool) int

// diffAddNew runs fn on blocks (a copy of base) and the reference on
// another copy, and returns the first difference in the memory image, the
// answers or the count, or "".
func diffAddNew(fn addNewFunc, base, blocks []kernel.Block, k int, hs []uint64, out []bool) string {
	copy(blocks, base)
	nb := uint64(len(base))
	want := slices.Clone(base)
	wantOut := make([]bool, len(hs))
	wantN := 0
	for i, h := range hs {
		wantOut[i] = refAddNew(want, nb, k, h)
		if wantOut[i] {
			wantN++
		}
	}
	n := fn(blocks, k, hs, out)
	for i := range want {
		if blocks[i] != want[i] {
			return fmt.Sprintf("nblocks=%d k=%d len=%d: block %d = %x, want %x", nb, k, len(hs), i, blocks[i], want[i])
		}
	}
	trues := 0
	for i := range hs {
		if out[i] != wantOut[i] {
			return fmt.Sprintf("nblocks=%d k=%d len=%d: out[%d] = %v, want %v (hash %#x)", nb, k, len(hs), i, out[i], wantOut[i], hs[i])
		}
		if out[i] {
			trues++
		}
	}
	if n != wantN || trues != wantN {
		return fmt.Sprintf("nblocks=%d k=%d len=%d: count %d, trues written %d, want %d", nb, k, len(hs), n, trues, wantN)
	}
	return ""
}

// checkAddNew checks kernel.BlockedAdd (the kernel in use) and the generic
// twin against the reference.
func checkAddNew(t *testing.T, base, blocks []kernel.Block, k int, hs []uint64, out []bool) {
	t.Helper()
	if d := diffAddNew(kernel.BlockedAddNew, base, blocks, k, hs, out); d != "" {
		t.Fatal("BlockedAddNew: " + d)
	}
	gen := make([]kernel.Block, len(base))
	if d := diffAddNew(kernel.BlockedAddNewGeneric, base, gen, k, hs, make([]bool, len(hs))); d != "" {
		t.Fatal("BlockedAddNewGeneric: " + d)
	}
}

// TestBlockedAddNewLengths: every length 0..600 (crossing the loops'
// boundaries at any unroll and prefetch distance up to 128, the far
// mode's), every k, on
// filters from 1 block (every key shares it) up, prefilled so that some
// keys are present, with repeats and shared blocks inside the batch,
// hashes and results at every offset mod 8.
func TestBlockedAddNewLengths(t *testing.T) {
	eachKernelMode(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(31, 32))
		nbs := []int{1, 2, 7, 67, 1001}
		maxN := 600
		if testing.Short() {
			nbs, maxN = nbs[:4], 300
		}
		for _, nb := range nbs {
			for k := 1; k <= kernel.MaxK; k++ {
				base := filter(r, nb, k, nb*4, 0)
				blocks := make([]kernel.Block, nb)
				for n := 0; n <= maxN; n++ {
					hs := offsetHashes(addNewInput(r, n), n%8)
					out, guard := guardedOut(n, (n/8)%8)
					checkAddNew(t, base, blocks, k, hs, out)
					guard(t)
				}
			}
		}
	})
}

// TestBlockedAddNewShared: long batches into tiny and empty filters, where
// nearly every key shares its block with the one before it, and batches
// made of one hash repeated.
func TestBlockedAddNewShared(t *testing.T) {
	eachKernel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(33, 34))
		for _, nb := range []int{1, 2, 3, 8} {
			for k := 1; k <= kernel.MaxK; k++ {
				empty := make([]kernel.Block, nb)
				blocks := make([]kernel.Block, nb)
				for _, n := range []int{9, 64, 257, 1000} {
					hs := addNewInput(r, n)
					checkAddNew(t, empty, blocks, k, hs, make([]bool, n))
					same := make([]uint64, n)
					for i := range same {
						same[i] = hs[0]
					}
					checkAddNew(t, empty, blocks, k, same, make([]bool, n))
				}
			}
		}
	})
}

func TestBlockedAddNewLarge(t *testing.T) {
	eachKernelMode(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(35, 36))
		lens := []int{1, 7, 8, 9, 63, 64, 65, 300, 1021, 4099}
		nbs := []int{1<<16 + 1, 1<<20 - 3}
		if testing.Short() {
			lens, nbs = []int{1, 9, 300, 4099}, nbs[:1]
		}
		for _, nb := range nbs {
			for _, k := range []int{1, 2, 7, 8, 9, 15, 16} {
				base := filter(r, nb, k, 20000, 0)
				blocks := make([]kernel.Block, nb)
				for _, n := range lens {
					hs := addNewInput(r, n)
					out, guard := guardedOut(n, 5)
					checkAddNew(t, base, blocks, k, hs, out)
					guard(t)
				}
			}
		}
	})
}

func TestBlockedAddNewAlignment(t *testing.T) {
	eachKernelMode(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(37, 38))
		const nb = 37
		for _, k := range []int{3, 8, 11, 16} {
			for blkOff := 0; blkOff < 8; blkOff++ {
				base := filter(r, nb, k, 100, 0)
				blocks := filter(r, nb, k, 0, blkOff)
				for hOff := 0; hOff < 8; hOff++ {
					for _, n := range []int{1, 7, 8, 9, 33, 257} {
						// Starting at an odd element of a slice, too.
						hs := offsetHashes(addNewInput(r, n+1), hOff)[1:]
						out, guard := guardedOut(n, (hOff+blkOff)%8)
						checkAddNew(t, base, blocks, k, hs, out)
						guard(t)
					}
				}
			}
		}
	})
}

// TestBlockedAddNewGuardPage ends the hashes and the results at a
// PROT_NONE page.
func TestBlockedAddNewGuardPage(t *testing.T) {
	eachKernelMode(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(39, 40))
		const nb = 513
		lens := []int{255, 256, 257, 511, 512, 513, 1000}
		for n := 0; n <= 70; n++ {
			lens = append(lens, n)
		}
		for _, k := range []int{1, 8, 9, 16} {
			t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
				base := filter(r, nb, k, 1000, 0)
				blocks := make([]kernel.Block, nb)
				for _, n := range lens {
					hs := kerneltest.GuardedUint64s(t, n)
					copy(hs, addNewInput(r, n))
					out := kerneltest.GuardedBools(t, n)
					checkAddNew(t, base, blocks, k, hs, out)
				}
			})
		}
	})
}

// TestBlockedAddNewHugeBlockCount checks the block index of the assembly
// for block counts up to MaxBlocks (see TestBlockedHugeBlockCount).
func TestBlockedAddNewHugeBlockCount(t *testing.T) {
	eachMode(t, testBlockedAddNewHugeBlockCount)
}

func testBlockedAddNewHugeBlockCount(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		if impl == "generic" || kernel.AsmAddNewN == nil {
			t.Skip("no assembly kernel")
		}
		r := rand.New(rand.NewPCG(41, 42))
		const nb = 16
		for _, n := range []uint64{kernel.MaxBlocks, kernel.MaxBlocks - 1, 1<<31 + 12345, 3 << 30} {
			for _, k := range []int{1, 7, 8, 9, 16} {
				hs := make([]uint64, 300)
				for i := range hs {
					for {
						hs[i] = r.Uint64N(1<<36) | uint64(r.Uint32())
						if kernel.BlockIndex(hs[i], n) < nb {
							break
						}
					}
					if i > 0 && i%5 == 0 {
						hs[i] = hs[r.IntN(i)]
					}
				}
				want := make([]kernel.Block, nb)
				wantOut := make([]bool, len(hs))
				for i, h := range hs {
					wantOut[i] = refAddNew(want, n, k, h)
				}
				got := make([]kernel.Block, nb)
				out := make([]bool, len(hs))
				count := kernel.AsmAddNewN(got, n, k, hs, out)
				if !slices.Equal(got, want) {
					t.Fatalf("nblocks=%d k=%d: image differs", n, k)
				}
				trues := 0
				for i := range hs {
					if out[i] != wantOut[i] {
						t.Fatalf("nblocks=%d k=%d: out[%d] = %v, want %v", n, k, i, out[i], wantOut[i])
					}
					if out[i] {
						trues++
					}
				}
				if count != trues {
					t.Fatalf("nblocks=%d k=%d: count %d, want %d", n, k, count, trues)
				}
			}
		}
	})
}

// TestAddNewCheckCatches: the checks above fail kernels that are wrong in
// the likely ways: a batch that looks every key up before adding (not
// sequential), one that forgets to store, one that miscounts, one that
// answers for the wrong key.
func TestAddNewCheckCatches(t *testing.T) {
	broken := map[string]addNewFunc{
		"lookup then add": func(blocks []kernel.Block, k int, hs []uint64, out []bool) int {
			n := len(hs) - kernel.BlockedContainsGeneric(blocks, k, hs, out)
			for i := range hs {
				out[i] = !out[i]
			}
			kernel.BlockedAddGeneric(blocks, k, hs)
			return n
		},
		"no store": func(blocks []kernel.Block, k int, hs []uint64, out []bool) int {
			n := len(hs) - kernel.BlockedContainsGeneric(blocks, k, hs, out)
			for i := range hs {
				out[i] = !out[i]
			}
			return n
		},
		"count off by one": func(blocks []kernel.Block, k int, hs []uint64, out []bool) int {
			return kernel.BlockedAddNewGeneric(blocks, k, hs, out) + 1
		},
		"answers shifted": func(blocks []kernel.Block, k int, hs []uint64, out []bool) int {
			n := kernel.BlockedAddNewGeneric(blocks, k, hs, out)
			copy(out[1:], out)
			return n
		},
	}
	r := rand.New(rand.NewPCG(43, 44))
	for name, fn := range broken {
		caught := false
		for _, nb := range []int{1, 7} {
			base := filter(r, nb, 8, nb*2, 0)
			hs := addNewInput(r, 100)
			if diffAddNew(fn, base, make([]kernel.Block, nb), 8, hs, make([]bool, len(hs))) != "" {
				caught = true
			}
		}
		if !caught {
			t.Errorf("broken kernel %q passed the check", name)
		}
	}
}

func TestBlockedAddNewShortOut(t *testing.T) {
	eachKernel(t, func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Fatal("BlockedAddNew with len(out) < len(hs) did not panic")
			}
		}()
		kernel.BlockedAddNew(make([]kernel.Block, 4), 7, make([]uint64, 10), make([]bool, 9))
	})
}

// TestBlockedAddNew1 checks the single-key BlockedAddNew1 (with its k = 8
// and general paths) and its Generic twin against the definition for
// every k, keys in order with repeats and shared blocks: every answer,
// and the whole memory image.
func TestBlockedAddNew1(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(45, 46))
		for _, nb := range []int{1, 2, 3, 5, 64, 1000, 65537} {
			for k := 1; k <= kernel.MaxK; k++ {
				base := filter(r, nb, k, nb*2, 0)
				got, gen, want := slices.Clone(base), slices.Clone(base), slices.Clone(base)
				tab := &kernel.BlockedTable{Blocks: got, K: k}
				for i, h := range addNewInput(r, 400) {
					w := refAddNew(want, uint64(nb), k, h)
					if a := kernel.BlockedAddNew1(tab, h); a != w {
						t.Fatalf("nblocks=%d k=%d: key %d (hash %#x) new = %v, want %v", nb, k, i, h, a, w)
					}
					if a := kernel.BlockedAddNew1Generic(gen, k, h); a != w {
						t.Fatalf("nblocks=%d k=%d: generic key %d (hash %#x) new = %v, want %v", nb, k, i, h, a, w)
					}
				}
				for i := range want {
					if got[i] != want[i] || gen[i] != want[i] {
						t.Fatalf("nblocks=%d k=%d: block %d = %x (generic %x), want %x", nb, k, i, got[i], gen[i], want[i])
					}
				}
			}
		}
	})
}

// TestBlockedAddNew1Saturated: nothing is new in a filter of all ones, and
// every key is new in an empty one (the first time).
func TestBlockedAddNew1Saturated(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(47, 48))
		for k := 1; k <= kernel.MaxK; k++ {
			for _, h := range randHashes(r, 200) {
				full := make([]kernel.Block, 7)
				for i := range full {
					for w := range full[i] {
						full[i][w] = ^uint64(0)
					}
				}
				empty := make([]kernel.Block, 7)
				ft, et := &kernel.BlockedTable{Blocks: full, K: k}, &kernel.BlockedTable{Blocks: empty, K: k}
				if kernel.BlockedAddNew1(ft, h) || !kernel.BlockedAddNew1(et, h) || kernel.BlockedAddNew1(et, h) {
					t.Fatalf("k=%d hash %#x: full/empty filter answered wrong", k, h)
				}
			}
		}
	})
}

// TestBlockedAddNew1HugeBlockCount: the single-key block index for block
// counts up to MaxBlocks (see TestBlocked1HugeBlockCount).
func TestBlockedAddNew1HugeBlockCount(t *testing.T) {
	if strconv.IntSize < 64 {
		t.Skip("block counts above 2^31 need 64-bit ints")
	}
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(49, 50))
		const nb = 16
		for _, n := range []uint64{kernel.MaxBlocks, kernel.MaxBlocks - 1, 1<<31 + 12345, 3 << 30} {
			for _, k := range []int{1, 7, 8, 9, 16} {
				real := make([]kernel.Block, nb)
				huge := hugeSlice(real, n)
				want := make([]kernel.Block, nb)
				for _, h := range lowHashes(r, 200, n) {
					w := refAddNew(want, n, k, h)
					if got := kernel.BlockedAddNew1(&kernel.BlockedTable{Blocks: huge, K: k}, h); got != w {
						t.Fatalf("nblocks=%d k=%d hash %#x: %v, want %v", n, k, h, got, w)
					}
				}
				if !slices.Equal(real, want) {
					t.Fatalf("nblocks=%d k=%d: image differs", n, k)
				}
			}
		}
	})
}

// TestBlockedAddNew1Empty: the single-key add-if-new panics with
// ErrNoBlocks on an empty filter instead of touching memory.
func TestBlockedAddNew1Empty(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		for _, k := range []int{1, 8, 16} {
			func() {
				defer func() {
					if v := recover(); v != kernel.ErrNoBlocks {
						t.Errorf("k=%d: panicked with %v, want kernel.ErrNoBlocks", k, v)
					}
				}()
				kernel.BlockedAddNew1(&kernel.BlockedTable{K: k}, 0x123456789)
			}()
		}
	})
}

func TestBlockedAddNewAllocs(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(51, 52))
		blocks := make([]kernel.Block, 1000)
		hs := randHashes(r, 1000)
		out := make([]bool, len(hs))
		for _, k := range []int{7, 8, 16} {
			tab := &kernel.BlockedTable{Blocks: blocks, K: k}
			if a := testing.AllocsPerRun(20, func() {
				kernel.BlockedAddNew(blocks, k, hs, out)
				for _, h := range hs[:100] {
					if kernel.BlockedAddNew1(tab, h) {
						panic("inserted key new")
					}
				}
			}); a != 0 {
				t.Fatalf("k=%d: %v allocations per batch", k, a)
			}
		}
	})
}

func ExampleBlockedAddNew() {
	blocks := make([]kernel.Block, 16)
	out := make([]bool, 4)
	n := kernel.BlockedAddNew(blocks, 7, []uint64{0x0123456789abcdef, 42, 0x0123456789abcdef, 43}, out)
	fmt.Println(n, out)
	// Output: 3 [true true false true]
}
