package kernel_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/sift-go/sift/internal/cpu"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// The assembly kernels run a prologue of prefetches, an unrolled main loop,
// a one-key loop with prefetch and a tail without: every batch length from 0
// to 300 crosses each of their boundaries for any prefetch distance up to
// 64 keys and unroll up to 8.
const maxLen = 300

// TestImpls: the kernel set in use is one the CPU and build have, and
// SetImpl rejects one they lack. It also logs which kernel runs.
func TestImpls(t *testing.T) {
	var untested []string
	for _, k := range cpu.Built() {
		if !slices.Contains(kernel.Impls(), k) {
			untested = append(untested, k)
		}
	}
	if len(untested) == 0 {
		untested = []string{"none"}
	}
	// CI prints this line: a machine without AVX-512 must say that the
	// avx512 kernels went untested rather than pass silently.
	t.Logf("kernel sets tested: %s; built but not runnable on this CPU (untested here): %s; in use: %s",
		strings.Join(kernel.Impls(), " "), strings.Join(untested, " "), kernel.Impl())
	if kernel.Impl() != cpu.Auto && !slices.Contains(kernel.Impls(), kernel.Impl()) {
		t.Fatalf("kernel in use %q is not among the available %v", kernel.Impl(), kernel.Impls())
	}
	for op := range kernel.NumOps {
		set, why := kernel.Choice(op)
		t.Logf("%-22s %-7s %s", op, set, why)
		if !slices.Contains(kernel.Impls(), set) {
			t.Errorf("%s runs %q, not among the available %v", op, set, kernel.Impls())
		}
	}
	if _, err := kernel.SetImpl("no-such-kernel"); err == nil {
		t.Fatal(`SetImpl("no-such-kernel") returned no error`)
	}
}

// eachKernel runs f once per available kernel set. The assembly kernel sets
// take every batch, empty included (there is no small-batch threshold).
func eachKernel(t *testing.T, f func(t *testing.T)) {
	kerneltest.Run(t, func(t *testing.T, _ string) { f(t) })
}

// eachKernelMode is eachKernel with each of the batch kernels' modes
// forced (eachMode).
func eachKernelMode(t *testing.T, f func(t *testing.T)) {
	eachMode(t, func(t *testing.T) { eachKernel(t, f) })
}

// eachMode runs f with each of the batch kernels' modes forced where the
// build chooses them by filter size (amd64: prefetchMinBlocks,
// ringMaxBlocks, farMaxBlocks): prefetches with the offset ring,
// prefetches without it, inserts without prefetches, and prefetches
// without it further ahead (the blocked and split-block kernels; the
// others run their prefetch loops there), so that the tests' sizes reach
// every kind of loop. Where the kernels have no modes it runs f once.
func eachMode(t *testing.T, f func(t *testing.T)) {
	if kernel.SetBatchModes == nil {
		f(t)
		return
	}
	for _, mode := range kernel.BatchModes {
		t.Run("mode="+mode.Name, func(t *testing.T) {
			defer kernel.SetBatchModes(mode)()
			f(t)
		})
	}
}

func randHashes(r *rand.Rand, n int) []uint64 {
	hs := make([]uint64, n)
	for i := range hs {
		hs[i] = r.Uint64()
	}
	return hs
}

// filter returns nb blocks holding nkeys random keys inserted with k probes
// by the generic kernel, stored at an offset of off uint64 words from a
// 64-byte boundary (off = 0: Go's own allocation).
func filter(r *rand.Rand, nb, k, nkeys, off int) []kernel.Block {
	var b []kernel.Block
	if off == 0 {
		b = make([]kernel.Block, nb)
	} else {
		raw := make([]uint64, nb*kernel.BlockWords+16)
		p := unsafe.Pointer(&raw[0])
		for uintptr(p)%kernel.BlockBytes != uintptr(off*8) {
			p = unsafe.Add(p, 8)
		}
		b = unsafe.Slice((*kernel.Block)(p), nb)
	}
	kernel.BlockedAddGeneric(b, k, randHashes(r, nkeys))
	return b
}

