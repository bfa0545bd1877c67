// Command cuckoo generates internal/kernel/cuckoo_amd64.s and its Go stubs:
// the AVX2 batch lookup kernels of the cuckoo filter, one per fingerprint
// width. Run it through `go generate ./internal/kernel/` (see
// internal/kernel/cuckoo_amd64.go); the output is checked in and CI
// regenerates it and fails on any diff.
//
// The kernels follow the geometry in internal/kernel/cuckoo.go exactly:
//
//	i1 = (h>>32) * n >> 32
//	fp = uint32(h) * fpMax >> 32 + 1
//	i2 = min(d, d+n) with d = uint32(fp*CuckooAltMul) * n >> 32 - i1
//	hit = fp in bucket i1 or i2, or (fp<<32 | min(i1, i2)) == victim
//
// Four keys per iteration, one per 64-bit lane: the index math runs in
// VPMULUDQ (every product is 32 x 32 bits), the two buckets of each key are
// fetched with one gather each, and the fingerprint is compared with all four
// slots at once (VPCMPEQW or VPCMPEQB against the fingerprint broadcast
// within its lane by VPSHUFB). A prefetch pass computes the buckets of the
// keys `ahead` positions later and issues PREFETCHT0 for both, so the gathers
// of large filters find their lines on the way.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// ahead is the prefetch distance in keys (a multiple of 4).
const ahead = 32

// altMul must equal kernel.CuckooAltMul.
const altMul = 0x9e3779b1

type width struct {
	bits    int
	fpMax   uint64
	shuffle [2]uint64 // VPSHUFB pattern replicating the fingerprint within each lane
}

func main() {
	ConstraintExpr("gc,!purego")
	for _, w := range []width{
		{bits: 8, fpMax: 0xff, shuffle: [2]uint64{0, 0x0808080808080808}},
		{bits: 16, fpMax: 0xffff, shuffle: [2]uint64{0x0100010001000100, 0x0908090809080908}},
	} {
		kernel(w)
		locate(w)
		alternates(w)
		kernel512(w)
		locate512(w)
		insert512(w, false)
		insert512(w, true)
	}
	Generate()
}

// scale is the byte size of one bucket: the index scale of its loads.
func (w width) scale() uint8 {
	if w.bits == 8 {
		return 4
	}
	return 8
}

// consts holds the broadcast constants of one kernel.
type consts struct {
	n, fpMax, one, altMul, victim, shuffle VecVirtual
	words                                  GPVirtual
}

// indexConsts loads the table pointer and the constants buckets needs
// (parameters words and buckets).
func indexConsts(w width) consts {
	var c consts
	c.words = GP64()
	Load(Param("words"), c.words)
	n := GP64()
	Load(Param("buckets"), n)
	c.n = broadcastReg(n)
	c.fpMax = broadcast(w.fpMax)
	c.one = broadcast(1)
	c.altMul = broadcast(altMul)
	return c
}

func broadcast(v uint64) VecVirtual {
	r := GP64()
	MOVQ(U64(v), r)
	return broadcastReg(r)
}

func broadcastReg(r Register) VecVirtual {
	x := XMM()
	VMOVQ(r, x)
	y := YMM()
	VPBROADCASTQ(x, y)
	return y
}

// buckets computes the primary and alternate buckets and the fingerprints
// of the four hashes in h.
func buckets(c consts, h VecVirtual) (i1, i2, fp VecVirtual) {
	i1, i2, fp = YMM(), YMM(), YMM()
	t := YMM()
	VPSRLQ(U8(32), h, t)
	VPMULUDQ(c.n, t, i1)
	VPSRLQ(U8(32), i1, i1)
	VPMULUDQ(c.fpMax, h, fp)
	VPSRLQ(U8(32), fp, fp)
	VPADDQ(c.one, fp, fp)
	// H(fp) = uint32(fp*altMul) * n >> 32: VPMULUDQ reads only the low
	// 32 bits of each lane, so the first product needs no mask.
	VPMULUDQ(c.altMul, fp, t)
	VPMULUDQ(c.n, t, t)
	VPSRLQ(U8(32), t, t)
	VPSUBQ(i1, t, t) // d = H - i1, negative (as int64) when H < i1
	z := YMM()
	VPXOR(z, z, z)
	neg := YMM()
	VPCMPGTQ(t, z, neg) // 0 > d
	VPAND(c.n, neg, neg)
	VPADDQ(neg, t, i2)
	return i1, i2, fp
}

