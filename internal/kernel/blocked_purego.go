//go:build purego || !gc || !(amd64 || arm64)

package kernel

func blockedAdd(blocks []Block, k int, hs []uint64) { BlockedAddGeneric(blocks, k, hs) }

func blockedContains(blocks []Block, k int, hs []uint64, out []bool) int {
	return BlockedContainsGeneric(blocks, k, hs, out)
}

// BlockedContains1 reports whether the key with hash h is present in
// *blocks with k probes: the single-key probe, bit for bit
// BlockedContains1Generic. It takes the slice by pointer so that the amd64
// assembly gets two of its three arguments from one pointer (every
// argument of an assembly call is a store and a load). It panics if
// *blocks is empty; callers guarantee 1 <= k <= MaxK. It keeps blocks (so
// the object holding the slice header) alive until it returns, so a caller
// whose memory a finalizer may unmap needs no runtime.KeepAlive of its own.
// It inlines, so a lookup costs one call.
func BlockedContains1(blocks *[]Block, k int, h uint64) bool {
	return blockedContains1Go(blocks, k, h)
}

// BlockedAdd1 sets the k probe bits of hash h in its block of *blocks: the
// single-key insert, bit for bit BlockedAdd1Generic. The contract is
// BlockedContains1's.
func BlockedAdd1(blocks *[]Block, k int, h uint64) { blockedAdd1Go(blocks, k, h) }
