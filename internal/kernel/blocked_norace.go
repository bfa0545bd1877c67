//go:build gc && !purego && (amd64 || arm64) && !race

package kernel

// Without the race detector the annotations of blocked_race.go compile away.

func raceBlockedAdd(blocks []Block, hs []uint64) {}

func raceBlockedContains(blocks []Block, hs []uint64, out []bool) {}

func raceBlocked1(t *BlockedTable, h uint64, write bool) {}

// raceEnabled is whether the race detector is on; the single-key wrappers
// test it as a constant, so the annotation costs their inlining nothing.
const raceEnabled = false
