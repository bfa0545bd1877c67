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
// The batch probe (k <= 8) shifts per-lane ones left by the bit numbers
// (VPSLLVQ) and tests them against the block in memory (VPTESTMQ): the
// opmask of present probes. KORTESTB with the opmask of the lanes that are
// no probe sets CF when every probe is present; SETCS stores the answer
// and ADCQ counts it, with no general register in between. For k > 8 the
// block is shifted right by each round's bit numbers (VPSRLVQ), the second
// round ANDed into the first under the opmask of its lanes (VPANDQ with
// merge masking), and bit 0 of each lane tested. The single-key probe uses
// the shifted form for every k. The insert shifts per-lane ones left
// (VPSLLVQ, zero-masked to the probe lanes) and ORs the mask, the second
// round's mask and the block in one VPTERNLOGQ (k > 8) or a VPORQ.
//
// The batch loops take keys in groups of 8: one VPMULUDQ computes the 8
// block offsets (32 x 32 -> 64-bit products: the high half of a hash and
// the block count, which the Go wrappers keep below 2^32 for these
// kernels, sending a filter of exactly 2^32 blocks to the AVX2 ones), VEXTRACTI32X4 and VMOVQ/VPEXTRQ move them to general
// registers, and each group prefetches the blocks of the group dist keys
// on. In modeRing (filters up to 4 MiB) those 8 offsets are also stored
// in a ring on the stack and the group reads its own back, so no block
// index is computed twice; in modePrefetch (larger filters, where the
// ring measured slower) and modeNoPrefetch a group computes its own (the
// AVX2 loops do the same in groups of 4: main.go).
//
// Opmasks: the kernels build (1<<k)-1 once per call (SHLX), K for lanes
// 0..7 (round 1) and, shifted right by 8, for round 2. The salts are
// internal/kernel's avx512Salts (kernel.Salts in order); the per-lane ones
// are made in a register (VPBROADCASTQ of a GPR) in the batch kernels and
// read as a broadcast memory operand in the single-key ones.

// On Intel (for the session that measures there; issue #23 found these
// kernels' batch calls slower than AVX2's on a Xeon family 6 model 167,
// and the VPMULLQ it named is gone): while a 512-bit uop is in flight
// Intel fuses port 1's vector unit into port 0, so every vector op but
// the shuffles goes to p0 and the shuffles to p5. Per key of a batch
// probe (k <= 8) that is VPMULLD (2 uops, p0), VPSRLD, VPSLLVQ, KORTESTB
// and half a VMOVQ/VPEXTRQ on p0, about 5.5 uops, against VPMOVZXDQ,
// VPTESTMQ (opmask writes are p5) and about 0.9 of the offset
// extraction (3 VEXTRACTI32X4 and 4 VPEXTRQ a group of 8) on p5: p0
// bound near 5.5 cycles a key, where the AVX2 loop spreads over p0, p1
// and p5. Worth trying there: the offsets and the mask in YMM/EVEX-256
// (only the block test in ZMM), or the probe in two YMM halves (it lost
// 7% on Zen 4, see internal/kernel/blocked_amd64.go), and reading the
// offsets back from memory instead of VPEXTRQ (2 uops on Intel). The
// cuckoo AVX-512 locate kernel extracts 16 prefetch addresses per 8 keys
// the same way (about 30 uops, half on p5), and both cuckoo sets gather
// (VPGATHERQQ), which the Gather Data Sampling microcode slows down on
// Intel up to Ice Lake/Rocket Lake: check the microcode before trusting
// a cuckoo figure there. Measured since on an Intel Xeon family 6 model
// 207 (Emerald Rapids, internal/kernel/table.go): the batch probe at 0.82x
// AVX2's time with the filter in L2 (1e6 keys) and 1.07x at 1e7 (12 MiB,
// inside its L3), the batch insert 0.93-0.99x and 1.12-1.21x (so both
// calls take their set by filter size there).

import (
	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
	"github.com/sift-go/sift/asm/internal/kit"
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
	g.notRound1 = c.K()
	c.KNOTB(g.round1, g.notRound1)
	g.nblocksZ, g.m64 = offsetConsts(g.nblocks, true)
}

