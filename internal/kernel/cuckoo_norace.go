//go:build !race && gc && !purego && (amd64 || arm64)

package kernel

func cuckooRaceAccess(t *CuckooTable, hs []uint64, out []bool) {}

func cuckooRaceLocate(hs, locs []uint64) {}

func cuckooRaceAlternates(is, bs, alts []uint64) {}

func cuckooRaceInsert(t *CuckooTable, hs []uint64, out []bool) {}
