//go:build purego || !gc || !(amd64 || arm64)

package kernel

func cuckooContains(t *CuckooTable, hs []uint64, out []bool) int {
	return CuckooContainsGeneric(t, hs, out)
}

func cuckooLocate(t *CuckooTable, hs, locs []uint64) { CuckooLocateGeneric(t, hs, locs) }

func cuckooLocatePrefetches() bool { return false }

func cuckooAlternates(t *CuckooTable, is, bs, alts []uint64) {
	CuckooAlternatesGeneric(t, is, bs, alts)
}

func cuckooInsert(t *CuckooTable, hs []uint64, out []bool) (int, int) {
	return CuckooInsertGeneric(t, hs, out)
}

func cuckooInsertKernel() bool { return false }

// choiceNote: every kernel of this build runs whole (see cuckoo_amd64.go).
func choiceNote(Op, string) string { return "" }
