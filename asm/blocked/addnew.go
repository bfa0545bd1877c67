package main

// The add-if-new kernels: insert a key and report whether it was new (at
// least one of its probe bits was clear before), in one load of its block.
//
// Each key: the block offset and the mask as the add kernels build them
// (see the package doc and avx512.go), then the block is loaded into
// registers, miss = mask &^ block is tested, block | mask is stored back,
// and the answer is "miss is not zero". Keys are handled strictly in
// order, each key's load after the previous key's store, so a later key of
// the same batch sees every bit an earlier one set (the store forwards to
// the load when they share a block): the answers are those of one call per
// key, in order, including repeated hashes. There is no branch per key.
//
// Batch: blockedAddNewAVX2 and blockedAddNewAVX512 run the add kernels'
// loops (prologue of prefetches, unrolled or 8-key groups with prefetch
// dist keys ahead, or in modePrefetchFar farDist keys ahead without
// the ring, tail). Per key:
//
//	AVX2:    VMOVDQU x2, VPANDN x2, VPOR, VPOR x2, VMOVDQU x2 (store),
//	         VPTEST, SETNE out[i]; the trues are counted after the loops
//	         (countOut: VPSADBW over out)
//	AVX-512, k <= 8 (wideAddNewLoops, wideAddNewGroup): the offsets
//	         computed once into a ring (twice, no ring, in
//	         modePrefetchFar), VMOVDQU64, VPTESTMQ (lanes that
//	         hold their bit), VPORQ, VMOVDQU64 (store); 8 answers packed
//	         into one store
//	AVX-512, k > 8 and the last keys of a call (wideAddNewKey):
//	         VMOVDQU64, VPANDNQ, VPTESTNMQ (lanes without a miss), VPORQ,
//	         VMOVDQU64 (store), KORTESTB (CF: no lane missed), SETCC
//	         out[i], SBBQ $-1 (count += 1 - CF)
//
// Single key: blockedAddNew1AVX2 and blockedAddNew1AVX512, entered as
// blockedAdd1AVX2 is (genSingle): the AVX2 entry point compares
// internal/kernel's blockedAddNew1Set with setAVX512 and setGeneric and
// tail-jumps to the AVX-512 path or to blockedAddNew1Go (also for an
// empty filter or k outside 1..16), then builds the mask of the add
// kernel (k = 8 without table arithmetic), loads the block, tests and
// stores as above and returns the answer.

import (
	"go/types"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
	"github.com/sift-go/sift/asm/internal/kit"
)

