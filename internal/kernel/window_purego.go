//go:build purego || !gc || !(amd64 || arm64)

package kernel

func blockedContainsGens1(blocks []Block, nb uint64, g int, live uint64, k int, h uint64) bool {
	return BlockedContainsGens1Generic(blocks, nb, g, live, k, h)
}

func blockedContainsGens(blocks []Block, nb uint64, g int, live uint64, k int, hs []uint64, out []bool) int {
	return BlockedContainsGensGeneric(blocks, nb, g, live, k, hs, out)
}
