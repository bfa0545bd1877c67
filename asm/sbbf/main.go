// Command sbbf generates the amd64 kernels of sift's split-block (Parquet
// SBBF) Bloom filter: internal/kernel/sbbf_amd64.s and its Go stubs. Run it
// with `go generate ./internal/kernel` from the main module (see the
// go:generate line in internal/kernel/sbbf_amd64.go); asm/check.sh
// regenerates into a temporary directory and fails on any difference.
//
// # What the kernels compute
//
// For every key hash h (see internal/kernel/sbbf.go for the contract):
//
//	block = blocks[(h>>32)*nblocks>>32]          (32 bytes, eight uint32 words)
//	mask  = word i has bit (uint32(h)*salt[i])>>27, i = 0..7
//	add:      block |= mask
//	contains: out = mask&^block == 0, and count the trues
//
// A block is one YMM register and the mask is four instructions:
// VPBROADCASTD of uint32(h), VPMULLD by the eight salts (kernel.SBBFSalts,
// in word order), VPSRLD 27, and VPSLLVD of eight ones by the bit numbers.
// The block offset is ((h>>32)*nblocks)>>27 &^ 31, exact for any block
// count below 2^32 (the specification's limit is 2^31).
//
// # Batch kernels (AVX2: sbbfAddAVX2, sbbfContainsAVX2)
//
// Keys go in groups of four: one VPMULUDQ computes the four block offsets
// (the high halves of the hashes times nblocks, both below 2^32), which
// VMOVQ/VPEXTRQ/VEXTRACTI128 move to general registers. Each group first
// prefetches (PREFETCHT0) the blocks of the group dist keys ahead, from
// the four offsets computed for it, then inserts or probes its own four
// keys. The mode argument (internal/kernel's sbbfMode, by filter size, as
// the blocked kernels' batchMode) says where a group's own offsets come
// from: in modeRing the prefetching step keeps the offsets it computed in
// the offset ring on the stack (asm/internal/kit, Ring), and the group
// reads its own back with one scalar load a key; in modePrefetch the group
// computes them again, and in modePrefetchFar too, prefetching
// defaultFarDist keys ahead instead of dist (after a second prologue for
// the keys between); an insert in modeNoPrefetch (a filter in L2) runs
// the groups without prefetches. A prologue prefetches the blocks of the
// first dist keys (not in modeNoPrefetch); the last keys that fill no
// group run one at a time with a scalar IMULQ. The probe tests with VPTEST
// (carry set: mask &^ block == 0) and stores SETCS straight into out, then
// ADCQ counts it: no general register between the test and the result.
// Nothing is read before hs or past its end, and out is written byte by
// byte.
//
// # Batch kernels (AVX-512: sbbfAddAVX512, sbbfContainsAVX512)
//
// The same loops in groups of eight, whose offsets one ZMM VPMULUDQ
// computes. The probe is VPTESTMD of the mask against the block in memory
// (the opmask of the probes found) and KORTESTB, which sets CF when all
// eight are: one instruction fewer than AVX2's load and VPTEST. The mask is
// built in a YMM register as for AVX2 (VL encodings): a block is 256 bits.
//
// # Single-key kernels (sbbfAdd1AVX2, sbbfContains1AVX2)
//
// They take (t *[]SBBFBlock, h): the slice header through one pointer.
// Before touching a vector register they check their operation's kernel
// set (internal/kernel's sbbfAdd1Set or sbbfContains1Set, not generic) and an empty filter
// and otherwise jump, arguments in place, to the Go twins sbbfAdd1Go and
// sbbfContains1Go (which panic on an empty filter). The probe shifts the
// block right by the bit numbers (VPSRLVD), which brings every probed bit
// to bit 0 of its lane, and tests those against eight ones in memory with
// one VPTEST: four vector instructions after the mask, against five for
// shifting ones left and ANDing.
package main

import (
	"go/token"
	"go/types"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
	"github.com/sift-go/sift/asm/internal/kit"
)