// guardedOut returns an n-byte output slice at offset off inside a buffer
// whose other bytes hold a guard pattern, and a check that the guard is
// intact and every output byte is a valid bool.
func guardedOut(n, off int) ([]bool, func(t *testing.T)) {
	const guard, pad = 0xa5, 24
	buf := make([]byte, n+off+2*pad)
	for i := range buf {
		buf[i] = guard
	}
	lo := pad + off
	out := unsafe.Slice((*bool)(unsafe.Pointer(&buf[lo])), n)
	return out, func(t *testing.T) {
		t.Helper()
		for i, c := range buf {
			inside := i >= lo && i < lo+n
			if !inside && c != guard {
				t.Fatalf("guard byte %d (output is [%d,%d)) overwritten: %#x", i, lo, lo+n, c)
			}
			if inside && c > 1 {
				t.Fatalf("output byte %d is %#x, not a bool", i-lo, c)
			}
		}
	}
}

// offsetHashes returns a copy of hs starting off elements into its backing
// array (off odd breaks 16-byte alignment, off%4 != 0 32-byte alignment).
func offsetHashes(hs []uint64, off int) []uint64 {
	buf := make([]uint64, len(hs)+off+8)
	s := buf[off : off+len(hs)]
	copy(s, hs)
	return s
}

// check inserts adds into a copy of base with the kernel in use and with the
// generic kernel, compares the whole memory images, then probes with both and
// compares every answer and the count. hs and out may be specially placed
// slices; blocks holds base's copy for the kernel in use.
func check(t *testing.T, base, blocks []kernel.Block, k int, adds, probes []uint64, out []bool) {
	t.Helper()
	copy(blocks, base)
	want := slices.Clone(base)
	kernel.BlockedAdd(blocks, k, adds)
	kernel.BlockedAddGeneric(want, k, adds)
	for i := range want {
		if blocks[i] != want[i] {
			t.Fatalf("nblocks=%d k=%d len=%d: block %d after BlockedAdd = %x, generic %x", len(want), k, len(adds), i, blocks[i], want[i])
		}
	}
	wantOut := make([]bool, len(probes))
	wantN := kernel.BlockedContainsGeneric(want, k, probes, wantOut)
	n := kernel.BlockedContains(blocks, k, probes, out)
	trues := 0
	for i := range probes {
		if out[i] != wantOut[i] {
			t.Fatalf("nblocks=%d k=%d len=%d: out[%d] = %v, generic %v (hash %#x)", len(want), k, len(probes), i, out[i], wantOut[i], probes[i])
		}
		if out[i] {
			trues++
		}
	}
	if n != wantN || n != trues {
		t.Fatalf("nblocks=%d k=%d len=%d: count %d, generic %d, trues written %d", len(want), k, len(probes), n, wantN, trues)
	}
}

// probesFor returns n probe hashes: about half taken from adds (present), the
// rest random (mostly absent unless the filter is saturated).
func probesFor(r *rand.Rand, adds []uint64, n int) []uint64 {
	p := randHashes(r, n)
	for i := 0; i < n && i < len(adds); i += 2 {
		p[i] = adds[r.IntN(len(adds))]
	}
	return p
}

func TestBlockedLengths(t *testing.T) {
	eachKernelMode(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		nbs := []int{1, 2, 7, 67, 1001}
		if testing.Short() {
			nbs = nbs[:4] // the whole image is compared after every batch
		}
		for _, nb := range nbs {
			for k := 1; k <= kernel.MaxK; k++ {
				base := filter(r, nb, k, nb*4, 0)
				blocks := make([]kernel.Block, nb)
				for n := 0; n <= maxLen; n++ {
					adds := offsetHashes(randHashes(r, n), n%8)
					probes := offsetHashes(probesFor(r, adds, n), (n/8)%8)
					out, guard := guardedOut(n, n%8)
					check(t, base, blocks, k, adds, probes, out)
					guard(t)
				}
			}
		}
	})
}

