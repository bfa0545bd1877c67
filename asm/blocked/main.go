// Command blocked generates the AVX2 batch kernels of sift's blocked Bloom
// filter: internal/kernel/blocked_amd64.s and its Go stubs. Run it with
// `go generate ./internal/kernel` from the main module (see the go:generate
// line in internal/kernel/blocked_amd64.go); asm/check.sh regenerates into a
// temporary directory and fails on any difference.
//
// # What the kernels compute
//
// For every key hash h of hs (see internal/kernel/kernel.go for the contract):
//
//	block = blocks[(h>>32)*nblocks>>32]
//	mask  = bit (uint32(h)*Salts[j])>>26 of word j&7, for j < k
//	add:      block |= mask
//	contains: out[i] = mask&^block == 0; count the trues
//
// The mask is built on 8 dword lanes at once: VPBROADCASTD h, VPMULLD by the
// salts, VPSRLD 26 gives the 8 bit numbers. The salts are stored in the lane
// order words [0 4 1 5 2 6 3 7], so the even dwords hold the shift counts of
// words 0..3 and the odd dwords those of words 4..7: a VPBLENDD with zero and a
// VPSRLQ 32 turn them into two vectors of qword counts without a cross-lane
// shuffle, and VPSLLVQ shifts a vector of per-lane ones by them. Lanes j >= k
// shift a zero instead of a one, so k needs no per-key branch. k > 8 runs a
// second round with Salts[8:16] OR'ed in (a separate loop, chosen once per
// call).
//
// The table each call receives (built by the Go side from kernel.Salts) is,
// in bytes: 0 salts of round 1 in that lane order (8 dwords), 32 salts of
// round 2, 64 ones for words 0..3 of round 1, 96 words 4..7 of round 1, 128
// and 160 the same for round 2.
//
// The block index uses a scalar IMULQ, correct for any block count up to
// 2^32.
//
// # The single-key kernels
//
// blockedContains1AVX2 and blockedAdd1AVX2 take (t *BlockedTable, h): one
// key per call (the block slice and k through one pointer), for ContainsHash and AddHash. They build the same mask, but
// split the salt products into qword bit numbers with shifts alone (the
// words 4..7 sit in the odd dwords: VPSRLQ 58; words 0..3 in the even ones:
// VPSLLQ 32, VPSRLQ 58). The probe shifts each block word right by its bit
// number (VPSRLVQ), which brings the probe bits to bit 0 of every lane, and
// tests those with one VPTEST against per-lane ones (carry set: all
// present); for k other than 8 the lanes of probes j >= k are masked out
// with the table's ones (VPANDN) before. They read the table of
// internal/kernel's avx2Tables directly, at k*tableBytes: k = 8 needs no
// index arithmetic. Before touching any vector register they check
// their operation's kernel set (internal/kernel's blockedContains1Set or
// blockedAdd1Set: setAVX512, 2, jumps to the AVX-512 path, setGeneric, 0,
// to the Go twin), the block count and k, and jump to blockedContains1Go or
// blockedAdd1Go (the Go twins, taking the same arguments on the stack) if
// the kernel must not run. The loop is prefetched: a prologue issues PREFETCHT0 for the blocks
// of the first `dist` keys, then each step prefetches the block of key
// i+dist, and the last dist keys run without. The batch kernels take a
// mode argument, chosen by the Go side from the filter's size
// (internal/kernel/blocked_amd64.go, batchMode and blockedMode): modeNoPrefetch (inserts
// only, a filter in L2) skips the prologue and runs loops without
// prefetches (AVX2: 4 keys a step; AVX-512: groups of 8 computing their
// own offsets); modeRing (a filter up to 4 MiB with fewer than 2^32
// blocks) computes the block offsets of each group for its prefetch with
// one VPMULUDQ (AVX-512: groups of 8; AVX2: groups of 4), keeps them in a
// ring on the stack and reads them back for the group (asm/internal/kit, Ring);
// modePrefetch computes them twice (AVX2: with a scalar IMUL each time);
// modePrefetchFar (the probes, inserts and add-if-new, a filter of 4 MiB
// and more that fits the last-level cache, or any from 4 MiB on CPUs whose
// kernel table entry says so) is modePrefetch with its prefetches
// defaultFarDist keys ahead instead of dist, after a second prologue
// for the keys between. Nothing is read before hs or
// past its end, and out is written byte by byte.
//
// The add-if-new kernels (single key and batch, AVX2 and AVX-512) are
// described in addnew.go.
package main

