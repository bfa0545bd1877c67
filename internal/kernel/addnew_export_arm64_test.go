//go:build gc && !purego

package kernel

func init() {
	AsmAddNewN = func(blocks []Block, nblocks uint64, k int, hs []uint64, out []bool) int {
		return blockedAddNewNEON(&blocks[0][0], nblocks, k, &neonTables[k].salts[0][0][0], &hs[0], len(hs), &out[:len(hs)][0])
	}
}
