//go:build gc && !purego

package kernel

// On arm64 the windowed probes run their Go twins (a NEON batch kernel is
// not written yet).

func blockedContainsGens1(blocks []Block, nb uint64, g int, live uint64, k int, h uint64) bool {
	return BlockedContainsGens1Generic(blocks, nb, g, live, k, h)
}

func blockedContainsGens(blocks []Block, nb uint64, g int, live uint64, k int, hs []uint64, out []bool) int {
	return BlockedContainsGensGeneric(blocks, nb, g, live, k, hs, out)
}