// offsetConsts returns the constants of offsetsVec: n and -64 in every
// qword of a ZMM (wide: VPBROADCASTQ from general registers) or of a YMM
// (AVX2: VMOVQ and VPBROADCASTQ, and all ones shifted left by 6).
func offsetConsts(n reg.GPVirtual, wide bool) (nZ, m64 reg.VecVirtual) {
	if wide {
		nZ = c.ZMM()
		c.VPBROADCASTQ(n, nZ)
		m := c.GP64()
		c.MOVQ(operand.I64(-64), m)
		m64 = c.ZMM()
		c.VPBROADCASTQ(m, m64)
		return nZ, m64
	}
	x := c.XMM()
	c.VMOVQ(n, x)
	nZ = c.YMM()
	c.VPBROADCASTQ(x, nZ)
	m64 = c.YMM()
	c.VPCMPEQQ(m64, m64, m64)
	c.VPSLLQ(operand.Imm(6), m64, m64)
	return nZ, m64
}

// groupOffsets computes the block offsets of the 8 keys hs[i+d..i+d+8):
// ((h>>32)*nblocks>>26) &^ 63 in qword lanes. VPMULUDQ multiplies the low
// 32 bits of each lane into a 64-bit product, exact for nblocks < 2^32
// (the callers' contract). It replaced VPMULLQ (a full 64-bit product,
// exact for nblocks = 2^32 too), which Intel runs as 3 uops with about 15
// cycles of latency against VPMULUDQ's one uop (issue #23); on Zen 5 the
// two measured level (internal/kernel/blocked_amd64.go). It returns a function that
// moves lane j to a general register: through registers, not a store and
// reloads, which measured 2x slower (a 64-byte store does not forward to
// the 8-byte loads that follow it).
func (g *kern) groupOffsets(d int) (lane func(j int) reg.GPVirtual) {
	return offsets8(g.hash(d), g.nblocksZ, g.m64)
}

// offsets8 computes ((h>>32)*n>>26)&^63 for the 8 hashes at src, n in
// every qword of nZ and -64 in every qword of m64 (VPMULUDQ: exact for
// n < 2^32), and returns a function that moves lane j to a general
// register: groupOffsets here and the windowed batch kernels' (window.go).
func offsets8(src operand.Mem, nZ, m64 reg.VecVirtual) func(j int) reg.GPVirtual {
	return kit.QwordLanes(c, offsetsVec(src, nZ, m64))
}

// offsetsVec is offsets8's vector of the 8 offsets, or with YMM
// constants (offsetConsts, AVX2: the AVX2 batch loops' offset ring) of
// the 4 hashes at src.
func offsetsVec(src operand.Mem, nZ, m64 reg.VecVirtual) reg.VecVirtual {
	wide := nZ.Size() == 64
	var z reg.VecVirtual
	if wide {
		z = c.ZMM()
		c.VMOVDQU64(src, z)
	} else {
		z = c.YMM()
		c.VMOVDQU(src, z)
	}
	c.VPSRLQ(operand.U8(32), z, z)
	c.VPMULUDQ(nZ, z, z)
	c.VPSRLQ(operand.U8(26), z, z)
	if wide {
		c.VPANDQ(m64, z, z)
	} else {
		c.VPAND(m64, z, z)
	}
	return z
}

// groupLoop emits a loop over groups of 8 keys: while i+margin <= n (else
// straight to exit), body, then i += 8.
func (g *kern) groupLoop(label, exit string, margin int, body func()) {
	g.groupLoopBy(8, label, exit, margin, body)
}

// groupLoopBy is groupLoop for groups of step keys.
func (g *kern) groupLoopBy(step int, label, exit string, margin int, body func()) {
	kit.GroupLoop(c, g.i, g.n, step, label, exit, margin, body)
}

