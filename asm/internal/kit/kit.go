// Package kit holds the pieces that more than one of sift's avo generators
// (asm/blocked, asm/sbbf) emit: the batch kernels' mode argument, the
// offset ring of their batch loops and the loops that use it, the loop
// over groups of keys, the move of a vector's qword lanes to general
// registers, parameters' memory operands, the single-key kernels' table
// header, block offset and tail jump, and the output of the assembly and
// its stubs. Every function that emits code writes into
// the build.Context it is given, the generator's own (the Ring, into the
// one Alloc was given); ParseFlags and Generate handle the generators'
// command line and output files.
package kit

import (
	"bytes"
	"flag"
	"fmt"
	"math/bits"
	"os"

	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	"github.com/mmcloughlin/avo/ir"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"
	"github.com/mmcloughlin/avo/reg"
)

// The batch kernels' mode argument, chosen by filter size on the Go side
// (internal/kernel/blocked_amd64.go, batchMode and blockedMode, with the
// measurements):
// no prefetches (inserts into a filter in L2), prefetches with the offset
// ring (a filter in the caches), prefetches with the offsets recomputed,
// or (the blocked probes, inserts and add-if-new and the split-block
// probes and inserts, a filter of 4 MiB and more that fits the
// last-level cache, or any from 4 MiB where internal/kernel's table
// says so) the same further ahead.
const (
	ModeNoPrefetch  = 0
	ModeRing        = 1
	ModePrefetch    = 2
	ModePrefetchFar = 3
)

// JumpIfMode jumps to label when the mode argument of the function being
// written is mode.
func JumpIfMode(c *build.Context, mode int, label string) {
	m := c.GP64()
	c.Load(c.Param("mode"), m)
	c.CMPQ(m, operand.Imm(uint64(mode)))
	c.JEQ(operand.LabelRef(label))
}

// JumpPastRing writes the mode dispatch of the kernels whose modeRing
// loops follow it: modePrefetchFar jumps to p+"_far" where the kernel has
// a further distance (far), else to p+"_plain", as modePrefetch does;
// every other mode (modeRing, and modeNoPrefetch unless the caller
// dispatched it first) falls through to the ring loops the caller writes
// next.
func JumpPastRing(c *build.Context, p string, far bool) {
	if far {
		JumpIfMode(c, ModePrefetchFar, p+"_far")
	} else {
		// -fardist equal to -dist: modePrefetchFar is modePrefetch.
		JumpIfMode(c, ModePrefetchFar, p+"_plain")
	}
	JumpIfMode(c, ModePrefetch, p+"_plain")
}

// RingSlots is the number of 64-byte slots of the offset ring: the keys
// i..i+dist+width must fit its 8*RingSlots qwords (Ring.Fill checks).
const RingSlots = 8

// Ring is the offset ring of the batch loops: 64*RingSlots bytes on the
// stack, 64-byte aligned, key j's block offset at byte (8*j) mod the size,
// so that a group's offsets, computed once when it is prefetched dist keys
// ahead, are read back with one scalar load a key instead of recomputed
// with vector instructions and lane moves (the store was made dist/width
// groups earlier, so it has left the store buffer and no forwarding
// stalls). Loops of 512-bit vectors store groups of 8 (a 64-byte slot),
// those of 256-bit vectors groups of 4 (32 bytes).
type Ring struct {
	c     *build.Context
	base  reg.GPVirtual
	Width int // keys a group: 8 (ZMM) or 4 (YMM)
	// The kernel's: the current key, the memory operand of hs[i+d], and n
	// (a register, or the parameter's memory operand).
	I    reg.GPVirtual
	Hash func(d int) operand.Mem
	N    operand.Op
	// Offsets computes the block offsets of the Width hashes at src into
	// the qword lanes of a vector (set before the first Store or Fill).
	Offsets func(src operand.Mem) reg.VecVirtual
}

// Alloc allocates r's slots in the frame of the function being written
// into c and returns r.
func Alloc(c *build.Context, r *Ring) *Ring {
	r.c = c
	c.Comment("The offset ring: 64-byte aligned slots on the stack.")
	raw := c.AllocLocal(64*RingSlots + 64)
	r.base = c.GP64()
	c.LEAQ(raw, r.base)
	c.ADDQ(operand.Imm(63), r.base)
	c.ANDQ(operand.I32(-64), r.base)
	return r
}

