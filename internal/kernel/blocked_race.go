//go:build gc && !purego && (amd64 || arm64) && race

package kernel

import (
	"runtime"
	"unsafe"
)

// The race detector cannot see the memory the assembly kernels touch, so the
// Go wrappers report it: the whole block array (the kernels may touch any
// block), the hashes and the results.

func raceBlockedAdd(blocks []Block, hs []uint64) {
	runtime.RaceReadRange(unsafe.Pointer(&hs[0]), len(hs)*8)
	runtime.RaceWriteRange(unsafe.Pointer(&blocks[0]), len(blocks)*BlockBytes)
}

func raceBlockedContains(blocks []Block, hs []uint64, out []bool) {
	runtime.RaceReadRange(unsafe.Pointer(&blocks[0]), len(blocks)*BlockBytes)
	runtime.RaceReadRange(unsafe.Pointer(&hs[0]), len(hs)*8)
	runtime.RaceWriteRange(unsafe.Pointer(&out[0]), len(out))
}

// raceBlocked1 reports the one block a single-key kernel reads (or, for an
// insert, writes). An empty t.Blocks panics here with ErrNoBlocks, as the
// kernel would.
func raceBlocked1(t *BlockedTable, h uint64, write bool) {
	b := &t.Blocks[blockOf(t.Blocks, h)]
	if write {
		runtime.RaceWriteRange(unsafe.Pointer(b), BlockBytes)
	} else {
		runtime.RaceReadRange(unsafe.Pointer(b), BlockBytes)
	}
}

// raceEnabled: see blocked_norace.go.
const raceEnabled = true