// wideLoops emits the AVX-512 loops of one round count. Keys go in groups
// of 8 whose block offsets are computed at once, and each group prefetches
// the blocks of the group dist keys on. With the offset ring (g.ring: the
// batch probes and inserts) the offsets computed for the prefetch are kept
// and read back by their group (see kit.Ring). The last keys of a call that
// fill no group run one at a time. An insert told not to prefetch runs
// groups that compute their own offsets.
func (g *kern) wideLoops(p string, two bool, dist int) {
	// prefetching is one step of a loop that prefetches the group dist
	// keys on, its offsets from offs, then runs group.
	prefetching := func(dist int, offs func(d int) func(j int) reg.GPVirtual, group func()) func() {
		return func() {
			ahead := offs(dist)
			for j := 0; j < 8; j++ {
				c.PREFETCHT0(operand.Mem{Base: g.blocks, Index: ahead(j), Scale: 1})
			}
			group()
		}
	}
	computing := func() { g.group(two) }
	if g.ring == nil {
		// The add-if-new kernel's loops for k > 8 (no ring; modeRing
		// and modePrefetch run the same loops).
		if g.farDist > dist {
			kit.JumpIfMode(c, kit.ModePrefetchFar, p+"_far")
		}
		c.Commentf("Groups of 8 while i+%d+8 <= n, prefetching the group at i+%d.", dist, dist)
		g.groupLoop(p+"_prefetching", p+"_groups", dist+8, prefetching(dist, g.groupOffsets, computing))
		c.Comment("Groups of 8 while i+8 <= n, already prefetched.")
		c.Label(p + "_groups")
		g.groupLoop(p+"_group_loop", p+"_tail", 8, computing)
		if g.farDist > dist {
			c.JMP(operand.LabelRef(p + "_tail"))
			c.Label(p + "_far")
			g.farPrologue(p, dist)
			c.Commentf("Further ahead: groups of 8 while i+%d+8 <= n, prefetching the group at i+%d.", g.farDist, g.farDist)
			g.groupLoop(p+"_far_loop", p+"_groups", g.farDist+8, prefetching(g.farDist, g.groupOffsets, computing))
			c.JMP(operand.LabelRef(p + "_groups"))
		}
	} else {
		if g.optionalPrefetch() {
			kit.JumpIfMode(c, kit.ModeNoPrefetch, p+"_nopf")
		}
		g.ringLoops(p, dist, func(j int, a reg.GPVirtual) { g.wideKey(j, a, two) }, func() {
			c.Commentf("Without the ring, further ahead: groups of 8 while i+%d+8 <= n, prefetching the group at i+%d, then the rest as below.", g.farDist, g.farDist)
			g.groupLoop(p+"_far_loop", p+"_nopf", g.farDist+8, prefetching(g.farDist, g.groupOffsets, computing))
			c.JMP(operand.LabelRef(p + "_nopf"))
		})
		c.Commentf("Without the ring: groups of 8 while i+%d+8 <= n, prefetching the group at i+%d, then the rest as below.", dist, dist)
		c.Label(p + "_plain")
		g.groupLoop(p+"_plain_loop", p+"_nopf", dist+8, prefetching(dist, g.groupOffsets, computing))
		c.Comment("Offsets computed by each group, no prefetches: groups of 8 while i+8 <= n.")
		c.Label(p + "_nopf")
		g.groupLoop(p+"_nopf_loop", p+"_tail", 8, computing)
	}

	c.Comment("The last keys, one at a time.")
	g.oneByOne(p, func() { g.wideKey(0, g.blockOffset(0), two) })
}

// group inserts or probes the 8 keys hs[i..i+8).
func (g *kern) group(two bool) {
	off := g.groupOffsets(0)
	for j := 0; j < 8; j++ {
		g.wideKey(j, off(j), two)
	}
}