// Slot is the ring slot of the group at i+d (i+d a multiple of the width).
func (r *Ring) Slot(d int) operand.Mem {
	c := r.c
	s := c.GP64()
	c.MOVQ(r.I, s)
	c.SHLQ(operand.U8(3), s)
	if d != 0 {
		c.ADDQ(operand.U32(8*d), s)
	}
	c.ANDQ(operand.U32(64*RingSlots-1), s)
	return operand.Mem{Base: r.base, Index: s, Scale: 1}
}

// Group emits key(j, off) for each key j of the group at i, off a
// register holding its offset, read back from the group's slot.
func (r *Ring) Group(key func(j int, off reg.GPVirtual)) {
	offs := r.Slot(0)
	for j := 0; j < r.Width; j++ {
		a := r.c.GP64()
		o := offs
		o.Disp += 8 * j
		r.c.MOVQ(o, a)
		key(j, a)
	}
}

// keep stores the offsets z into the slot of the group at i+d.
func (r *Ring) keep(z reg.VecVirtual, d int) {
	if r.Width == 4 {
		r.c.VMOVDQA(z, r.Slot(d))
		return
	}
	r.c.VMOVDQA64(z, r.Slot(d))
}

// Store computes the offsets of the group at i+d, keeps them in its slot
// and returns a function that moves lane j to a general register (for the
// prefetches).
func (r *Ring) Store(d int) (lane func(j int) reg.GPVirtual) {
	z := r.Offsets(r.Hash(d))
	r.keep(z, d)
	return QwordLanes(r.c, z)
}

// Fill stores the offsets of the groups that start below dist keys (and
// end by n), the ones no prefetching step stores, and sets i back to 0.
// Labels start with p.
func (r *Ring) Fill(p string, dist int) {
	if dist%r.Width != 0 || dist+r.Width > 8*RingSlots {
		// The slots of the groups i..i+dist are all in use at once.
		panic("kit: the offset ring needs dist a multiple of the group width, at most 8*RingSlots - width")
	}
	c := r.c
	lim := c.GP64()
	c.Commentf("Fill the ring with the offsets of the groups below %d keys.", dist)
	c.MOVQ(r.N, lim)
	c.SUBQ(operand.Imm(uint64(r.Width)), lim)
	c.Label(p + "_fill")
	c.CMPQ(r.I, lim)
	c.JGT(operand.LabelRef(p + "_filled"))
	c.CMPQ(r.I, operand.U32(dist))
	c.JGE(operand.LabelRef(p + "_filled"))
	r.keep(r.Offsets(r.Hash(0)), 0)
	c.ADDQ(operand.Imm(uint64(r.Width)), r.I)
	c.JMP(operand.LabelRef(p + "_fill"))
	c.Label(p + "_filled")
	c.XORQ(r.I, r.I)
}

// RingLabels names the labels of Ring.Loops.
type RingLabels struct {
	Prefetching, Groups, GroupLoop string // the loops'
	Exit                           string // where they end
}

// Loops emits the batch loops that use the ring, after Fill: groups of
// Width while i+dist+Width <= n, each computing the offsets of the group
// dist keys on, keeping them in the ring and prefetching their blocks
// (blocks plus the offset), then running key for its own keys from the
// ring (key(j, off): key j of the group at i, off its block's byte
// offset); then the groups left while i+Width <= n, from the ring. They
// go on at l.Exit with i the first key of no group.
func (r *Ring) Loops(l RingLabels, blocks reg.GPVirtual, dist int, key func(j int, off reg.GPVirtual)) {
	c := r.c
	group := func() { r.Group(key) }
	c.Commentf("Groups of %d while i+%d+%d <= n, prefetching the group at i+%d and keeping its offsets in the ring.", r.Width, dist, r.Width, dist)
	GroupLoop(c, r.I, r.N, r.Width, l.Prefetching, l.Groups, dist+r.Width, func() {
		ahead := r.Store(dist)
		for j := 0; j < r.Width; j++ {
			c.PREFETCHT0(operand.Mem{Base: blocks, Index: ahead(j), Scale: 1})
		}
		group()
	})
	c.Commentf("Groups of %d while i+%d <= n, offsets in the ring.", r.Width, r.Width)
	c.Label(l.Groups)
	GroupLoop(c, r.I, r.N, r.Width, l.GroupLoop, l.Exit, r.Width, group)
}

