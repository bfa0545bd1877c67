//go:build gc && !purego && !goexperiment.simd

package kernel

// BlockedContains1 reports whether the key with hash h is present in
// t.Blocks with t.K probes: the single-key probe, bit for bit
// BlockedContains1Generic. It panics if t.Blocks is empty; callers
// guarantee 1 <= t.K <= MaxK. It keeps t (so the object holding it) alive
// until it returns, so a caller whose memory a finalizer may unmap needs no
// runtime.KeepAlive of its own (here: the assembly has no safe point,
// so no GC cycle can end, and no finalizer run, while it reads through t;
// its Go fallback keeps t alive explicitly). It inlines, so a lookup costs one call.
func BlockedContains1(t *BlockedTable, h uint64) bool {
	if raceEnabled {
		raceBlocked1(t, h, false)
	}
	return blockedContains1AVX2(t, h)
}
