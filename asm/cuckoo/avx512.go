package main

// The AVX-512 kernels: the same computation as the AVX2 ones, eight keys
// per iteration, one per qword lane of a ZMM register.
//
// The alternate bucket is VPMINUQ(d, d+n) with d = H(fp) - i1: d wraps
// around exactly when H(fp) < i1, and then d+n is the smaller of the two
// as unsigned numbers. The slot compare (VPCMPEQW or VPCMPEQB against the
// fingerprint replicated within its lane) writes an opmask of 4 bits a key
// for 16-bit fingerprints (words 0..3 of the lane) and of 8 bits for 8-bit
// ones (bytes 0..3 hold the bucket, bytes 4..7 are zero and never match a
// fingerprint, which is at least 1); the two buckets' masks are ORed, moved
// to a general register and folded to one bit a key (OR of each group,
// then PEXT). The victim is a VPCMPEQQ of fp<<32 | min(i1, i2) against the
// victim tag. The 8 result bits become 8 bytes with PDEP.

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// ahead512 is the AVX-512 kernels' prefetch distance in keys (a multiple
// of 8).
const ahead512 = 32

// consts512 holds the broadcast constants of one AVX-512 kernel.
type consts512 struct {
	n, fpMax, one, altMul, victim, shuffle VecVirtual
	words                                  GPVirtual
}

func broadcast512(v uint64) VecVirtual {
	r := GP64()
	MOVQ(U64(v), r)
	z := ZMM()
	VPBROADCASTQ(r, z)
	return z
}

func indexConsts512(w width) consts512 {
	var c consts512
	c.words = GP64()
	Load(Param("words"), c.words)
	n := GP64()
	Load(Param("buckets"), n)
	c.n = ZMM()
	VPBROADCASTQ(n, c.n)
	c.fpMax = broadcast512(w.fpMax)
	c.one = broadcast512(1)
	c.altMul = broadcast512(altMul)
	return c
}

// buckets512 computes the primary and alternate buckets and the
// fingerprints of the eight hashes in h.
func buckets512(c consts512, h VecVirtual) (i1, i2, fp VecVirtual) {
	i1, i2, fp = ZMM(), ZMM(), ZMM()
	t := ZMM()
	VPSRLQ(U8(32), h, t)
	VPMULUDQ(c.n, t, i1)
	VPSRLQ(U8(32), i1, i1)
	VPMULUDQ(c.fpMax, h, fp)
	VPSRLQ(U8(32), fp, fp)
	VPADDQ(c.one, fp, fp)
	VPMULUDQ(c.altMul, fp, t)
	VPMULUDQ(c.n, t, t)
	VPSRLQ(U8(32), t, t)
	VPSUBQ(i1, t, t) // d = H - i1, wrapped when H < i1
	VPADDQ(c.n, t, i2)
	VPMINUQ(t, i2, i2)
	return i1, i2, fp
}

// prefetch512 issues PREFETCHT0 for the sixteen buckets in i1 and i2.
func prefetch512(words GPVirtual, i1, i2 VecVirtual, scale uint8) {
	for _, idx := range []VecVirtual{i1, i2} {
		for q := 0; q < 4; q++ {
			x := idx.AsX()
			if q > 0 {
				x = XMM()
				VEXTRACTI32X4(U8(q), idx, x)
			}
			for k := 0; k < 2; k++ {
				r := GP64()
				if k == 0 {
					VMOVQ(x, r)
				} else {
					VPEXTRQ(U8(1), x, r)
				}
				PREFETCHT0(Mem{Base: words, Index: r, Scale: scale})
			}
		}
	}
}

