//go:build gc && !purego

package kernel

// On arm64 the windowed batch probe runs the NEON kernel of window_arm64.s
// (hand-written, after blocked_arm64.s: its table and mask, a second
// probe round and copy of the loops for k > 8, the mask folded
// onto a lane: two Q registers for the 256-bit lanes of g = 2, one for the
// 128-bit lanes of g >= 4), and the single-key probe its Go twin, as
// blocked's single-key calls do on arm64 (blocked_arm64.go): whether a
// NEON single-key kernel would beat the Go probe needs real arm64 hardware
// to measure; qemu-aarch64, where this kernel is tested, proves
// correctness only.

// BlockedContainsGensT is BlockedContainsGens1(t.Blocks(), t.Groups(),
// t.Generations(), live, t.K(), h) through one pointer (see the amd64 version); here the Go twin.
func BlockedContainsGensT(t *WindowTable, live, h uint64) bool {
	return windowContains1Go(t, live, h)
}

// BlockedAddGenT is BlockedAddGen1(t.Blocks(), t.Groups(),
// t.Generations(), cur, t.K(), h) through one pointer (see the amd64
// version); here the Go twin.
func BlockedAddGenT(t *WindowTable, cur int, h uint64) { windowAdd1Go(t, cur, h) }

// BlockedAddNewGensT is BlockedAddNewGens1(t.Blocks(), t.Groups(),
// t.Generations(), live, cur, t.K(), h) through one pointer (see the
// amd64 version); here the Go twin.
func BlockedAddNewGensT(t *WindowTable, live uint64, cur int, h uint64) bool {
	return windowAddNew1Go(t, live, cur, h)
}

func blockedContainsGens1(blocks []Block, nb uint64, g int, live uint64, k int, h uint64) bool {
	return BlockedContainsGens1Generic(blocks, nb, g, live, k, h)
}

func blockedContainsGens(blocks []Block, nb uint64, g int, live uint64, k int, hs []uint64, out []bool) int {
	if windowContainsSetFor(nb, g) == setNEON {
		raceGens(blocks, hs, out)
		return blockedContainsGensNEON(&blocks[0][0], nb, g, live, k, &neonTables[k].salts[0][0][0], &hs[0], len(hs), &out[0])
	}
	return BlockedContainsGensGeneric(blocks, nb, g, live, k, hs, out)
}

// blockedContainsGensNEON probes hs[:n] in the generations of live
// (nonzero, bits < ngen) of a table of nb groups at blocks laid out for
// ngen generations (window.go: a group is WindowLines(ngen) lines, one
// lane a generation), k probes per key, writes out[:n] and returns the
// number of trues; tab is neonTables[k].
//
//go:noescape
func blockedContainsGensNEON(blocks *uint64, nb uint64, ngen int, live uint64, k int, tab *uint32, hs *uint64, n int, out *bool) int
