package kernel

import "math/bits"

// cuckooBatchMin is the batch length below which the dispatchers stay in Go:
// an assembly call costs more than it saves for a handful of keys.
var cuckooBatchMin = 16

// CuckooContainsGeneric is the reference batch lookup: the portable twin of
// every assembly CuckooContains kernel. It computes the buckets of a chunk
// of keys before touching memory, so the chunk's loads are independent and
// overlap. It panics if len(out) < len(hs).
func CuckooContainsGeneric(t *CuckooTable, hs []uint64, out []bool) int {
	out = outputs(out, len(hs))
	n := t.Buckets
	words := t.Words
	fpMax := uint64(1)<<t.FPBits - 1
	// Bucket i is bits (i&wordMask)<<5 of word i>>wordShift.
	var wordShift, wordMask, lo, hi uint64 = 0, 0, cuckooLo16, cuckooHi16
	if t.FPBits == 8 {
		wordShift, wordMask, lo, hi = 1, 1, cuckooLo8, cuckooHi8
	}
	victim := t.Victim
	count := 0
	var i1s, i2s, fps [chunk]uint64
	for len(hs) > 0 {
		c := min(len(hs), chunk)
		for k, h := range hs[:c] {
			i1 := CuckooIndex(h, n)
			fp := CuckooFingerprint(h, fpMax)
			i1s[k], i2s[k], fps[k] = i1, CuckooAlt(i1, fp, n), fp
		}
		for k := range hs[:c] {
			i1, i2, fp := i1s[k], i2s[k], fps[k]
			b1 := words[i1>>wordShift] >> ((i1 & wordMask) << 5)
			b2 := words[i2>>wordShift] >> ((i2 & wordMask) << 5)
			pat := fp * lo
			x1, x2 := b1^pat, b2^pat
			hit := ((x1 - lo) &^ x1 & hi) | ((x2 - lo) &^ x2 & hi)
			// r is 1 for a hit and 0 otherwise, without a branch.
			r := hit | CuckooVictimHit(CuckooTag(fp, min(i1, i2)), victim)
			r = (r | -r) >> 63
			out[k] = r != 0
			count += int(r)
		}
		hs, out = hs[c:], out[c:]
	}
	return count
}

// CuckooLocateGeneric is the reference CuckooLocate: the portable twin of
// the assembly locate kernels, computing the same buckets with no prefetch.
// It panics if len(locs) < len(hs).
func CuckooLocateGeneric(t *CuckooTable, hs, locs []uint64) {
	locs = locs[:len(hs)]
	n := t.Buckets
	fpMax := uint64(1)<<t.FPBits - 1
	for k, h := range hs {
		i1 := CuckooIndex(h, n)
		locs[k] = i1 | CuckooAlt(i1, CuckooFingerprint(h, fpMax), n)<<32
	}
}

// CuckooAlternatesGeneric is the reference CuckooAlternates, with no
// prefetch. It panics if len(bs) < len(is) or len(alts) < 4*len(is).
func CuckooAlternatesGeneric(t *CuckooTable, is, bs, alts []uint64) {
	bs, alts = bs[:len(is)], alts[:4*len(is)]
	n, f := t.Buckets, uint64(t.FPBits)
	fpMax := uint64(1)<<f - 1
	for k, i := range is {
		b := bs[k]
		a := alts[4*k : 4*k+4]
		for s := range a {
			a[s] = CuckooAlt(i, b>>(f*uint64(s))&fpMax, n)
		}
	}
}

// CuckooInsertGeneric is the reference CuckooInsert (see the insert
// contract in the package doc), the portable twin of the assembly insert
// kernels: the same groups, the same stops, the same table. It panics if
// out is not nil and len(out) < len(hs).
func CuckooInsertGeneric(t *CuckooTable, hs []uint64, out []bool) (n, added int) {
	if out != nil {
		out = out[:len(hs)]
	}
	nb := t.Buckets
	fb := uint64(t.FPBits)
	fpMax := uint64(1)<<fb - 1
	var wordShift, wordMask, lo, hi uint64 = 0, 0, cuckooLo16, cuckooHi16
	if fb == 8 {
		wordShift, wordMask, lo, hi = 1, 1, cuckooLo8, cuckooHi8
	}
	bucket := func(i uint64) uint64 {
		return t.Words[i>>wordShift] >> ((i & wordMask) << 5) & (hi | (hi - lo))
	}
	// empty returns the top bit of every empty lane of bucket value b.
	empty := func(b uint64) uint64 { return ^((b&(hi-lo) + (hi - lo)) | b) & hi }
	for ; n+8 <= len(hs); n += 8 {
		var idx [16]uint64
		var fps, b1, b2, e1, e2 [8]uint64
		var present [8]bool
		for k, h := range hs[n : n+8] {
			i1 := CuckooIndex(h, nb)
			fps[k] = CuckooFingerprint(h, fpMax)
			idx[k], idx[8+k] = i1, CuckooAlt(i1, fps[k], nb)
		}
		for a := range idx {
			for b := a + 1; b < len(idx); b++ {
				if idx[a] == idx[b] {
					return n, added
				}
			}
		}
		for k := range fps {
			b1[k], b2[k] = bucket(idx[k]), bucket(idx[8+k])
			e1[k], e2[k] = empty(b1[k]), empty(b2[k])
			present[k] = out != nil && empty(b1[k]^fps[k]*lo)|empty(b2[k]^fps[k]*lo) != 0
			if !present[k] && e1[k]|e2[k] == 0 {
				return n, added
			}
		}
		for k, fp := range fps {
			if out != nil {
				out[n+k] = !present[k]
			}
			if present[k] {
				continue
			}
			i, e := idx[k], e1[k]
			if e1[k] < e2[k] {
				i, e = idx[8+k], e2[k]
			}
			slot := uint64(bits.TrailingZeros64(e)) / fb // the lane of e's lowest bit
			t.Words[i>>wordShift] |= fp << ((i&wordMask)<<5 + slot*fb)
			added++
		}
	}
	return n, added
}
