package main

// The windowed filter's single-key adds (internal/kernel's BlockedAddGenT
// and BlockedAddNewGensT, for Window.AddHash, AddNewHash and
// AddNewHashes): windowAdd1AVX2/AVX512 set a key's lane in generation cur,
// windowAddNew1AVX2/AVX512 test the key's live generations first, as the
// lookup does, and report whether it was absent from all of them. Both
// take the trusted *WindowTable (NewWindowTable checked its layout) and
// check, as the lookup entry does, only their operation's kernel set
// (windowAdd1Set, windowAddNew1Set), an empty (closed) table, cur < G (unsigned: a negative cur too), k in
// 1..16 off the k = 8 path and, for the add-if-new, a live mask with no
// bit below G; otherwise they jump to the Go twins (windowAdd1Go,
// windowAddNew1Go), arguments in place.
//
// Generation cur's lane is cur lanes into the key's group (lane j of line
// j/L is byte 64*(j/L) + (j%L)*64/L = j*laneBytes of the group), so its
// address is the lookup's group address plus cur*32 (G = 2) or cur*16,
// computed once a call. The mask is the lookup's (the blocked kernels'
// mask, one or two rounds, k = 8 with no probe opmask), folded onto one
// lane: the add ORs the mask's 256-bit halves (VEXTRACTI64X4 and VPORQ;
// AVX2: VPOR of its two YMM halves) and, for 128-bit lanes, the two
// 128-bit halves of that (VEXTRACTI32X4 or VEXTRACTI128, and an OR), then
// ORs the lane into memory with one 16- or 32-byte load and store. The
// add-if-new folds the mask as the lookup does (repeated in every lane),
// runs the lookup's line test (CF: present), stores the answer (SETCC:
// new) and ORs the mask's low lane into generation cur's lane. The test
// reads the line before the store, so cur's own lane counts as before the
// add, as in BlockedAddNewGens1.
//
// Measured on the AMD EPYC (Zen 5) VM (2 vCPUs shared with other jobs),
// BenchmarkWindowAdd (./blocked, -benchtime 5000000x, a Window advancing
// by count, rotations included), thread-CPU ns/key, medians of 6
// alternating rounds against a binary of the Go adds (BlockedAddGen1,
// BlockedAddNewGens1) before them; the Filter's AddHash/AddNewHash of the
// same size in the same runs:
//
//	                     Go adds   these   Filter
//	AddHash    n=1e6 G=2   19.1    10.3     7.6
//	           n=1e6 G=4   15.8     9.5     7.5
//	           n=1e7 G=2   83.5    59.7    35.2
//	           n=1e7 G=4   83.6    56.1    34.3
//	AddNewHash n=1e6 G=2   36.0    12.8     8.3
//	           n=1e6 G=4   29.9    12.7     7.7
//	           n=1e7 G=2    164    61.1    41.6
//	           n=1e7 G=4    105    62.5    39.1
//
// Instructions an add (valgrind --tool=lackey, 200k adds of n = 1e6,
// G = 4, k = 8, a loop's own 18 taken off): AddHash 145 in Go, 105 with
// this kernel (92 with package blocked's tick inlining the slice check),
// AddNewHash 474 and 138 (127), against the Filter's AddHash 50 and
// AddNewHash 64. Out of cache the time follows the instruction count
// (more cache-missing adds in flight in the same reorder window), as
// guessed when the adds were Go; no hardware counter was available on
// the VM to confirm it.