import (
	"go/token"
	"go/types"
	"strings"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/sift-go/sift/asm/internal/kit"
)

// defaultDist is the prefetch distance in keys of the loops with the
// offset ring (filters up to 4 MiB, in the caches), tuned on the
// memory-bound case (see the benchstat table in
// internal/kernel/blocked_amd64.go); the ring holds at most 60 keys ahead.
const defaultDist = 48

// defaultFarDist is the prefetch distance in keys of the batch probes',
// inserts' and add-if-new loops in modePrefetchFar (filters of 4 MiB and more that
// fit the last-level cache, whose blocks come from L3, and on a Zen 5
// those past it too): a longer latency
// takes more keys in flight to cover. internal/kernel/blocked_amd64.go
// (blockedMode) has the measurements that chose it; modePrefetch (past
// the last-level cache) keeps defaultDist, which measured better there
// on a Zen 4 (on a Zen 5 128 won there too: farLimit).
const defaultFarDist = 128

// unroll is how many keys one step of the main loop handles.
const unroll = 4

// Table offsets in bytes (see the package doc).
const (
	offSalts1 = 0
	offSalts2 = 32
	offOnes1  = 64
	offOnes2  = 128
	// tableBytes is the size of one avx2Table (checked in
	// internal/kernel/blocked_amd64.go).
	tableBytes = 192
	maxK       = 16
)

// The values of internal/kernel's kernelSet that the single-key entry
// points compare their operation's set with (internal/kernel/impl.go).
const (
	setGeneric = 0
	setAVX512  = 2
)

var c = build.NewContext()

func main() {
	fl := kit.ParseFlags("blocked", defaultDist, defaultFarDist, "prefetch distance in keys with the offset ring")

	c.ConstraintExpr("gc,!purego")
	oneMem = c.ConstData("one", operand.U64(1))
	for _, wide := range []bool{false, true} {
		gen(false, wide, fl.Dist, fl.FarDist)
		gen(true, wide, fl.Dist, fl.FarDist)
	}
	genSingle(false)
	genSingle(true)
	genSingleWide(false)
	genSingleWide(true)
	genAddNew(false, fl.Dist, fl.FarDist)
	genAddNew(true, fl.Dist, fl.FarDist)
	genSingleAddNew()
	genSingleAddNewWide()
	genWindow(fl.Dist)

	kit.Generate(c, "blocked", fl.Pkg, fl.Out, fl.Stubs)
}

// kern holds the registers of one kernel function.
type kern struct {
	contains bool
	addNew   bool          // the add-if-new kernel (addnew.go)
	blocks   reg.GPVirtual // base of the block array
	nblocks  reg.GPVirtual // block count, <= 2^32
	hs       reg.GPVirtual // base of the hashes
	n        reg.GPVirtual // number of hashes
	out      reg.GPVirtual // base of the results (contains)
	count    reg.GPVirtual // number of trues (contains)
	i        reg.GPVirtual // current key
	zero     reg.VecVirtual
	salts    [2]reg.VecVirtual
	ones     [2][2]reg.VecVirtual

	// The AVX-512 kernels' constants (see avx512.go).
	wide                         bool
	saltsZ, onesZ, nblocksZ, m64 reg.VecVirtual
	round1, round2, notRound1    reg.OpmaskVirtual

	// The add-if-new kernel's probe opmask in every byte (addnew.go).
	held8Mem operand.Mem
	// ring keeps the batch loops' block offsets (addnew.go).
	ring *kit.Ring
	// farDist is the prefetch distance of the loops in modePrefetchFar
	// (-fardist, at least -dist), emitted where it is longer than the
	// ring's distance: the probes, inserts and add-if-new (whose AVX-512
	// ring is local to wideAddNewLoops, g.ring unset).
	farDist int
}