func TestBlockedLarge(t *testing.T) {
	eachKernelMode(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		lens := []int{0, 1, 2, 3, 4, 5, 15, 16, 17, 19, 20, 21, 23, 24, 25, 63, 64, 65, 127, 128, 129, 300, 1021, 4099}
		ks := []int{1, 2, 7, 8, 9, 15, 16}
		nbs := []int{1<<16 + 1, 1<<20 - 3}
		if testing.Short() {
			lens, nbs = []int{0, 1, 5, 21, 300, 4099}, nbs[:1]
		}
		for _, nb := range nbs {
			for _, k := range ks {
				base := filter(r, nb, k, 20000, 0)
				blocks := make([]kernel.Block, nb)
				for _, n := range lens {
					adds := randHashes(r, n)
					probes := probesFor(r, adds, n)
					out, guard := guardedOut(n, 3)
					check(t, base, blocks, k, adds, probes, out)
					guard(t)
				}
			}
		}
	})
}

func TestBlockedAlignment(t *testing.T) {
	eachKernelMode(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		const nb = 37
		for _, k := range []int{3, 8, 11, 16} {
			for blkOff := 0; blkOff < 8; blkOff++ {
				base := filter(r, nb, k, 100, 0)
				blocks := filter(r, nb, k, 0, blkOff)
				for hOff := 0; hOff < 8; hOff++ {
					for outOff := 0; outOff < 8; outOff++ {
						for _, n := range []int{0, 1, 7, 8, 9, 33, 257} {
							adds := offsetHashes(randHashes(r, n), hOff)
							// Starting at an odd element of a slice, too.
							probes := offsetHashes(probesFor(r, adds, n+1), (hOff+1)%8)[1:]
							out, guard := guardedOut(n, outOff)
							check(t, base, blocks, k, adds, probes, out)
							guard(t)
						}
					}
				}
			}
		}
	})
}

// TestBlockedGuardPage places the hashes and the results so they end exactly
// at a page followed by a PROT_NONE page: reading or writing past the end
// faults instead of passing.
func TestBlockedGuardPage(t *testing.T) {
	if !kerneltest.Guarded {
		t.Log("no guard pages on this OS: the slices are plain")
	}
	eachKernelMode(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		const nb = 513
		lens := []int{255, 256, 257, 511, 512, 513, 1000}
		for n := 0; n <= 70; n++ {
			lens = append(lens, n)
		}
		for _, k := range []int{1, 6, 8, 9, 16} {
			// A subtest per k unmaps its guarded slices when it ends, so the
			// process stays far below vm.max_map_count.
			t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
				base := filter(r, nb, k, 1000, 0)
				blocks := make([]kernel.Block, nb)
				for _, n := range lens {
					adds := kerneltest.GuardedUint64s(t, n)
					copy(adds, randHashes(r, n))
					probes := kerneltest.GuardedUint64s(t, n)
					copy(probes, probesFor(r, adds, n))
					out := kerneltest.GuardedBools(t, n)
					check(t, base, blocks, k, adds, probes, out)
				}
			})
		}
	})
}

// TestBlockedPerKey checks the batch kernels against the per-key definition
// of the package doc: BlockIndex picks the block, BlockMask the bits.
func TestBlockedPerKey(t *testing.T) {
	eachKernel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(9, 10))
		for _, nb := range []int{1, 3, 1000, 65537} {
			for k := 1; k <= kernel.MaxK; k++ {
				adds := randHashes(r, 500)
				batch := make([]kernel.Block, nb)
				kernel.BlockedAdd(batch, k, adds)
				single := make([]kernel.Block, nb)
				for _, h := range adds {
					b := &single[kernel.BlockIndex(h, uint64(nb))]
					m := kernel.BlockMask(h, k)
					for w := range b {
						b[w] |= m[w]
					}
				}
				if !slices.Equal(batch, single) {
					t.Fatalf("nblocks=%d k=%d: batch insert differs from per-key insert", nb, k)
				}
				probes := probesFor(r, adds, 700)
				out := make([]bool, len(probes))
				n := kernel.BlockedContains(batch, k, probes, out)
				count := 0
				for i, h := range probes {
					b := batch[kernel.BlockIndex(h, uint64(nb))]
					m := kernel.BlockMask(h, k)
					want := true
					for w := range b {
						want = want && m[w]&^b[w] == 0
					}
					if out[i] != want {
						t.Fatalf("nblocks=%d k=%d: out[%d] = %v, per-key %v", nb, k, i, out[i], want)
					}
					if want {
						count++
					}
				}
				if n != count {
					t.Fatalf("nblocks=%d k=%d: count %d, per-key %d", nb, k, n, count)
				}
				// Every inserted key is present: no false negatives.
				out = out[:len(adds)]
				if n := kernel.BlockedContains(batch, k, adds, out); n != len(adds) {
					t.Fatalf("nblocks=%d k=%d: %d of %d inserted keys found", nb, k, n, len(adds))
				}
			}
		}
	})
}

