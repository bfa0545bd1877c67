package main

// The windowed probe kernels (internal/kernel/window.go): a key's
// generations are the lanes of one group of WindowLines(G) 64-byte lines,
// WindowLanes(G) lanes a line (two 256-bit lanes at G = 2, four 128-bit
// lanes at G >= 4; generation j is lane j%L of line j/L), all tested with
// one group-index computation and one mask.
//
// Per key: the group's first line is at blocks + ((h>>32)*nb>>32)*P*64
// (P = WindowLines(G); at G <= 4, P = 1, the offset is the blocked
// kernels' ((h>>32)*nb>>26)&^63), exact for any nb <= 2^32. The mask is
// the blocked kernels' (the AVX2 set's two YMM halves, words 0..3 and
// 4..7, from avx2Tables[k]; the AVX-512 set's one ZMM, zero-masked to the
// probe lanes but where k = 8) folded onto a lane and repeated in every
// lane of the line, as WindowMask: AVX-512, VSHUFI64X2 $0x4e (swap the
// 256-bit halves) and VPORQ, and for 128-bit lanes VSHUFI64X2 $0xb1 (swap
// the 128-bit lanes of each half) and VPORQ again (the single-key kernels:
// the three other lane orders at once, VPTERNLOGQ and VPORQ, a shorter
// chain); AVX2, VPOR of the halves, and for 128-bit lanes VPERMQ $0x4e and
// VPOR. A line is tested whole:
//
//   - AVX-512, batch, G <= 4: VPANDQ of the line (a memory operand) with
//     the mask, VPCMPEQQ with the mask under the opmask of the live lanes'
//     words (built once a call: PDEPL of live onto the lanes' first words,
//     times 3 or 15) gives the words that hold their bits; KMOVB, and a
//     256-byte table (winAnyLane) says whether one lane has all its words:
//     0 or 1, stored and added.
//   - AVX-512, single key, G <= 4: VPANDQ, VPCMPQ NE (the words that miss
//     a bit), KSHIFTRB/KORB to OR each lane's words into its first bit,
//     KTESTB with the live lanes' first bits: CF when every live lane
//     misses, complemented (CMC).
//   - AVX-512, G >= 8: VPANDQ, VPCMPQ NE, KMOVB, and a table (winLaneHits)
//     gives the line's lanes that hold the key, a bit a lane, ANDed with
//     the line's four live bits.
//   - AVX2, 128-bit lanes: VPAND of each 32-byte half with the mask and
//     VPCMPEQQ with it (per word: nothing missing), VPUNPCKLQDQ/VPUNPCKHQDQ
//     and VPAND pair the two words of every lane, VMOVMSKPD gives a bit a
//     lane (in the order 0, 2, 1, 3: the live bits are permuted once a call
//     to match), ANDed with live. 256-bit lanes (G = 2): VPTEST of each
//     half against the mask (CF: the lane holds every bit), SETCS and ADCL
//     gather the two answers, ANDed with live.
//
// No branch depends on the lines' contents. At G >= 8 a loop runs over the
// lines of the group, four live bits a line, and reads only lines with a
// live generation. The kernels run three copies of their body, chosen once
// per call: G = 2, G = 4 (one line a key) and G >= 8, each for one and for
// two mask rounds (k > 8); the single-key kernels a third, k = 8, with
// the salts (AVX2: avx2Tables[8]) as memory operands and no probe opmask,
// and load only the constants of the copy that runs.
//
// The batch kernels prefetch dist keys ahead. At G <= 4 (one line a key)
// dist is the blocked kernels' (defaultDist), and the AVX-512 one runs
// groups of 8 keys whose line offsets it computes at once, as
// blockedContainsAVX512 (VPMULUDQ: nb < 2^32, else the Go side calls the
// AVX2 kernel). In modeRing (tables under 4 MiB, as the blocked kernels'
// batchMode) both keep the offsets they compute for a group's prefetch in
// the offset ring (asm/internal/kit) and read them back for the group, the AVX2
// one in groups of 4 from one VPMULUDQ (else it computes each key's twice
// with a scalar IMUL); at G >= 8 the lines of the group with a live generation
// are prefetched winDist keys ahead (12, 24 and 40 measured level at G = 8,
// 23 MB, on the AMD EPYC Zen 5 VM).
//
// Measured there (BenchmarkWindowKernels, AVX-512 batch, 2.3 MB, within
// the VM's noise): building and folding the mask in YMM halves (as AVX2)
// and repeating it into a ZMM with one VSHUFI64X2 was no faster; nor was
// the first version of this kernel (per-key scalar offsets, the opmask
// line test). Timing-only variants with wrong answers: the blocked
// kernels' one-instruction test (VPTESTMQ) in place of the line test was
// no faster, leaving the fold out saved about 0.5 ns a key at G = 4: the
// fold's two dependent 512-bit shuffles are most of the gap to the
// blocked kernel. A shorter single-key line test at G = 4 after the load
// (VPTERNLOGQ m&^line, VPSHUFD $0x4e and VPORQ to OR each lane's two
// words, VPTESTNMQ under the live lanes' first words, KORTESTB, SETNE: 5
// dependent instructions against VPANDQ, VPCMPQ, KSHIFTRB, KORB, KTESTB,
// CMC) passed the tests but was not measured faster (BenchmarkWindowKernels
// at 2.3 MB, 7 alternating rounds: 12.1 against 8.0 ns, in rounds whose
// ratio to the blocked probe spread over 0.8-2.5x): not kept.

