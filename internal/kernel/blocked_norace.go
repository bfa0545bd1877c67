//go:build gc && !purego && (amd64 || arm64) && !race

package kernel

// Without the race detector the annotations of blocked_race.go compile away.

func raceBlockedAdd(blocks []Block, hs []uint64) {}

func raceBlockedContains(blocks []Block, hs []uint64, out []bool) {}
