//go:build gc && !purego && (amd64 || arm64) && !race

package kernel

// Without the race detector the annotations of window_race.go compile away.

func raceGens1(blocks []Block, nb uint64, g int, h uint64) {}

func raceGensWrite1(blocks []Block, nb uint64, g int, h uint64) {}

func raceGens(blocks []Block, hs []uint64, out []bool) {}
