//go:build linux && gc && !purego && (amd64 || arm64)

package kernel_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/sift-go/sift/internal/kernel"
	"golang.org/x/sys/unix"
)

// auditBytes is the size of each mapping (TestOffsetsPast4GiB): 4 GiB and 64 KiB past it.
const auditBytes = 1<<32 + 1<<16

// auditMem is TestOffsetsPast4GiB's two tables of auditBytes, the
// kernel's and the Go twin's: mapped once (the mapping's cost dominates
// the test under qemu) and emptied between uses by auditTables.
var auditMem [2][]byte

// auditReserve maps auditMem: zeroed, lazily backed memory (only the pages
// the keys touch are ever backed). It skips the test where the address
// space cannot be reserved.
func auditReserve(t *testing.T) {
	t.Helper()
	for i := range auditMem {
		m, err := unix.Mmap(-1, 0, auditBytes, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE|unix.MAP_NORESERVE)
		if err != nil {
			t.Skipf("cannot reserve %d bytes of address space: %v", auditBytes, err)
		}
		_ = unix.Madvise(m, unix.MADV_NOHUGEPAGE) // a touched page is 4 KiB, not 2 MiB
		auditMem[i] = m
		t.Cleanup(func() { unix.Munmap(m); auditMem[i] = nil })
		// auditTables empties the tables with MADV_DONTNEED: check here
		// that it does (an emulator might not), past 4 GiB.
		m[len(m)-1] = 1
		if err := unix.Madvise(m, unix.MADV_DONTNEED); err != nil || m[len(m)-1] != 0 {
			t.Fatalf("MADV_DONTNEED (%v) did not zero a private anonymous page", err)
		}
	}
}

// auditTables returns the two tables, zeroed: the kernel's and the twin's.
func auditTables(t *testing.T) (got, want unsafe.Pointer) {
	t.Helper()
	for _, m := range auditMem {
		// A private anonymous mapping reads as zeros after MADV_DONTNEED.
		if err := unix.Madvise(m, unix.MADV_DONTNEED); err != nil {
			t.Fatal(err)
		}
	}
	return unsafe.Pointer(&auditMem[0][0]), unsafe.Pointer(&auditMem[1][0])
}

// auditHashes returns n hashes for a table of nb groups of groupBytes
// bytes: two thirds land in a group whose offset is at least 2^32 bytes,
// the rest anywhere; one in seven repeats an earlier hash (add-if-new's
// sequential answers, shared blocks).
func auditHashes(r *rand.Rand, n int, nb, groupBytes uint64) []uint64 {
	return auditHashesRepeat(r, n, nb, groupBytes, 7)
}

// auditHashesRepeat is auditHashes with one hash in every repeating an
// earlier one (none if every is 0).
func auditHashesRepeat(r *rand.Rand, n int, nb, groupBytes uint64, every int) []uint64 {
	first := uint64(1<<32) / groupBytes // the first group past 4 GiB
	hs := make([]uint64, n)
	for i := range hs {
		switch {
		case every > 0 && i > 0 && i%every == 0:
			hs[i] = hs[r.IntN(i)]
		case i%3 == 2:
			hs[i] = r.Uint64()
		default:
			for {
				h := (1<<32-1-r.Uint64N(1<<17))<<32 | uint64(r.Uint32())
				if kernel.BlockIndex(h, nb) >= first {
					hs[i] = h
					break
				}
			}
		}
	}
	return hs
}

// auditLines returns the line indexes (of lineBytes each) to compare for
// hs on nb groups of p lines: every line of each key's group, and the
// line where a 32-bit truncated byte offset would land.
func auditLines(hs []uint64, nb, p, lineBytes uint64) []uint64 {
	var idx []uint64
	for _, h := range hs {
		g := kernel.BlockIndex(h, nb) * p
		for l := g; l < g+p; l++ {
			idx = append(idx, l, (l*lineBytes)%(1<<32)/lineBytes)
		}
	}
	slices.Sort(idx)
	return slices.Compact(idx)
}