// QwordLanes returns a function that moves qword lane j of z (a ZMM or a
// YMM) to a general register: VEXTRACTI32X4 or VEXTRACTI128 once per upper
// 128-bit part, then VMOVQ or VPEXTRQ (through registers: a vector store
// and reloads right after it stall, as a wide store does not forward to
// narrower loads).
func QwordLanes(c *build.Context, z reg.VecVirtual) func(j int) reg.GPVirtual {
	var parts [4]reg.VecVirtual
	parts[0] = z.AsX().(reg.VecVirtual)
	if z.Size() == 32 {
		parts[1] = c.XMM()
		c.VEXTRACTI128(operand.U8(1), z, parts[1])
	} else {
		for q := 1; q < 4; q++ {
			parts[q] = c.XMM()
			c.VEXTRACTI32X4(operand.U8(q), z, parts[q])
		}
	}
	return func(j int) reg.GPVirtual {
		r := c.GP64()
		if j%2 == 0 {
			c.VMOVQ(parts[j/2], r)
		} else {
			c.VPEXTRQ(operand.U8(1), parts[j/2], r)
		}
		return r
	}
}

// GroupLoop emits a loop over groups of step keys: while i+margin <= n
// (else straight to exit), body, then i += step. n is a register or the
// memory operand of the parameter.
func GroupLoop(c *build.Context, i reg.GPVirtual, n operand.Op, step int, label, exit string, margin int, body func()) {
	lim := c.GP64()
	c.MOVQ(n, lim)
	c.SUBQ(Const(margin), lim)
	c.CMPQ(i, lim)
	c.JGT(operand.LabelRef(exit))
	c.Label(label)
	body()
	c.ADDQ(operand.Imm(uint64(step)), i)
	c.CMPQ(i, lim)
	c.JLE(operand.LabelRef(label))
}

// PrefetchKeys emits a prologue loop over keys i = from .. min(n, to)-1,
// prefetch (the caller's PREFETCHT0 of key i's block) for each, with i
// back at 0 after label done. guard, if not nil, is emitted once n is
// known to exceed from and may jump to done (an insert told not to
// prefetch). The batch kernels' prologues (the first dist keys) and their
// modePrefetchFar prologues (keys dist to the far distance) are this loop.
func PrefetchKeys(c *build.Context, i, n reg.GPVirtual, from, to int, label, done string, guard, prefetch func()) {
	if from == 0 {
		c.XORQ(i, i)
		c.TESTQ(n, n)
		c.JEQ(operand.LabelRef(done))
	} else {
		c.MOVQ(operand.U32(uint64(from)), i)
		c.CMPQ(i, n)
		c.JGE(operand.LabelRef(done))
	}
	if guard != nil {
		guard()
	}
	c.Label(label)
	prefetch()
	c.INCQ(i)
	c.CMPQ(i, n)
	c.JGE(operand.LabelRef(done))
	c.CMPQ(i, operand.U32(uint64(to)))
	c.JLT(operand.LabelRef(label))
	c.Label(done)
	c.XORQ(i, i)
}

// Const is the immediate v for an arithmetic or compare instruction: the
// smallest avo operand type below 128 (what every kernel had), 32 bits
// from 128 on (avo takes no 16-bit immediate there; the assembler picks
// the encoding by value either way).
func Const(v int) operand.Op {
	if v >= 0 && v < 128 {
		return operand.Imm(uint64(v))
	}
	return operand.U32(uint64(v))
}

// ParamMem is the memory operand of the parameter name of the function
// being written into c, or of its first result for "ret".
func ParamMem(c *build.Context, name string) operand.Mem {
	p := c.Param
	if name == "ret" {
		p = func(string) gotypes.Component { return c.ReturnIndex(0) }
	}
	b, err := p(name).Resolve()
	if err != nil {
		panic("kit: " + err.Error())
	}
	return b.Addr
}

// TailJump emits JMP sym(SB), a tail call into a function that takes the
// same arguments (the single-key kernels' Go twins and AVX-512 paths). It
// is built by hand, as a terminal instruction (like RET) for the
// control-flow pass: avo's JMP wants a label of the function being written.
func TailJump(c *build.Context, sym string) {
	c.Instruction(&ir.Instruction{
		Opcode:     "JMP",
		Operands:   []operand.Op{operand.Mem{Symbol: operand.Symbol{Name: sym}, Base: reg.StaticBase}},
		IsTerminal: true,
	})
}