import (
	"go/token"
	"go/types"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/gotypes"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// genWindowAdd writes windowAdd1AVX2 and windowAdd1AVX512, or with addNew
// windowAddNew1AVX2 and windowAddNew1AVX512.
func genWindowAdd(addNew bool) {
	base, fallback := "windowAdd1", "·windowAdd1Go"
	if addNew {
		base, fallback = "windowAddNew1", "·windowAddNew1Go"
	}
	for _, wide := range []bool{false, true} {
		name := base + "AVX2"
		doc := name + " sets the key with hash h in generation cur of the table t (see internal/kernel's WindowTable); it jumps to " + base + "AVX512 if " + base + "Set is avx512, and to " + fallback[len("·"):] + " if it is generic, t is empty, cur is not below G or k is not in 1..16."
		if addNew {
			doc = name + " reports whether the key with hash h is absent from every generation of live of the table t (see internal/kernel's WindowTable) and sets it in generation cur; it jumps to " + base + "AVX512 if " + base + "Set is avx512, and to " + fallback[len("·"):] + " if it is generic, t is empty, cur is not below G, k is not in 1..16 or live has no bit below G."
		}
		if wide {
			name = base + "AVX512"
			doc = name + " is " + base + "AVX2's AVX-512 path, which it jumps to with its arguments in place; it jumps to " + fallback[len("·"):] + " on the same conditions."
		}
		c.Function(name)
		c.Attributes(attr.NOSPLIT)
		c.Signature(windowAddSignature(addNew))
		c.Doc(doc)
		c.Pragma("noescape")
		goPath := operand.LabelRef(name + "_go")
		if !wide {
			setDispatch(name, "·"+base+"Set", goPath, "")
		}
		c.Comment("The table (trusted: NewWindowTable checked its layout): the Go twin if it is empty (closed) or cur is not below G, before any vector register is touched.")
		t := c.GP64()
		c.Load(c.Param("t"), t)
		g, nb, k, cur := c.GP64(), c.GP64(), c.GP64(), c.GP64()
		c.MOVQ(operand.Mem{Base: t, Disp: 24}, nb) // t.nb: 0 once closed, else 1..2^32
		c.TESTQ(nb, nb)
		c.JEQ(goPath)
		c.MOVQ(operand.Mem{Base: t, Disp: 32}, g) // t.g: a power of two in 2..64
		c.Load(c.Param("cur"), cur)
		c.CMPQ(cur, g)
		c.JCC(goPath)                             // unsigned cur >= G
		c.MOVQ(operand.Mem{Base: t, Disp: 40}, k) // t.k: checked in 1..16 where it is not 8 (copies)
		var live reg.GPVirtual
		if addNew {
			live = c.GP64()
			c.Load(c.Param("live"), live)
			c.BZHIQ(g, live, live) // the bits below G (all for G = 64)
			c.JEQ(goPath)          // no live generation: the Go twin (Window passes them all)
		}
		blocks := c.GP64()
		c.MOVQ(operand.Mem{Base: t}, blocks)
		w := &win{name: name, wide: wide, blocks: blocks, nb: nb, ngen: g, live: live, k: k, tabEntry: true, goPath: name + "_go", cur: cur, addOnly: !addNew}
		if addNew {
			w.copies(k, w.addNewBody)
		} else {
			w.copies(k, w.addBody)
		}
		c.Label(name + "_go")
		tailJump(fallback)
	}
}

// addBody emits the add of one copy: the key's lane of generation cur ORed
// with its lane mask.
func (w *win) addBody(two bool) {
	h := paramMem("h")
	a := w.lineAddr(h)
	x := w.laneOf(w.mask(h, two))
	w.orInto(operand.Mem{Base: a, Index: w.curOff, Scale: 1}, x)
	c.VZEROUPPER()
	c.RET()
}

// laneOf folds the unfolded mask m onto one lane: an XMM for 128-bit
// lanes, a YMM at G = 2.
func (w *win) laneOf(m mask) reg.VecVirtual {
	var y reg.VecVirtual
	if w.wide {
		y = c.YMM()
		c.VEXTRACTI64X4(operand.U8(1), m.z, y)
		c.VPORQ(y, m.z.AsY(), y)
	} else {
		y = m.lo
		c.VPOR(m.hi, y, y)
	}
	if w.lanes == 2 {
		return y
	}
	x := c.XMM()
	if w.wide {
		c.VEXTRACTI32X4(operand.U8(1), y, x)
		c.VPORQ(x, y.AsX(), x)
	} else {
		c.VEXTRACTI128(operand.U8(1), y, x)
		c.VPOR(x, y.AsX(), x)
	}
	return x
}

// orInto ORs the lane mask x (an XMM or YMM) into lane and stores it.
func (w *win) orInto(lane operand.Mem, x reg.Register) {
	if w.wide {
		c.VPORQ(lane, x, x)
		c.VMOVDQU64(x, lane)
		return
	}
	c.VPOR(lane, x, x)
	c.VMOVDQU(x, lane)
}

// addNewBody emits the add-if-new of one copy: the lookup's test of the
// live generations (w.test, CF: present), the answer stored, then the add
// of the folded mask's first lane into generation cur's lane.
func (w *win) addNewBody(two bool) {
	h := paramMem("h")
	a := w.lineAddr(h)
	m := w.fold(w.mask(h, two))
	line := operand.Mem{Base: a}
	if w.lanes == 0 {
		// The test advances its line register over the group.
		p := c.GP64()
		c.MOVQ(a, p)
		line.Base = p
	}
	w.test(m, &line)
	c.SETCC(paramMem("ret")) // new: no live generation holds it
	var x reg.Register
	switch {
	case w.wide && w.lanes == 2:
		x = m.z.AsY()
	case w.wide:
		x = m.z.AsX()
	case w.lanes == 2:
		x = m.lo
	default:
		x = m.lo.AsX()
	}
	w.orInto(operand.Mem{Base: a, Index: w.curOff, Scale: 1}, x)
	c.VZEROUPPER()
	c.RET()
}

// windowAddSignature is func(t *WindowTable, cur int, h uint64), or with
// addNew func(t *WindowTable, live uint64, cur int, h uint64) bool, with
// WindowTable as in windowTablePtr.
func windowAddSignature(addNew bool) *gotypes.Signature {
	pkg := kernelPkg
	table := windowTablePtr()
	var params []*types.Var
	params = append(params, types.NewParam(token.NoPos, pkg, "t", table))
	if addNew {
		params = append(params, types.NewParam(token.NoPos, pkg, "live", types.Typ[types.Uint64]))
	}
	params = append(params,
		types.NewParam(token.NoPos, pkg, "cur", types.Typ[types.Int]),
		types.NewParam(token.NoPos, pkg, "h", types.Typ[types.Uint64]))
	var results *types.Tuple
	if addNew {
		results = types.NewTuple(types.NewParam(token.NoPos, pkg, "", types.Typ[types.Bool]))
	}
	return gotypes.NewSignature(pkg, types.NewSignatureType(nil, nil, nil, types.NewTuple(params...), results, false))
}
