package main

// The AVX-512 insert kernels: cuckoo.Filter.AddHashes (and AddNewHashes)
// below 3/4 load, eight keys per iteration, placed exactly as a loop of
// AddHash places them (internal/kernel/cuckoo.go, "Insert contract").
//
// Per group of eight keys, one per qword lane:
//
//  1. the buckets and fingerprints, as the lookup kernels compute them;
//  2. VPCONFLICTD over the sixteen bucket indexes (i1s, then i2s, as
//     dwords): if any two are equal (two keys share a bucket, or a key's
//     two buckets are one), the group stops the kernel, because the keys
//     must then see each other's writes in order;
//  3. both buckets gathered; every empty slot becomes an all-ones word
//     (byte) lane z1, z2 (VPCMPEQW/B against zero, VPMOVM2W/B); for the
//     add-if-new form the fingerprint's matches give the present keys;
//  4. a key (not present) with no empty slot in either bucket stops the
//     kernel before the group: it must relocate;
//  5. the emptier bucket is the second when z1 < z2 as unsigned qwords,
//     the comparison of add's free-lane masks (secondEmptier): lanes fill
//     from slot 0, and the highest slot that differs decides both;
//  6. the lowest free slot's lane is (low<<f) - low with low = z & -z, the
//     fingerprint (replicated in every lane) is ANDed into it and ORed into
//     the chosen bucket, and the eight buckets are scattered back
//     (no two equal, by step 2; present keys masked off).
//
// A stopping group is left to the caller's loop (which then calls again
// after it), so the kernel returns how many keys it placed, a multiple of
// eight.

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The insert kernels' prefetch distance in keys is their argument ahead
// (a multiple of 8), chosen by the table's size in internal/kernel
// (cuckooInsertAhead).