func TestBlockedShortOut(t *testing.T) {
	eachKernel(t, func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Fatal("BlockedContains with len(out) < len(hs) did not panic")
			}
		}()
		kernel.BlockedContains(make([]kernel.Block, 4), 7, make([]uint64, 10), make([]bool, 9))
	})
}

func TestBlockedAllocs(t *testing.T) {
	eachKernel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(11, 12))
		blocks := make([]kernel.Block, 1000)
		hs := randHashes(r, 1000)
		out := make([]bool, len(hs))
		for _, k := range []int{7, 16} {
			if a := testing.AllocsPerRun(20, func() {
				kernel.BlockedAdd(blocks, k, hs)
				kernel.BlockedContains(blocks, k, hs, out)
			}); a != 0 {
				t.Fatalf("k=%d: %v allocations per batch", k, a)
			}
		}
	})
}

func ExampleBlockedContains() {
	blocks := make([]kernel.Block, 16)
	kernel.BlockedAdd(blocks, 7, []uint64{0x0123456789abcdef, 0xfedcba9876543210})
	out := make([]bool, 3)
	n := kernel.BlockedContains(blocks, 7, []uint64{0x0123456789abcdef, 0xfedcba9876543210, 42}, out)
	fmt.Println(n, out)
	// Output: 2 [true true false]
}

// TestBlockedHugeBlockCount checks the assembly's block index for block
// counts up to MaxBlocks (2^32, which does not fit a 32-bit multiplier)
// without the memory: the hashes' high halves are small, so they land in
// the first blocks. It runs in every batch mode (eachMode): 200 keys
// reach the far mode's loops (128 ahead), which a CPU whose table entry
// says farPastLLC runs at these counts.
func TestBlockedHugeBlockCount(t *testing.T) {
	eachMode(t, testBlockedHugeBlockCount)
}

