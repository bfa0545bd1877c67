package kernel

// Cuckoo filter geometry and batch lookup.
//
// A cuckoo table is an array of Buckets buckets of 4 fingerprint slots. With
// 16-bit fingerprints a bucket is one uint64 (slot s in bits 16s..16s+15);
// with 8-bit fingerprints a bucket is a uint32 (slot s in bits 8s..8s+7) and
// two buckets share a uint64 word: bucket i is bits 32*(i&1).. of word i>>1,
// which on a little-endian machine is the uint32 at byte offset 4*i. A slot
// holding 0 is empty; fingerprints are never 0.
//
// A 64-bit key hash h is split in two halves:
//
//   - the high half picks the primary bucket by multiply-shift:
//     CuckooIndex(h, n) = (h>>32) * n >> 32, for any 1 <= n <= MaxCuckooBuckets;
//   - the low half picks the fingerprint, uniformly in [1, 2^f-1]:
//     CuckooFingerprint(h, f) = uint32(h) * (2^f-1) >> 32 + 1 (the product in
//     64 bits), so 0 is never produced and no value is favoured (the counts
//     of 32-bit inputs per fingerprint differ by at most one in 2^(32-f)).
//
// The alternate bucket is CuckooAlt(i, fp, n) = (H(fp) - i) mod n, where
// H(fp) = uint32(fp*CuckooAltMul) * n >> 32 is a multiply-shift of the
// fingerprint into [0, n). It is an involution for every n: H(fp) - (H(fp) -
// i) = i (mod n), so from either bucket and the fingerprint the other one is
// found, as partial-key cuckoo hashing needs, without a power-of-two n.
//
// The victim is a fingerprint that found no slot (see package cuckoo). It is
// described by one tag, CuckooTag(fp, min(i, CuckooAlt(i, fp, n))): the
// fingerprint and the smaller of its two buckets. A key is present when
// either of its buckets holds its fingerprint or CuckooTag(fp, min(i1, i2))
// equals the victim tag: with equal fingerprints the alternate-bucket map is
// the same involution, whose orbits {i, alt(i)} are named by their smaller
// member, so equal tags mean the same fingerprint in the same bucket pair.
// The tag is 0 when there is no victim; a real tag is never 0 because fp >= 1.
//
// # Batch contract
//
// CuckooContains(t, hs, out) writes out[i] for every i < len(hs) and returns
// how many are true; it panics if len(out) < len(hs). It neither allocates
// nor retains its arguments. Callers guarantee a valid table: FPBits is 8 or
// 16, 1 <= Buckets <= MaxCuckooBuckets and Words holds CuckooWords(Buckets,
// FPBits) words.
//
// CuckooLocate(t, hs, locs) writes locs[i] = CuckooIndex(hs[i]) |
// CuckooAlt(...)<<32, the two buckets of every hash (each below 2^32), for
// a batch insert to use a little later; the assembly kernels also prefetch
// both buckets' cache lines, which a Go load cannot do without waiting for
// them. It panics if len(locs) < len(hs), and neither allocates nor
// retains its arguments.
//
// CuckooAlternates(t, is, bs, alts) writes alts[4k+s] = CuckooAlt(is[k],
// slot s of bucket value bs[k], Buckets): where each fingerprint of a full
// bucket would move to. The assembly kernels also prefetch those buckets,
// for a relocation about to start from is[k]. It panics if len(bs) <
// len(is) or len(alts) < 4*len(is).

// # Insert contract
//
// CuckooInsert(t, hs, out) places keys of hs into the table exactly as a
// loop of cuckoo.Filter.AddHash would, for as long as no key needs more
// than its own two buckets: each key's fingerprint goes into the lowest
// free slot of the emptier of its buckets (the first on a tie; the
// comparison of their free-slot masks as numbers, see package cuckoo). It
// works in groups of eight keys, in order, and stops before the first
// group in which two of the sixteen bucket indexes are equal (two keys
// share a bucket, whose writes the later key must see, or a key's two
// buckets are one) or a key to place has both buckets full (it must
// relocate; with out, a key whose fingerprint is present does not stop
// it, whatever its buckets hold), and before any tail of fewer than eight
// keys. It returns how
// many keys it went through, n (a multiple of eight), and how many of them
// it added. With out nil it adds every key (added == n). With out, it is
// add-if-new: a key whose fingerprint is in one of its buckets is left
// out, out[i] is set for every i < n (true: added), out[n:] is left as it
// was, and it panics if len(out) < len(hs). It does not look at the
// victim (a key whose tag is the victim's is placed like any other): the
// caller's victim slot must be free. Buckets must be at least 1; the kernels neither
// allocate nor retain their arguments.

// MaxCuckooBuckets is the largest bucket count the 32-bit index math covers.
const MaxCuckooBuckets = 1<<32 - 1

// CuckooSlots is the number of fingerprint slots per bucket.
const CuckooSlots = 4

// CuckooAltMul is the odd multiplier that spreads a fingerprint over the
// table for the alternate bucket. It is part of the file format.
const CuckooAltMul = 0x9e3779b1

// SWAR constants: lanes of ones and lanes of high bits, per fingerprint width.
const (
	cuckooLo8  = 0x01010101
	cuckooHi8  = 0x80808080
	cuckooLo16 = 0x0001000100010001
	cuckooHi16 = 0x8000800080008000
)

// CuckooTable is a cuckoo filter's bucket array as the batch kernels see it.
type CuckooTable struct {
	Words   []uint64 // the buckets, laid out as the package doc says
	Buckets uint64   // number of buckets, 1..MaxCuckooBuckets
	FPBits  uint     // fingerprint width: 8 or 16
	// Victim is the victim's tag, 0 when there is none.
	Victim uint64
}

