//go:build gc && !purego && (amd64 || arm64) && race

package kernel

import (
	"runtime"
	"unsafe"
)

// The race detector cannot see the memory the assembly kernels touch, so the
// Go wrappers report it, as for the blocked kernels: the whole block array,
// the hashes and the results.

func raceSBBFAdd(blocks []SBBFBlock, hs []uint64) {
	runtime.RaceReadRange(unsafe.Pointer(&hs[0]), len(hs)*8)
	runtime.RaceWriteRange(unsafe.Pointer(&blocks[0]), len(blocks)*SBBFBlockBytes)
}

func raceSBBFContains(blocks []SBBFBlock, hs []uint64, out []bool) {
	runtime.RaceReadRange(unsafe.Pointer(&blocks[0]), len(blocks)*SBBFBlockBytes)
	runtime.RaceReadRange(unsafe.Pointer(&hs[0]), len(hs)*8)
	runtime.RaceWriteRange(unsafe.Pointer(&out[0]), len(out))
}

// raceSBBF1 reports the one block a single-key kernel reads or writes. An
// empty *t panics here with ErrNoSBBFBlocks, as the kernel would.
func raceSBBF1(t *[]SBBFBlock, h uint64, write bool) {
	b := &(*t)[sbbfBlockOf(*t, h)]
	if write {
		runtime.RaceWriteRange(unsafe.Pointer(b), SBBFBlockBytes)
	} else {
		runtime.RaceReadRange(unsafe.Pointer(b), SBBFBlockBytes)
	}
}