func kernel(w width) {
	name := fmt.Sprintf("cuckooContains%dAVX2", w.bits)
	TEXT(name, NOSPLIT, "func(words *uint64, buckets, victim uint64, hs []uint64, out []bool) int")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s probes len(hs)&^3 hashes against a table of %d-bit fingerprints,", name, w.bits),
		"writes out[i] for each, and returns how many are present. len(out) >= len(hs).")

	c := indexConsts(w)
	v := GP64()
	Load(Param("victim"), v)
	c.victim = broadcastReg(v)
	lo, hi := broadcast(w.shuffle[0]), broadcast(w.shuffle[1])
	c.shuffle = YMM()
	VPUNPCKLQDQ(hi, lo, c.shuffle) // lanes: lo, hi in each 128-bit half
	hs, length, out := GP64(), GP64(), GP64()
	Load(Param("hs").Base(), hs)
	Load(Param("hs").Len(), length)
	Load(Param("out").Base(), out)
	ANDQ(I8(^3), length)
	count := GP64()
	XORQ(count, count)
	ones := GP32()
	MOVL(U32(0x01010101), ones)
	scale := w.scale()

	Comment("Main loop: prefetch the buckets of the keys `ahead` positions on, probe four.")
	Label(name + "_prefetch")
	CMPQ(length, U32(ahead+4))
	JB(LabelRef(name + "_tail"))
	{
		h := YMM()
		VMOVDQU(Mem{Base: hs, Disp: 8 * ahead}, h)
		i1, i2, _ := buckets(c, h)
		prefetch(c, i1, i2, scale)
	}
	probe(w, c, hs, out, count, ones, scale)
	ADDQ(U8(32), hs)
	ADDQ(U8(4), out)
	SUBQ(U8(4), length)
	JMP(LabelRef(name + "_prefetch"))

	Comment("Tail: the last keys have nothing left to prefetch.")
	Label(name + "_tail")
	CMPQ(length, U8(4))
	JB(LabelRef(name + "_done"))
	probe(w, c, hs, out, count, ones, scale)
	ADDQ(U8(32), hs)
	ADDQ(U8(4), out)
	SUBQ(U8(4), length)
	JMP(LabelRef(name + "_tail"))

	Label(name + "_done")
	Store(count, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// prefetch issues PREFETCHT0 for the eight buckets in i1 and i2.
func prefetch(c consts, i1, i2 VecVirtual, scale uint8) {
	for _, idx := range []VecVirtual{i1, i2} {
		x := idx.AsX()
		hiHalf := XMM()
		VEXTRACTI128(U8(1), idx, hiHalf)
		for k, src := range []Register{x, x, hiHalf, hiHalf} {
			r := GP64()
			if k%2 == 0 {
				VMOVQ(src, r)
			} else {
				VPEXTRQ(U8(1), src, r)
			}
			PREFETCHT0(Mem{Base: c.words, Index: r, Scale: scale})
		}
	}
}

// locate writes the batch-insert helper of one fingerprint width: for four
// hashes at a time it computes both buckets, stores them as i1 | i2<<32,
// and prefetches both, so the inserts that follow find their lines in
// cache.
func locate(w width) {
	name := fmt.Sprintf("cuckooLocate%dAVX2", w.bits)
	TEXT(name, NOSPLIT, "func(words *uint64, buckets uint64, hs []uint64, locs []uint64)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s sets locs[i] = i1 | i2<<32, the two buckets of hs[i], for the", name),
		fmt.Sprintf("first len(hs)&^3 hashes, in a table of %d-bit fingerprints, and prefetches", w.bits),
		"both buckets. len(locs) >= len(hs).")
	c := indexConsts(w)
	hs, length, locs := GP64(), GP64(), GP64()
	Load(Param("hs").Base(), hs)
	Load(Param("hs").Len(), length)
	Load(Param("locs").Base(), locs)
	ANDQ(I8(^3), length)
	scale := w.scale()

	Label(name + "_loop")
	CMPQ(length, U8(4))
	JB(LabelRef(name + "_done"))
	h := YMM()
	VMOVDQU(Mem{Base: hs}, h)
	i1, i2, _ := buckets(c, h)
	packed := YMM()
	VPSLLQ(U8(32), i2, packed)
	VPOR(i1, packed, packed)
	VMOVDQU(packed, Mem{Base: locs})
	prefetch(c, i1, i2, scale)
	ADDQ(U8(32), hs)
	ADDQ(U8(32), locs)
	SUBQ(U8(4), length)
	JMP(LabelRef(name + "_loop"))

	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// alternates writes the relocation helper of one fingerprint width: for
// every bucket is[k] with value bs[k] it computes the alternate bucket of
// each of the four slots' fingerprints, stores them at alts[4k..4k+3] and
// prefetches them, so that a relocation from that full bucket finds the
// buckets it tries in cache. Scalar: it runs only for keys whose two
// buckets are both full.
func alternates(w width) {
	name := fmt.Sprintf("cuckooAlternates%dAMD64", w.bits)
	TEXT(name, NOSPLIT, "func(words *uint64, buckets uint64, is []uint64, bs []uint64, alts []uint64)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s sets alts[4k+s] to the alternate bucket of slot s of bucket", name),
		fmt.Sprintf("is[k], whose value is bs[k], in a table of %d-bit fingerprints, and prefetches", w.bits),
		"it. len(bs) >= len(is), len(alts) >= 4*len(is).")
	words, n := GP64(), GP64()
	Load(Param("words"), words)
	Load(Param("buckets"), n)
	is, length, bs, alts := GP64(), GP64(), GP64(), GP64()
	Load(Param("is").Base(), is)
	Load(Param("is").Len(), length)
	Load(Param("bs").Base(), bs)
	Load(Param("alts").Base(), alts)
	scale := w.scale()

	Label(name + "_loop")
	TESTQ(length, length)
	JZ(LabelRef(name + "_done"))
	i, b := GP64(), GP64()
	MOVQ(Mem{Base: is}, i)
	MOVQ(Mem{Base: bs}, b)
	for slot := 0; slot < 4; slot++ {
		// H(fp) = uint32(fp*altMul) * n >> 32; alt = H - i, plus n if
		// that wrapped (as int64, negative).
		fp := GP64()
		MOVQ(b, fp)
		if slot > 0 {
			SHRQ(U8(w.bits*slot), fp)
		}
		if w.bits == 8 {
			MOVBQZX(fp.As8(), fp)
		} else {
			MOVWQZX(fp.As16(), fp)
		}
		IMUL3L(U32(altMul), fp.As32(), fp.As32()) // zero-extends to 64 bits
		IMULQ(n, fp)
		SHRQ(U8(32), fp)
		SUBQ(i, fp)
		wrap := GP64()
		MOVQ(fp, wrap)
		SARQ(U8(63), wrap)
		ANDQ(n, wrap)
		ADDQ(wrap, fp)
		MOVQ(fp, Mem{Base: alts, Disp: 8 * slot})
		PREFETCHT0(Mem{Base: words, Index: fp, Scale: scale})
	}
	ADDQ(U8(8), is)
	ADDQ(U8(8), bs)
	ADDQ(U8(32), alts)
	DECQ(length)
	JMP(LabelRef(name + "_loop"))

	Label(name + "_done")
	RET()
}

