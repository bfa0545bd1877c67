//go:build purego || !gc || !(amd64 || arm64)

package kernel

func sbbfAdd(blocks []SBBFBlock, hs []uint64) { SBBFAddGeneric(blocks, hs) }

func sbbfContains(blocks []SBBFBlock, hs []uint64, out []bool) int {
	return SBBFContainsGeneric(blocks, hs, out)
}

// SBBFContains1 reports whether the key with hash h is present in *t: the
// single-key probe, bit for bit SBBFContains1Generic. It panics if *t is
// empty. It keeps t (so the object holding it) alive until it returns, so
// a caller whose memory a finalizer may unmap needs no runtime.KeepAlive of
// its own. It inlines, so a lookup costs one call.
func SBBFContains1(t *[]SBBFBlock, h uint64) bool { return sbbfContains1Go(t, h) }

// SBBFAdd1 sets the eight bits of hash h in its block of *t: the single-key
// insert, bit for bit SBBFAdd1Generic. The contract is SBBFContains1's.
func SBBFAdd1(t *[]SBBFBlock, h uint64) { sbbfAdd1Go(t, h) }
