//go:build race && gc && !purego && (amd64 || arm64)

package kernel

import (
	"runtime"
	"unsafe"
)

// cuckooRaceAccess tells the race detector what the assembly kernels read
// and write, which it cannot see: the hashes are read, the bools written.
// (The bucket array is read too; it is not annotated because one call would
// then cost a pass over the whole table.)
func cuckooRaceAccess(hs []uint64, out []bool) {
	if len(hs) > 0 {
		runtime.RaceReadRange(unsafe.Pointer(&hs[0]), 8*len(hs))
		runtime.RaceWriteRange(unsafe.Pointer(&out[0]), len(out))
	}
}

// cuckooRaceLocate is cuckooRaceAccess for CuckooLocate: hashes read,
// bucket pairs written.
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
// nil. (The buckets it writes are not annotated, as in cuckooRaceAccess.)
func cuckooRaceInsert(hs []uint64, out []bool) {
	if len(hs) > 0 {
		runtime.RaceReadRange(unsafe.Pointer(&hs[0]), 8*len(hs))
		if out != nil {
			runtime.RaceWriteRange(unsafe.Pointer(&out[0]), len(out))
		}
	}
}
