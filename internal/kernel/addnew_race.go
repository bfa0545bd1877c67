//go:build gc && !purego && (amd64 || arm64) && race

package kernel

import (
	"runtime"
	"unsafe"
)

// raceBlockedAddNew reports what an add-if-new batch kernel touches: it
// reads the hashes, may write any block and writes the results.
func raceBlockedAddNew(blocks []Block, hs []uint64, out []bool) {
	runtime.RaceReadRange(unsafe.Pointer(&hs[0]), len(hs)*8)
	runtime.RaceWriteRange(unsafe.Pointer(&blocks[0]), len(blocks)*BlockBytes)
	runtime.RaceWriteRange(unsafe.Pointer(&out[0]), len(out))
}