// genAddNew writes blockedAddNewAVX2 (wide false) or blockedAddNewAVX512,
// whose modePrefetchFar loops prefetch farDist keys ahead.
func genAddNew(wide bool, dist, farDist int) {
	if wide {
		low7Mem = c.ConstData("addNewLow7", operand.U64(0x7f7f7f7f7f7f7f7f))
		high1Mem = c.ConstData("addNewHigh1", operand.U64(0x8080808080808080))
	}
	name, sig := "blockedAddNewAVX2", "func(blocks *uint64, nblocks uint64, k int, tab *uint32, hs *uint64, n int, out *bool, mode int) int"
	doc := "blockedAddNewAVX2 inserts hs[:n] in order into the nblocks blocks at blocks with k probes per key, sets out[i] to whether key i was new (one of its bits clear before its insert), and returns the number of trues; tab is avx2Tables[k], mode modeRing (nblocks < 2^32), modePrefetch or modePrefetchFar (further ahead)."
	if wide {
		name, sig = "blockedAddNewAVX512", "func(blocks *uint64, nblocks uint64, k int, hs *uint64, n int, out *bool, mode int) int"
		doc = "blockedAddNewAVX512 is blockedAddNewAVX2 with the AVX-512 sequence (1 <= k <= 16, nblocks < 2^32); modeRing and modePrefetch both run the offset ring for k <= 8 (k > 8 has none)."
	}
	g := &kern{addNew: true, wide: wide, farDist: farDist}
	g.begin(name, sig, doc, true)
	k := c.GP64()
	c.Load(c.Param("k"), k)
	c.XORQ(g.count, g.count)

	if wide {
		c.Comment("Constants: the 16 salts, per-lane ones, the opmasks of the probe lanes of each round.")
		g.wideConsts(k)
	} else {
		g.avx2Consts()
	}

	c.Comment("Prologue: prefetch the blocks of the first min(n, dist) keys.")
	kit.PrefetchKeys(c, g.i, g.n, 0, dist, name+"_prologue", name+"_prologue_done", nil, func() { g.prefetch(0) })

	c.Comment("k > 8 takes the two-round loops; the choice is made once per call.")
	c.CMPQ(k, operand.Imm(8))
	c.JGT(operand.LabelRef(name + "_k16"))
	if wide {
		g.wideAddNewLoops(name+"_k8", dist)
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
	if !wide {
		g.countOut(name)
	}
	c.Store(g.count, c.ReturnIndex(0))
	c.VZEROUPPER()
	c.RET()
}

// addNewKey is keyAt for the AVX2 add-if-new kernel: hs[i+d] is tested
// against its block (at byte a of blocks), inserted, and the answer stored
// at out[i+d].
func (g *kern) addNewKey(d int, a reg.GPVirtual, two bool) {
	lo, hi := g.mask(d, two)
	b0 := operand.Mem{Base: g.blocks, Index: a, Scale: 1}
	b1 := operand.Mem{Base: g.blocks, Index: a, Scale: 1, Disp: 32}
	w0, w1, x0, x1 := c.YMM(), c.YMM(), c.YMM(), c.YMM()
	c.VMOVDQU(b0, w0)
	c.VMOVDQU(b1, w1)
	c.VPANDN(lo, w0, x0) // x0 = mask &^ block
	c.VPANDN(hi, w1, x1)
	c.VPOR(x1, x0, x0)
	c.VPOR(lo, w0, w0)
	c.VPOR(hi, w1, w1)
	c.VMOVDQU(w0, b0)
	c.VMOVDQU(w1, b1)
	c.VPTEST(x0, x0)
	c.SETNE(operand.Mem{Base: g.out, Index: g.i, Scale: 1, Disp: d})
}

// countOut sets g.count to the number of true bytes of out[:n] (the AVX2
// kernel counts after its loops, not per key: VPSADBW adds 32 answers an
// instruction, where a count per key was 2 more instructions a key).
func (g *kern) countOut(p string) {
	c.Comment("Count the answers: VPSADBW sums 32 bytes of out at a time, then the last bytes one by one.")
	acc, t := c.YMM(), c.YMM()
	c.VPXOR(acc, acc, acc)
	c.XORQ(g.i, g.i)
	lim := c.GP64()
	c.MOVQ(g.n, lim)
	c.SUBQ(operand.Imm(32), lim)
	c.CMPQ(g.i, lim)
	c.JGT(operand.LabelRef(p + "_count_sum"))
	c.Label(p + "_count32")
	c.VPSADBW(operand.Mem{Base: g.out, Index: g.i, Scale: 1}, g.zero, t)
	c.VPADDQ(t, acc, acc)
	c.ADDQ(operand.Imm(32), g.i)
	c.CMPQ(g.i, lim)
	c.JLE(operand.LabelRef(p + "_count32"))
	c.Label(p + "_count_sum")
	hi := c.XMM()
	c.VEXTRACTI128(operand.U8(1), acc, hi)
	lo := acc.AsX()
	c.VPADDQ(hi, lo, lo)
	c.VPSRLDQ(operand.U8(8), lo, hi)
	c.VPADDQ(hi, lo, lo)
	c.VMOVQ(lo, g.count)
	c.CMPQ(g.i, g.n)
	c.JGE(operand.LabelRef(p + "_counted"))
	c.Label(p + "_count1")
	b := c.GP64()
	c.MOVBQZX(operand.Mem{Base: g.out, Index: g.i, Scale: 1}, b)
	c.ADDQ(b, g.count)
	c.INCQ(g.i)
	c.CMPQ(g.i, g.n)
	c.JLT(operand.LabelRef(p + "_count1"))
	c.Label(p + "_counted")
}

// wideAddNewKey is wideKey for the AVX-512 add-if-new kernel.
func (g *kern) wideAddNewKey(d int, a reg.GPVirtual, two bool) {
	blk := operand.Mem{Base: g.blocks, Index: a, Scale: 1}
	c1, c2 := wideCounts(g.hash(d), g.saltsZ, two)
	m := c.ZMM()
	if !two {
		c.VPSLLVQ_Z(c1, g.onesZ, g.round1, m)
	} else {
		m2 := c.ZMM()
		c.VPSLLVQ(c1, g.onesZ, m)
		c.VPSLLVQ_Z(c2, g.onesZ, g.round2, m2)
		c.VPORQ(m2, m, m)
	}
	w, x := c.ZMM(), c.ZMM()
	c.VMOVDQU64(blk, w)
	c.VPANDNQ(m, w, x) // x = mask &^ block
	held := c.K()
	c.VPTESTNMQ(x, x, held) // lanes with no missing bit
	c.VPORQ(w, m, m)
	c.VMOVDQU64(m, blk)
	// CF: every lane held its bits (the key was not new); SETCC stores
	// "new" and SBBQ $-1 adds 1 - CF to the count.
	c.KORTESTB(held, held)
	c.SETCC(operand.Mem{Base: g.out, Index: g.i, Scale: 1, Disp: d})
	c.SBBQ(operand.I8(-1), g.count)
}

// low7Mem and high1Mem are 0x7f and 0x80 in every byte, for packing the
// answers of 8 keys (wideAddNewGroup).
var low7Mem, high1Mem operand.Mem

// wideAddNewLoops emits the AVX-512 add-if-new loops for k <= 8. They are
// wideLoops' (groups of 8 keys, the group dist keys on prefetched) with
// the block offsets computed once: the prefetching step stores the 8
// offsets it computed for the group dist keys on into a ring of 64-byte
// slots on the stack, and a group reads its own offsets back from there
// with 8 scalar loads (the store was made dist/8 groups earlier, so it
// has left the store buffer and no forwarding stalls) instead of
// recomputing them with vector instructions (VPMULUDQ, shifts, three
// VEXTRACTI32X4, VMOVQ and VPEXTRQ: about 2.5 vector uops a key). The
// add kernel computes them twice; the add-if-new kernel spends what this
// saves on its test. The first groups, up to dist keys, fill the ring
// before the loop; the last keys that fill no group run one at a time.
// In modePrefetchFar (g.farDist longer than dist) the groups prefetch
// g.farDist keys ahead, further than the ring holds, and compute their
// offsets twice as the add kernel's loops do (a ring holding 128 keys
// ahead measured slower than that in the add and probe kernels; see
// internal/kernel/addnew_amd64.go).
func (g *kern) wideAddNewLoops(p string, dist int) {
	if dist%8 != 0 || dist/8 >= kit.RingSlots {
		panic("blocked: the add-if-new ring needs dist a multiple of 8 below 8*kit.RingSlots")
	}
	c.Comment("Constants of the packed answers: the probe lanes' opmask in every byte.")
	held8 := c.AllocLocal(8)
	g.held8Mem = held8
	{
		r1, t := c.GP64(), c.GP64()
		c.KMOVB(g.round1, r1.As32())
		c.MOVQ(operand.U64(0x0101010101010101), t)
		c.IMULQ(r1, t)
		c.MOVQ(t, held8)
	}
	far := g.farDist > dist
	if far {
		kit.JumpIfMode(c, kit.ModePrefetchFar, p+"_far")
	}
	r := g.newRing(8)
	r.Fill(p, dist)

	c.Commentf("Groups of 8 while i+%d+8 <= n, prefetching the group at i+%d and keeping its offsets.", dist, dist)
	g.groupLoop(p+"_prefetching", p+"_groups", dist+8, func() {
		ahead := r.Store(dist)
		for j := 0; j < 8; j++ {
			c.PREFETCHT0(operand.Mem{Base: g.blocks, Index: ahead(j), Scale: 1})
		}
		g.wideAddNewGroup(slotLanes(r.Slot(0)))
	})

	c.Comment("Groups of 8 while i+8 <= n, offsets in the ring.")
	c.Label(p + "_groups")
	g.groupLoop(p+"_group_loop", p+"_tail", 8, func() { g.wideAddNewGroup(slotLanes(r.Slot(0))) })

	if far {
		// Further ahead than the ring holds: each group computes its
		// offsets twice, as the add kernel's modePrefetchFar loops do.
		c.JMP(operand.LabelRef(p + "_tail"))
		c.Label(p + "_far")
		g.farPrologue(p, dist)
		c.Commentf("Without the ring, further ahead: groups of 8 while i+%d+8 <= n, prefetching the group at i+%d.", g.farDist, g.farDist)
		g.groupLoop(p+"_far_loop", p+"_far_groups", g.farDist+8, func() {
			ahead := g.groupOffsets(g.farDist)
			for j := 0; j < 8; j++ {
				c.PREFETCHT0(operand.Mem{Base: g.blocks, Index: ahead(j), Scale: 1})
			}
			g.wideAddNewGroup(g.groupOffsets(0))
		})
		c.Comment("Groups of 8 while i+8 <= n, already prefetched.")
		c.Label(p + "_far_groups")
		g.groupLoop(p+"_far_group_loop", p+"_tail", 8, func() { g.wideAddNewGroup(g.groupOffsets(0)) })
	}

	c.Comment("The last keys, one at a time.")
	g.oneByOne(p, func() { g.wideAddNewKey(0, g.blockOffset(0), false) })
}

// slotLanes returns a function that loads qword j of the ring slot at
// offs into a general register: a group's offsets read back from the ring.
func slotLanes(offs operand.Mem) func(j int) reg.GPVirtual {
	return func(j int) reg.GPVirtual {
		a := c.GP64()
		o := offs
		o.Disp += 8 * j
		c.MOVQ(o, a)
		return a
	}
}

// wideAddNewGroup inserts the 8 keys hs[i..i+8) for k <= 8, key j's block
// at byte offset off(j) (called for j = 0..7 in order), and writes their 8 answers
// with one 8-byte store. Each key's VPTESTMQ against its block in memory
// gives the opmask of the probe lanes that hold their bit (one bit a lane
// for k <= 8), then the block is ORed and stored. KUNPCKBW/WD/DQ gather
// the 8 opmasks into one 64-bit mask, byte j for key j, and KMOVQ moves it
// to a general register; a byte equals the probe lanes' opmask exactly
// when the key was present. XOR with that opmask in every byte leaves a
// nonzero byte for each new key, and ((x & 0x7f..) + 0x7f..) | x has the
// top bit of each nonzero byte set: masked and shifted down, one 0 or 1 a
// byte, stored at out[i], and POPCNT counts it. Against a KORTESTB, SETCC
// and SBBQ a key this is about 1.5 uops a key instead of 4, and no flags.
func (g *kern) wideAddNewGroup(off func(j int) reg.GPVirtual) {
	var held [8]reg.OpmaskVirtual
	var pairs [4]reg.OpmaskVirtual
	var quads [2]reg.OpmaskVirtual
	for j := 0; j < 8; j++ {
		a := off(j)
		blk := operand.Mem{Base: g.blocks, Index: a, Scale: 1}
		c1, _ := wideCounts(g.hash(j), g.saltsZ, false)
		m := c.ZMM()
		c.VPSLLVQ_Z(c1, g.onesZ, g.round1, m)
		// One load of the block: testing and ORing against memory (two
		// loads of the line) measured 1.19x the add kernel at n = 1e6,
		// this 1.08x (BenchmarkBlockedAddNew, medians of 5 interleaved).
		held[j] = c.K()
		w := c.ZMM()
		c.VMOVDQU64(blk, w)
		c.VPTESTMQ(w, m, held[j])
		c.VPORQ(w, m, m)
		c.VMOVDQU64(m, blk)
		if j%2 == 1 {
			pairs[j/2] = c.K()
			c.KUNPCKBW(held[j-1], held[j], pairs[j/2]) // low byte: key j-1
		}
		if j%4 == 3 {
			quads[j/4] = c.K()
			c.KUNPCKWD(pairs[j/2-1], pairs[j/2], quads[j/4])
		}
	}
	all := c.K()
	c.KUNPCKDQ(quads[0], quads[1], all)
	x, t := c.GP64(), c.GP64()
	c.KMOVQ(all, x)
	c.XORQ(g.held8Mem, x) // byte j nonzero: key j was new
	c.MOVQ(x, t)
	c.ANDQ(low7Mem, t)
	c.ADDQ(low7Mem, t)
	c.ORQ(x, t)
	c.ANDQ(high1Mem, t) // the top bit of each nonzero byte
	c.SHRQ(operand.U8(7), t)
	c.MOVQ(t, operand.Mem{Base: g.out, Index: g.i, Scale: 1})
	c.POPCNTQ(t, t)
	c.ADDQ(t, g.count)
}

// genSingleAddNew writes blockedAddNew1AVX2, the entry point of the
// single-key add-if-new (see genSingle, whose dispatch it repeats).
func genSingleAddNew() {
	name, fallback := "blockedAddNew1AVX2", "blockedAddNew1Go"
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Signature(singleSignatureOf(types.Typ[types.Uint8]))
	c.Doc("blockedAddNew1AVX2 sets the t.K probe bits of h in its block of t.Blocks and returns a byte that is not zero if one of them was clear (the key was new): 1, or on the AVX-512 path for k = 8 the opmask of the probes that were clear; it jumps to blockedAddNew1Go if blockedAddNew1Set is generic, to blockedAddNew1AVX512 if it is avx512, and unless len(t.Blocks) > 0 and 1 <= t.K <= 16.")
	c.Pragma("noescape")
	goPath := operand.LabelRef(name + "_go")

	setDispatch(name, "·blockedAddNew1Set", goPath, "The Go twin if the set is setGeneric, 0, or the filter has no blocks (checked before any vector register is touched).")
	g, kMem := singleHead(name, goPath)

	c.Comment("k = 8: every lane is a probe, the table is avx2Tables[8].")
	g.broadcast()
	lo, hi := g.counts(tableMem(8, offSalts1))
	ones := c.YMM()
	c.VMOVDQU(tableMem(8, offOnes1), ones)
	c.VPSLLVQ(lo, ones, lo)
	c.VPSLLVQ(hi, ones, hi)
	g.testAndSet(lo, hi)

	k, tab := singleGeneral(name, kMem, goPath)
	at := func(off int) operand.Mem { return operand.Mem{Base: tab, Disp: off} }
	g.broadcast()
	lo, hi = g.counts(at(offSalts1))
	o0, o1 := c.YMM(), c.YMM()
	c.VMOVDQU(at(offOnes1), o0)
	c.VMOVDQU(at(offOnes1+32), o1)
	c.VPSLLVQ(lo, o0, lo)
	c.VPSLLVQ(hi, o1, hi)
	c.CMPQ(k, operand.Imm(8))
	c.JLE(operand.LabelRef(name + "_one_round"))
	lo2, hi2 := g.counts(at(offSalts2))
	c.VMOVDQU(at(offOnes2), o0)
	c.VMOVDQU(at(offOnes2+32), o1)
	c.VPSLLVQ(lo2, o0, lo2)
	c.VPSLLVQ(hi2, o1, hi2)
	c.VPOR(lo2, lo, lo)
	c.VPOR(hi2, hi, hi)
	c.Label(name + "_one_round")
	g.testAndSet(lo, hi)

	c.Label(name + "_go")
	tailJump("·" + fallback)
}

// testAndSet loads the block, ORs the mask lo, hi (words 0..3, 4..7) into
// it, stores it, returns whether the mask had a bit the block lacked, and
// returns from the function.
func (g *single) testAndSet(lo, hi reg.VecVirtual) {
	w0, w1, x0, x1 := c.YMM(), c.YMM(), c.YMM(), c.YMM()
	c.VMOVDQU(g.block(0), w0)
	c.VMOVDQU(g.block(1), w1)
	c.VPANDN(lo, w0, x0) // x0 = mask &^ block
	c.VPANDN(hi, w1, x1)
	c.VPOR(lo, w0, w0)
	c.VPOR(hi, w1, w1)
	c.VMOVDQU(w0, g.block(0))
	c.VMOVDQU(w1, g.block(1))
	c.VPOR(x1, x0, x0)
	c.VPTEST(x0, x0)
	c.SETNE(paramMem("ret"))
	c.VZEROUPPER()
	c.RET()
}

// genSingleAddNewWide writes blockedAddNew1AVX512, which
// blockedAddNew1AVX2 jumps to when blockedAddNew1Set is avx512.
func genSingleAddNewWide() {
	name, fallback := "blockedAddNew1AVX512", "blockedAddNew1Go"
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Signature(singleSignatureOf(types.Typ[types.Uint8]))
	c.Doc("blockedAddNew1AVX512 is blockedAddNew1AVX2's AVX-512 path, which it jumps to with its arguments in place; it jumps to blockedAddNew1Go unless len(t.Blocks) > 0 and 1 <= t.K <= 16.")
	c.Pragma("noescape")
	goPath := operand.LabelRef(name + "_go")
	blk, kMem, counts := wideSingleHead(name, goPath)
	m := c.ZMM()
	c.VPBROADCASTQ(oneMem, m)
	c.VPSLLVQ(counts, m, m)
	// One bit in each of the 8 lanes: VPTESTNMQ against the block gives
	// the lanes that lack theirs, none when the key was present, and
	// that opmask is the answer, stored as it is (KMOVB): two
	// instructions fewer than wideTestAndSet, and one fewer than
	// KORTESTB and SETCC, which wait for the block's load too. The block
	// is loaded once (testing and ORing against memory, two loads,
	// measured 1.23x AddHash at n = 1e6 against 1.13x when this kernel
	// was written, and 1.23x against 1.17x again on the AMD EPYC family
	// 26 model 2 (Zen 5) on 2026-11-28; BenchmarkAddNewPaired with its
	// branching caller, medians of 5 interleaved runs; blocked/addnew.go
	// has the figures).
	missed := c.K()
	w := c.ZMM()
	c.VMOVDQU64(blk, w)
	c.VPTESTNMQ(w, m, missed)
	c.VPORQ(w, m, m)
	c.VMOVDQU64(m, blk)
	c.KMOVB(missed, paramMem("ret"))
	c.VZEROUPPER()
	c.RET()

	c1, c2, round1, round2 := wideSingleGeneral(name, kMem, goPath)
	ones := c.ZMM()
	c.VPBROADCASTQ(oneMem, ones)
	m1, m2 := c.ZMM(), c.ZMM()
	c.VPSLLVQ_Z(c1, ones, round1, m1)
	c.VPSLLVQ_Z(c2, ones, round2, m2)
	c.VPORQ(m2, m1, m1)
	wideTestAndSet(blk, m1)

	c.Label(name + "_go")
	tailJump("·" + fallback)
}

// wideTestAndSet is testAndSet for a mask in one ZMM and the block at blk.
func wideTestAndSet(blk operand.Mem, m reg.VecVirtual) {
	w, x := c.ZMM(), c.ZMM()
	c.VMOVDQU64(blk, w)
	c.VPANDNQ(m, w, x) // x = mask &^ block
	c.VPORQ(w, m, m)
	c.VMOVDQU64(m, blk)
	miss := c.K()
	c.VPTESTMQ(x, x, miss)
	c.KORTESTB(miss, miss)
	c.SETNE(paramMem("ret"))
	c.VZEROUPPER()
	c.RET()
}

// newRing allocates the offset ring (kit.Ring) in the frame of the
// function being written, for groups of width keys.
func (g *kern) newRing(width int) *kit.Ring {
	return kit.Alloc(c, &kit.Ring{
		Width:   width,
		I:       g.i,
		Hash:    g.hash,
		N:       g.n,
		Offsets: func(src operand.Mem) reg.VecVirtual { return offsetsVec(src, g.nblocksZ, g.m64) },
	})
}
