package main

// The AVX-512 kernels: the same computation as the AVX2 ones (see the
// package doc), one 512-bit block in one ZMM register.
//
// The mask of a key: VPBROADCASTD of uint32(h), VPMULLD by the salts in
// natural order (8 dwords for k <= 8, 16 for k > 8), VPSRLD 26 gives the bit
// numbers, VPMOVZXDQ widens 8 of them to the 8 qword lanes (the upper 8,
// for k > 8, after a VEXTRACTI64X4). No lane permutation and no blend: the
// widening puts probe j in word j.
//
// The probe shifts the block right by the bit numbers (VPSRLVQ) and tests
// bit 0 of each lane with VPTESTNMQ against per-lane ones, under an opmask
// of the probe lanes: the resulting opmask is the set of missing probes,
// and KORTESTB sets ZF when it is empty. For k > 8 the second round's
// shifted block is ANDed into the first under the opmask of its lanes
// (VPANDQ with merge masking). The insert shifts per-lane ones left
// (VPSLLVQ, zero-masked to the probe lanes) and ORs the mask, the second
// round's mask and the block in one VPTERNLOGQ (k > 8) or a VPORQ.
//
// Opmasks: the kernels build (1<<k)-1 once per call (SHLX), K for lanes
// 0..7 (round 1) and, shifted right by 8, for round 2. The salts are
// internal/kernel's avx512Salts (kernel.Salts in order); the per-lane ones
// are made in a register (VPBROADCASTQ of a GPR) in the batch kernels and
// read as a broadcast memory operand in the single-key ones.