// TableHeader loads the parameter t of a single-key kernel, a pointer to a
// slice of blocks or to a struct that starts with one (blocked's
// *BlockedTable, sbbf's *[]SBBFBlock), and that slice's length, the block
// count, and jumps to empty when it is 0.
func TableHeader(c *build.Context, empty operand.LabelRef) (hdr, nblocks reg.GPVirtual) {
	hdr = c.GP64()
	c.Load(c.Param("t"), hdr)
	nblocks = c.GP64()
	c.MOVQ(operand.Mem{Base: hdr, Disp: 8}, nblocks)
	c.TESTQ(nblocks, nblocks)
	c.JEQ(empty)
	return hdr, nblocks
}

// BlockOffset emits dst = ((h>>32)*nblocks>>32)*size, the byte offset of
// the block of hash h (a register or memory operand) among nblocks blocks
// of size bytes (32 or 64), computed as (h>>32)*nblocks >> (32-log2 size)
// &^ (size-1).
func BlockOffset(c *build.Context, h operand.Op, nblocks, dst reg.GPVirtual, size int) {
	c.MOVQ(h, dst)
	c.SHRQ(operand.Imm(32), dst)
	c.IMULQ(nblocks, dst)
	c.SHRQ(operand.Imm(uint64(32-bits.TrailingZeros(uint(size)))), dst)
	c.ANDQ(operand.I32(-size), dst)
}

// Flags is a generator's command line: the output files, the package and
// the two prefetch distances of its batch kernels.
type Flags struct {
	Out, Stubs, Pkg string
	Dist, FarDist   int
}

// ParseFlags parses the command line of the generator gen (on its own flag
// set: avo's build package registers flags on the default one), with the
// distances' defaults and distUsage, what -dist is for; it prints the
// usage and exits on a missing output file, -dist below 1 or -fardist
// below -dist.
func ParseFlags(gen string, dist, farDist int, distUsage string) Flags {
	fs := flag.NewFlagSet(gen, flag.ExitOnError)
	out := fs.String("out", "", "assembly output `file`")
	stubs := fs.String("stubs", "", "Go stubs output `file`")
	pkg := fs.String("pkg", "kernel", "Go package name")
	d := fs.Int("dist", dist, distUsage+" (for tuning; the default is what ships)")
	far := fs.Int("fardist", farDist, "prefetch distance in keys of modePrefetchFar, at least -dist (for tuning)")
	fs.Parse(os.Args[1:])
	if *out == "" || *stubs == "" || *d < 1 || *far < *d {
		fmt.Fprintf(os.Stderr, "usage: %s -out file.s -stubs stubs.go [-pkg kernel] [-dist n] [-fardist m >= n]\n", gen)
		os.Exit(2)
	}
	return Flags{Out: *out, Stubs: *stubs, Pkg: *pkg, Dist: *d, FarDist: *far}
}

// memFile is an in-memory output for avo's pass.Output, which wants an
// io.WriteCloser.
type memFile struct{ bytes.Buffer }

// Close does nothing: Generate writes the buffer out itself.
func (*memFile) Close() error { return nil }

// Generate compiles the functions written into c and writes them as Go
// assembly to the file out and as Go declarations to the file stubs, for
// package pkg, or prints the errors and exits. The header names the
// generator as `go run ./gen`, without the output paths, so the committed
// files do not depend on where they were written. Both are built in memory
// and each written to a temporary file renamed over its path, so a failed
// build or write leaves the committed files as they were. (This module
// does not require the root one, whose internal/mem.WriteAtomic does the
// same with an fsync; a generator's output is regenerated, not data.)
func Generate(c *build.Context, gen, pkg, out, stubs string) {
	cfg := printer.Config{Argv: []string{"go", "run", "./" + gen}, Pkg: pkg}
	passes := []pass.Interface{pass.Compile}
	files := []struct {
		path string
		mk   printer.Builder
		buf  memFile
	}{{path: out, mk: printer.NewGoAsm}, {path: stubs, mk: printer.NewStubs}}
	for i := range files {
		passes = append(passes, &pass.Output{Writer: &files[i].buf, Printer: files[i].mk(cfg)})
	}
	if st := build.Main(&build.Config{ErrOut: os.Stderr, MaxErrors: 10, Passes: passes}, c); st != 0 {
		os.Exit(st)
	}
	for i := range files {
		path := files[i].path
		tmp := path + ".tmp"
		err := os.WriteFile(tmp, files[i].buf.Bytes(), 0o644)
		if err == nil {
			err = os.Rename(tmp, path)
		}
		if err != nil {
			os.Remove(tmp)
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