// wideCounts returns the qword bit numbers of the key whose hash is at h:
// round 1 in c1 and, when two, round 2 in c2. salts is the salts register
// (at least its low 8 dwords are used).
func wideCounts(h operand.Op, salts reg.VecVirtual, two bool) (c1, c2 reg.VecVirtual) {
	if !two {
		return oneRoundCounts(h, salts.AsY()), nil
	}
	c1 = c.ZMM()
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

// wideKey inserts or probes hs[i+d], whose block is at byte offset a,
// with the AVX-512 sequence.
func (g *kern) wideKey(d int, a reg.GPVirtual, two bool) {
	if g.addNew {
		g.wideAddNewKey(d, a, two)
		return
	}
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
	// present: the lanes whose probe bit is set. With notRound1 (the lanes
	// that are no probe) KORTESTB sets CF when every probe is present,
	// which SETCS stores and ADCQ counts.
	present := c.K()
	if !two {
		m := c.ZMM()
		c.VPSLLVQ(c1, g.onesZ, m)
		c.VPTESTMQ(blk, m, present)
	} else {
		w := c.ZMM()
		c.VMOVDQU64(blk, w)
		r1, r2 := c.ZMM(), c.ZMM()
		c.VPSRLVQ(c1, w, r1)
		c.VPSRLVQ(c2, w, r2)
		c.VPANDQ(r2, r1, g.round2, r1) // merge masking: round-2 lanes only
		c.VPTESTMQ(g.onesZ, r1, present)
	}
	c.KORTESTB(g.notRound1, present)
	c.SETCS(operand.Mem{Base: g.out, Index: g.i, Scale: 1, Disp: d})
	c.ADCQ(operand.Imm(0), g.count)
}

// oneMem is a broadcast source of the qword 1 for the single-key kernels.
var oneMem operand.Mem

// genSingleWide writes blockedContains1AVX512 or blockedAdd1AVX512, which
// the AVX2 entry points jump to when their operation's set is avx512 (see
// genSingle).
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
	blk, kMem, counts := wideSingleHead(name, goPath)
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

	c1, c2, round1, round2 := wideSingleGeneral(name, kMem, goPath)
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

// wideSingleHead writes the head of the single-key AVX-512 kernel name
// (goPath its Go twin's label): the table header, the key's block address
// and, for t.K = 8 (else a jump to name_general), its eight bit numbers.
// It returns the block's operand, t.K's and the bit numbers in the qword
// lanes of a ZMM.
func wideSingleHead(name string, goPath operand.LabelRef) (blk, kMem operand.Mem, counts reg.VecVirtual) {
	hdr, nblocks := kit.TableHeader(c, goPath)
	c.Comment("Block address: base + ((h>>32)*nblocks>>32)*64.")
	addr := c.GP64()
	kit.BlockOffset(c, paramMem("h"), nblocks, addr, 64)
	c.ADDQ(operand.Mem{Base: hdr}, addr)
	blk = operand.Mem{Base: addr}
	kMem = operand.Mem{Base: hdr, Disp: 24} // t.K
	c.CMPQ(kMem, operand.Imm(8))
	c.JNE(operand.LabelRef(name + "_general"))

	c.Comment("k = 8: every lane is a probe.")
	return blk, kMem, k8Counts(paramMem("h"))
}

// k8Counts computes the eight round-1 bit numbers of the hash h,
// (uint32(h)*salt[i])>>26 in the qword lane i of a ZMM, with one 256-bit
// multiply by the first eight salts from memory: every probe for k = 8,
// and for the window kernels any single-round k (the lanes past k are
// masked later).
func k8Counts(h operand.Op) reg.VecVirtual { return oneRoundCounts(h, saltsMem(0)) }

// oneRoundCounts is the one-round bit numbers of the hash h in the qword
// lanes of a ZMM, with the first eight salts in salts (a YMM register or
// memory): wideCounts' one round and k8Counts.
func oneRoundCounts(h, salts operand.Op) reg.VecVirtual {
	counts := c.ZMM()
	p := c.YMM()
	c.VPBROADCASTD(h, p)
	c.VPMULLD(salts, p, p)
	c.VPSRLD(operand.U8(26), p, p)
	c.VPMOVZXDQ(p, counts)
	return counts
}

// wideSingleGeneral writes the head of name_general in a single-key
// AVX-512 kernel: t.K (at kMem) loaded, the jump to goPath unless it is in
// 1..16, and the bit numbers of both rounds with their probe opmasks.
func wideSingleGeneral(name string, kMem operand.Mem, goPath operand.LabelRef) (c1, c2 reg.VecVirtual, round1, round2 reg.OpmaskVirtual) {
	c.Label(name + "_general")
	c.Comment("Any other k: the Go twin if k is not in 1..16, else both rounds under the probe opmasks.")
	k, _ := kInRange(kMem, goPath)
	round1, round2 = probeMasks(k)
	salts := c.ZMM()
	c.VMOVDQU32(saltsMem(0), salts)
	c1, c2 = wideCounts(paramMem("h"), salts, true)
	return c1, c2, round1, round2
}