// auditLens are batch lengths that reach every loop of the batch kernels:
// the tails, the groups of 4 and 8, the prefetching loops (48 ahead) and
// the far ones (128 ahead).
var auditLens = []int{1, 3, 8, 13, 57, 150, 300}

// TestOffsetsPast4GiB runs the kernels on tables of 4 GiB and more, where
// a block's byte offset needs more than 32 bits. Every scalar offset
// computation of the kernels ends in a 64-bit AND (ANDQ $-64 for blocked
// and windowed tables, $-32 for split-block ones) or a 64-bit multiply; a
// kernel that truncated one to 32 bits (ANDL, IMULL, a 32-bit move) passed
// every other test, whose huge block counts (TestBlockedHugeBlockCount and
// its kin) reach 2^32 blocks with keys that all land in the first few, and
// would corrupt any filter of 4 GiB or more (2^26 blocks, 2^27 split
// blocks). A mutation audit of the amd64 kernels found six such mutants
// alive (the AVX2 and AVX-512 batch tails, the AVX2 single-key add, the
// split-block probe's tail, two window kernels at G >= 8); this test kills
// all six. It reserves 4 GiB + 64 KiB of lazily backed address space
// (MAP_NORESERVE; only the pages the keys touch, about 12 MB, are ever
// backed), puts two thirds of the keys in blocks past 4 GiB, and checks
// every kernel set and batch mode (the batch, single-key, add-if-new and
// windowed kernels, and the cuckoo kernels on 8- and 16-bit tables, whose
// gathers take 64-bit indexes) against their Go twins: answers, counts,
// the blocks the keys map to and the blocks a truncated offset would hit.
// It skips where the address space cannot be reserved.
func TestOffsetsPast4GiB(t *testing.T) {
	auditReserve(t)
	eachKernelMode(t, func(t *testing.T) {
		t.Run("blocked", auditBlocked)
		t.Run("sbbf", auditSBBF)
		t.Run("window", auditWindow)
		t.Run("cuckoo", auditCuckoo)
	})
}

func auditBlocked(t *testing.T) {
	const nb = auditBytes / kernel.BlockBytes
	r := rand.New(rand.NewPCG(71, 72))
	for _, k := range []int{3, 8, 12, 16} {
		func() {
			pg, pw := auditTables(t)
			got, want := unsafe.Slice((*kernel.Block)(pg), nb), unsafe.Slice((*kernel.Block)(pw), nb)
			hs := auditHashes(r, 300, nb, kernel.BlockBytes)
			probes := append(slices.Clone(hs[:150]), auditHashes(r, 150, nb, kernel.BlockBytes)...)
			lines := auditLines(append(slices.Clone(hs), probes...), nb, 1, kernel.BlockBytes)
			same := func(what string) {
				t.Helper()
				for _, i := range lines {
					if got[i] != want[i] {
						t.Fatalf("k=%d %s: block %d (byte offset %#x) = %x, generic %x", k, what, i, i*kernel.BlockBytes, got[i], want[i])
					}
				}
			}
			out, wantOut := make([]bool, len(probes)), make([]bool, len(probes))
			for _, n := range auditLens {
				kernel.BlockedAdd(got, k, hs[:n])
				kernel.BlockedAddGeneric(want, k, hs[:n])
				same(fmt.Sprintf("BlockedAdd len=%d", n))
				c, wc := kernel.BlockedContains(got, k, probes[:n], out), kernel.BlockedContainsGeneric(want, k, probes[:n], wantOut)
				if c != wc || !slices.Equal(out[:n], wantOut[:n]) {
					t.Fatalf("k=%d BlockedContains len=%d: count %d, generic %d; answers %v, generic %v", k, n, c, wc, out[:n], wantOut[:n])
				}
			}
			for _, n := range auditLens {
				hn := auditHashes(r, n, nb, kernel.BlockBytes)
				c, wc := kernel.BlockedAddNew(got, k, hn, out), kernel.BlockedAddNewGeneric(want, k, hn, wantOut)
				same(fmt.Sprintf("BlockedAddNew len=%d", n))
				if c != wc || !slices.Equal(out[:n], wantOut[:n]) {
					t.Fatalf("k=%d BlockedAddNew len=%d: count %d, generic %d; answers %v, generic %v", k, n, c, wc, out[:n], wantOut[:n])
				}
				lines = auditLines(hn, nb, 1, kernel.BlockBytes) // the next check covers these keys' blocks
				same(fmt.Sprintf("BlockedAddNew len=%d", n))
			}
			lines = auditLines(append(slices.Clone(hs), probes...), nb, 1, kernel.BlockBytes)
			tb := &kernel.BlockedTable{Blocks: got, K: k}
			for i, h := range auditHashes(r, 100, nb, kernel.BlockBytes) {
				if i%2 == 0 {
					kernel.BlockedAdd1(tb, h)
					kernel.BlockedAdd1Generic(want, k, h)
				} else if a, w := kernel.BlockedAddNew1(tb, h), kernel.BlockedAddNew1Generic(want, k, h); a != w {
					t.Fatalf("k=%d BlockedAddNew1(%#x) = %v, generic %v", k, h, a, w)
				}
				lines = append(lines, auditLines([]uint64{h}, nb, 1, kernel.BlockBytes)...)
			}
			same("BlockedAdd1/BlockedAddNew1")
			for _, h := range probes {
				if a, w := kernel.BlockedContains1(tb, h), kernel.BlockedContains1Generic(want, k, h); a != w {
					t.Fatalf("k=%d BlockedContains1(%#x) = %v, generic %v", k, h, a, w)
				}
			}
		}()
	}
}

