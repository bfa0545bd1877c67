//go:build gc && !purego

package kernel

func init() {
	SBBFAsmAddN = func(blocks []SBBFBlock, nblocks uint64, hs []uint64) {
		sbbfAddNEON(&blocks[0][0], nblocks, &hs[0], len(hs))
	}
	SBBFAsmContainsN = func(blocks []SBBFBlock, nblocks uint64, hs []uint64, out []bool) int {
		return sbbfContainsNEON(&blocks[0][0], nblocks, &hs[0], len(hs), &out[:len(hs)][0])
	}
}