// defaultDist is the prefetch distance in keys (see the table in
// internal/kernel/sbbf_amd64.go).
const defaultDist = 48

// defaultFarDist is the prefetch distance in keys of modePrefetchFar
// (filters of 4 MiB and more that fit the last-level cache, or all from 4
// MiB where the kernel table says so), as the
// blocked kernels' (asm/blocked, defaultFarDist; internal/kernel's
// sbbfMode has the measurements).
const defaultFarDist = 128

var c = build.NewContext()

// Static data: eight dword ones, and the qword -32 (the block offset mask).
var onesMem, m32Mem operand.Mem

// saltsMem is kernel.SBBFSalts, the eight salts in word order.
var saltsMem = operand.Mem{Symbol: operand.Symbol{Name: "·SBBFSalts"}, Base: reg.StaticBase}

func main() {
	fl := kit.ParseFlags("sbbf", defaultDist, defaultFarDist, "prefetch distance in keys")

	c.ConstraintExpr("gc,!purego")
	onesMem = c.StaticGlobal("sbbfOnes")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for range 8 {
		c.AppendDatum(operand.U32(1))
	}
	m32Mem = c.ConstData("sbbfMask32", operand.I64(-32))

	for _, wide := range []bool{false, true} {
		gen(false, wide, fl.Dist, fl.FarDist)
		gen(true, wide, fl.Dist, fl.FarDist)
	}
	genSingle(false)
	genSingle(true)

	kit.Generate(c, "sbbf", fl.Pkg, fl.Out, fl.Stubs)
}

// kern holds the registers of one batch kernel.
type kern struct {
	// farDist is modePrefetchFar's prefetch distance (see loops).
	farDist  int
	contains bool
	wide     bool // AVX-512: groups of eight
	blocks   reg.GPVirtual
	nblocks  reg.GPVirtual
	hs       reg.GPVirtual
	n        reg.GPVirtual
	out      reg.GPVirtual
	count    reg.GPVirtual
	i        reg.GPVirtual
	salts    reg.VecVirtual // YMM
	ones     reg.VecVirtual // YMM
	nbv, m32 reg.VecVirtual // nblocks and -32 in every qword lane (YMM or ZMM)
}

func (g *kern) group() int {
	if g.wide {
		return 8
	}
	return 4
}

func gen(contains, wide bool, dist, farDist int) {
	set := "AVX2"
	if wide {
		set = "AVX512"
	}
	name := "sbbfAdd" + set
	sig := "func(blocks *uint32, nblocks uint64, hs *uint64, n int, mode int)"
	doc := name + " inserts hs[:n] into the nblocks split blocks at blocks; mode is modeNoPrefetch, modeRing, modePrefetch or modePrefetchFar (further ahead)."
	if contains {
		name = "sbbfContains" + set
		sig = "func(blocks *uint32, nblocks uint64, hs *uint64, n int, out *bool, mode int) int"
		doc = name + " probes hs[:n] in the nblocks split blocks at blocks, writes out[:n] and returns the number of trues; mode is modeRing, modePrefetch or modePrefetchFar (further ahead)."
	}
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr(sig)
	c.Doc(doc)
	c.Pragma("noescape")

	g := &kern{contains: contains, wide: wide, farDist: farDist}
	g.blocks, g.nblocks, g.hs, g.n, g.i = c.GP64(), c.GP64(), c.GP64(), c.GP64(), c.GP64()
	c.Load(c.Param("blocks"), g.blocks)
	c.Load(c.Param("nblocks"), g.nblocks)
	c.Load(c.Param("hs"), g.hs)
	c.Load(c.Param("n"), g.n)
	if contains {
		g.out, g.count = c.GP64(), c.GP64()
		c.Load(c.Param("out"), g.out)
		c.XORQ(g.count, g.count)
	}
	c.Comment("Constants: the salts, eight ones, nblocks and -32 in every qword lane.")
	g.salts, g.ones = c.YMM(), c.YMM()
	c.VMOVDQU(saltsMem, g.salts)
	c.VMOVDQU(onesMem, g.ones)
	if wide {
		g.nbv, g.m32 = c.ZMM(), c.ZMM()
	} else {
		g.nbv, g.m32 = c.YMM(), c.YMM()
	}
	if wide {
		c.VPBROADCASTQ(g.nblocks, g.nbv)
	} else {
		x := c.XMM()
		c.VMOVQ(g.nblocks, x)
		c.VPBROADCASTQ(x, g.nbv)
	}
	c.VPBROADCASTQ(m32Mem, g.m32)

	c.Comment("Prologue: prefetch the blocks of the first min(n, dist) keys.")
	var guard func()
	if !contains {
		guard = func() { kit.JumpIfMode(c, kit.ModeNoPrefetch, name+"_prologue_done") }
	}
	kit.PrefetchKeys(c, g.i, g.n, 0, dist, name+"_prologue", name+"_prologue_done", guard, g.prefetchKey)

	g.loops(name, dist)

	if contains {
		c.Store(g.count, c.ReturnIndex(0))
	}
	c.VZEROUPPER()
	c.RET()
}