func gen(contains, wide bool, dist, farDist int) {
	name, sig := "blockedAddAVX2", "func(blocks *uint64, nblocks uint64, k int, tab *uint32, hs *uint64, n int, mode int)"
	doc := "blockedAddAVX2 inserts hs[:n] into the nblocks blocks at blocks with k probes per key, prefetching the blocks ahead unless mode is modeNoPrefetch; tab is avx2Tables[k], mode modeRing only for nblocks < 2^32 (modePrefetchFar prefetches further ahead than modePrefetch)."
	if contains {
		name, sig = "blockedContainsAVX2", "func(blocks *uint64, nblocks uint64, k int, tab *uint32, hs *uint64, n int, out *bool, mode int) int"
		doc = "blockedContainsAVX2 probes hs[:n] in the nblocks blocks at blocks with k probes per key, writes out[:n] and returns the number of trues; tab is avx2Tables[k], mode modeRing (nblocks < 2^32), modePrefetch or modePrefetchFar (further ahead)."
	}
	if wide {
		name, sig = "blockedAddAVX512", "func(blocks *uint64, nblocks uint64, k int, hs *uint64, n int, mode int)"
		doc = "blockedAddAVX512 inserts hs[:n] into the nblocks blocks at blocks with k probes per key (1 <= k <= 16, nblocks < 2^32); mode is modeNoPrefetch, modeRing, modePrefetch or modePrefetchFar (further ahead)."
		if contains {
			name, sig = "blockedContainsAVX512", "func(blocks *uint64, nblocks uint64, k int, hs *uint64, n int, out *bool, mode int) int"
			doc = "blockedContainsAVX512 probes hs[:n] in the nblocks blocks at blocks with k probes per key (1 <= k <= 16, nblocks < 2^32), writes out[:n] and returns the number of trues; mode is modeRing, modePrefetch or modePrefetchFar (further ahead)."
		}
	}
	g := &kern{contains: contains, wide: wide, farDist: farDist}
	g.begin(name, sig, doc, false)
	k := c.GP64()
	c.Load(c.Param("k"), k)
	if contains {
		g.out = c.GP64()
		g.count = c.GP64()
		c.Load(c.Param("out"), g.out)
		c.XORQ(g.count, g.count)
	}

	if wide {
		c.Comment("Constants: the 16 salts, per-lane ones, the opmasks of the probe lanes of each round.")
		g.wideConsts(k)
		g.ring = g.newRing(8)
	} else {
		g.avx2Consts()
	}

	c.Comment("Prologue: prefetch the blocks of the first min(n, dist) keys.")
	var guard func()
	if !contains {
		guard = func() { kit.JumpIfMode(c, kit.ModeNoPrefetch, name+"_prologue_done") }
	}
	kit.PrefetchKeys(c, g.i, g.n, 0, dist, name+"_prologue", name+"_prologue_done", guard, func() { g.prefetch(0) })

	c.Comment("k > 8 takes the two-round loops; the choice is made once per call.")
	c.CMPQ(k, operand.Imm(8))
	c.JGT(operand.LabelRef(name + "_k16"))
	if wide {
		g.wideLoops(name+"_k8", false, dist)
	} else {
		g.loops(name+"_k8", false, dist)
	}
	c.JMP(operand.LabelRef(name + "_done"))
	c.Label(name + "_k16")
	if wide {
		g.wideLoops(name+"_k16", true, dist)
	} else {
		g.loops(name+"_k16", true, dist)
	}

	c.Label(name + "_done")
	if contains {
		c.Store(g.count, c.ReturnIndex(0))
	}
	c.VZEROUPPER()
	c.RET()
}

// begin starts the batch kernel name (signature sig, doc comment doc): it
// allocates g.blocks, g.nblocks, g.hs, g.n and g.i (the key index, zeroed
// by the prologue), and g.out and g.count if withOut, and loads blocks,
// nblocks, hs, n and, if withOut, out. The caller zeroes count (gen's
// probes allocate and load out themselves, after k: the instruction order
// the kernels have always had).
func (g *kern) begin(name, sig, doc string, withOut bool) {
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr(sig)
	c.Doc(doc)
	c.Pragma("noescape")

	g.blocks = c.GP64()
	g.nblocks = c.GP64()
	g.hs = c.GP64()
	g.n = c.GP64()
	g.i = c.GP64()
	if withOut {
		g.out = c.GP64()
		g.count = c.GP64()
	}
	c.Load(c.Param("blocks"), g.blocks)
	c.Load(c.Param("nblocks"), g.nblocks)
	c.Load(c.Param("hs"), g.hs)
	c.Load(c.Param("n"), g.n)
	if withOut {
		c.Load(c.Param("out"), g.out)
	}
}

