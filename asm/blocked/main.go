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
// 2^32. The loop is prefetched: a prologue issues PREFETCHT0 for the blocks
// of the first `dist` keys, then each step prefetches the block of key
// i+dist, and the last dist keys run without. Nothing is read before hs or
// past its end, and out is written byte by byte.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"
	"github.com/mmcloughlin/avo/reg"
)

// defaultDist is the prefetch distance in keys, tuned on the memory-bound
// case (see the benchstat table in internal/kernel/blocked_amd64.go).
const defaultDist = 48

// unroll is how many keys one step of the main loop handles.
const unroll = 4

// Table offsets in bytes (see the package doc).
const (
	offSalts1 = 0
	offSalts2 = 32
	offOnes1  = 64
	offOnes2  = 128
)

var c = build.NewContext()

func main() {
	// Our own flag set: avo's build package registers its flags on the
	// default one.
	fs := flag.NewFlagSet("blocked", flag.ExitOnError)
	out := fs.String("out", "", "assembly output `file`")
	stubs := fs.String("stubs", "", "Go stubs output `file`")
	pkg := fs.String("pkg", "kernel", "Go package name")
	dist := fs.Int("dist", defaultDist, "prefetch distance in keys (for tuning; the default is what ships)")
	fs.Parse(os.Args[1:])
	if *out == "" || *stubs == "" || *dist < 1 {
		fmt.Fprintln(os.Stderr, "usage: blocked -out file.s -stubs stubs.go [-pkg kernel] [-dist n]")
		os.Exit(2)
	}

	c.ConstraintExpr("gc,!purego")
	gen(false, *dist)
	gen(true, *dist)

	// A fixed header (no output paths in it) so check.sh can regenerate
	// into a temporary directory and compare byte for byte.
	cfg := printer.Config{Argv: []string{"go", "run", "./blocked"}, Pkg: *pkg}
	var passes []pass.Interface
	passes = append(passes, pass.Compile)
	for _, o := range []struct {
		path string
		mk   printer.Builder
	}{{*out, printer.NewGoAsm}, {*stubs, printer.NewStubs}} {
		f, err := os.Create(o.path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		passes = append(passes, &pass.Output{Writer: f, Printer: o.mk(cfg)})
	}
	if st := build.Main(&build.Config{ErrOut: os.Stderr, MaxErrors: 10, Passes: passes}, c); st != 0 {
		os.Exit(st)
	}
}

// kern holds the registers of one kernel function.
type kern struct {
	contains bool
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
}

func gen(contains bool, dist int) {
	name, sig := "blockedAddAVX2", "func(blocks *uint64, nblocks uint64, k int, tab *uint32, hs *uint64, n int)"
	doc := "blockedAddAVX2 inserts hs[:n] into the nblocks blocks at blocks with k probes per key; tab is avx2Tables[k]."
	if contains {
		name, sig = "blockedContainsAVX2", "func(blocks *uint64, nblocks uint64, k int, tab *uint32, hs *uint64, n int, out *bool) int"
		doc = "blockedContainsAVX2 probes hs[:n] in the nblocks blocks at blocks with k probes per key, writes out[:n] and returns the number of trues; tab is avx2Tables[k]."
	}
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr(sig)
	c.Doc(doc)
	c.Pragma("noescape")

	g := &kern{contains: contains}
	g.blocks = c.GP64()
	g.nblocks = c.GP64()
	g.hs = c.GP64()
	g.n = c.GP64()
	g.i = c.GP64()
	c.Load(c.Param("blocks"), g.blocks)
	c.Load(c.Param("nblocks"), g.nblocks)
	c.Load(c.Param("hs"), g.hs)
	c.Load(c.Param("n"), g.n)
	k := c.Load(c.Param("k"), c.GP64())
	tab := c.Load(c.Param("tab"), c.GP64())
	if contains {
		g.out = c.GP64()
		g.count = c.GP64()
		c.Load(c.Param("out"), g.out)
		c.XORQ(g.count, g.count)
	}

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

	c.Comment("Prologue: prefetch the blocks of the first min(n, dist) keys.")
	c.XORQ(g.i, g.i)
	c.TESTQ(g.n, g.n)
	c.JEQ(operand.LabelRef(name + "_prologue_done"))
	c.Label(name + "_prologue")
	g.prefetch(0)
	c.INCQ(g.i)
	c.CMPQ(g.i, g.n)
	c.JGE(operand.LabelRef(name + "_prologue_done"))
	c.CMPQ(g.i, operand.U32(dist))
	c.JLT(operand.LabelRef(name + "_prologue"))
	c.Label(name + "_prologue_done")
	c.XORQ(g.i, g.i)

	c.Comment("k > 8 takes the two-round loops; the choice is made once per call.")
	c.CMPQ(k, operand.Imm(8))
	c.JGT(operand.LabelRef(name + "_k16"))
	g.loops(name+"_k8", false, dist)
	c.JMP(operand.LabelRef(name + "_done"))
	c.Label(name + "_k16")
	g.loops(name+"_k16", true, dist)

	c.Label(name + "_done")
	if contains {
		c.Store(g.count, c.ReturnIndex(0))
	}
	c.VZEROUPPER()
	c.RET()
}

// loops emits the three loops of one round count: unrolled with prefetch,
// one key with prefetch, one key without (the last dist keys).
func (g *kern) loops(p string, two bool, dist int) {
	lim := c.GP64()

	c.Commentf("Main loop: %d keys a step while i+%d+%d <= n, prefetching key i+%d.", unroll, dist, unroll, dist)
	c.MOVQ(g.n, lim)
	c.SUBQ(operand.Imm(uint64(dist+unroll)), lim)
	c.CMPQ(g.i, lim)
	c.JGT(operand.LabelRef(p + "_one"))
	c.Label(p + "_unrolled")
	for u := 0; u < unroll; u++ {
		g.prefetch(dist + u)
		g.key(u, two)
	}
	c.ADDQ(operand.Imm(unroll), g.i)
	c.CMPQ(g.i, lim)
	c.JLE(operand.LabelRef(p + "_unrolled"))

	c.Commentf("One key a step while i+%d < n, prefetching key i+%d.", dist, dist)
	c.Label(p + "_one")
	c.MOVQ(g.n, lim)
	c.SUBQ(operand.Imm(uint64(dist)), lim)
	c.CMPQ(g.i, lim)
	c.JGE(operand.LabelRef(p + "_tail"))
	c.Label(p + "_one_loop")
	g.prefetch(dist)
	g.key(0, two)
	c.INCQ(g.i)
	c.CMPQ(g.i, lim)
	c.JLT(operand.LabelRef(p + "_one_loop"))

	c.Comment("The last keys, already prefetched.")
	c.Label(p + "_tail")
	c.CMPQ(g.i, g.n)
	c.JGE(operand.LabelRef(p + "_end"))
	c.Label(p + "_tail_loop")
	g.key(0, two)
	c.INCQ(g.i)
	c.CMPQ(g.i, g.n)
	c.JLT(operand.LabelRef(p + "_tail_loop"))
	c.Label(p + "_end")
}

// hash returns the memory operand of hs[i+d].
func (g *kern) hash(d int) operand.Mem {
	return operand.Mem{Base: g.hs, Index: g.i, Scale: 8, Disp: 8 * d}
}

// blockOffset returns the byte offset of the block of hs[i+d]:
// ((h>>32)*nblocks>>32)*64, computed as ((h>>32)*nblocks)>>26 &^ 63.
func (g *kern) blockOffset(d int) reg.GPVirtual {
	a := c.GP64()
	c.MOVQ(g.hash(d), a)
	c.SHRQ(operand.Imm(32), a)
	c.IMULQ(g.nblocks, a)
	c.SHRQ(operand.Imm(26), a)
	c.ANDQ(operand.I32(-64), a)
	return a
}

func (g *kern) prefetch(d int) {
	a := g.blockOffset(d)
	c.PREFETCHT0(operand.Mem{Base: g.blocks, Index: a, Scale: 1})
}

// mask builds the probe bits of hs[i+d]: words 0..3 in lo, 4..7 in hi.
func (g *kern) mask(d int, two bool) (lo, hi reg.VecVirtual) {
	rounds := 1
	if two {
		rounds = 2
	}
	bc := c.YMM()
	c.VPBROADCASTD(g.hash(d), bc)
	for r := 0; r < rounds; r++ {
		p := c.YMM()
		c.VPMULLD(g.salts[r], bc, p)
		c.VPSRLD(operand.Imm(26), p, p)
		l, h := c.YMM(), c.YMM()
		c.VPBLENDD(operand.Imm(0xaa), g.zero, p, l)
		c.VPSRLQ(operand.Imm(32), p, h)
		c.VPSLLVQ(l, g.ones[r][0], l)
		c.VPSLLVQ(h, g.ones[r][1], h)
		if r == 0 {
			lo, hi = l, h
		} else {
			c.VPOR(l, lo, lo)
			c.VPOR(h, hi, hi)
		}
	}
	return lo, hi
}

// key inserts or probes hs[i+d].
func (g *kern) key(d int, two bool) {
	a := g.blockOffset(d)
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