// CuckooWords returns how many uint64 words hold n buckets of fpBits-bit
// fingerprints.
func CuckooWords(n uint64, fpBits uint) uint64 {
	if fpBits == 8 {
		return (n + 1) / 2
	}
	return n
}

// CuckooIndex maps h to its primary bucket in [0, n).
func CuckooIndex(h, n uint64) uint64 {
	return (h >> 32) * n >> 32
}

// CuckooFingerprint maps h to a fingerprint in [1, fpMax], where fpMax is
// 2^f - 1 for f-bit fingerprints.
func CuckooFingerprint(h, fpMax uint64) uint64 {
	return uint64(uint32(h))*fpMax>>32 + 1
}

// CuckooAlt returns the other bucket of fingerprint fp stored in bucket i,
// with n buckets: (H(fp) - i) mod n, computed without a branch.
func CuckooAlt(i, fp, n uint64) uint64 {
	// d wraps around (its top bit set: both terms are below 2^32) exactly
	// when H(fp) < i; then d+n is the true difference mod n. The sign
	// mask adds n without a branch: Go compiles min(d, d+n) to a jump
	// here, which a random key mispredicts half the time.
	d := uint64(uint32(fp*CuckooAltMul))*n>>32 - i
	return d + n&uint64(int64(d)>>63)
}

// CuckooTag packs a fingerprint and the smaller of its two buckets for the
// victim check.
func CuckooTag(fp, i uint64) uint64 { return fp<<32 | i }

// CuckooVictimHit returns 1 when tag equals the victim tag v and 0
// otherwise, without a branch: (x-1)&^x has its top bit set only for x == 0.
func CuckooVictimHit(tag, v uint64) uint64 {
	x := tag ^ v
	return ((x - 1) &^ x) >> 63
}

// CuckooContains probes every hash of hs, writes out[i], and returns the
// number present, using the kernel set in use. It panics if len(out) < len(hs).
func CuckooContains(t *CuckooTable, hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("kernel: CuckooContains: len(out) < len(hs)")
	}
	return cuckooContains(t, hs, out[:len(hs)])
}

// CuckooLocate computes the two buckets of every hash of hs into locs
// (locs[i] = i1 | i2<<32) and, with an assembly kernel in use, prefetches
// them (see CuckooLocatePrefetches). It panics if len(locs) < len(hs).
func CuckooLocate(t *CuckooTable, hs, locs []uint64) {
	if len(locs) < len(hs) {
		panic("kernel: CuckooLocate: len(locs) < len(hs)")
	}
	cuckooLocate(t, hs, locs[:len(hs)])
}

// CuckooLocatePrefetches reports whether CuckooLocate prefetches with the
// kernel set in use; when it does not, a caller that wants the lines in
// cache has to load them.
func CuckooLocatePrefetches() bool { return cuckooLocatePrefetches() }

// CuckooAlternates computes the alternate buckets of the four fingerprints
// of every bucket is[k] (value bs[k]) into alts[4k:4k+4] and, with an
// assembly kernel in use, prefetches them. It panics if len(bs) < len(is)
// or len(alts) < 4*len(is).
func CuckooAlternates(t *CuckooTable, is, bs, alts []uint64) {
	if len(bs) < len(is) || len(alts) < 4*len(is) {
		panic("kernel: CuckooAlternates: len(bs) < len(is) or len(alts) < 4*len(is)")
	}
	cuckooAlternates(t, is, bs[:len(is)], alts[:4*len(is)])
}

// CuckooInsert places keys of hs into t as the insert contract in the
// package doc says, with the kernel set in use, and returns how many it went
// through and how many it added. Without an insert kernel (see
// CuckooInsertKernel) it runs CuckooInsertGeneric.
func CuckooInsert(t *CuckooTable, hs []uint64, out []bool) (n, added int) {
	if out != nil {
		if len(out) < len(hs) {
			panic("kernel: CuckooInsert: len(out) < len(hs)")
		}
		out = out[:len(hs)]
	}
	return cuckooInsert(t, hs, out)
}

// CuckooInsertKernel reports whether CuckooInsert runs an assembly kernel
// with the kernel set in use (today: avx512, with AVX-512 CD). Where it
// does not, callers have faster loops of their own than the generic twin.
func CuckooInsertKernel() bool { return cuckooInsertKernel() }

// cuckooInsertAhead returns the insert kernels' prefetch distance, in
// keys, for a bucket array of words 64-bit words: 128 from
// cuckooInsertAheadFrom bytes (4 MiB) on, 64 below. Filling a 16-bit
// filter of 1e7 keys (a 21 MB array) from empty to 95% load, the bands
// below half load took 2.50 and 2.74 ns a key with this rule against 3.26
// and 3.25 with 64 everywhere, and the whole fill 11.0 against 11.4
// (medians of five alternated rounds); at 1e6 keys (2.1 MB, in the
// last-level cache) a fixed 128 was 1-5% slower in those bands and 1.7%
// over the fill, and 256 was no better than 128 at 1e7 (three rounds).
// AMD EPYC family 26 model 2 (Zen 5), BenchmarkFillCurve in package
// cuckoo; bench/README.md, "The insert kernel's prefetch distance on
// large tables", has the table and the commands.
func cuckooInsertAhead(words int) int {
	if words*8 >= cuckooInsertAheadFrom {
		return 128
	}
	return 64
}

// cuckooInsertAheadFrom is the smallest bucket array, in bytes, that the
// insert kernels prefetch 128 keys ahead on (a variable for the tests,
// which run the longer distance on small tables too).
var cuckooInsertAheadFrom = 4 << 20