// avx2Consts loads the AVX2 batch kernels' constants from the tab
// argument and sets up their offset ring.
func (g *kern) avx2Consts() {
	tab := c.Load(c.Param("tab"), c.GP64())
	c.Comment("Constants: salts in lane order [0 4 1 5 2 6 3 7], per-lane ones (0 in lanes >= k).")
	g.zero = c.YMM()
	c.VPXOR(g.zero, g.zero, g.zero)
	for r := 0; r < 2; r++ {
		g.salts[r] = c.YMM()
		c.VMOVDQU(operand.Mem{Base: tab, Disp: []int{offSalts1, offSalts2}[r]}, g.salts[r])
		for h := 0; h < 2; h++ {
			g.ones[r][h] = c.YMM()
			c.VMOVDQU(operand.Mem{Base: tab, Disp: []int{offOnes1, offOnes2}[r] + 32*h}, g.ones[r][h])
		}
	}
	c.Comment("The offset ring's constants: nblocks and -64 in every qword.")
	g.nblocksZ, g.m64 = offsetConsts(g.nblocks, false)
	g.ring = g.newRing(unroll)
}

// loops emits the three loops of one round count: unrolled with prefetch,
// one key with prefetch, one key without (the last dist keys). Where the
// kernel has modes and g.farDist is longer than dist, modePrefetchFar
// runs the first two g.farDist keys ahead.
func (g *kern) loops(p string, two bool, dist int) {
	lim := c.GP64()
	if g.optionalPrefetch() {
		kit.JumpIfMode(c, kit.ModeNoPrefetch, p+"_nopf")
	}
	if g.ring != nil {
		g.ringLoops(p, dist, func(u int, a reg.GPVirtual) { g.keyAt(u, a, two) }, func() {
			g.prefetchLoops(p+"_far", p+"_tail", lim, g.farDist, two)
			c.JMP(operand.LabelRef(p + "_tail"))
		})
		c.Label(p + "_plain")
	}
	g.prefetchLoops(p, p+"_tail", lim, dist, two)
	if g.optionalPrefetch() {
		c.JMP(operand.LabelRef(p + "_tail"))
		c.Commentf("Without prefetching (a filter in the caches): %d keys a step while i+%d <= n.", unroll, unroll)
		c.Label(p + "_nopf")
		g.unrolledLoop(p+"_nopf_loop", p+"_tail", lim, 0, func(u int) { g.key(u, two) })
	}

	c.Comment("The last keys, already prefetched.")
	g.oneByOne(p, func() { g.key(0, two) })
}

// ringLoops writes the mode dispatch and the offset-ring loops of the AVX2
// and AVX-512 batch kernels that have g.ring: modePrefetchFar jumps to
// p_far, where g.farDist is longer than dist (else to p_plain, as
// modePrefetch does); there, after farPrologue, farLoops writes the
// further loops, which must end in a jump (p_plain follows). modeRing runs
// the ring loops with key, then jumps to p_tail. The caller writes p_plain
// and the labels farLoops jumps to.
func (g *kern) ringLoops(p string, dist int, key func(j int, off reg.GPVirtual), farLoops func()) {
	r := g.ring
	far := g.farDist > dist
	kit.JumpPastRing(c, p, far)
	r.Fill(p, dist)
	r.Loops(kit.RingLabels{Prefetching: p + "_prefetching", Groups: p + "_groups", GroupLoop: p + "_group_loop", Exit: p + "_tail"}, g.blocks, dist, key)
	c.JMP(operand.LabelRef(p + "_tail"))
	if far {
		c.Label(p + "_far")
		g.farPrologue(p, dist)
		farLoops()
	}
}

// farPrologue starts the loops of modePrefetchFar: the prologue
// prefetched the blocks of the first dist keys, this prefetches those of
// keys dist to g.farDist-1 (as far as n).
func (g *kern) farPrologue(p string, dist int) {
	c.Commentf("modePrefetchFar looks %d keys ahead: prefetch the blocks of keys %d..%d too.", g.farDist, dist, g.farDist-1)
	kit.PrefetchKeys(c, g.i, g.n, dist, g.farDist, p+"_farpro", p+"_farpro_done", nil, func() { g.prefetch(0) })
}

// prefetchLoops emits the AVX2 loops that prefetch the block of key i+dist
// (labels from q): 4 keys a step, then one, leaving the last dist keys for
// the tail (label tail, where they jump once done).
func (g *kern) prefetchLoops(q, tail string, lim reg.GPVirtual, dist int, two bool) {
	c.Commentf("Main loop: %d keys a step while i+%d+%d <= n, prefetching key i+%d.", unroll, dist, unroll, dist)
	g.unrolledLoop(q+"_unrolled", q+"_one", lim, dist, func(u int) {
		g.prefetch(dist + u)
		g.key(u, two)
	})

	c.Commentf("One key a step while i+%d < n, prefetching key i+%d.", dist, dist)
	c.Label(q + "_one")
	c.MOVQ(g.n, lim)
	c.SUBQ(kit.Const(dist), lim)
	c.CMPQ(g.i, lim)
	c.JGE(operand.LabelRef(tail))
	c.Label(q + "_one_loop")
	g.prefetch(dist)
	g.key(0, two)
	c.INCQ(g.i)
	c.CMPQ(g.i, lim)
	c.JLT(operand.LabelRef(q + "_one_loop"))
}