import (
	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// saltsMem is internal/kernel's avx512Salts (16 dwords) at byte off.
func saltsMem(off int) operand.Mem {
	return operand.Mem{Symbol: operand.Symbol{Name: "·avx512Salts"}, Base: reg.StaticBase, Disp: off}
}

// probeMasks sets round1 to the opmask of lanes j < min(k, 8) and round2 to
// that of lanes j-8 for 8 <= j < k, from k in a register (1 <= k <= 16).
func probeMasks(k reg.GPVirtual) (round1, round2 reg.OpmaskVirtual) {
	one, m := c.GP32(), c.GP32()
	c.MOVL(operand.U32(1), one)
	c.SHLXL(k.As32(), one, m)
	c.DECL(m)
	round1, round2 = c.K(), c.K()
	c.KMOVW(m.As32(), round1)
	c.KSHIFTRW(operand.U8(8), round1, round2)
	return round1, round2
}

// wideConsts loads the constants of the batch kernels: the salts, the
// per-lane ones and the two round opmasks.
func (g *kern) wideConsts(k reg.GPVirtual) {
	g.saltsZ = c.ZMM()
	c.VMOVDQU32(saltsMem(0), g.saltsZ)
	one := c.GP64()
	c.MOVQ(operand.U64(1), one)
	g.onesZ = c.ZMM()
	c.VPBROADCASTQ(one, g.onesZ)
	g.round1, g.round2 = probeMasks(k)
}

// wideCounts returns the qword bit numbers of the key whose hash is at h:
// round 1 in c1 and, when two, round 2 in c2. salts is the salts register
// (at least its low 8 dwords are used).
func wideCounts(h operand.Op, salts reg.VecVirtual, two bool) (c1, c2 reg.VecVirtual) {
	c1 = c.ZMM()
	if !two {
		p := c.YMM()
		c.VPBROADCASTD(h, p)
		c.VPMULLD(salts.AsY(), p, p)
		c.VPSRLD(operand.U8(26), p, p)
		c.VPMOVZXDQ(p, c1)
		return c1, nil
	}
	p := c.ZMM()
	c.VPBROADCASTD(h, p)
	c.VPMULLD(salts, p, p)
	c.VPSRLD(operand.U8(26), p, p)
	c.VPMOVZXDQ(p.AsY(), c1)
	hi := c.YMM()
	c.VEXTRACTI64X4(operand.U8(1), p, hi)
	c2 = c.ZMM()
	c.VPMOVZXDQ(hi, c2)
	return c1, c2
}

// wideKey inserts or probes hs[i+d] with the AVX-512 sequence.
func (g *kern) wideKey(d int, two bool) {
	a := g.blockOffset(d)
	blk := operand.Mem{Base: g.blocks, Index: a, Scale: 1}
	c1, c2 := wideCounts(g.hash(d), g.saltsZ, two)
	if !g.contains {
		m := c.ZMM()
		if !two {
			c.VPSLLVQ_Z(c1, g.onesZ, g.round1, m)
			c.VPORQ(blk, m, m)
		} else {
			m2 := c.ZMM()
			c.VPSLLVQ(c1, g.onesZ, m)
			c.VPSLLVQ_Z(c2, g.onesZ, g.round2, m2)
			c.VPTERNLOGQ(operand.U8(0xfe), blk, m2, m) // m | m2 | block
		}
		c.VMOVDQU64(m, blk)
		return
	}
	w := c.ZMM()
	c.VMOVDQU64(blk, w)
	r1 := c.ZMM()
	c.VPSRLVQ(c1, w, r1)
	miss := c.K()
	if !two {
		c.VPTESTNMQ(g.onesZ, r1, g.round1, miss)
	} else {
		r2 := c.ZMM()
		c.VPSRLVQ(c2, w, r2)
		c.VPANDQ(r2, r1, g.round2, r1) // merge masking: round-2 lanes only
		c.VPTESTNMQ(g.onesZ, r1, miss) // k > 8: every round-1 lane probes
	}
	t := c.GP64()
	c.XORL(t.As32(), t.As32())
	c.KORTESTB(miss, miss)
	c.SETEQ(t.As8())
	c.MOVB(t.As8(), operand.Mem{Base: g.out, Index: g.i, Scale: 1, Disp: d})
	c.ADDQ(t, g.count)
}

// oneMem is a broadcast source of the qword 1 for the single-key kernels.
var oneMem operand.Mem

// genSingleWide writes blockedContains1AVX512 or blockedAdd1AVX512, which
// the AVX2 entry points jump to when useAVX512 is set (see genSingle).
func genSingleWide(contains bool) {
	name, fallback := "blockedAdd1AVX512", "blockedAdd1Go"
	doc := "blockedAdd1AVX512 is blockedAdd1AVX2's AVX-512 path, which it jumps to with its arguments in place; it jumps to blockedAdd1Go unless len(t.Blocks) > 0 and 1 <= t.K <= 16."
	if contains {
		name, fallback = "blockedContains1AVX512", "blockedContains1Go"
		doc = "blockedContains1AVX512 is blockedContains1AVX2's AVX-512 path, which it jumps to with its arguments in place; it jumps to blockedContains1Go unless len(t.Blocks) > 0 and 1 <= t.K <= 16."
	}
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Signature(singleSignature(contains))
	c.Doc(doc)
	c.Pragma("noescape")
	goPath := operand.LabelRef(name + "_go")

	hdr := c.Load(c.Param("t"), c.GP64())
	nblocks := c.GP64()
	c.MOVQ(operand.Mem{Base: hdr, Disp: 8}, nblocks)
	c.TESTQ(nblocks, nblocks)
	c.JEQ(goPath)
	c.Comment("Block address: base + ((h>>32)*nblocks>>32)*64.")
	addr := c.GP64()
	c.Load(c.Param("h"), addr)
	c.SHRQ(operand.Imm(32), addr)
	c.IMULQ(nblocks, addr)
	c.SHRQ(operand.Imm(26), addr)
	c.ANDQ(operand.I32(-64), addr)
	c.ADDQ(operand.Mem{Base: hdr}, addr)
	blk := operand.Mem{Base: addr}
	kMem := operand.Mem{Base: hdr, Disp: 24} // t.K
	c.CMPQ(kMem, operand.Imm(8))
	c.JNE(operand.LabelRef(name + "_general"))

	c.Comment("k = 8: every lane is a probe.")
	counts := c.ZMM()
	{
		p := c.YMM()
		c.VPBROADCASTD(paramMem("h"), p)
		c.VPMULLD(saltsMem(0), p, p)
		c.VPSRLD(operand.U8(26), p, p)
		c.VPMOVZXDQ(p, counts)
	}
	if contains {
		w := c.ZMM()
		c.VMOVDQU64(blk, w)
		c.VPSRLVQ(counts, w, w)
		miss := c.K()
		c.VPTESTNMQ_BCST(oneMem, w, miss)
		c.KORTESTB(miss, miss)
		c.SETEQ(paramMem("ret"))
	} else {
		ones := c.ZMM()
		c.VPBROADCASTQ(oneMem, ones)
		c.VPSLLVQ(counts, ones, ones)
		c.VPORQ(blk, ones, ones)
		c.VMOVDQU64(ones, blk)
	}
	c.VZEROUPPER()
	c.RET()

	c.Label(name + "_general")
	c.Comment("Any other k: the Go twin if k is not in 1..16, else both rounds under the probe opmasks.")
	k := c.GP64()
	c.MOVQ(kMem, k)
	t := c.GP64()
	c.LEAQ(operand.Mem{Base: k, Disp: -1}, t)
	c.CMPQ(t, operand.Imm(maxK-1))
	c.JHI(goPath)
	round1, round2 := probeMasks(k)
	salts := c.ZMM()
	c.VMOVDQU32(saltsMem(0), salts)
	c1, c2 := wideCounts(paramMem("h"), salts, true)
	if contains {
		w := c.ZMM()
		c.VMOVDQU64(blk, w)
		r1, r2 := c.ZMM(), c.ZMM()
		c.VPSRLVQ(c1, w, r1)
		c.VPSRLVQ(c2, w, r2)
		c.VPANDQ(r2, r1, round2, r1)
		miss := c.K()
		c.VPTESTNMQ_BCST(oneMem, r1, round1, miss)
		c.KORTESTB(miss, miss)
		c.SETEQ(paramMem("ret"))
	} else {
		ones := c.ZMM()
		c.VPBROADCASTQ(oneMem, ones)
		m1, m2 := c.ZMM(), c.ZMM()
		c.VPSLLVQ_Z(c1, ones, round1, m1)
		c.VPSLLVQ_Z(c2, ones, round2, m2)
		c.VPTERNLOGQ(operand.U8(0xfe), blk, m2, m1)
		c.VMOVDQU64(m1, blk)
	}
	c.VZEROUPPER()
	c.RET()

	c.Label(name + "_go")
	tailJump("·" + fallback)
}