// insert512 writes cuckooInsert{8,16}AVX512 (ifNew false) or
// cuckooInsertNew{8,16}AVX512.
func insert512(w width, ifNew bool) {
	name := fmt.Sprintf("cuckooInsert%dAVX512", w.bits)
	sig := "func(words *uint64, buckets uint64, hs []uint64, ahead int) int"
	what := "inserts"
	if ifNew {
		name = fmt.Sprintf("cuckooInsertNew%dAVX512", w.bits)
		sig = "func(words *uint64, buckets uint64, hs []uint64, out []bool, ahead int) (n int, added int)"
		what = "adds if new"
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	doc := []string{
		fmt.Sprintf("%s %s the hashes of hs[:len(hs)&^7], eight at a time, into a", name, what),
		fmt.Sprintf("table of %d-bit fingerprints as a loop of single adds would, and returns how", w.bits),
		"many it went through: it stops before the first group of eight in which two",
		"keys share a bucket or a key (not present) has both buckets full. It",
		"prefetches the buckets of the keys ahead on (a multiple of 8).",
	}
	if ifNew {
		// One Doc call: avo's Doc replaces the lines, it does not append.
		doc = append(doc, "out[i] is set for each key gone through (true: added), and added counts",
			"the trues; out[n:] is left as it was. len(out) >= len(hs).")
	}
	Doc(doc...)

	c := indexConsts512(w)
	lo, hi := broadcast512(w.shuffle[0]), broadcast512(w.shuffle[1])
	c.shuffle = ZMM()
	VPUNPCKLQDQ(hi, lo, c.shuffle)
	zero := ZMM()
	VPXORQ(zero, zero, zero)
	var lanes VecVirtual // 8-bit: the four bucket bytes of each qword lane
	if w.bits == 8 {
		lanes = broadcast512(0xffffffff)
	}
	hs, length, ahead := GP64(), GP64(), GP64()
	Load(Param("hs").Base(), hs)
	Load(Param("hs").Len(), length)
	ANDQ(I8(^7), length)
	Load(Param("ahead"), ahead)
	var out, added, bytes GPVirtual
	if ifNew {
		out, added, bytes = GP64(), GP64(), GP64()
		Load(Param("out").Base(), out)
		XORQ(added, added)
		MOVQ(U64(0x0101010101010101), bytes)
	}
	done := GP64()
	XORQ(done, done)
	scale := w.scale()

	Label(name + "_loop")
	CMPQ(length, U8(8))
	JB(LabelRef(name + "_done"))
	{
		// Prefetch only while the eight keys ahead on are in hs (both
		// multiples of 8: length > ahead).
		CMPQ(length, ahead)
		JBE(LabelRef(name + "_group"))
		h := ZMM()
		VMOVDQU64(Mem{Base: hs, Index: ahead, Scale: 8}, h)
		i1, i2, _ := buckets512(c, h)
		prefetch512(c.words, i1, i2, scale)
	}
	Label(name + "_group")
	h := ZMM()
	VMOVDQU64(Mem{Base: hs}, h)
	i1, i2, fp := buckets512(c, h)

	Comment("Any bucket index twice among the sixteen: stop.")
	{
		a, b := YMM(), YMM()
		VPMOVQD(i1, a)
		VPMOVQD(i2, b)
		all := ZMM()
		VINSERTI64X4(U8(1), b, a.AsZ(), all)
		cf := ZMM()
		VPCONFLICTD(all, cf)
		k := K()
		VPTESTMD(cf, cf, k)
		KORTESTW(k, k)
		JNZ(LabelRef(name + "_done"))
	}

	Comment("Gather both buckets; empty slots as all-ones lanes.")
	var b [2]VecVirtual
	var z [2]VecVirtual
	for j, idx := range []VecVirtual{i1, i2} {
		all := K()
		KXNORB(all, all, all)
		b[j] = ZMM()
		if w.bits == 16 {
			VPXORQ(b[j], b[j], b[j])
			VPGATHERQQ(Mem{Base: c.words, Index: idx, Scale: scale}, all, b[j])
		} else {
			d := YMM()
			VPXORD(d, d, d)
			VPGATHERQD(Mem{Base: c.words, Index: idx, Scale: scale}, all, d)
			VPMOVZXDQ(d, b[j])
		}
		e := K()
		z[j] = ZMM()
		if w.bits == 16 {
			VPCMPEQW(zero, b[j], e)
			VPMOVM2W(e, z[j])
		} else {
			VPCMPEQB(zero, b[j], e)
			VPMOVM2B(e, z[j])
			VPANDQ(lanes, z[j], z[j])
		}
	}
	pat := ZMM()
	VPSHUFB(c.shuffle, fp, pat)

	// store: the keys to write (all, or those not present).
	store := K()
	if ifNew {
		var m [2]OpmaskVirtual
		for j := range b {
			m[j] = K()
			if w.bits == 16 {
				VPCMPEQW(pat, b[j], m[j])
			} else {
				VPCMPEQB(pat, b[j], m[j])
			}
		}
		zm := ZMM()
		if w.bits == 16 {
			KORD(m[1], m[0], m[0])
			VPMOVM2W(m[0], zm)
		} else {
			KORQ(m[1], m[0], m[0])
			VPMOVM2B(m[0], zm)
		}
		VPTESTNMQ(zm, zm, store) // no slot matches: new
	} else {
		KXNORB(store, store, store)
	}

	Comment("A key to store with no empty slot in either bucket: stop.")
	{
		zu := ZMM()
		VPORQ(z[1], z[0], zu)
		full := K()
		VPTESTNMQ(zu, zu, store, full)
		KORTESTB(full, full)
		JNZ(LabelRef(name + "_done"))
	}

	Comment("The emptier bucket (the second if z1 < z2), its lowest free slot.")
	second := K()
	VPCMPUQ(U8(1), z[1], z[0], second) // z[0] < z[1]
	i, bk, zk := ZMM(), ZMM(), ZMM()
	VPBLENDMQ(i2, i1, second, i)
	VPBLENDMQ(b[1], b[0], second, bk)
	VPBLENDMQ(z[1], z[0], second, zk)
	low := ZMM()
	VPSUBQ(zk, zero, low)
	VPANDQ(zk, low, low) // z & -z: the lowest bit of the lowest free lane
	lane := ZMM()
	VPSLLQ(U8(w.bits), low, lane)
	VPSUBQ(low, lane, lane) // (low << f) - low: that whole lane
	VPANDQ(pat, lane, lane)
	VPORQ(lane, bk, bk)
	if ifNew {
		r := GP32()
		KMOVB(store, r)
		n := GP32()
		POPCNTL(r, n)
		ADDQ(n.As64(), added)
		PDEPQ(bytes, r.As64(), r.As64())
		MOVQ(r.As64(), Mem{Base: out})
	}
	if w.bits == 16 {
		VPSCATTERQQ(bk, store, Mem{Base: c.words, Index: i, Scale: scale})
	} else {
		d := YMM()
		VPMOVQD(bk, d)
		VPSCATTERQD(d, store, Mem{Base: c.words, Index: i, Scale: scale})
	}
	ADDQ(U8(64), hs)
	if ifNew {
		ADDQ(U8(8), out)
	}
	ADDQ(U8(8), done)
	SUBQ(U8(8), length)
	JMP(LabelRef(name + "_loop"))

	Label(name + "_done")
	Store(done, ReturnIndex(0))
	if ifNew {
		Store(added, ReturnIndex(1))
	}
	VZEROUPPER()
	RET()
}