func testBlockedHugeBlockCount(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		if impl == "generic" || kernel.AsmAddN == nil {
			t.Skip("no assembly kernel")
		}
		r := rand.New(rand.NewPCG(13, 14))
		const nb = 16
		for _, n := range []uint64{kernel.MaxBlocks, kernel.MaxBlocks - 1, 1<<31 + 12345, 3 << 30} {
			for _, k := range []int{1, 7, 8, 9, 16} {
				hs := lowHashes(r, 400, n)
				want := make([]kernel.Block, nb)
				for _, h := range hs[:200] {
					b := &want[kernel.BlockIndex(h, n)]
					m := kernel.BlockMask(h, k)
					for w := range b {
						b[w] |= m[w]
					}
				}
				got := make([]kernel.Block, nb)
				kernel.AsmAddN(got, n, k, hs[:200])
				if !slices.Equal(got, want) {
					t.Fatalf("nblocks=%d k=%d: insert image differs", n, k)
				}
				out := make([]bool, len(hs))
				count := kernel.AsmContainsN(got, n, k, hs, out)
				trues := 0
				for i, h := range hs {
					b, m := want[kernel.BlockIndex(h, n)], kernel.BlockMask(h, k)
					ok := true
					for w := range b {
						ok = ok && m[w]&^b[w] == 0
					}
					if out[i] != ok {
						t.Fatalf("nblocks=%d k=%d: out[%d] = %v, want %v", n, k, i, out[i], ok)
					}
					if ok {
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

// refAdd and refContains are the package doc's definition of one key: the
// block BlockIndex(h, n), the bits BlockMask(h, k).
func refAdd(blocks []kernel.Block, n uint64, k int, h uint64) {
	b := &blocks[kernel.BlockIndex(h, n)]
	m := kernel.BlockMask(h, k)
	for w := range b {
		b[w] |= m[w]
	}
}

func refContains(blocks []kernel.Block, n uint64, k int, h uint64) bool {
	b, m := blocks[kernel.BlockIndex(h, n)], kernel.BlockMask(h, k)
	for w := range b {
		if m[w]&^b[w] != 0 {
			return false
		}
	}
	return true
}

// TestBlocked1 checks the single-key BlockedAdd1 and BlockedContains1 (the
// AVX2 kernels on amd64, with their k = 8 and general paths) and the
// Generic twins against the definition, for every k and block counts from
// 1 up: the whole memory image after the inserts, then the answer for
// present and random keys.
func TestBlocked1(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(21, 22))
		for _, nb := range []int{1, 2, 3, 5, 64, 1000, 65537} {
			for k := 1; k <= kernel.MaxK; k++ {
				adds := randHashes(r, 300)
				got := make([]kernel.Block, nb)
				gen := make([]kernel.Block, nb)
				want := make([]kernel.Block, nb)
				for _, h := range adds {
					kernel.BlockedAdd1(&kernel.BlockedTable{Blocks: got, K: k}, h)
					kernel.BlockedAdd1Generic(gen, k, h)
					refAdd(want, uint64(nb), k, h)
				}
				for i := range want {
					if got[i] != want[i] || gen[i] != want[i] {
						t.Fatalf("nblocks=%d k=%d: block %d = %x (generic %x), want %x", nb, k, i, got[i], gen[i], want[i])
					}
				}
				for i, h := range probesFor(r, adds, 600) {
					w := refContains(want, uint64(nb), k, h)
					if c := kernel.BlockedContains1(&kernel.BlockedTable{Blocks: got, K: k}, h); c != w {
						t.Fatalf("nblocks=%d k=%d: probe %d (hash %#x) = %v, want %v", nb, k, i, h, c, w)
					}
					if c := kernel.BlockedContains1Generic(got, k, h); c != w {
						t.Fatalf("nblocks=%d k=%d: generic probe %d (hash %#x) = %v, want %v", nb, k, i, h, c, w)
					}
				}
			}
		}
	})
}

// TestBlocked1Saturated probes full and empty blocks: every probe of a
// filter of all ones is present, none of an empty one (with k = 8, the
// assembly's shortcut, and others).
func TestBlocked1Saturated(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(23, 24))
		full := make([]kernel.Block, 7)
		for i := range full {
			for w := range full[i] {
				full[i][w] = ^uint64(0)
			}
		}
		empty := make([]kernel.Block, 7)
		for k := 1; k <= kernel.MaxK; k++ {
			for _, h := range randHashes(r, 200) {
				if !kernel.BlockedContains1(&kernel.BlockedTable{Blocks: full, K: k}, h) || kernel.BlockedContains1(&kernel.BlockedTable{Blocks: empty, K: k}, h) {
					t.Fatalf("k=%d hash %#x: full/empty filter answered wrong", k, h)
				}
			}
		}
	})
}

// TestBlocked1HugeBlockCount checks the single-key block index for block
// counts up to MaxBlocks with a slice header claiming that many blocks over
// 16 real ones: the hashes are chosen to land in those.
func TestBlocked1HugeBlockCount(t *testing.T) {
	if strconv.IntSize < 64 {
		t.Skip("block counts above 2^31 need 64-bit ints")
	}
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(25, 26))
		const nb = 16
		for _, n := range []uint64{kernel.MaxBlocks, kernel.MaxBlocks - 1, 1<<31 + 12345, 3 << 30} {
			for _, k := range []int{1, 7, 8, 9, 16} {
				real := make([]kernel.Block, nb)
				// A slice header over real with length n (never indexed past
				// the first nb blocks: the hashes below all land there).
				huge := hugeSlice(real, n)
				want := make([]kernel.Block, nb)
				hs := lowHashes(r, 200, n)
				for _, h := range hs[:100] {
					kernel.BlockedAdd1(&kernel.BlockedTable{Blocks: huge, K: k}, h)
					refAdd(want, n, k, h)
				}
				if !slices.Equal(real, want) {
					t.Fatalf("nblocks=%d k=%d: insert image differs", n, k)
				}
				for _, h := range hs {
					if got, w := kernel.BlockedContains1(&kernel.BlockedTable{Blocks: huge, K: k}, h), refContains(want, n, k, h); got != w {
						t.Fatalf("nblocks=%d k=%d hash %#x: %v, want %v", n, k, h, got, w)
					}
				}
			}
		}
	})
}

