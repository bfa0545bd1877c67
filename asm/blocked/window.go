package main

// The windowed probe kernels: a key's blocks in g interleaved generations
// (internal/kernel/window.go: block i of generation j at blocks[i*g+j]) are
// probed with one block-index computation and one mask, for the
// generations whose bits are set in live.
//
// Per key: base = blocks + ((h>>32)*nb>>32)*g*64 (two scalar IMULQs, exact
// for any nb <= 2^32 and g <= 64), the mask as in the blocked kernels (the
// AVX2 set's two YMM halves from avx2Tables[k], the AVX-512 set's one ZMM
// zero-masked to the probe lanes), then a loop over the set bits of live:
// BSFQ picks generation j and the block at base+64*j is tested; every live
// generation is tested, with no branch on the blocks' contents (see test). The test is, AVX-512: VPANDQ of the block (a memory operand)
// with the mask, VPCMPEQQ with the mask into an opmask, KORTESTB (CF: all 8
// lanes equal, every probe bit present); AVX2: two loads, two VPANDNs
// (mask &^ block), a VPOR and a VPTEST (ZF: nothing missing). BSFQ and the
// LEAQ/ANDQ that clears the lowest bit need no BMI.
//
// The batch kernels prefetch, winDist keys ahead, the line of every live
// generation of the key (a second bit loop, PREFETCHT0 each): a key's lines
// are adjacent, so they share a DRAM row, and far fewer keys than the
// blocked kernels' 48 keep as many lines in flight. k > 8 takes a second
// copy of the loops (two mask rounds), chosen once per call.