// loops emits the batch loops after the prologue. In modeRing, groups
// of G keys (4 AVX2, 8 AVX-512) prefetch the blocks of the group dist keys
// ahead from the offsets one VPMULUDQ computed, keep those offsets in the
// offset ring (kit.Ring) and read their own back from it; in
// modePrefetch each group computes its offsets twice, once for the
// prefetch dist keys ahead and once for itself, as in modePrefetchFar
// g.farDist keys ahead; an insert in modeNoPrefetch runs the groups
// without prefetches. Then the last keys one at a time.
func (g *kern) loops(p string, dist int) {
	G := g.group()
	r := kit.Alloc(c, &kit.Ring{
		Width:   G,
		I:       g.i,
		Hash:    g.hash,
		N:       g.n,
		Offsets: g.offsetsVec,
	})
	if !g.contains {
		kit.JumpIfMode(c, kit.ModeNoPrefetch, p+"_groups")
	}
	far := g.farDist > dist
	kit.JumpPastRing(c, p, far)
	r.Fill(p, dist)
	r.Loops(kit.RingLabels{Prefetching: p + "_ring_prefetching", Groups: p + "_ring_groups", GroupLoop: p + "_ring_group_loop", Exit: p + "_tail"}, g.blocks, dist, g.key)
	c.JMP(operand.LabelRef(p + "_tail"))

	// prefetching prefetches the blocks of the group d keys ahead, then
	// runs the group.
	prefetching := func(d int) func() {
		return func() {
			ahead := g.groupOffsets(d)
			for j := 0; j < G; j++ {
				c.PREFETCHT0(operand.Mem{Base: g.blocks, Index: ahead(j), Scale: 1})
			}
			g.groupKeys()
		}
	}
	if far {
		c.Commentf("modePrefetchFar looks %d keys ahead: prefetch the blocks of keys %d..%d too.", g.farDist, dist, g.farDist-1)
		c.Label(p + "_far")
		kit.PrefetchKeys(c, g.i, g.n, dist, g.farDist, p+"_farpro", p+"_farpro_done", nil, g.prefetchKey)
		c.Commentf("Groups of %d while i+%d+%d <= n, prefetching the group at i+%d.", G, g.farDist, G, g.farDist)
		g.groupLoop(p+"_far_prefetching", p+"_groups", g.farDist+G, prefetching(g.farDist))
		c.JMP(operand.LabelRef(p + "_groups"))
	}

	c.Commentf("Without the ring: groups of %d while i+%d+%d <= n, prefetching the group at i+%d.", G, dist, G, dist)
	c.Label(p + "_plain")
	g.groupLoop(p+"_prefetching", p+"_groups", dist+G, prefetching(dist))
	c.Commentf("Groups of %d while i+%d <= n, already prefetched (or, for modeNoPrefetch, not).", G, G)
	c.Label(p + "_groups")
	g.groupLoop(p+"_group_loop", p+"_tail", G, g.groupKeys)

	c.Comment("The last keys, one at a time.")
	c.Label(p + "_tail")
	c.CMPQ(g.i, g.n)
	c.JGE(operand.LabelRef(p + "_end"))
	c.Label(p + "_tail_loop")
	g.key(0, g.scalarOffset(0))
	c.INCQ(g.i)
	c.CMPQ(g.i, g.n)
	c.JLT(operand.LabelRef(p + "_tail_loop"))
	c.Label(p + "_end")
}

