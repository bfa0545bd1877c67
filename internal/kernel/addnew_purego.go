//go:build purego || !gc || !(amd64 || arm64)

package kernel

func blockedAddNew(blocks []Block, k int, hs []uint64, out []bool) int {
	return BlockedAddNewGeneric(blocks, k, hs, out)
}

// BlockedAddNew1 sets the t.K probe bits of hash h in its block of t.Blocks
// and reports whether one of them was clear (the key was new): the
// single-key add-if-new, bit for bit BlockedAddNew1Generic. The contract is
// BlockedContains1's. It inlines, so an add costs one call.
func BlockedAddNew1(t *BlockedTable, h uint64) bool { return blockedAddNew1Go(t, h) }
