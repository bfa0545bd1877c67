//go:build purego || !gc || !(amd64 || arm64)

package kernel

func blockedAdd(blocks []Block, k int, hs []uint64) { BlockedAddGeneric(blocks, k, hs) }

func blockedContains(blocks []Block, k int, hs []uint64, out []bool) int {
	return BlockedContainsGeneric(blocks, k, hs, out)
}
