//go:build purego || !gc || !(amd64 || arm64)

package kernel

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
	return BlockedContainsGensGeneric(blocks, nb, g, live, k, hs, out)
}