// unrolledLoop emits, from label loop, step(u) for u = 0..unroll-1 and
// i += unroll while i+ahead+unroll <= n (lim holds n-ahead-unroll),
// jumping to skip when not even one step fits: the prefetching main loop
// (ahead = its distance) and the loop without prefetches (ahead = 0).
func (g *kern) unrolledLoop(loop, skip string, lim reg.GPVirtual, ahead int, step func(u int)) {
	c.MOVQ(g.n, lim)
	c.SUBQ(kit.Const(ahead+unroll), lim)
	c.CMPQ(g.i, lim)
	c.JGT(operand.LabelRef(skip))
	c.Label(loop)
	for u := 0; u < unroll; u++ {
		step(u)
	}
	c.ADDQ(operand.Imm(unroll), g.i)
	c.CMPQ(g.i, lim)
	c.JLE(operand.LabelRef(loop))
}

// oneByOne emits the batch loops' end, from label p_tail: key for each of
// the keys i..n-1, then label p_end.
func (g *kern) oneByOne(p string, key func()) {
	c.Label(p + "_tail")
	c.CMPQ(g.i, g.n)
	c.JGE(operand.LabelRef(p + "_end"))
	c.Label(p + "_tail_loop")
	key()
	c.INCQ(g.i)
	c.CMPQ(g.i, g.n)
	c.JLT(operand.LabelRef(p + "_tail_loop"))
	c.Label(p + "_end")
}

// optionalPrefetch reports whether the kernel may run without prefetches
// (modeNoPrefetch): the batch inserts.
func (g *kern) optionalPrefetch() bool { return !g.contains && !g.addNew }

// hash returns the memory operand of hs[i+d].
func (g *kern) hash(d int) operand.Mem {
	return operand.Mem{Base: g.hs, Index: g.i, Scale: 8, Disp: 8 * d}
}

// blockOffset returns the byte offset of the block of hs[i+d]:
// ((h>>32)*nblocks>>32)*64, computed as ((h>>32)*nblocks)>>26 &^ 63.
func (g *kern) blockOffset(d int) reg.GPVirtual {
	a := c.GP64()
	kit.BlockOffset(c, g.hash(d), g.nblocks, a, 64)
	return a
}

func (g *kern) prefetch(d int) {
	a := g.blockOffset(d)
	c.PREFETCHT0(operand.Mem{Base: g.blocks, Index: a, Scale: 1})
}

// mask builds the probe bits of hs[i+d]: words 0..3 in lo, 4..7 in hi.
func (g *kern) mask(d int, two bool) (lo, hi reg.VecVirtual) {
	return avx2Mask(g.hash(d), g.salts, g.zero, g.ones, two)
}

// avx2Mask builds the probe bits of the hash h (its low 32 bits) with
// the AVX2 table's salts and per-lane ones (both rounds if two), zero a
// zeroed YMM: words 0..3 of the block in lo, 4..7 in hi.
func avx2Mask(h operand.Op, salts [2]reg.VecVirtual, zero reg.VecVirtual, ones [2][2]reg.VecVirtual, two bool) (lo, hi reg.VecVirtual) {
	rounds := 1
	if two {
		rounds = 2
	}
	bc := c.YMM()
	c.VPBROADCASTD(h, bc)
	for r := 0; r < rounds; r++ {
		p := c.YMM()
		c.VPMULLD(salts[r], bc, p)
		c.VPSRLD(operand.Imm(26), p, p)
		l, hh := c.YMM(), c.YMM()
		c.VPBLENDD(operand.Imm(0xaa), zero, p, l)
		c.VPSRLQ(operand.Imm(32), p, hh)
		c.VPSLLVQ(l, ones[r][0], l)
		c.VPSLLVQ(hh, ones[r][1], hh)
		if r == 0 {
			lo, hi = l, hh
		} else {
			c.VPOR(l, lo, lo)
			c.VPOR(hh, hi, hi)
		}
	}
	return lo, hi
}

// key inserts or probes hs[i+d].
func (g *kern) key(d int, two bool) {
	g.keyAt(d, g.blockOffset(d), two)
}

