//go:build gc && !purego

package kernel

// Two arm64 batch lookups share the index math (13 instructions per key: no
// vector 64-bit multiply-high, so it is scalar in both), the victim check
// (5), the bool store and count (3), and the prefetch of the key 16
// positions ahead (18). They differ in the compare, chosen by instruction
// count because qemu's timings are emulated and decide nothing:
//
//   - scalar SWAR: 2 LDR, MUL for the pattern, 2 EOR, 2 SUB, 2 BIC, ORR,
//     AND, CMP, CSET: 13 instructions;
//   - NEON: 2 ADD for the addresses, 2 LD1 single-lane loads straight into
//     one vector, DUP, one CMEQ for all eight slots, then UMAXV + UMOV + AND
//     (16-bit) or UMOV + CMP + CSET (8-bit): 9 instructions.
//
// NEON is 9 against 13, 35 against 39 per key in all, and is the default.
// The scalar kernels stay, tested alike, as the fallback to flip to should a
// benchmark on real hardware show the vector-to-general transfer (UMOV) and
// the lane loads costing more than the four instructions they save.

func cuckooContains(t *CuckooTable, hs []uint64, out []bool) int {
	if cuckooContainsSet != setNEON || len(hs) < cuckooBatchMin {
		return CuckooContainsGeneric(t, hs, out)
	}
	cuckooRaceAccess(t, hs, out)
	switch {
	case cuckooScalar && t.FPBits == 8:
		return cuckooContains8Scalar(&t.Words[0], t.Buckets, t.Victim, hs, out)
	case cuckooScalar:
		return cuckooContains16Scalar(&t.Words[0], t.Buckets, t.Victim, hs, out)
	case t.FPBits == 8:
		return cuckooContains8NEON(&t.Words[0], t.Buckets, t.Victim, hs, out)
	}
	return cuckooContains16NEON(&t.Words[0], t.Buckets, t.Victim, hs, out)
}

// cuckooScalar selects the scalar SWAR kernels instead of the NEON ones
// (tests run both; a benchmark on real hardware may flip the default).
var cuckooScalar = false

// cuckooContains8NEON probes every hash of hs against a table of 8-bit
// fingerprints, writes out[i] for each, and returns how many are present.
// len(out) >= len(hs) >= 1.
//
//go:noescape
func cuckooContains8NEON(words *uint64, buckets, victim uint64, hs []uint64, out []bool) int

// cuckooContains16NEON is cuckooContains8NEON for 16-bit fingerprints.
//
//go:noescape
func cuckooContains16NEON(words *uint64, buckets, victim uint64, hs []uint64, out []bool) int

// cuckooContains8Scalar probes every hash of hs against a table of 8-bit
// fingerprints, writes out[i] for each, and returns how many are present.
// len(out) >= len(hs) >= 1.
//
//go:noescape
func cuckooContains8Scalar(words *uint64, buckets, victim uint64, hs []uint64, out []bool) int

// cuckooContains16Scalar is cuckooContains8Scalar for 16-bit fingerprints.
//
//go:noescape
func cuckooContains16Scalar(words *uint64, buckets, victim uint64, hs []uint64, out []bool) int

func cuckooLocate(t *CuckooTable, hs, locs []uint64) {
	if cuckooAddSet != setNEON || len(hs) == 0 {
		CuckooLocateGeneric(t, hs, locs)
		return
	}
	cuckooRaceLocate(hs, locs)
	if t.FPBits == 8 {
		cuckooLocate8(&t.Words[0], t.Buckets, hs, locs)
	} else {
		cuckooLocate16(&t.Words[0], t.Buckets, hs, locs)
	}
}

func cuckooLocatePrefetches() bool { return cuckooAddSet == setNEON }

// cuckooLocate8 sets locs[i] = i1 | i2<<32, the two buckets of hs[i], in a
// table of 8-bit fingerprints, and prefetches both buckets. len(locs) >=
// len(hs) >= 1.
//
//go:noescape
func cuckooLocate8(words *uint64, buckets uint64, hs []uint64, locs []uint64)

// cuckooLocate16 is cuckooLocate8 for 16-bit fingerprints.
//
//go:noescape
func cuckooLocate16(words *uint64, buckets uint64, hs []uint64, locs []uint64)

func cuckooAlternates(t *CuckooTable, is, bs, alts []uint64) {
	if cuckooAddSet != setNEON || len(is) == 0 {
		CuckooAlternatesGeneric(t, is, bs, alts)
		return
	}
	cuckooRaceAlternates(is, bs, alts)
	if t.FPBits == 8 {
		cuckooAlternates8(&t.Words[0], t.Buckets, is, bs, alts)
	} else {
		cuckooAlternates16(&t.Words[0], t.Buckets, is, bs, alts)
	}
}

// cuckooAlternates8 sets alts[4k+s] to the alternate bucket of slot s of
// bucket is[k], whose value is bs[k], in a table of 8-bit fingerprints, and
// prefetches it. len(bs) >= len(is) >= 1, len(alts) >= 4*len(is).
//
//go:noescape
func cuckooAlternates8(words *uint64, buckets uint64, is []uint64, bs []uint64, alts []uint64)

// cuckooAlternates16 is cuckooAlternates8 for 16-bit fingerprints.
//
//go:noescape
func cuckooAlternates16(words *uint64, buckets uint64, is []uint64, bs []uint64, alts []uint64)

// There is no NEON insert kernel (CuckooInsert): cuckoo.Filter.AddHashes
// keeps its Go loop on arm64.
func cuckooInsert(t *CuckooTable, hs []uint64, out []bool) (int, int) {
	return CuckooInsertGeneric(t, hs, out)
}

func cuckooInsertKernel() bool { return false }

// choiceNote: every kernel of this build runs whole (see cuckoo_amd64.go).
func choiceNote(Op, string) string { return "" }