import (
	"github.com/sift-go/sift/asm/internal/kit"
	"go/token"
	"go/types"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/gotypes"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// winDist is the windowed batch kernels' prefetch distance in keys at
// G >= 8 (G/4 lines a key).
const winDist = 24

// win holds the registers of one windowed kernel.
type win struct {
	name  string
	wide  bool
	batch bool
	dist  int // prefetch distance at G <= 4

	blocks, nb, ngen, live reg.GPVirtual
	hs, out, count, i      reg.GPVirtual
	done                   string // the batch kernels' exit label

	// AVX2 constants (from avx2Tables[k]).
	zero  reg.VecVirtual
	salts [2]reg.VecVirtual
	ones  [2][2]reg.VecVirtual
	// AVX-512 constants.
	saltsZ, onesZ  reg.VecVirtual
	round1, round2 reg.OpmaskVirtual

	labels int
	// tabEntry: the table entry, which computes avx2Tables[k] (the other
	// AVX2 kernels take it as the tab argument).
	tabEntry bool
	k        reg.GPVirtual
	// k8 is set while emitting the single-key kernels' k = 8 copy.
	k8 bool
	// goPath is the table entry's label of the jump to the Go twin.
	goPath string
	// hitPath is windowContains1's label of the jump to windowContains1Hit
	// for a hit in time mode (the live argument zeroed): the caller reads
	// the clock only then.
	hitPath string

	// ring keeps the batch kernels' line offsets at G <= 4 in modeRing.
	ring *kit.Ring

	// lanes is WindowLanes(G) while emitting the G = 2 (2) or G = 4 (4)
	// copy, 0 while emitting the G >= 8 copy.
	lanes int
	// The per-call values of a copy: sel, the live bits in the order of
	// the lane bits that the line test gives (AVX-512: live; AVX2, 128-bit
	// lanes: each nibble's bits 1 and 2 swapped, VMOVMSKPD's order); lut,
	// the address of the AVX-512 lane table for the copy's lanes; stride,
	// P*64 (G >= 8); nbZ and m64, nb and -64 in every qword (the AVX-512
	// batch kernels at G <= 4, which compute 8 keys' offsets at once).
	sel, lut, stride reg.GPVirtual
	nbZ, m64         reg.VecVirtual
	// cur is the single-key adds' generation (windowadd.go), curOff its
	// lane's byte offset in the group (cur*32 at G = 2, else cur*16),
	// computed by setup; addOnly: the add without a probe (setup computes
	// no live values).
	cur, curOff reg.GPVirtual
	addOnly     bool
	// kLive is the AVX-512 kernels' opmask of the live lanes at G <= 4:
	// in the single-key kernels the lanes' first words (bit 8j/lanes:
	// lane j), in the batch kernels all their words.
	kLive reg.OpmaskVirtual
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

// laneHitsMem is winLaneHits, the AVX-512 kernels' lane table: byte e of
// its first 256 is the 4 lanes of a 128-bit-lane line (bit j: lane j) whose
// two words have no bit set in e (bit w: word w misses a mask bit), byte
// 256+e the same for the 2 lanes of a 256-bit-lane line.
var laneHitsMem operand.Mem

// laneTable returns a 512-byte table of lane bits: bit j of byte e is
// pick(the j-th 2-bit field of e, 3), for the four 128-bit lanes of a line
// (two words each, bit w of e for word w), and bit j of byte 256+e is
// pick(the j-th 4-bit field, 15), for the two 256-bit lanes.
func laneTable(pick func(field, all int) bool) []byte {
	t := make([]byte, 512)
	for e := range 256 {
		for j := range 4 {
			if pick(e>>(2*j)&3, 3) {
				t[e] |= 1 << j
			}
		}
		for j := range 2 {
			if pick(e>>(4*j)&15, 15) {
				t[256+e] |= 1 << j
			}
		}
	}
	return t
}

// laneHitsTable returns winLaneHits's bytes: the lanes none of whose words
// misses a mask bit.
func laneHitsTable() []byte {
	return laneTable(func(field, _ int) bool { return field == 0 })
}

// anyLaneMem is winAnyLane, the AVX-512 batch kernels' table at G <= 4:
// byte e of its first 256 is 1 when a 128-bit lane of a line has both
// words' bits set in e (bit w: word w holds its mask bits and is in a live
// lane), else 0; byte 256+e the same for 256-bit lanes.
var anyLaneMem operand.Mem

// anyLaneTable returns winAnyLane's bytes: 1 where some lane has all its
// words' bits set, else 0.
func anyLaneTable() []byte {
	t := laneTable(func(field, all int) bool { return field == all })
	for e, b := range t {
		t[e] = min(b, 1)
	}
	return t
}

// byteTable emits a read-only table of bytes.
func byteTable(name string, t []byte) operand.Mem {
	m := c.StaticGlobal(name)
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for i := 0; i < len(t); i += 8 {
		var q uint64
		for b := range 8 {
			q |= uint64(t[i+b]) << (8 * b)
		}
		c.AppendDatum(operand.U64(q))
	}
	return m
}

// genWindow writes the six windowed probe kernels.
func genWindow(dist int) {
	laneHitsMem = byteTable("winLaneHits", laneHitsTable())
	anyLaneMem = byteTable("winAnyLane", anyLaneTable())
	for _, wide := range []bool{false, true} {
		genWindowKernel(wide, false, dist)
		genWindowKernel(wide, true, dist)
	}
	genWindowTable()
	genWindowAdd(false)
	genWindowAdd(true)
}

func genWindowKernel(wide, batch bool, dist int) {
	w := &win{wide: wide, batch: batch, dist: dist}
	set, tab := "AVX2", ", tab *uint32"
	if wide {
		set, tab = "AVX512", ""
	}
	if batch {
		w.name = "blockedContainsGens" + set
		c.Function(w.name)
		c.SignatureExpr("func(blocks *uint64, nb uint64, ngen int, live uint64, k int" + tab + ", hs *uint64, n int, out *bool, mode int) int")
		c.Doc(w.name + " probes hs[:n] in the generations of live (nonzero, bits < ngen) of a windowed table of nb groups at blocks (ngen generations, a power of two in 2..64), k probes per key (1 <= k <= 16), writes out[:n] and returns the number of trues" + docTab(wide) + "; mode is modeRing (nb < 2^32) or modePrefetch.")
	} else {
		w.name = "blockedContainsGens1" + set
		c.Function(w.name)
		c.SignatureExpr("func(blocks *uint64, nb uint64, ngen int, live uint64, k int" + tab + ", h uint64) bool")
		c.Doc(w.name + " reports whether h is present in a generation of live (nonzero, bits < ngen) of a windowed table of nb groups at blocks (ngen generations, a power of two in 2..64), k probes per key (1 <= k <= 16)" + docTab(wide) + ".")
	}
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")

	w.blocks, w.nb, w.ngen, w.live = c.GP64(), c.GP64(), c.GP64(), c.GP64()
	c.Load(c.Param("blocks"), w.blocks)
	c.Load(c.Param("nb"), w.nb)
	c.Load(c.Param("ngen"), w.ngen)
	c.Load(c.Param("live"), w.live)
	k := c.GP64()
	c.Load(c.Param("k"), k)
	w.k = k
	if batch {
		w.consts(true)
	}

	if !batch {
		w.copies(k, w.single)
		return
	}
	w.hs, w.out, w.count, w.i = c.GP64(), c.GP64(), c.GP64(), c.GP64()
	c.Load(c.Param("hs"), w.hs)
	c.Load(c.Param("out"), w.out)
	c.XORQ(w.count, w.count)
	width := 4
	if wide {
		width = 8
	}
	w.ring = kit.Alloc(c, &kit.Ring{
		Width:   width,
		I:       w.i,
		Hash:    w.hash,
		N:       paramMem("n"),
		Offsets: func(src operand.Mem) reg.VecVirtual { return offsetsVec(src, w.nbZ, w.m64) },
	})
	w.done = w.label("done")
	w.copies(k, w.loopsAt)
	c.Label(w.done)
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

// consts loads the mask constants: the batch kernels' for both round
// counts, once a call (w.k8 false); the single-key kernels' in each copy,
// only what the copy uses: one or two rounds, and for k = 8 (w.k8) no
// probe opmask and the salts and AVX2 table as memory operands.
func (w *win) consts(two bool) {
	rounds := 1
	if two || w.batch {
		rounds = 2
	}
	if w.wide {
		if w.batch || two {
			w.saltsZ = c.ZMM()
			c.VMOVDQU32(saltsMem(0), w.saltsZ)
		}
		w.onesZ = c.ZMM()
		c.VPBROADCASTQ(oneMem, w.onesZ)
		if !w.k8 {
			w.round1, w.round2 = probeMasks(w.k)
		}
		return
	}
	var at func(off int) operand.Mem
	switch {
	case w.k8:
		at = func(off int) operand.Mem { return tableMem(8, off) }
	case w.tabEntry:
		// The table entry: avx2Tables[k], k*192 bytes in.
		tab, x := c.GP64(), c.GP64()
		c.LEAQ(operand.Mem{Symbol: operand.Symbol{Name: "·avx2Tables"}, Base: reg.StaticBase}, tab)
		c.LEAQ(operand.Mem{Base: w.k, Index: w.k, Scale: 2}, x)
		c.SHLQ(operand.Imm(6), x) // k*192
		c.ADDQ(x, tab)
		at = func(off int) operand.Mem { return operand.Mem{Base: tab, Disp: off} }
	default:
		tab := c.GP64()
		c.Load(c.Param("tab"), tab)
		at = func(off int) operand.Mem { return operand.Mem{Base: tab, Disp: off} }
	}
	w.zero = c.YMM()
	c.VPXOR(w.zero, w.zero, w.zero)
	for r := 0; r < rounds; r++ {
		w.salts[r] = c.YMM()
		c.VMOVDQU(at([]int{offSalts1, offSalts2}[r]), w.salts[r])
		for h := 0; h < 2; h++ {
			w.ones[r][h] = c.YMM()
			c.VMOVDQU(at([]int{offOnes1, offOnes2}[r]+32*h), w.ones[r][h])
		}
	}
}

// copies emits body(two) for G = 2, G = 4 and G >= 8 (w.lanes 2, 4, 0),
// each for k <= 8 and k > 8 (the single-key kernels: k = 8 (w.k8), other
// k <= 8, k > 8, each after its constants), after the per-call values of
// each generation count. body ends in a return or, in the batch kernels,
// jumps to w.done.
func (w *win) copies(k reg.GPVirtual, body func(two bool)) {
	rounds := func() {
		two := w.label("two")
		c.CMPQ(k, operand.Imm(8))
		if !w.batch {
			not8 := w.label("not_k8")
			c.JNE(operand.LabelRef(not8))
			w.k8 = true
			w.consts(false)
			body(false)
			w.k8 = false
			c.Label(not8)
			if w.goPath != "" {
				// The table entry checks k here, off the k = 8 path
				// (no vector register is touched yet).
				x := c.GP64()
				c.LEAQ(operand.Mem{Base: k, Disp: -1}, x)
				c.CMPQ(x, operand.Imm(maxK-1))
				c.JHI(operand.LabelRef(w.goPath))
				c.CMPQ(k, operand.Imm(8))
			}
			c.JGT(operand.LabelRef(two))
			w.consts(false)
		} else {
			c.JGT(operand.LabelRef(two))
		}
		body(false)
		c.Label(two)
		if !w.batch {
			w.consts(true)
		}
		body(true)
	}
	not2, not4 := w.label("not_g2"), w.label("g8")
	c.Comment("G = 2: one line a key, two 256-bit lanes.")
	c.CMPQ(w.ngen, operand.Imm(2))
	c.JNE(operand.LabelRef(not2))
	w.lanes = 2
	w.setup()
	rounds()
	c.Label(not2)
	c.Comment("G = 4: one line a key, four 128-bit lanes.")
	c.CMPQ(w.ngen, operand.Imm(4))
	c.JNE(operand.LabelRef(not4))
	w.lanes = 4
	w.setup()
	rounds()
	c.Label(not4)
	c.Comment("G >= 8: G/4 lines a key, four 128-bit lanes each.")
	w.lanes = 0
	w.setup()
	rounds()
}

// setup computes the per-call values of the copy for w.lanes.
func (w *win) setup() {
	if w.lanes == 0 {
		w.stride = c.GP64()
		c.MOVQ(w.ngen, w.stride)
		c.SHLQ(operand.Imm(4), w.stride) // P*64 = G/4*64
	}
	if w.cur != nil {
		// The single-key adds (windowadd.go): generation cur's lane is
		// cur lanes into the group.
		w.curOff = c.GP64()
		c.MOVQ(w.cur, w.curOff)
		c.SHLQ(operand.Imm(map[bool]uint64{true: 5, false: 4}[w.lanes == 2]), w.curOff)
		if w.addOnly {
			return
		}
	}
	if w.wide {
		w.sel = w.live
		if w.batch || w.lanes == 0 {
			w.lut = c.GP64()
			lut := laneHitsMem
			if w.batch && w.lanes != 0 {
				lut = anyLaneMem
			}
			if w.lanes == 2 {
				lut.Disp += 256
			}
			c.LEAQ(lut, w.lut)
		}
		if w.batch && w.lanes != 0 {
			// The words of the live lanes: live's bits onto the lanes'
			// first words, times 3 (two words) or 15 (four).
			m := c.GP32()
			c.MOVL(operand.U32(map[int]uint64{2: 0x11, 4: 0x55}[w.lanes]), m)
			c.PDEPL(m, w.live.As32(), m)
			c.IMUL3L(operand.U32(map[int]uint64{2: 15, 4: 3}[w.lanes]), m, m)
			w.kLive = c.K()
			c.KMOVB(m, w.kLive)
		}
		if !w.batch && w.lanes != 0 {
			m := c.GP32()
			c.MOVL(operand.U32(map[int]uint64{2: 0x11, 4: 0x55}[w.lanes]), m)
			c.PDEPL(m, w.live.As32(), m) // live's bits onto the lanes' first words
			w.kLive = c.K()
			c.KMOVB(m, w.kLive)
		}
		if w.batch && w.lanes != 0 {
			w.nbZ, w.m64 = offsetConsts(w.nb, true)
		}
		return
	}
	if w.batch && w.lanes != 0 {
		// The offset ring's constants: nb and -64 in every qword.
		w.nbZ, w.m64 = offsetConsts(w.nb, false)
	}
	if w.lanes == 2 {
		return
	}
	// sel: each nibble of live with bits 1 and 2 swapped.
	w.sel = c.GP64()
	a, b := c.GP64(), c.GP64()
	c.MOVQ(operand.U64(0x9999999999999999), a)
	c.ANDQ(w.live, a)
	c.MOVQ(operand.U64(0x2222222222222222), b)
	c.MOVQ(w.live, w.sel)
	c.SHRQ(operand.Imm(1), w.sel)
	c.ANDQ(b, w.sel) // bit 2 -> 1
	c.ANDQ(w.live, b)
	c.SHLQ(operand.Imm(1), b) // bit 1 -> 2
	c.ORQ(a, w.sel)
	c.ORQ(b, w.sel)
}

// lineAddr returns the address of the first line of the group of the hash
// at h: blocks + ((h>>32)*nb>>32)*P*64 (P = 1 while w.lanes != 0).
func (w *win) lineAddr(h operand.Mem) reg.GPVirtual {
	a := c.GP64()
	if w.lanes != 0 {
		kit.BlockOffset(c, h, w.nb, a, 64)
	} else {
		c.MOVQ(h, a)
		c.SHRQ(operand.Imm(32), a)
		c.IMULQ(w.nb, a)
		c.SHRQ(operand.Imm(32), a)
		c.IMULQ(w.stride, a)
	}
	c.ADDQ(w.blocks, a)
	return a
}

// hash is the memory operand of hs[i+d].
func (w *win) hash(d int) operand.Mem {
	return operand.Mem{Base: w.hs, Index: w.i, Scale: 8, Disp: 8 * d}
}

// liveLines emits body(line) for each line of the group at a that holds
// a live generation: a loop over the nibbles of s (live, or sel: the same
// nibbles are zero), a and s advanced a line and a nibble a step. body
// sees the line's nibble in the low 4 bits of s.
func (w *win) liveLines(a, s reg.GPVirtual, body func(line operand.Mem)) {
	loop, skip := w.label("lines"), w.label("dead_line")
	c.Label(loop)
	c.TESTL(operand.U32(0xf), s.As32())
	c.JEQ(operand.LabelRef(skip))
	body(operand.Mem{Base: a})
	c.Label(skip)
	c.ADDQ(operand.Imm(64), a)
	c.SHRQ(operand.Imm(4), s)
	c.JNE(operand.LabelRef(loop))
}

// prefetch issues PREFETCHT0 for the live lines of hs[i+d].
func (w *win) prefetch(d int) {
	a := w.lineAddr(w.hash(d))
	if w.lanes != 0 {
		c.PREFETCHT0(operand.Mem{Base: a})
		return
	}
	s := c.GP64()
	c.MOVQ(w.live, s)
	w.liveLines(a, s, func(line operand.Mem) { c.PREFETCHT0(line) })
}

// mask is a key's probe bits: the AVX2 set's two halves, or one ZMM.
type mask struct{ lo, hi, z reg.VecVirtual }

// mask builds the probe bits of the hash at h.
func (w *win) mask(h operand.Mem, two bool) mask {
	if w.wide {
		var c1, c2 reg.VecVirtual
		if w.saltsZ == nil || (!two && !w.batch) {
			c1 = k8Counts(h)
		} else {
			c1, c2 = wideCounts(h, w.saltsZ, two)
		}
		m := c.ZMM()
		if w.k8 {
			c.VPSLLVQ(c1, w.onesZ, m) // every lane a probe
			return mask{z: m}
		}
		c.VPSLLVQ_Z(c1, w.onesZ, w.round1, m)
		if two {
			m2 := c.ZMM()
			c.VPSLLVQ_Z(c2, w.onesZ, w.round2, m2)
			c.VPORQ(m2, m, m)
		}
		return mask{z: m}
	}
	lo, hi := avx2Mask(h, w.salts, w.zero, w.ones, two)
	return mask{lo: lo, hi: hi}
}

// fold folds m onto the lanes and repeats it in every lane (WindowMask):
// the AVX-512 mask in m.z, the AVX2 one's 256-bit half in m.lo.
func (w *win) fold(m mask) mask {
	narrow := w.lanes != 2 // 128-bit lanes
	if w.wide {
		if narrow && !w.batch {
			// The three other 128-bit lanes' orders at once: a shorter
			// chain for the single-key kernels, one more instruction.
			var s [3]reg.VecVirtual
			for i, imm := range []uint64{0x4e, 0xb1, 0x1b} {
				s[i] = c.ZMM()
				c.VSHUFI64X2(operand.U8(imm), m.z, m.z, s[i])
			}
			c.VPTERNLOGQ(operand.U8(0xfe), s[1], s[0], m.z) // m | s0 | s1
			c.VPORQ(s[2], m.z, m.z)
			return m
		}
		s := c.ZMM()
		c.VSHUFI64X2(operand.U8(0x4e), m.z, m.z, s) // the halves swapped
		c.VPORQ(s, m.z, m.z)
		if narrow {
			s2 := c.ZMM()
			c.VSHUFI64X2(operand.U8(0xb1), m.z, m.z, s2) // the 128-bit lanes of each half swapped
			c.VPORQ(s2, m.z, m.z)
		}
		return m
	}
	c.VPOR(m.hi, m.lo, m.lo)
	if narrow {
		s := c.YMM()
		c.VPERMQ(operand.U8(0x4e), m.lo, s) // the 128-bit lanes swapped
		c.VPOR(s, m.lo, m.lo)
	}
	return m
}

// lineHits returns the bits of the lanes of line that hold every bit of
// the folded mask m, in sel's order: AVX-512 (any lanes, from the lane
// table: the opmask of the words that miss a bit, KMOVB, MOVBLZX) and
// AVX2 for 128-bit lanes.
func (w *win) lineHits(line operand.Mem, m mask) reg.GPVirtual {
	if !w.wide {
		return w.laneHits(line, m.lo)
	}
	t := c.ZMM()
	c.VPANDQ(line, m.z, t)
	miss := c.K()
	c.VPCMPQ(operand.U8(4), t, m.z, miss) // NE: the word misses a bit
	r := c.GP32()
	c.KMOVB(miss, r)
	c.MOVBLZX(operand.Mem{Base: w.lut, Index: r.As64(), Scale: 1}, r)
	return r
}

// laneHits returns the AVX2 bits of the 128-bit lanes of line that hold
// every bit of the folded mask f: bit 0 lane 0, bit 1 lane 2, bit 2 lane
// 1, bit 3 lane 3 (sel's order).
func (w *win) laneHits(line operand.Mem, f reg.VecVirtual) reg.GPVirtual {
	t0, t1, x := c.YMM(), c.YMM(), c.YMM()
	c.VPAND(line, f, t0)
	c.VPCMPEQQ(f, t0, t0) // per word: nothing missing
	hi := line
	hi.Disp += 32
	c.VPAND(hi, f, t1)
	c.VPCMPEQQ(f, t1, t1)
	c.VPUNPCKLQDQ(t1, t0, x)  // [t0.0 t1.0 | t0.2 t1.2]
	c.VPUNPCKHQDQ(t1, t0, t0) // [t0.1 t1.1 | t0.3 t1.3]
	c.VPAND(t0, x, x)
	r := c.GP32()
	c.VMOVMSKPD(x, r)
	return r
}

// probe tests the hash at h in its live generations and leaves CF set when
// it is present in one, or returns a register that holds 1 if it is, else
// 0 (the AVX-512 batch kernels at G <= 4). line is its line at G <= 4, or
// nil: computed here.
func (w *win) probe(h operand.Mem, two bool, line *operand.Mem) reg.GPVirtual {
	if line == nil {
		a := w.lineAddr(h)
		line = &operand.Mem{Base: a}
	}
	return w.test(w.fold(w.mask(h, two)), line)
}

// test is probe's line test with the folded mask m of a key whose group's
// first line is *line (at G >= 8 the register line.Base is advanced over
// the group).
func (w *win) test(m mask, line *operand.Mem) reg.GPVirtual {
	switch {
	case w.wide && w.batch && w.lanes != 0:
		// The words of the live lanes that hold their mask bits, then the
		// table: 1 if one lane has all its words.
		t := c.ZMM()
		c.VPANDQ(*line, m.z, t)
		eq := c.K()
		c.VPCMPEQQ(t, m.z, w.kLive, eq)
		r := c.GP32()
		c.KMOVB(eq, r)
		c.MOVBLZX(operand.Mem{Base: w.lut, Index: r.As64(), Scale: 1}, r)
		return r
	case w.lanes == 0:
		acc := c.GP32()
		c.XORL(acc, acc)
		s := c.GP64()
		c.MOVQ(w.sel, s)
		w.liveLines(line.Base.(reg.GPVirtual), s, func(line operand.Mem) {
			r := w.lineHits(line, m)
			c.ANDL(s.As32(), r)
			c.ORL(r, acc)
		})
		c.NEGL(acc) // CF: acc != 0
	case w.lanes == 2 && !w.wide:
		r, t := c.GP32(), c.YMM()
		c.XORL(r, r)
		hi := *line
		hi.Disp += 32
		c.VMOVDQU(hi, t)
		c.VPTEST(m.lo, t) // CF: lane 1 holds the mask
		c.SETCS(r.As8())
		c.VMOVDQU(*line, t)
		c.VPTEST(m.lo, t)
		c.ADCL(r, r) // bit 1: lane 1, bit 0: lane 0
		c.ANDL(w.live.As32(), r)
		c.NEGL(r)
	case w.wide && !w.batch:
		// The opmask form: a shorter chain than the lane table's KMOVB
		// and load. KSHIFTRB/KORB OR each lane's words into its first
		// bit; KTESTB with the live lanes sets CF when all of them miss.
		t := c.ZMM()
		c.VPANDQ(*line, m.z, t)
		miss := c.K()
		c.VPCMPQ(operand.U8(4), t, m.z, miss) // NE: the word misses a bit
		for sh := 1; sh < 8/w.lanes; sh *= 2 {
			k := c.K()
			c.KSHIFTRB(operand.U8(uint64(sh)), miss, k)
			c.KORB(k, miss, k)
			miss = k
		}
		c.KTESTB(w.kLive, miss)
		c.CMC()
	default:
		r := w.lineHits(*line, m)
		c.ANDL(w.sel.As32(), r)
		c.NEGL(r)
	}
	return nil
}

// single emits the single-key body and returns.
func (w *win) single(two bool) {
	w.probe(paramMem("h"), two, nil)
	c.SETCS(paramMem("ret"))
	if w.hitPath != "" {
		// A hit with the live argument zeroed (time mode) goes to
		// windowContains1Hit; anything else returns.
		done := w.label("done")
		c.JCC(operand.LabelRef(done))
		c.CMPQ(paramMem("live"), operand.Imm(0))
		c.JEQ(operand.LabelRef(w.hitPath))
		c.Label(done)
	}
	c.VZEROUPPER()
	c.RET()
}

// key probes hs[i+d] and stores and counts its answer; off is its line's
// offset from blocks, or nil (computed here).
func (w *win) key(d int, off reg.GPVirtual, two bool) {
	var line *operand.Mem
	if off != nil {
		line = &operand.Mem{Base: w.blocks, Index: off, Scale: 1}
	}
	at := operand.Mem{Base: w.out, Index: w.i, Scale: 1, Disp: d}
	if r := w.probe(w.hash(d), two, line); r != nil {
		c.MOVB(r.As8(), at)
		c.ADDQ(r.As64(), w.count)
		return
	}
	c.SETCS(at)
	c.ADCQ(operand.Imm(0), w.count)
}

// groupOffsets computes the line offsets of the 8 keys hs[i+d..i+d+8) at
// G <= 4 (AVX-512): ((h>>32)*nb>>26)&^63 in qword lanes, as the blocked
// kernels' groupOffsets (VPMULUDQ: exact for nb < 2^32, which the Go side
// checks). It returns a function that moves lane j to a general register.
func (w *win) groupOffsets(d int) func(j int) reg.GPVirtual {
	return offsets8(w.hash(d), w.nbZ, w.m64)
}

// groupLoops emits the batch loops at G <= 4 after the prologue, in
// groups of w.ring.Width keys (AVX-512: 8, their offsets computed at
// once; AVX2: 4): in modeRing the offsets computed for a group's prefetch,
// dist keys ahead, are kept in the ring and read back by the group, else
// (AVX-512 only) each group computes its own; then the last keys one at a
// time. It ends with a jump to w.done.
func (w *win) groupLoops(two bool) {
	r := w.ring
	tail, tailLoop := w.label("tail"), w.label("tail_loop")
	plain := w.label("plain")
	if w.wide {
		kit.JumpIfMode(c, kit.ModePrefetch, plain)
	}
	r.Fill(w.label("ring"), w.dist)
	groups := w.label("groups")
	r.Loops(kit.RingLabels{Prefetching: w.label("prefetching"), Groups: groups, GroupLoop: w.label("group_loop"), Exit: tail}, w.blocks, w.dist, func(j int, a reg.GPVirtual) { w.key(j, a, two) })
	if w.wide {
		c.JMP(operand.LabelRef(tail))
		c.Label(plain)
		group := func() {
			off := w.groupOffsets(0)
			for j := 0; j < 8; j++ {
				w.key(j, off(j), two)
			}
		}
		groups := w.label("groups")
		c.Commentf("Without the ring: groups of 8 while i+%d+8 <= n, prefetching the group at i+%d.", w.dist, w.dist)
		w.groupLoop(8, w.label("prefetching"), groups, w.dist+8, func() {
			ahead := w.groupOffsets(w.dist)
			for j := 0; j < 8; j++ {
				c.PREFETCHT0(operand.Mem{Base: w.blocks, Index: ahead(j), Scale: 1})
			}
			group()
		})
		c.Comment("Groups of 8 while i+8 <= n, already prefetched.")
		c.Label(groups)
		w.groupLoop(8, w.label("group_loop"), tail, 8, group)
	}
	c.Comment("The last keys, one at a time.")
	lim := c.GP64()
	w.tailLoop(lim, tail, tailLoop, two)
}

// groupLoop emits a loop over groups of step keys: while i+margin <= n
// (else straight to exit), body, then i += step.
func (w *win) groupLoop(step int, label, exit string, margin int, body func()) {
	kit.GroupLoop(c, w.i, paramMem("n"), step, label, exit, margin, body)
}

// tailLoop emits the batch loops' end, from label tail: the keys i..n-1
// one at a time, then a jump to w.done.
func (w *win) tailLoop(lim reg.GPVirtual, tail, tailLoop string, two bool) {
	c.Label(tail)
	c.Load(c.Param("n"), lim)
	c.CMPQ(w.i, lim)
	c.JGE(operand.LabelRef(w.done))
	c.Label(tailLoop)
	w.key(0, nil, two)
	c.INCQ(w.i)
	c.CMPQ(w.i, lim)
	c.JLT(operand.LabelRef(tailLoop))
	c.JMP(operand.LabelRef(w.done))
}

// loopsAt emits the batch loops of one copy: a prologue that prefetches
// the first keys, one key a step with the prefetch of key i+dist while
// there is one, then the rest; it ends with a jump to w.done. n is read
// from the arguments where it is needed, to spare a register.
func (w *win) loopsAt(two bool) {
	dist := w.dist
	if w.lanes == 0 {
		dist = winDist
	}
	lim := c.GP64()
	pro, proDone := w.label("prologue"), w.label("prologue_done")
	c.Commentf("Prologue: prefetch the live lines of the first min(n, %d) keys.", dist)
	c.Load(c.Param("n"), lim)
	c.CMPQ(lim, operand.U32(dist))
	c.JLE(operand.LabelRef(pro))
	c.MOVQ(operand.U32(dist), lim)
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
	if w.wide && w.lanes != 0 {
		w.groupLoops(two)
		return
	}
	if w.lanes != 0 {
		// AVX2: the ring's groups of 4 in modeRing, else one key a step.
		oneKeys := w.label("one_keys")
		m := c.GP64()
		c.Load(c.Param("mode"), m)
		c.CMPQ(m, operand.Imm(kit.ModeRing))
		c.JNE(operand.LabelRef(oneKeys))
		w.groupLoops(two)
		c.Label(oneKeys)
	}

	one, tail, tailLoop := w.label("one"), w.label("tail"), w.label("tail_loop")
	c.Commentf("One key a step while i+%d < n, prefetching key i+%d.", dist, dist)
	c.Load(c.Param("n"), lim)
	c.SUBQ(operand.Imm(uint64(dist)), lim)
	c.CMPQ(w.i, lim)
	c.JGE(operand.LabelRef(tail))
	c.Label(one)
	w.prefetch(dist)
	w.key(0, nil, two)
	c.INCQ(w.i)
	c.CMPQ(w.i, lim)
	c.JLT(operand.LabelRef(one))
	c.Comment("The last keys, already prefetched.")
	w.tailLoop(lim, tail, tailLoop, two)
}

// genWindowTable writes windowContains1AVX2 and windowContains1AVX512, the
// single-key entry that internal/kernel's BlockedContainsGensT (an inlined
// wrapper, so a lookup is one call, as blocked's BlockedContains1) calls
// with a *WindowTable: the blocks, the group count, G and k read through
// one pointer instead of six arguments. windowContains1AVX2 checks the
// operation's kernel set (windowContains1Set: avx512, 2, tail-jumps to
// windowContains1AVX512; generic, 0, to the Go twin). Both trust the
// table's layout: its fields are unexported and NewWindowTable checked G,
// the group count and the length once (these entries used to check them
// on every call: about 17 instructions with an IMUL and 5 branches). They
// check only what blockedContains1AVX2 checks: an empty (closed) table
// (t.nb = 0), and k in 1..16 after the k = 8 branch (else the Go twin,
// which panics as the contract says), before touching a vector register;
// they mask live to G bits (BZHIQ) and answer false for no live
// generation, unless the table has a live source (WindowTable.SetLiveNow:
// a Window by time, whose ContainsHash passes live = 0 so that it inlines
// to this one call). Then they probe every generation: a key in none is
// in no live one, and the answer is false without reading the clock; a
// hit tail-jumps to windowContains1Hit (the live argument zeroed), which
// reads the source and probes again with its mask. Dropping the layout checks took 14 instructions off a
// lookup (valgrind --tool=lackey, 200k ContainsHash of a Window with
// WithExpiryOnAdd, n = 1e6, G = 4, k = 8: 121 against 135 a loop
// iteration; a Filter's ContainsHash 84); in time the change was within
// the noise of the AMD EPYC (Zen 5) VM, shared with other jobs
// (BenchmarkWindowKernels at 2.3 MB, G = 4, avx512, 5 alternating rounds,
// thread-CPU ns/key medians: 9.4 against 10.8 before, the blocked
// single-key probe of the same table 6.2 and 7.2 in the same runs; at
// 23 MB the rounds spread over 2-5x).
func genWindowTable() {
	for _, wide := range []bool{false, true} {
		name := "windowContains1AVX2"
		doc := name + " reports whether h is present in a generation of live of the table t (see internal/kernel's WindowTable); it jumps to windowContains1AVX512 if windowContains1Set is avx512, and to windowContains1Go if it is generic, t is empty (closed) or k is not in 1..16."
		if wide {
			name = "windowContains1AVX512"
			doc = name + " is windowContains1AVX2's AVX-512 path, which it jumps to with its arguments in place; it jumps to windowContains1Go if t is empty (closed) or k is not in 1..16."
		}
		c.Function(name)
		c.Attributes(attr.NOSPLIT)
		c.Signature(windowTableSignature())
		c.Doc(doc)
		c.Pragma("noescape")
		goPath := operand.LabelRef(name + "_go")
		if !wide {
			setDispatch(name, "·windowContains1Set", goPath, "")
		}
		c.Comment("The table (trusted: NewWindowTable checked its layout): the Go twin if it is empty (closed), before any vector register is touched.")
		t := c.GP64()
		c.Load(c.Param("t"), t)
		g, nb, k := c.GP64(), c.GP64(), c.GP64()
		c.MOVQ(operand.Mem{Base: t, Disp: 24}, nb) // t.nb: 0 once closed, else 1..2^32
		c.TESTQ(nb, nb)
		c.JEQ(goPath)
		c.MOVQ(operand.Mem{Base: t, Disp: 32}, g) // t.g: a power of two in 2..64
		c.MOVQ(operand.Mem{Base: t, Disp: 40}, k) // t.k: checked in 1..16 where it is not 8 (copies)
		live := c.GP64()
		c.Load(c.Param("live"), live)
		c.BZHIQ(g, live, live) // the bits below G (all for G = 64)
		c.JNE(operand.LabelRef(name + "_live"))
		c.Comment("No live bit: false, unless the table has a live source (a Window by time). Then every generation is probed: a key in none is in no live one; a hit goes to windowContains1Hit, which reads the clock (the live argument zeroed says so).")
		src := c.GP64()
		c.MOVQ(operand.Mem{Base: t, Disp: 48}, src) // t.liveNow
		c.TESTQ(src, src)
		c.JNE(operand.LabelRef(name + "_source"))
		c.MOVB(operand.U8(0), paramMem("ret"))
		c.VZEROUPPER() // no vector register was touched; asmcheck_test wants it before every RET
		c.RET()
		c.Label(name + "_source")
		c.MOVQ(operand.U32(0), paramMem("live"))
		c.MOVQ(operand.I32(-1), live)
		c.BZHIQ(g, live, live) // every generation: the bits below G (the G >= 8 copies walk its nibbles)
		c.Label(name + "_live")

		blocks := c.GP64()
		c.MOVQ(operand.Mem{Base: t}, blocks)
		w := &win{name: name, wide: wide, blocks: blocks, nb: nb, ngen: g, live: live, k: k, tabEntry: true, goPath: name + "_go", hitPath: name + "_hit"}
		w.copies(k, w.single)
		c.Label(name + "_go")
		tailJump("·windowContains1Go")
		c.Label(name + "_hit")
		c.VZEROUPPER() // the probe touched vector registers; Go code follows
		tailJump("·windowContains1Hit")
	}
}

// windowTableSignature is func(t *WindowTable, live, h uint64) bool with
// WindowTable internal/kernel's struct{blocks []Block; nb uint64; g, k
// int; liveNow func() uint64}.
func windowTableSignature() *gotypes.Signature {
	pkg := kernelPkg
	params := types.NewTuple(
		types.NewParam(token.NoPos, pkg, "t", windowTablePtr()),
		types.NewParam(token.NoPos, pkg, "live", types.Typ[types.Uint64]),
		types.NewParam(token.NoPos, pkg, "h", types.Typ[types.Uint64]),
	)
	results := types.NewTuple(types.NewParam(token.NoPos, pkg, "", types.Typ[types.Bool]))
	return gotypes.NewSignature(pkg, types.NewSignatureType(nil, nil, nil, params, results, false))
}

// windowTablePtr is *WindowTable, internal/kernel's struct{blocks []Block;
// nb uint64; g, k int; liveNow func() uint64}.
func windowTablePtr() types.Type {
	pkg := kernelPkg
	block := types.NewNamed(types.NewTypeName(token.NoPos, pkg, "Block", nil), types.NewArray(types.Typ[types.Uint64], 8), nil)
	table := types.NewNamed(types.NewTypeName(token.NoPos, pkg, "WindowTable", nil), types.NewStruct([]*types.Var{
		types.NewField(token.NoPos, pkg, "blocks", types.NewSlice(block), false),
		types.NewField(token.NoPos, pkg, "nb", types.Typ[types.Uint64], false),
		types.NewField(token.NoPos, pkg, "g", types.Typ[types.Int], false),
		types.NewField(token.NoPos, pkg, "k", types.Typ[types.Int], false),
		types.NewField(token.NoPos, pkg, "liveNow", types.NewSignatureType(nil, nil, nil, nil, types.NewTuple(types.NewParam(token.NoPos, pkg, "", types.Typ[types.Uint64])), false), false),
	}, nil), nil)
	return types.NewPointer(table)
}

// kernelPkg is internal/kernel, the package of the windowed entries'
// signatures (one object, so that the stubs name WindowTable unqualified).
var kernelPkg = types.NewPackage("github.com/sift-go/sift/internal/kernel", "kernel")
