//go:build gc && !purego

package kernel

func init() {
	AsmAddN = func(blocks []Block, nblocks uint64, k int, hs []uint64) {
		blockedAddAVX2(&blocks[0][0], nblocks, k, &avx2Tables[k].salts[0][0], &hs[0], len(hs))
	}
	AsmContainsN = func(blocks []Block, nblocks uint64, k int, hs []uint64, out []bool) int {
		return blockedContainsAVX2(&blocks[0][0], nblocks, k, &avx2Tables[k].salts[0][0], &hs[0], len(hs), &out[:len(hs)][0])
	}
}
