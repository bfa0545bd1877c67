//go:build gc && !purego && (amd64 || arm64)

package kernel

// Placeholder routing until the assembly kernels land: the SIMD work replaces
// this file with blocked_amd64.go and blocked_arm64.go.

func blockedAdd(blocks []Block, k int, hs []uint64) { BlockedAddGeneric(blocks, k, hs) }

func blockedContains(blocks []Block, k int, hs []uint64, out []bool) int {
	return BlockedContainsGeneric(blocks, k, hs, out)
}