func auditSBBF(t *testing.T) {
	const sb = kernel.SBBFBlockBytes
	const nb = auditBytes / sb
	r := rand.New(rand.NewPCG(73, 74))
	pg, pw := auditTables(t)
	got, want := unsafe.Slice((*kernel.SBBFBlock)(pg), nb), unsafe.Slice((*kernel.SBBFBlock)(pw), nb)
	hs := auditHashes(r, 300, nb, sb)
	probes := append(slices.Clone(hs[:150]), auditHashes(r, 150, nb, sb)...)
	lines := auditLines(append(slices.Clone(hs), probes...), nb, 1, sb)
	same := func(what string) {
		t.Helper()
		for _, i := range lines {
			if got[i] != want[i] {
				t.Fatalf("%s: block %d (byte offset %#x) = %x, generic %x", what, i, i*sb, got[i], want[i])
			}
		}
	}
	out, wantOut := make([]bool, len(probes)), make([]bool, len(probes))
	for _, n := range auditLens {
		kernel.SBBFAdd(got, hs[:n])
		kernel.SBBFAddGeneric(want, hs[:n])
		same(fmt.Sprintf("SBBFAdd len=%d", n))
		c, wc := kernel.SBBFContains(got, probes[:n], out), kernel.SBBFContainsGeneric(want, probes[:n], wantOut)
		if c != wc || !slices.Equal(out[:n], wantOut[:n]) {
			t.Fatalf("SBBFContains len=%d: count %d, generic %d; answers %v, generic %v", n, c, wc, out[:n], wantOut[:n])
		}
	}
	for _, h := range auditHashes(r, 60, nb, sb) {
		kernel.SBBFAdd1(&got, h)
		kernel.SBBFAdd1Generic(want, h)
		lines = append(lines, auditLines([]uint64{h}, nb, 1, sb)...)
	}
	same("SBBFAdd1")
	for _, h := range probes {
		if a, w := kernel.SBBFContains1(&got, h), kernel.SBBFContains1Generic(want, h); a != w {
			t.Fatalf("SBBFContains1(%#x) = %v, generic %v", h, a, w)
		}
	}
}

func auditWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(75, 76))
	for _, g := range []int{2, 4, 8} {
		for _, k := range []int{5, 8, 13} {
			func() {
				p := uint64(kernel.WindowLines(g))
				nb := auditBytes / kernel.BlockBytes / p
				pg, pw := auditTables(t)
				got := unsafe.Slice((*kernel.Block)(pg), nb*p)
				want := unsafe.Slice((*kernel.Block)(pw), nb*p)
				tbl, err := kernel.NewWindowTable(got, g, k)
				if err != nil {
					t.Fatal(err)
				}
				hs := auditHashes(r, 300, nb, p*kernel.BlockBytes)
				probes := append(slices.Clone(hs[:150]), auditHashes(r, 150, nb, p*kernel.BlockBytes)...)
				lines := auditLines(append(slices.Clone(hs), probes...), nb, p, kernel.BlockBytes)
				live := uint64(1)<<g - 1
				for i, h := range hs {
					cur := i % g
					if i%2 == 0 {
						kernel.BlockedAddGenT(&tbl, cur, h)
						kernel.BlockedAddGen1(want, nb, g, cur, k, h)
					} else if a, w := kernel.BlockedAddNewGensT(&tbl, live>>1, cur, h), kernel.BlockedAddNewGens1(want, nb, g, live>>1, cur, k, h); a != w {
						t.Fatalf("g=%d k=%d BlockedAddNewGensT(%#x) = %v, reference %v", g, k, h, a, w)
					}
				}
				for _, i := range lines {
					if got[i] != want[i] {
						t.Fatalf("g=%d k=%d adds: line %d (byte offset %#x) = %x, reference %x", g, k, i, i*kernel.BlockBytes, got[i], want[i])
					}
				}
				out, wantOut := make([]bool, len(probes)), make([]bool, len(probes))
				for _, lv := range []uint64{live, 1, live >> 1} {
					for _, n := range auditLens {
						c, wc := kernel.BlockedContainsGens(got, nb, g, lv, k, probes[:n], out), kernel.BlockedContainsGensGeneric(want, nb, g, lv, k, probes[:n], wantOut)
						if c != wc || !slices.Equal(out[:n], wantOut[:n]) {
							t.Fatalf("g=%d k=%d live=%#x BlockedContainsGens len=%d: count %d, generic %d; answers %v, generic %v", g, k, lv, n, c, wc, out[:n], wantOut[:n])
						}
					}
					for _, h := range probes {
						w := kernel.BlockedContainsGens1Generic(want, nb, g, lv, k, h)
						if a := kernel.BlockedContainsGens1(got, nb, g, lv, k, h); a != w {
							t.Fatalf("g=%d k=%d live=%#x BlockedContainsGens1(%#x) = %v, generic %v", g, k, lv, h, a, w)
						}
						if a := kernel.BlockedContainsGensT(&tbl, lv, h); a != w {
							t.Fatalf("g=%d k=%d live=%#x BlockedContainsGensT(%#x) = %v, generic %v", g, k, lv, h, a, w)
						}
					}
				}
			}()
		}
	}
}

