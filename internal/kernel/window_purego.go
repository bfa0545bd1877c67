//go:build purego || !gc || !(amd64 || arm64)

package kernel

// BlockedContainsGensT is BlockedContainsGens1(t.Blocks(), t.Groups(),
// t.Generations(), live, t.K(), h) through one pointer (see the amd64 version); here the Go twin.
func BlockedContainsGensT(t *WindowTable, live, h uint64) bool {
	return windowContains1Go(t, live, h)
}

func blockedContainsGens1(blocks []Block, nb uint64, g int, live uint64, k int, h uint64) bool {
	return BlockedContainsGens1Generic(blocks, nb, g, live, k, h)
}

func blockedContainsGens(blocks []Block, nb uint64, g int, live uint64, k int, hs []uint64, out []bool) int {
	return BlockedContainsGensGeneric(blocks, nb, g, live, k, hs, out)
}