// TestBlocked1Empty checks that the single-key calls panic on an empty
// filter (the assembly hands it to the Go twin, which indexes out of range)
// instead of reading memory.
func TestBlocked1Empty(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		for _, k := range []int{1, 8, 16} {
			var empty []kernel.Block
			for name, call := range map[string]func(){
				"BlockedContains1": func() { kernel.BlockedContains1(&kernel.BlockedTable{Blocks: empty, K: k}, 0x123456789) },
				"BlockedAdd1":      func() { kernel.BlockedAdd1(&kernel.BlockedTable{Blocks: empty, K: k}, 0x123456789) },
			} {
				func() {
					defer func() {
						if v := recover(); v != kernel.ErrNoBlocks {
							t.Errorf("%s on an empty filter, k=%d: panicked with %v, want kernel.ErrNoBlocks", name, k, v)
						}
					}()
					call()
				}()
			}
		}
	})
}

func TestBlocked1Allocs(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(27, 28))
		blocks := make([]kernel.Block, 1000)
		hs := randHashes(r, 100)
		for _, k := range []int{7, 8, 16} {
			tab := &kernel.BlockedTable{Blocks: blocks, K: k}
			if a := testing.AllocsPerRun(20, func() {
				for _, h := range hs {
					kernel.BlockedAdd1(tab, h)
					if !kernel.BlockedContains1(tab, h) {
						panic("inserted key absent")
					}
				}
			}); a != 0 {
				t.Fatalf("k=%d: %v allocations per 100 keys", k, a)
			}
		}
	})
}

// TestSaltConstants: the constants the unrolled probes use are Salts.
func TestSaltConstants(t *testing.T) {
	c := [kernel.MaxK]uint32{kernel.Salt0, kernel.Salt1, kernel.Salt2, kernel.Salt3,
		kernel.Salt4, kernel.Salt5, kernel.Salt6, kernel.Salt7, kernel.Salt8, kernel.Salt9,
		kernel.Salt10, kernel.Salt11, kernel.Salt12, kernel.Salt13, kernel.Salt14, kernel.Salt15}
	if c != kernel.Salts {
		t.Fatalf("salt constants %x, Salts %x", c, kernel.Salts)
	}
}

// TestGenericTwinsShortOut: the generic twins panic when out is shorter
// than hs, as their contract says, even where out's capacity would hold
// the answers (a reslice alone would write past len(out)).
func TestGenericTwinsShortOut(t *testing.T) {
	hs := []uint64{1, 2, 3}
	blocks := make([]kernel.Block, 4)
	ck := &kernel.CuckooTable{Words: make([]uint64, kernel.CuckooWords(8, 16)), Buckets: 8, FPBits: 16}
	sb := make([]kernel.SBBFBlock, 2)
	for name, call := range map[string]func(out []bool){
		"BlockedContainsGeneric":     func(out []bool) { kernel.BlockedContainsGeneric(blocks, 8, hs, out) },
		"BlockedAddNewGeneric":       func(out []bool) { kernel.BlockedAddNewGeneric(blocks, 8, hs, out) },
		"CuckooContainsGeneric":      func(out []bool) { kernel.CuckooContainsGeneric(ck, hs, out) },
		"SBBFContainsGeneric":        func(out []bool) { kernel.SBBFContainsGeneric(sb, hs, out) },
		"BlockedContainsGensGeneric": func(out []bool) { kernel.BlockedContainsGensGeneric(blocks, 4, 2, 3, 8, hs, out) },
	} {
		buf := make([]bool, len(hs))
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic with len(out) %d < len(hs) %d", name, len(hs)-1, len(hs))
				}
			}()
			call(buf[:len(hs)-1])
		}()
		if buf[len(hs)-1] {
			t.Errorf("%s wrote past len(out)", name)
		}
	}
}