// keyAt inserts or probes hs[i+d], whose block is at byte a of blocks.
func (g *kern) keyAt(d int, a reg.GPVirtual, two bool) {
	if g.addNew {
		g.addNewKey(d, a, two)
		return
	}
	lo, hi := g.mask(d, two)
	b0 := operand.Mem{Base: g.blocks, Index: a, Scale: 1}
	b1 := operand.Mem{Base: g.blocks, Index: a, Scale: 1, Disp: 32}
	if !g.contains {
		c.VPOR(b0, lo, lo)
		c.VPOR(b1, hi, hi)
		c.VMOVDQU(lo, b0)
		c.VMOVDQU(hi, b1)
		return
	}
	w0, w1 := c.YMM(), c.YMM()
	c.VMOVDQU(b0, w0)
	c.VMOVDQU(b1, w1)
	c.VPANDN(lo, w0, lo) // lo = mask &^ block
	c.VPANDN(hi, w1, hi)
	c.VPOR(hi, lo, lo)
	t := c.GP64()
	c.XORL(t.As32(), t.As32())
	c.VPTEST(lo, lo)
	c.SETEQ(t.As8())
	c.MOVB(t.As8(), operand.Mem{Base: g.out, Index: g.i, Scale: 1, Disp: d})
	c.ADDQ(t, g.count)
}

// single holds the registers of a single-key kernel.
type single struct {
	contains bool
	base     reg.GPVirtual // the block array
	off      reg.GPVirtual // byte offset of the key's block
	bc       reg.VecVirtual
}

// tableMem is the operand at byte off of avx2Tables[k] for a k known here.
func tableMem(k, off int) operand.Mem {
	return operand.Mem{Symbol: operand.Symbol{Name: "·avx2Tables"}, Base: reg.StaticBase, Disp: k*tableBytes + off}
}

func genSingle(contains bool) {
	name, fallback := "blockedAdd1AVX2", "blockedAdd1Go"
	doc := "blockedAdd1AVX2 sets the t.K probe bits of h in its block of t.Blocks; it jumps to blockedAdd1Go if blockedAdd1Set is generic, to blockedAdd1AVX512 if it is avx512, and unless len(t.Blocks) > 0 and 1 <= t.K <= 16."
	if contains {
		name, fallback = "blockedContains1AVX2", "blockedContains1Go"
		doc = "blockedContains1AVX2 reports whether all t.K probe bits of h are set in its block of t.Blocks; it jumps to blockedContains1Go if blockedContains1Set is generic, to blockedContains1AVX512 if it is avx512, and unless len(t.Blocks) > 0 and 1 <= t.K <= 16."
	}
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Signature(singleSignature(contains))
	c.Doc(doc)
	c.Pragma("noescape")
	goPath := operand.LabelRef(name + "_go")

	setSym := "·blockedAdd1Set"
	if contains {
		setSym = "·blockedContains1Set"
	}
	setDispatch(name, setSym, goPath, "The Go twin if the set is setGeneric, 0, or the filter has no blocks (checked before any vector register is touched).")
	g, kMem := singleHead(name, goPath)
	g.contains = contains

	c.Comment("k = 8: every lane is a probe, the table is avx2Tables[8].")
	g.k8()

	k, tab := singleGeneral(name, kMem, goPath)
	g.anyK(name, k, tab)

	c.Label(name + "_go")
	tailJump("·" + fallback)
}

// singleHead writes what the single-key AVX2 kernels do after setDispatch
// (goPath their Go twin's label): the table header and the key's block
// offset, then the jump to name_general unless t.K is 8. It returns the
// kernel's state and the operand of t.K.
func singleHead(name string, goPath operand.LabelRef) (*single, operand.Mem) {
	hdr, nblocks := kit.TableHeader(c, goPath)
	g := &single{base: c.GP64(), off: c.GP64()}
	c.MOVQ(operand.Mem{Base: hdr}, g.base)

	c.Comment("Block offset: ((h>>32)*nblocks>>32)*64.")
	kit.BlockOffset(c, paramMem("h"), nblocks, g.off, 64)
	kMem := operand.Mem{Base: hdr, Disp: 24} // t.K
	c.CMPQ(kMem, operand.Imm(8))
	c.JNE(operand.LabelRef(name + "_general"))
	return g, kMem
}

