//go:build gc && !purego && (amd64 || arm64) && race

package kernel

import (
	"runtime"
	"unsafe"
)

// raceGens1 reports the lines of h's group a single-key windowed kernel may read (the
// race detector cannot see the assembly's loads). An index past blocks
// panics with ErrNoBlocks, as an empty filter's.
func raceGens1(blocks []Block, nb uint64, g int, h uint64) {
	group := gensGroup(blocks, nb, g, h)
	runtime.RaceReadRange(unsafe.Pointer(&group[0]), len(group)*BlockBytes)
}

// raceGensWrite1 reports the lines of h's group a single-key windowed add
// may read and write.
func raceGensWrite1(blocks []Block, nb uint64, g int, h uint64) {
	group := gensGroup(blocks, nb, g, h)
	runtime.RaceWriteRange(unsafe.Pointer(&group[0]), len(group)*BlockBytes)
}

// raceGens reports what a batch windowed kernel reads and writes: the
// whole block array, the hashes and the results.
func raceGens(blocks []Block, hs []uint64, out []bool) {
	runtime.RaceReadRange(unsafe.Pointer(&blocks[0]), len(blocks)*BlockBytes)
	runtime.RaceReadRange(unsafe.Pointer(&hs[0]), len(hs)*8)
	runtime.RaceWriteRange(unsafe.Pointer(&out[0]), len(out))
}
