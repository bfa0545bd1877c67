//go:build purego || !gc || !(amd64 || arm64)

package bench

func probePrefetch(words *uint64, lines uint64, hs []uint64, dist int) uint64 {
	return probePrefetchGeneric(words, lines, hs)
}

// callFloor returns false: ProbeCall's empty call, here a Go function
// kept out of line.
//
//go:noinline
func callFloor(t *callTable, h uint64) bool { return false }