// singleGeneral writes the head of name_general in a single-key AVX2
// kernel: t.K (at kMem) loaded, the jump to goPath unless it is in 1..16,
// and the address of avx2Tables[k]. It returns k and that address.
func singleGeneral(name string, kMem operand.Mem, goPath operand.LabelRef) (k, tab reg.GPVirtual) {
	c.Label(name + "_general")
	c.Comment("Any other k: the Go twin if k is not in 1..16, else the table avx2Tables[k].")
	k, t := kInRange(kMem, goPath)
	tab = c.GP64()
	c.LEAQ(operand.Mem{Symbol: operand.Symbol{Name: "·avx2Tables"}, Base: reg.StaticBase}, tab)
	c.LEAQ(operand.Mem{Base: k, Index: k, Scale: 2}, t)
	c.SHLQ(operand.Imm(6), t) // k*192
	c.ADDQ(t, tab)
	return k, tab
}

// kInRange loads t.K (at kMem) into k and jumps to goPath unless it is in
// 1..maxK, the test of every single-key kernel's name_general; t is the
// scratch register of the test, free for the caller.
func kInRange(kMem operand.Mem, goPath operand.LabelRef) (k, t reg.GPVirtual) {
	k = c.GP64()
	c.MOVQ(kMem, k)
	t = c.GP64()
	c.LEAQ(operand.Mem{Base: k, Disp: -1}, t)
	c.CMPQ(t, operand.Imm(maxK-1))
	c.JHI(goPath)
	return k, t
}

// setDispatch writes the head of the single-key entry name (its AVX2
// kernel): a tail jump to the AVX-512 kernel of the same name when the
// operation's kernel set (the byte variable setSym) is setAVX512, and a
// jump to goPath when it is setGeneric, the second test under comment if
// comment is not empty.
func setDispatch(name, setSym string, goPath operand.LabelRef, comment string) {
	set := operand.Mem{Symbol: operand.Symbol{Name: setSym}, Base: reg.StaticBase}
	c.Comment("The AVX-512 path when this operation's kernel set is setAVX512, 2 (same arguments, a tail jump).")
	c.CMPB(set, operand.Imm(setAVX512))
	c.JNE(operand.LabelRef(name + "_avx2"))
	tailJump("·" + strings.TrimSuffix(name, "AVX2") + "AVX512")
	c.Label(name + "_avx2")
	if comment != "" {
		c.Comment(comment)
	}
	c.CMPB(set, operand.Imm(setGeneric))
	c.JEQ(goPath)
}

// tailJump is kit.TailJump into the generator's context.
func tailJump(sym string) { kit.TailJump(c, sym) }

// singleSignature is func(t *BlockedTable, h uint64) [bool] with
// BlockedTable the kernel package's struct{Blocks []Block; K int} and Block
// its [8]uint64 (built here: avo can only parse signatures of predeclared
// types without loading the package).
func singleSignature(contains bool) *gotypes.Signature {
	if contains {
		return singleSignatureOf(types.Typ[types.Bool])
	}
	return singleSignatureOf(nil)
}

// singleSignatureOf is singleSignature with the result type res (none if
// nil).
func singleSignatureOf(res types.Type) *gotypes.Signature {
	pkg := types.NewPackage("github.com/sift-go/sift/internal/kernel", "kernel")
	block := types.NewNamed(types.NewTypeName(token.NoPos, pkg, "Block", nil), types.NewArray(types.Typ[types.Uint64], 8), nil)
	table := types.NewNamed(types.NewTypeName(token.NoPos, pkg, "BlockedTable", nil), types.NewStruct([]*types.Var{
		types.NewField(token.NoPos, pkg, "Blocks", types.NewSlice(block), false),
		types.NewField(token.NoPos, pkg, "K", types.Typ[types.Int], false),
	}, nil), nil)
	params := types.NewTuple(
		types.NewParam(token.NoPos, pkg, "t", types.NewPointer(table)),
		types.NewParam(token.NoPos, pkg, "h", types.Typ[types.Uint64]),
	)
	var results *types.Tuple
	if res != nil {
		results = types.NewTuple(types.NewParam(token.NoPos, pkg, "", res))
	}
	return gotypes.NewSignature(pkg, types.NewSignatureType(nil, nil, nil, params, results, false))
}

// counts returns the bit numbers of the round whose salts are at salts:
// words 0..3 in lo, 4..7 in hi, as qwords.
func (g *single) counts(salts operand.Mem) (lo, hi reg.VecVirtual) {
	p, lo, hi := c.YMM(), c.YMM(), c.YMM()
	c.VPMULLD(salts, g.bc, p)
	c.VPSRLQ(operand.Imm(58), p, hi)
	c.VPSLLQ(operand.Imm(32), p, lo)
	c.VPSRLQ(operand.Imm(58), lo, lo)
	return lo, hi
}

