//go:build gc && !purego && (amd64 || arm64) && !race

package kernel

// Without the race detector the annotations of sbbf_race.go compile away.

func raceSBBFAdd(blocks []SBBFBlock, hs []uint64) {}

func raceSBBFContains(blocks []SBBFBlock, hs []uint64, out []bool) {}

func raceSBBF1(t *[]SBBFBlock, h uint64, write bool) {}