// groupLoop emits a loop over groups of G keys: while i+margin <= n (else
// straight to exit), body, then i += G.
func (g *kern) groupLoop(label, exit string, margin int, body func()) {
	kit.GroupLoop(c, g.i, g.n, g.group(), label, exit, margin, body)
}

// prefetchKey prefetches the block of hs[i].
func (g *kern) prefetchKey() {
	c.PREFETCHT0(operand.Mem{Base: g.blocks, Index: g.scalarOffset(0), Scale: 1})
}

// hash returns the memory operand of hs[i+d].
func (g *kern) hash(d int) operand.Mem {
	return operand.Mem{Base: g.hs, Index: g.i, Scale: 8, Disp: 8 * d}
}

// scalarOffset returns the byte offset of the block of hs[i+d]:
// ((h>>32)*nblocks)>>27 &^ 31.
func (g *kern) scalarOffset(d int) reg.GPVirtual {
	a := c.GP64()
	kit.BlockOffset(c, g.hash(d), g.nblocks, a, 32)
	return a
}

// offsetsVec computes the block offsets of the G hashes at src into
// qword lanes: ((h>>32)*nblocks)>>27 &^ 31 (VPMULUDQ: the high halves of
// the hashes times nblocks, both below 2^32).
func (g *kern) offsetsVec(src operand.Mem) reg.VecVirtual {
	var v reg.VecVirtual
	if g.wide {
		v = c.ZMM()
		c.VMOVDQU64(src, v)
	} else {
		v = c.YMM()
		c.VMOVDQU(src, v)
	}
	c.VPSRLQ(operand.U8(32), v, v)
	c.VPMULUDQ(g.nbv, v, v)
	c.VPSRLQ(operand.U8(27), v, v)
	if g.wide {
		c.VPANDQ(g.m32, v, v)
	} else {
		c.VPAND(g.m32, v, v)
	}
	return v
}

// groupOffsets computes the block offsets of the keys hs[i+d..i+d+G) and
// returns a function that moves lane j to a general register.
func (g *kern) groupOffsets(d int) (lane func(j int) reg.GPVirtual) {
	return kit.QwordLanes(c, g.offsetsVec(g.hash(d)))
}

// groupKeys inserts or probes the G keys hs[i..i+G).
func (g *kern) groupKeys() {
	off := g.groupOffsets(0)
	for j := 0; j < g.group(); j++ {
		g.key(j, off(j))
	}
}

// mask returns the eight probe bits of hs[i+d], one per dword lane.
func (g *kern) mask(d int) reg.VecVirtual {
	m := c.YMM()
	c.VPBROADCASTD(g.hash(d), m)
	c.VPMULLD(g.salts, m, m)
	c.VPSRLD(operand.U8(27), m, m)
	c.VPSLLVD(m, g.ones, m)
	return m
}

// key inserts or probes hs[i+d], whose block is at byte offset a.
func (g *kern) key(d int, a reg.GPVirtual) {
	blk := operand.Mem{Base: g.blocks, Index: a, Scale: 1}
	m := g.mask(d)
	res := operand.Mem{Base: g.out, Index: g.i, Scale: 1, Disp: d}
	switch {
	case !g.contains:
		if g.wide {
			c.VPORD(blk, m, m)
		} else {
			c.VPOR(blk, m, m)
		}
		c.VMOVDQU(m, blk)
	case g.wide:
		// present: the lanes whose probe bit is set; KORTESTB sets CF when
		// all eight are.
		present := c.K()
		c.VPTESTMD(blk, m, present)
		c.KORTESTB(present, present)
		c.SETCS(res)
		c.ADCQ(operand.Imm(0), g.count)
	default:
		b := c.YMM()
		c.VMOVDQU(blk, b)
		c.VPTEST(m, b) // CF = mask &^ block == 0
		c.SETCS(res)
		c.ADCQ(operand.Imm(0), g.count)
	}
}

