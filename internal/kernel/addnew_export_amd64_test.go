//go:build gc && !purego

package kernel

func init() {
	AsmAddNewN = func(blocks []Block, nblocks uint64, k int, hs []uint64, out []bool) int {
		return blockedAddNewN(&blocks[0][0], nblocks, k, hs, out[:len(hs)])
	}
}
