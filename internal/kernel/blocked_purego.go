//go:build purego || !gc || !(amd64 || arm64)

package kernel

func blockedAdd(blocks []Block, k int, hs []uint64) { BlockedAddGeneric(blocks, k, hs) }

func blockedContains(blocks []Block, k int, hs []uint64, out []bool) int {
	return BlockedContainsGeneric(blocks, k, hs, out)
}

// BlockedContains1 reports whether the key with hash h is present in
// t.Blocks with t.K probes: the single-key probe, bit for bit
// BlockedContains1Generic. It panics if t.Blocks is empty; callers
// guarantee 1 <= t.K <= MaxK. It keeps t (so the object holding it) alive
// until it returns, so a caller whose memory a finalizer may unmap needs no
// runtime.KeepAlive of its own. It inlines, so a lookup costs one call.
func BlockedContains1(t *BlockedTable, h uint64) bool {
	return blockedContains1Go(t, h)
}

// BlockedAdd1 sets the t.K probe bits of hash h in its block of t.Blocks:
// the single-key insert, bit for bit BlockedAdd1Generic. The contract is
// BlockedContains1's.
func BlockedAdd1(t *BlockedTable, h uint64) { blockedAdd1Go(t, h) }
