//go:build gc && !purego

package kernel

func init() {
	AsmAddN = func(blocks []Block, nblocks uint64, k int, hs []uint64) {
		blockedAddNEON(&blocks[0][0], nblocks, k, &neonTables[k].salts[0][0][0], &hs[0], len(hs))
	}
	AsmContainsN = func(blocks []Block, nblocks uint64, k int, hs []uint64, out []bool) int {
		return blockedContainsNEON(&blocks[0][0], nblocks, k, &neonTables[k].salts[0][0][0], &hs[0], len(hs), &out[:len(hs)][0])
	}
}