// paramMem is the memory operand of a parameter or result (name "ret") of
// the function being built.
func paramMem(name string) operand.Mem { return kit.ParamMem(c, name) }

func (g *single) broadcast() {
	g.bc = c.YMM()
	c.VPBROADCASTD(paramMem("h"), g.bc)
}

func (g *single) block(half int) operand.Mem {
	return operand.Mem{Base: g.base, Index: g.off, Scale: 1, Disp: 32 * half}
}

// words loads the block and shifts each word right by its bit number.
func (g *single) shifted(lo, hi reg.VecVirtual) (w0, w1 reg.VecVirtual) {
	w0, w1 = c.YMM(), c.YMM()
	c.VMOVDQU(g.block(0), w0)
	c.VMOVDQU(g.block(1), w1)
	c.VPSRLVQ(lo, w0, lo)
	c.VPSRLVQ(hi, w1, hi)
	return w0, w1
}

// result stores CF (set: every probe bit present) as the return value.
func (g *single) result() {
	c.SETCS(paramMem("ret"))
}

// store ORs lo and hi into the block and writes it back.
func (g *single) store(lo, hi reg.VecVirtual) {
	c.VPOR(g.block(0), lo, lo)
	c.VPOR(g.block(1), hi, hi)
	c.VMOVDQU(lo, g.block(0))
	c.VMOVDQU(hi, g.block(1))
}

func (g *single) k8() {
	g.broadcast()
	lo, hi := g.counts(tableMem(8, offSalts1))
	if g.contains {
		g.shifted(lo, hi)
		c.VPAND(hi, lo, lo)
		c.VPTEST(tableMem(8, offOnes1), lo) // CF = (ones &^ lo) == 0
		g.result()
	} else {
		ones := c.YMM()
		c.VMOVDQU(tableMem(8, offOnes1), ones)
		c.VPSLLVQ(lo, ones, lo)
		c.VPSLLVQ(hi, ones, hi)
		g.store(lo, hi)
	}
	c.VZEROUPPER()
	c.RET()
}

// anyK handles 1 <= k <= 16 with the table at tab: the ones of the probes
// j >= k are zero.
func (g *single) anyK(name string, k, tab reg.GPVirtual) {
	at := func(off int) operand.Mem { return operand.Mem{Base: tab, Disp: off} }
	done := operand.LabelRef(name + "_one_round")
	g.broadcast()
	lo, hi := g.counts(at(offSalts1))
	if g.contains {
		w0, w1 := g.shifted(lo, hi)
		// miss = lanes of words 4..7 whose probe bit is clear (VPANDN: ~hi & ones).
		c.VPANDN(at(offOnes1+32), hi, hi)
		c.CMPQ(k, operand.Imm(8))
		c.JLE(done)
		lo2, hi2 := g.counts(at(offSalts2))
		c.VPSRLVQ(lo2, w0, lo2)
		c.VPSRLVQ(hi2, w1, hi2)
		c.VPANDN(at(offOnes2), lo2, lo2)
		c.VPANDN(at(offOnes2+32), hi2, hi2)
		c.VPOR(lo2, hi, hi)
		c.VPOR(hi2, hi, hi)
		c.Label(name + "_one_round")
		// Every miss lies in a lane whose word 0..3 is a probe of round 1:
		// clear those lanes' bit 0 in lo and test the round-1 lanes.
		c.VPANDN(lo, hi, lo) // lo &^ miss
		c.VPTEST(at(offOnes1), lo)
		g.result()
	} else {
		o0, o1 := c.YMM(), c.YMM()
		c.VMOVDQU(at(offOnes1), o0)
		c.VMOVDQU(at(offOnes1+32), o1)
		c.VPSLLVQ(lo, o0, lo)
		c.VPSLLVQ(hi, o1, hi)
		c.CMPQ(k, operand.Imm(8))
		c.JLE(done)
		lo2, hi2 := g.counts(at(offSalts2))
		c.VMOVDQU(at(offOnes2), o0)
		c.VMOVDQU(at(offOnes2+32), o1)
		c.VPSLLVQ(lo2, o0, lo2)
		c.VPSLLVQ(hi2, o1, hi2)
		c.VPOR(lo2, lo, lo)
		c.VPOR(hi2, hi, hi)
		c.Label(name + "_one_round")
		g.store(lo, hi)
	}
	c.VZEROUPPER()
	c.RET()
}
