package kernel

// cuckooBatchMin is the batch length below which the dispatchers stay in Go:
// an assembly call costs more than it saves for a handful of keys.
var cuckooBatchMin = 16

// CuckooContainsGeneric is the reference batch lookup: the portable twin of
// every assembly CuckooContains kernel. It computes the buckets of a chunk
// of keys before touching memory, so the chunk's loads are independent and
// overlap. It panics if len(out) < len(hs).
func CuckooContainsGeneric(t *CuckooTable, hs []uint64, out []bool) int {
	out = out[:len(hs)]
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