// auditCuckoo checks the cuckoo kernels (lookups, locate, alternates,
// inserts and add-if-new) on 8- and 16-bit tables of auditBytes, with
// keys whose primary bucket lies past 4 GiB, against the Go twins.
func auditCuckoo(t *testing.T) {
	r := rand.New(rand.NewPCG(77, 78))
	for _, fpBits := range []uint{8, 16} {
		bucketBytes := uint64(fpBits / 2) // 4 slots of fpBits bits
		n := uint64(auditBytes) / bucketBytes
		pg, pw := auditTables(t)
		words := uint64(auditBytes) / 8
		got := &kernel.CuckooTable{Words: unsafe.Slice((*uint64)(pg), words), Buckets: n, FPBits: fpBits}
		want := &kernel.CuckooTable{Words: unsafe.Slice((*uint64)(pw), words), Buckets: n, FPBits: fpBits}
		// The words to compare: each key's two buckets, and where a
		// 32-bit truncated byte offset would put them.
		var idx []uint64
		cover := func(hs []uint64) {
			fpMax := uint64(1)<<fpBits - 1
			for _, h := range hs {
				i1 := kernel.CuckooIndex(h, n)
				for _, b := range []uint64{i1, kernel.CuckooAlt(i1, kernel.CuckooFingerprint(h, fpMax), n)} {
					off := b * bucketBytes
					idx = append(idx, off/8, off%(1<<32)/8)
				}
			}
			slices.Sort(idx)
			idx = slices.Compact(idx)
		}
		same := func(what string) {
			t.Helper()
			for _, w := range idx {
				if got.Words[w] != want.Words[w] {
					t.Fatalf("f=%d %s: word %d (byte offset %#x) = %#x, generic %#x", fpBits, what, w, w*8, got.Words[w], want.Words[w])
				}
			}
		}
		// Inserts and add-if-new: distinct keys, so that groups of eight
		// rarely share a bucket and the insert kernels run.
		hs := auditHashesRepeat(r, 400, n, bucketBytes, 0)
		cover(hs)
		out, wantOut := make([]bool, len(hs)), make([]bool, len(hs))
		for half, part := range [][]uint64{hs[:200], hs[200:]} { // add, then add-if-new
			for rest := part; len(rest) > 0; {
				var o, wo []bool
				if half == 1 {
					o, wo = out[:len(rest)], wantOut[:len(rest)]
				}
				m, a := kernel.CuckooInsert(got, rest, o)
				wm, wa := kernel.CuckooInsertGeneric(want, rest, wo)
				if m != wm || a != wa || (o != nil && !slices.Equal(o[:m], wo[:m])) {
					t.Fatalf("f=%d CuckooInsert(%d keys, add-if-new %v): went through %d, added %d; generic %d, %d", fpBits, len(rest), o != nil, m, a, wm, wa)
				}
				same(fmt.Sprintf("CuckooInsert (add-if-new %v)", o != nil))
				if m == 0 {
					m = min(len(rest), 8) // a tail, or a group the kernel leaves to its caller
				}
				rest = rest[m:]
			}
		}
		// Add some keys a second time (add-if-new finds them present).
		m, a := kernel.CuckooInsert(got, hs[:64], out[:64])
		wm, wa := kernel.CuckooInsertGeneric(want, hs[:64], wantOut[:64])
		if m != wm || a != wa || !slices.Equal(out[:m], wantOut[:m]) {
			t.Fatalf("f=%d CuckooInsert again: went through %d, added %d; generic %d, %d", fpBits, m, a, wm, wa)
		}
		same("CuckooInsert again")
		probes := append(slices.Clone(hs[:200]), auditHashes(r, 200, n, bucketBytes)...)
		cover(probes)
		res, wantRes := make([]bool, len(probes)), make([]bool, len(probes))
		locs, wantLocs := make([]uint64, len(probes)), make([]uint64, len(probes))
		for _, l := range auditLens {
			c, wc := kernel.CuckooContains(got, probes[:l], res), kernel.CuckooContainsGeneric(want, probes[:l], wantRes)
			if c != wc || !slices.Equal(res[:l], wantRes[:l]) {
				t.Fatalf("f=%d CuckooContains len=%d: count %d, generic %d", fpBits, l, c, wc)
			}
			kernel.CuckooLocate(got, probes[:l], locs)
			kernel.CuckooLocateGeneric(want, probes[:l], wantLocs)
			if !slices.Equal(locs[:l], wantLocs[:l]) {
				t.Fatalf("f=%d CuckooLocate len=%d: %#x, generic %#x", fpBits, l, locs[:l], wantLocs[:l])
			}
			is, bs := make([]uint64, l), make([]uint64, l)
			for j, loc := range locs[:l] {
				is[j] = uint64(uint32(loc))
				off := is[j] * bucketBytes
				bs[j] = got.Words[off/8] >> (8 * (off % 8)) // the bucket's slots in its low bits
				if fpBits == 8 {
					bs[j] = uint64(uint32(bs[j]))
				}
			}
			alts, wantAlts := make([]uint64, 4*l), make([]uint64, 4*l)
			kernel.CuckooAlternates(got, is, bs, alts)
			kernel.CuckooAlternatesGeneric(want, is, bs, wantAlts)
			if !slices.Equal(alts, wantAlts) {
				t.Fatalf("f=%d CuckooAlternates len=%d: %#x, generic %#x", fpBits, l, alts, wantAlts)
			}
		}
	}
}
