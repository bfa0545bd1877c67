//go:build gc && !purego

package kernel

func init() {
	AsmAddN = func(blocks []Block, nblocks uint64, k int, hs []uint64) {
		blockedAddN(&blocks[0][0], nblocks, k, hs)
	}
	AsmContainsN = func(blocks []Block, nblocks uint64, k int, hs []uint64, out []bool) int {
		return blockedContainsN(&blocks[0][0], nblocks, k, hs, out[:len(hs)])
	}
}