// singleSignature is func(t *[]SBBFBlock, h uint64) [bool] with SBBFBlock
// the kernel package's [8]uint32 (built here: avo parses signatures of
// predeclared types only).
func singleSignature(contains bool) *gotypes.Signature {
	pkg := types.NewPackage("github.com/sift-go/sift/internal/kernel", "kernel")
	block := types.NewNamed(types.NewTypeName(token.NoPos, pkg, "SBBFBlock", nil), types.NewArray(types.Typ[types.Uint32], 8), nil)
	params := types.NewTuple(
		types.NewParam(token.NoPos, pkg, "t", types.NewPointer(types.NewSlice(block))),
		types.NewParam(token.NoPos, pkg, "h", types.Typ[types.Uint64]),
	)
	var results *types.Tuple
	if contains {
		results = types.NewTuple(types.NewParam(token.NoPos, pkg, "", types.Typ[types.Bool]))
	}
	return gotypes.NewSignature(pkg, types.NewSignatureType(nil, nil, nil, params, results, false))
}

// paramMem is the memory operand of a parameter or of the result ("ret").
func paramMem(name string) operand.Mem { return kit.ParamMem(c, name) }

// tailJump is kit.TailJump into the generator's context.
func tailJump(sym string) { kit.TailJump(c, sym) }

func genSingle(contains bool) {
	name, fallback := "sbbfAdd1AVX2", "sbbfAdd1Go"
	doc := name + " sets the eight bits of h in its block of *t; it jumps to " + fallback + " unless sbbfAdd1Set is not generic and len(*t) > 0."
	if contains {
		name, fallback = "sbbfContains1AVX2", "sbbfContains1Go"
		doc = name + " reports whether the eight bits of h are set in its block of *t; it jumps to " + fallback + " unless sbbfContains1Set is not generic and len(*t) > 0."
	}
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Signature(singleSignature(contains))
	c.Doc(doc)
	c.Pragma("noescape")
	goPath := operand.LabelRef(name + "_go")

	set := "·sbbfAdd1Set"
	if contains {
		set = "·sbbfContains1Set"
	}
	c.Comment("The Go twin unless this operation's kernel set is an assembly one (not setGeneric, 0) and the filter has blocks (checked before any vector register is touched).")
	c.CMPB(operand.Mem{Symbol: operand.Symbol{Name: set}, Base: reg.StaticBase}, operand.Imm(0))
	c.JEQ(goPath)
	hdr, nblocks := kit.TableHeader(c, goPath)
	c.Comment("Block address: base + ((h>>32)*nblocks>>32)*32.")
	addr := c.GP64()
	kit.BlockOffset(c, paramMem("h"), nblocks, addr, 32)
	c.ADDQ(operand.Mem{Base: hdr}, addr)
	blk := operand.Mem{Base: addr}

	c.Comment("The bit numbers: (uint32(h)*salt[i])>>27 in dword lane i.")
	m := c.YMM()
	c.VPBROADCASTD(paramMem("h"), m)
	c.VPMULLD(saltsMem, m, m)
	c.VPSRLD(operand.U8(27), m, m)
	if contains {
		b := c.YMM()
		c.VMOVDQU(blk, b)
		c.VPSRLVD(m, b, b)   // each word's probed bit to bit 0
		c.VPTEST(onesMem, b) // CF = ones &^ b == 0
		c.SETCS(paramMem("ret"))
	} else {
		ones := c.YMM()
		c.VMOVDQU(onesMem, ones)
		c.VPSLLVD(m, ones, ones)
		c.VPOR(blk, ones, ones)
		c.VMOVDQU(ones, blk)
	}
	c.VZEROUPPER()
	c.RET()

	c.Label(name + "_go")
	tailJump("·" + fallback)
}
