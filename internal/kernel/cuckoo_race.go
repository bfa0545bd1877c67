//go:build race && gc && !purego && (amd64 || arm64)

package kernel

import (
	"runtime"
	"unsafe"
)

// cuckooRaceAccess tells the race detector what the assembly lookup
// kernels read and write, which it cannot see: the hashes and each key's
// two buckets (and the victim, a field of t, read in Go) are read, the
// bools written. The buckets are reported one by one, so the cost grows
// with the batch, not with the table.
func cuckooRaceAccess(t *CuckooTable, hs []uint64, out []bool) {
	if len(hs) > 0 {
		runtime.RaceReadRange(unsafe.Pointer(&hs[0]), 8*len(hs))
		runtime.RaceWriteRange(unsafe.Pointer(&out[0]), len(out))
		cuckooRaceBuckets(t, hs, false)
	}
}

// cuckooRaceBuckets reports each of hs's two buckets in t as read, or
// with write as written: an insert kernel writes one of them, which one
// only it knows, so both are reported (another goroutine reading either
// while a non-concurrent Filter inserts races anyway: an insert may move
// any fingerprint).
func cuckooRaceBuckets(t *CuckooTable, hs []uint64, write bool) {
	n, size := t.Buckets, uintptr(t.FPBits/2) // 4 slots of FPBits bits
	fpMax := uint64(1)<<t.FPBits - 1
	base := unsafe.Pointer(&t.Words[0])
	for _, h := range hs {
		i1 := CuckooIndex(h, n)
		for _, i := range [2]uint64{i1, CuckooAlt(i1, CuckooFingerprint(h, fpMax), n)} {
			p := unsafe.Add(base, uintptr(i)*size)
			if write {
				runtime.RaceWriteRange(p, int(size))
			} else {
				runtime.RaceReadRange(p, int(size))
			}
		}
	}
}

// cuckooRaceLocate is cuckooRaceAccess for CuckooLocate: hashes read,
// bucket pairs written (the kernels only prefetch the buckets).
func cuckooRaceLocate(hs, locs []uint64) {
	if len(hs) > 0 {
		runtime.RaceReadRange(unsafe.Pointer(&hs[0]), 8*len(hs))
		runtime.RaceWriteRange(unsafe.Pointer(&locs[0]), 8*len(locs))
	}
}

// cuckooRaceAlternates is cuckooRaceAccess for CuckooAlternates.
func cuckooRaceAlternates(is, bs, alts []uint64) {
	runtime.RaceReadRange(unsafe.Pointer(&is[0]), 8*len(is))
	runtime.RaceReadRange(unsafe.Pointer(&bs[0]), 8*len(is))
	runtime.RaceWriteRange(unsafe.Pointer(&alts[0]), 8*4*len(is))
}

// cuckooRaceInsert is cuckooRaceAccess for CuckooInsert, whose out may be
// nil: the hashes read, each key's two buckets written (see
// cuckooRaceBuckets), the bools written.
func cuckooRaceInsert(t *CuckooTable, hs []uint64, out []bool) {
	if len(hs) > 0 {
		runtime.RaceReadRange(unsafe.Pointer(&hs[0]), 8*len(hs))
		if out != nil {
			runtime.RaceWriteRange(unsafe.Pointer(&out[0]), len(out))
		}
		cuckooRaceBuckets(t, hs, true)
	}
}