func kernel512(w width) {
	name := fmt.Sprintf("cuckooContains%dAVX512", w.bits)
	TEXT(name, NOSPLIT, "func(words *uint64, buckets, victim uint64, hs []uint64, out []bool) int")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s probes len(hs)&^7 hashes against a table of %d-bit fingerprints,", name, w.bits),
		"writes out[i] for each, and returns how many are present. len(out) >= len(hs).")

	c := indexConsts512(w)
	v := GP64()
	Load(Param("victim"), v)
	c.victim = ZMM()
	VPBROADCASTQ(v, c.victim)
	lo, hi := broadcast512(w.shuffle[0]), broadcast512(w.shuffle[1])
	c.shuffle = ZMM()
	VPUNPCKLQDQ(hi, lo, c.shuffle) // lanes: lo, hi in each 128-bit half
	hs, length, out := GP64(), GP64(), GP64()
	Load(Param("hs").Base(), hs)
	Load(Param("hs").Len(), length)
	Load(Param("out").Base(), out)
	ANDQ(I8(^7), length)
	count := GP64()
	XORQ(count, count)
	bytes := GP64()
	MOVQ(U64(0x0101010101010101), bytes)
	scale := w.scale()

	Comment("Main loop: prefetch the buckets of the keys `ahead` positions on, probe eight.")
	Label(name + "_prefetch")
	CMPQ(length, U32(ahead512+8))
	JB(LabelRef(name + "_tail"))
	{
		h := ZMM()
		VMOVDQU64(Mem{Base: hs, Disp: 8 * ahead512}, h)
		i1, i2, _ := buckets512(c, h)
		prefetch512(c.words, i1, i2, scale)
	}
	probe512(w, c, hs, out, count, bytes, scale)
	ADDQ(U8(64), hs)
	ADDQ(U8(8), out)
	SUBQ(U8(8), length)
	JMP(LabelRef(name + "_prefetch"))

	Comment("Tail: the last keys have nothing left to prefetch.")
	Label(name + "_tail")
	CMPQ(length, U8(8))
	JB(LabelRef(name + "_done"))
	probe512(w, c, hs, out, count, bytes, scale)
	ADDQ(U8(64), hs)
	ADDQ(U8(8), out)
	SUBQ(U8(8), length)
	JMP(LabelRef(name + "_tail"))

	Label(name + "_done")
	Store(count, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// probe512 looks up the eight hashes at hs and writes eight bools at out.
func probe512(w width, c consts512, hs, out, count, bytes GPVirtual, scale uint8) {
	h := ZMM()
	VMOVDQU64(Mem{Base: hs}, h)
	i1, i2, fp := buckets512(c, h)
	pat := ZMM()
	VPSHUFB(c.shuffle, fp, pat)
	var match [2]OpmaskVirtual
	for j, idx := range []VecVirtual{i1, i2} {
		all := K()
		KXNORB(all, all, all)
		b := ZMM()
		if w.bits == 16 {
			VPXORQ(b, b, b)
			VPGATHERQQ(Mem{Base: c.words, Index: idx, Scale: scale}, all, b)
		} else {
			d := YMM()
			VPXORD(d, d, d)
			VPGATHERQD(Mem{Base: c.words, Index: idx, Scale: scale}, all, d)
			VPMOVZXDQ(d, b)
		}
		match[j] = K()
		if w.bits == 16 {
			VPCMPEQW(pat, b, match[j])
		} else {
			VPCMPEQB(pat, b, match[j])
		}
	}
	hit := GP64()
	if w.bits == 16 {
		KORD(match[1], match[0], match[0])
		KMOVD(match[0], hit.As32())
	} else {
		KORQ(match[1], match[0], match[0])
		KMOVQ(match[0], hit)
	}
	// Fold each key's group of slot bits (4 words, or the 4 bucket bytes
	// of 8) into its lowest bit, then gather those bits.
	t := GP64()
	MOVQ(hit, t)
	SHRQ(U8(1), t)
	ORQ(t, hit)
	MOVQ(hit, t)
	SHRQ(U8(2), t)
	ORQ(t, hit)
	sel := GP64()
	if w.bits == 16 {
		MOVL(U32(0x11111111), sel.As32())
		PEXTL(sel.As32(), hit.As32(), hit.As32())
	} else {
		PEXTQ(bytes, hit, hit)
	}
	// Victim: tag = fp<<32 | min(i1, i2).
	mn := ZMM()
	VPMINUQ(i2, i1, mn)
	VPSLLQ(U8(32), fp, fp)
	VPORQ(mn, fp, fp)
	vic := K()
	VPCMPEQQ(c.victim, fp, vic)
	vb := GP32()
	KMOVB(vic, vb)
	ORL(vb, hit.As32())
	n := GP32()
	POPCNTL(hit.As32(), n)
	ADDQ(n.As64(), count)
	PDEPQ(bytes, hit, hit) // one byte (0 or 1) per key
	MOVQ(hit, Mem{Base: out})
}

// locate512 is locate with eight hashes at a time.
func locate512(w width) {
	name := fmt.Sprintf("cuckooLocate%dAVX512", w.bits)
	TEXT(name, NOSPLIT, "func(words *uint64, buckets uint64, hs []uint64, locs []uint64)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s sets locs[i] = i1 | i2<<32, the two buckets of hs[i], for the", name),
		fmt.Sprintf("first len(hs)&^7 hashes, in a table of %d-bit fingerprints, and prefetches", w.bits),
		"both buckets. len(locs) >= len(hs).")
	c := indexConsts512(w)
	hs, length, locs := GP64(), GP64(), GP64()
	Load(Param("hs").Base(), hs)
	Load(Param("hs").Len(), length)
	Load(Param("locs").Base(), locs)
	ANDQ(I8(^7), length)
	scale := w.scale()

	Label(name + "_loop")
	CMPQ(length, U8(8))
	JB(LabelRef(name + "_done"))
	h := ZMM()
	VMOVDQU64(Mem{Base: hs}, h)
	i1, i2, _ := buckets512(c, h)
	packed := ZMM()
	VPSLLQ(U8(32), i2, packed)
	VPORQ(i1, packed, packed)
	VMOVDQU64(packed, Mem{Base: locs})
	prefetch512(c.words, i1, i2, scale)
	ADDQ(U8(64), hs)
	ADDQ(U8(64), locs)
	SUBQ(U8(8), length)
	JMP(LabelRef(name + "_loop"))

	Label(name + "_done")
	VZEROUPPER()
	RET()
}