import (
	"go/token"
	"go/types"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/gotypes"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// winDist is the windowed batch kernels' prefetch distance in keys.
const winDist = 16

// win holds the registers of one windowed kernel.
type win struct {
	name  string
	wide  bool
	batch bool

	blocks, nb, stride, live reg.GPVirtual
	hs, out, count, i        reg.GPVirtual

	// AVX2 constants (from avx2Tables[k]).
	zero  reg.VecVirtual
	salts [2]reg.VecVirtual
	ones  [2][2]reg.VecVirtual
	// AVX-512 constants.
	saltsZ, onesZ  reg.VecVirtual
	round1, round2 reg.OpmaskVirtual

	labels int
	// tabReg holds avx2Tables[k] where the AVX2 kernel computes it (the
	// table entry), else nil: the tab argument.
	tabReg reg.GPVirtual
	// fixed is G while emitting the straight-line copy for live = all of
	// G generations, else 0.
	fixed int
}

func (w *win) label(s string) string {
	w.labels++
	return w.name + "_" + s + "_" + itoa(w.labels)
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// genWindow writes the four windowed probe kernels.
func genWindow() {
	for _, wide := range []bool{false, true} {
		genWindowKernel(wide, false)
		genWindowKernel(wide, true)
	}
	genWindowTable()
}

func genWindowKernel(wide, batch bool) {
	w := &win{wide: wide, batch: batch}
	set, tab := "AVX2", ", tab *uint32"
	if wide {
		set, tab = "AVX512", ""
	}
	if batch {
		w.name = "blockedContainsGens" + set
		c.Function(w.name)
		c.SignatureExpr("func(blocks *uint64, nb uint64, ngen int, live uint64, k int" + tab + ", hs *uint64, n int, out *bool) int")
		c.Doc(w.name + " probes hs[:n] in the generations of live (nonzero, bits < ngen) of the ngen interleaved generations of nb blocks at blocks, k probes per key (1 <= k <= 16), writes out[:n] and returns the number of trues" + docTab(wide) + ".")
	} else {
		w.name = "blockedContainsGens1" + set
		c.Function(w.name)
		c.SignatureExpr("func(blocks *uint64, nb uint64, ngen int, live uint64, k int" + tab + ", h uint64) bool")
		c.Doc(w.name + " reports whether h is present in a generation of live (nonzero, bits < ngen) of the ngen interleaved generations of nb blocks at blocks, k probes per key (1 <= k <= 16)" + docTab(wide) + ".")
	}
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")

	w.blocks, w.nb, w.stride, w.live = c.GP64(), c.GP64(), c.GP64(), c.GP64()
	c.Load(c.Param("blocks"), w.blocks)
	c.Load(c.Param("nb"), w.nb)
	c.Load(c.Param("ngen"), w.stride)
	c.SHLQ(operand.Imm(6), w.stride) // g*64
	c.Load(c.Param("live"), w.live)
	k := c.GP64()
	c.Load(c.Param("k"), k)
	w.consts(k)

	if !batch {
		c.Comment("k > 8 builds a second round of the mask.")
		two := w.label("two")
		c.CMPQ(k, operand.Imm(8))
		c.JGT(operand.LabelRef(two))
		w.fixedCopies(true, func() { w.single(false) })
		c.Label(two)
		w.fixedCopies(true, func() { w.single(true) })
		return
	}

	w.hs, w.out, w.count, w.i = c.GP64(), c.GP64(), c.GP64(), c.GP64()
	c.Load(c.Param("hs"), w.hs)
	c.Load(c.Param("out"), w.out)
	c.XORQ(w.count, w.count)

	c.Comment("k > 8 takes the two-round loops; the choice is made once per call.")
	two, done := w.label("k16"), w.label("done")
	c.CMPQ(k, operand.Imm(8))
	c.JGT(operand.LabelRef(two))
	w.loops(false)
	c.JMP(operand.LabelRef(done))
	c.Label(two)
	w.loops(true)
	c.Label(done)
	c.Store(w.count, c.ReturnIndex(0))
	c.VZEROUPPER()
	c.RET()
}

func docTab(wide bool) string {
	if wide {
		return ""
	}
	return "; tab is avx2Tables[k]"
}

// consts loads the mask constants.
func (w *win) consts(k reg.GPVirtual) {
	if w.wide {
		w.saltsZ = c.ZMM()
		c.VMOVDQU32(saltsMem(0), w.saltsZ)
		one := c.GP64()
		c.MOVQ(operand.U64(1), one)
		w.onesZ = c.ZMM()
		c.VPBROADCASTQ(one, w.onesZ)
		w.round1, w.round2 = probeMasks(k)
		return
	}
	tab := w.tabReg
	if tab == nil {
		tab = c.GP64()
		c.Load(c.Param("tab"), tab)
	}
	w.zero = c.YMM()
	c.VPXOR(w.zero, w.zero, w.zero)
	for r := 0; r < 2; r++ {
		w.salts[r] = c.YMM()
		c.VMOVDQU(operand.Mem{Base: tab, Disp: []int{offSalts1, offSalts2}[r]}, w.salts[r])
		for h := 0; h < 2; h++ {
			w.ones[r][h] = c.YMM()
			c.VMOVDQU(operand.Mem{Base: tab, Disp: []int{offOnes1, offOnes2}[r] + 32*h}, w.ones[r][h])
		}
	}
}

// base returns the address of the first of the g blocks of the hash at
// h: blocks + ((h>>32)*nb>>32)*g*64.
func (w *win) base(h operand.Mem) reg.GPVirtual {
	a := c.GP64()
	c.MOVQ(h, a)
	c.SHRQ(operand.Imm(32), a)
	c.IMULQ(w.nb, a)
	c.SHRQ(operand.Imm(32), a)
	c.IMULQ(w.stride, a)
	c.ADDQ(w.blocks, a)
	return a
}

// hash is the memory operand of hs[i+d].
func (w *win) hash(d int) operand.Mem {
	return operand.Mem{Base: w.hs, Index: w.i, Scale: 8, Disp: 8 * d}
}

// gens emits body for each live generation of the key whose blocks start
// at base: at(d) is the operand d bytes into the generation's block. With
// w.fixed = 0 it is a loop over the set bits of live (BSFQ); with w.fixed
// = G (a copy of the loops for live = all of G generations) it is
// straight-line code at constant offsets, with no loop.
func (w *win) gens(base reg.GPVirtual, body func(at func(d int) operand.Mem)) {
	if w.fixed > 0 {
		for j := range w.fixed {
			body(func(d int) operand.Mem { return operand.Mem{Base: base, Disp: 64*j + d} })
		}
		return
	}
	m := c.GP64()
	c.MOVQ(w.live, m)
	loop := w.label("bits")
	c.Label(loop)
	j := c.GP64()
	c.BSFQ(m, j)
	c.SHLQ(operand.Imm(6), j)
	body(func(d int) operand.Mem { return operand.Mem{Base: base, Index: j, Scale: 1, Disp: d} })
	c.LEAQ(operand.Mem{Base: m, Disp: -1}, j) // j is free again
	c.ANDQ(j, m)
	c.JNE(operand.LabelRef(loop))
}

// prefetch issues PREFETCHT0 for the live lines of hs[i+d].
func (w *win) prefetch(d int) {
	a := w.base(w.hash(d))
	w.gens(a, func(at func(int) operand.Mem) { c.PREFETCHT0(at(0)) })
}

// mask is a key's probe bits: the AVX2 set's two halves, or one ZMM.
type mask struct{ lo, hi, z reg.VecVirtual }

// mask builds the probe bits of the hash at h.
func (w *win) mask(h operand.Mem, two bool) mask {
	if w.wide {
		c1, c2 := wideCounts(h, w.saltsZ, two)
		m := c.ZMM()
		c.VPSLLVQ_Z(c1, w.onesZ, w.round1, m)
		if two {
			m2 := c.ZMM()
			c.VPSLLVQ_Z(c2, w.onesZ, w.round2, m2)
			c.VPORQ(m2, m, m)
		}
		return mask{z: m}
	}
	rounds := 1
	if two {
		rounds = 2
	}
	var lo, hi reg.VecVirtual
	bc := c.YMM()
	c.VPBROADCASTD(h, bc)
	for r := 0; r < rounds; r++ {
		p := c.YMM()
		c.VPMULLD(w.salts[r], bc, p)
		c.VPSRLD(operand.Imm(26), p, p)
		l, hh := c.YMM(), c.YMM()
		c.VPBLENDD(operand.Imm(0xaa), w.zero, p, l)
		c.VPSRLQ(operand.Imm(32), p, hh)
		c.VPSLLVQ(l, w.ones[r][0], l)
		c.VPSLLVQ(hh, w.ones[r][1], hh)
		if r == 0 {
			lo, hi = l, hh
		} else {
			c.VPOR(l, lo, lo)
			c.VPOR(hh, hi, hi)
		}
	}
	return mask{lo: lo, hi: hi}
}

// test tests m against the generation's block (at(0)) and ORs the answer
// (1: every probe bit set) into the low byte of acc. No branch depends on
// the block (every live generation is tested, which an absent key, the
// common case, needs anyway); the form that left at the first hit measured
// no faster, within this VM's noise (BenchmarkWindowKernels).
func (w *win) test(m mask, at func(int) operand.Mem, acc reg.GPVirtual) {
	blk := at(0)
	if w.wide {
		t := c.ZMM()
		c.VPANDQ(blk, m.z, t)
		eq := c.K()
		c.VPCMPEQQ(m.z, t, eq)
		c.KORTESTB(eq, eq)
		c.ADCL(operand.U8(0), acc.As32()) // CF: all 8 lanes equal
		return
	}
	w0, w1 := c.YMM(), c.YMM()
	c.VMOVDQU(blk, w0)
	c.VMOVDQU(at(32), w1)
	c.VPANDN(m.lo, w0, w0) // mask &^ block
	c.VPANDN(m.hi, w1, w1)
	c.VPOR(w1, w0, w0)
	t := c.GP32()
	c.XORL(t, t)
	c.VPTEST(w0, w0)
	c.SETEQ(t.As8()) // ZF: nothing missing
	c.ORL(t, acc.As32())
}

// probe runs test over the live generations and returns the number of
// generations that hold the key (the answer is whether it is nonzero).
func (w *win) probe(h operand.Mem, two bool) reg.GPVirtual {
	base := w.base(h)
	m := w.mask(h, two)
	acc := c.GP64()
	c.XORL(acc.As32(), acc.As32())
	w.gens(base, func(at func(int) operand.Mem) { w.test(m, at, acc) })
	return acc
}

// single emits the single-key body for one or two rounds and returns.
func (w *win) single(two bool) {
	acc := w.probe(paramMem("h"), two)
	c.TESTL(acc.As32(), acc.As32())
	c.SETNE(paramMem("ret"))
	c.VZEROUPPER()
	c.RET()
}

// key probes hs[i] and stores its answer.
func (w *win) key(two bool) {
	acc := w.probe(w.hash(0), two)
	t := c.GP32()
	c.TESTL(acc.As32(), acc.As32())
	c.SETNE(t.As8())
	c.MOVB(t.As8(), operand.Mem{Base: w.out, Index: w.i, Scale: 1})
	c.MOVBLZX(t.As8(), t)
	c.ADDQ(t.As64(), w.count)
}

// loops emits the batch loops of one round count, in three copies: for
// live = all of 2 and of 4 generations (the common cases: a Window's
// generations are all live but after a slice boundary no add has crossed
// yet; 4 is the default G), straight-line, and for any live mask, a loop
// over its bits.
//
// Against the loop alone (BenchmarkWindowKernels, AMD EPYC Zen 5 VM, batch,
// every generation live, thread-CPU ns/key, two interleaved runs):
// 2.3 MB G=4 5.6-5.9 -> 3.2-3.9, G=2 3.8-4.0 -> 2.7-3.0; 23 MB G=4
// 14-18 -> 6.0-8.7, G=2 9-11 -> 5.5-6.3 (the blocked batch kernel on a
// table of the same size: 1.4-1.7 and 2.4-3.9).
func (w *win) loops(two bool) {
	w.fixedCopies(false, func() { w.loopsAt(two) })
}

// fixedCopies emits emit three times: for live = all of 2 generations,
// all of 4 (w.fixed set: straight-line), and any live mask. ret: emit
// ends in a return (else each copy continues after the last).
func (w *win) fixedCopies(ret bool, emit func()) {
	generic, end := w.label("any_live"), w.label("copies_end")
	for _, g := range []int{2, 4} {
		next := w.label("not_g")
		c.CMPQ(w.stride, operand.U32(64*g))
		c.JNE(operand.LabelRef(next))
		c.CMPQ(w.live, operand.U32(1<<g-1))
		c.JNE(operand.LabelRef(generic))
		w.fixed = g
		emit()
		w.fixed = 0
		if !ret {
			c.JMP(operand.LabelRef(end))
		}
		c.Label(next)
	}
	c.Label(generic)
	emit()
	if !ret {
		c.Label(end)
	}
}

// loopsAt emits the batch loops of one round count: a prologue that
// prefetches the first keys, one key a step with the prefetch of key
// i+winDist while there is one, then the rest. n is read from the
// arguments where it is needed, to spare a register.
func (w *win) loopsAt(two bool) {
	lim := c.GP64()
	pro, proDone := w.label("prologue"), w.label("prologue_done")
	c.Commentf("Prologue: prefetch the live lines of the first min(n, %d) keys.", winDist)
	c.Load(c.Param("n"), lim)
	c.CMPQ(lim, operand.U32(winDist))
	c.JLE(operand.LabelRef(pro))
	c.MOVQ(operand.U32(winDist), lim)
	c.Label(pro)
	c.XORQ(w.i, w.i)
	c.TESTQ(lim, lim)
	c.JEQ(operand.LabelRef(proDone))
	pl := w.label("prologue_loop")
	c.Label(pl)
	w.prefetch(0)
	c.INCQ(w.i)
	c.CMPQ(w.i, lim)
	c.JLT(operand.LabelRef(pl))
	c.Label(proDone)
	c.XORQ(w.i, w.i)

	one, tail, tailLoop, end := w.label("one"), w.label("tail"), w.label("tail_loop"), w.label("end")
	c.Commentf("One key a step while i+%d < n, prefetching key i+%d.", winDist, winDist)
	c.Load(c.Param("n"), lim)
	c.SUBQ(operand.Imm(winDist), lim)
	c.CMPQ(w.i, lim)
	c.JGE(operand.LabelRef(tail))
	c.Label(one)
	w.prefetch(winDist)
	w.key(two)
	c.INCQ(w.i)
	c.CMPQ(w.i, lim)
	c.JLT(operand.LabelRef(one))
	c.Comment("The last keys, already prefetched.")
	c.Label(tail)
	c.Load(c.Param("n"), lim)
	c.CMPQ(w.i, lim)
	c.JGE(operand.LabelRef(end))
	c.Label(tailLoop)
	w.key(two)
	c.INCQ(w.i)
	c.CMPQ(w.i, lim)
	c.JLT(operand.LabelRef(tailLoop))
	c.Label(end)
}

// genWindowTable writes windowContains1AVX2 and windowContains1AVX512, the
// single-key entry that internal/kernel's BlockedContainsGensT (an inlined
// wrapper, so a lookup is one call, as blocked's BlockedContains1) calls
// with a *WindowTable: the blocks, the blocks per generation, G and k read
// through one pointer instead of six arguments. windowContains1AVX2 checks
// the operation's kernel set (windowContains1Set: avx512, 2, tail-jumps to
// windowContains1AVX512; generic, 0, to the Go twin); both check the table
// (blocks, G in 1..64, len(Blocks) = NB*G, k in 1..16; else the Go twin,
// which panics as the contract says) before touching a vector register,
// mask live to G bits (BZHIQ) and answer false for no live generation.
func genWindowTable() {
	for _, wide := range []bool{false, true} {
		name := "windowContains1AVX2"
		doc := name + " reports whether h is present in a generation of live of the table t (see internal/kernel's WindowTable); it jumps to windowContains1AVX512 if windowContains1Set is avx512, and to windowContains1Go if it is generic or t is not a valid table."
		if wide {
			name = "windowContains1AVX512"
			doc = name + " is windowContains1AVX2's AVX-512 path, which it jumps to with its arguments in place; it jumps to windowContains1Go if t is not a valid table."
		}
		c.Function(name)
		c.Attributes(attr.NOSPLIT)
		c.Signature(windowTableSignature())
		c.Doc(doc)
		c.Pragma("noescape")
		goPath := operand.LabelRef(name + "_go")
		if !wide {
			set := operand.Mem{Symbol: operand.Symbol{Name: "·windowContains1Set"}, Base: reg.StaticBase}
			c.Comment("The AVX-512 path when this operation's kernel set is setAVX512, 2 (same arguments, a tail jump).")
			c.CMPB(set, operand.Imm(setAVX512))
			c.JNE(operand.LabelRef(name + "_avx2"))
			tailJump("·windowContains1AVX512")
			c.Label(name + "_avx2")
			c.CMPB(set, operand.Imm(setGeneric))
			c.JEQ(goPath)
		}
		c.Comment("The table: the Go twin unless it is valid (checked before any vector register is touched).")
		t := c.GP64()
		c.Load(c.Param("t"), t)
		n, g, nb, k, x := c.GP64(), c.GP64(), c.GP64(), c.GP64(), c.GP64()
		c.MOVQ(operand.Mem{Base: t, Disp: 8}, n) // len(t.Blocks)
		c.TESTQ(n, n)
		c.JEQ(goPath)
		c.MOVQ(operand.Mem{Base: t, Disp: 32}, g) // t.G
		c.LEAQ(operand.Mem{Base: g, Disp: -1}, x)
		c.CMPQ(x, operand.Imm(63))
		c.JHI(goPath)
		c.MOVQ(operand.Mem{Base: t, Disp: 24}, nb) // t.NB
		c.MOVQ(nb, x)
		c.IMULQ(g, x)
		c.CMPQ(x, n)
		c.JNE(goPath)
		c.MOVQ(operand.Mem{Base: t, Disp: 40}, k) // t.K
		c.LEAQ(operand.Mem{Base: k, Disp: -1}, x)
		c.CMPQ(x, operand.Imm(maxK-1))
		c.JHI(goPath)
		live := c.GP64()
		c.Load(c.Param("live"), live)
		c.BZHIQ(g, live, live) // the bits below G (all for G = 64)
		c.JNE(operand.LabelRef(name + "_live"))
		c.MOVB(operand.U8(0), paramMem("ret"))
		c.VZEROUPPER() // no vector register was touched; asmcheck_test wants it before every RET
		c.RET()
		c.Label(name + "_live")
		blocks := c.GP64()
		c.MOVQ(operand.Mem{Base: t}, blocks)
		c.SHLQ(operand.Imm(6), g) // the stride, 64*G
		w := &win{name: name, wide: wide, blocks: blocks, nb: nb, stride: g, live: live}
		if !wide {
			w.tabReg = c.GP64()
			c.LEAQ(operand.Mem{Symbol: operand.Symbol{Name: "·avx2Tables"}, Base: reg.StaticBase}, w.tabReg)
			c.LEAQ(operand.Mem{Base: k, Index: k, Scale: 2}, x)
			c.SHLQ(operand.Imm(6), x) // k*192
			c.ADDQ(x, w.tabReg)
		}
		w.consts(k)
		two := w.label("two")
		c.CMPQ(k, operand.Imm(8))
		c.JGT(operand.LabelRef(two))
		w.fixedCopies(true, func() { w.single(false) })
		c.Label(two)
		w.fixedCopies(true, func() { w.single(true) })
		c.Label(name + "_go")
		tailJump("·windowContains1Go")
	}
}

// windowTableSignature is func(t *WindowTable, live, h uint64) bool with
// WindowTable internal/kernel's struct{Blocks []Block; NB uint64; G, K int}.
func windowTableSignature() *gotypes.Signature {
	pkg := types.NewPackage("github.com/sift-go/sift/internal/kernel", "kernel")
	block := types.NewNamed(types.NewTypeName(token.NoPos, pkg, "Block", nil), types.NewArray(types.Typ[types.Uint64], 8), nil)
	table := types.NewNamed(types.NewTypeName(token.NoPos, pkg, "WindowTable", nil), types.NewStruct([]*types.Var{
		types.NewField(token.NoPos, pkg, "Blocks", types.NewSlice(block), false),
		types.NewField(token.NoPos, pkg, "NB", types.Typ[types.Uint64], false),
		types.NewField(token.NoPos, pkg, "G", types.Typ[types.Int], false),
		types.NewField(token.NoPos, pkg, "K", types.Typ[types.Int], false),
	}, nil), nil)
	params := types.NewTuple(
		types.NewParam(token.NoPos, pkg, "t", types.NewPointer(table)),
		types.NewParam(token.NoPos, pkg, "live", types.Typ[types.Uint64]),
		types.NewParam(token.NoPos, pkg, "h", types.Typ[types.Uint64]),
	)
	results := types.NewTuple(types.NewParam(token.NoPos, pkg, "", types.Typ[types.Bool]))
	return gotypes.NewSignature(pkg, types.NewSignatureType(nil, nil, nil, params, results, false))
}