// probe looks up the four hashes at hs and writes four bools at out.
func probe(w width, c consts, hs, out, count GPVirtual, ones GPVirtual, scale uint8) {
	h := YMM()
	VMOVDQU(Mem{Base: hs}, h)
	i1, i2, fp := buckets(c, h)
	b1, b2 := YMM(), YMM()
	for _, g := range []struct {
		idx, dst VecVirtual
	}{{i1, b1}, {i2, b2}} {
		mask := YMM()
		VPCMPEQQ(mask, mask, mask)
		if w.bits == 16 {
			VPXOR(g.dst, g.dst, g.dst)
			VPGATHERQQ(mask, Mem{Base: c.words, Index: g.idx, Scale: scale}, g.dst)
		} else {
			d := XMM()
			VPXOR(d, d, d)
			VPGATHERQD(mask.AsX(), Mem{Base: c.words, Index: g.idx, Scale: scale}, d)
			VPMOVZXDQ(d, g.dst)
		}
	}
	pat := YMM()
	VPSHUFB(c.shuffle, fp, pat)
	if w.bits == 16 {
		VPCMPEQW(pat, b1, b1)
		VPCMPEQW(pat, b2, b2)
	} else {
		VPCMPEQB(pat, b1, b1)
		VPCMPEQB(pat, b2, b2)
	}
	VPOR(b2, b1, b1)
	z := YMM()
	VPXOR(z, z, z)
	VPCMPEQQ(z, b1, b1) // lanes with no matching slot
	// Victim: tag = fp<<32 | min(i1, i2).
	gt := YMM()
	VPCMPGTQ(i2, i1, gt) // i1 > i2
	VPBLENDVB(gt, i2, i1, i1)
	VPSLLQ(U8(32), fp, fp)
	VPOR(i1, fp, fp)
	VPCMPEQQ(c.victim, fp, fp)
	miss, vic := GP32(), GP32()
	VMOVMSKPD(b1, miss)
	VMOVMSKPD(fp, vic)
	XORL(U8(15), miss)
	ORL(vic, miss)
	bytes := GP32()
	PDEPL(ones, miss, bytes) // one byte (0 or 1) per key
	MOVL(bytes, Mem{Base: out})
	IMULL(ones, bytes) // the byte sum lands in the top byte
	SHRL(U8(24), bytes)
	ADDQ(bytes.As64(), count)
}
