//go:build gc && !purego

package kernel

func init() {
	SBBFAsmAddN = func(blocks []SBBFBlock, nblocks uint64, hs []uint64) {
		if sbbfAddSet == setAVX512 {
			sbbfAddAVX512(&blocks[0][0], nblocks, &hs[0], len(hs))
			return
		}
		sbbfAddAVX2(&blocks[0][0], nblocks, &hs[0], len(hs))
	}
	SBBFAsmContainsN = func(blocks []SBBFBlock, nblocks uint64, hs []uint64, out []bool) int {
		if sbbfContainsSet == setAVX512 {
			return sbbfContainsAVX512(&blocks[0][0], nblocks, &hs[0], len(hs), &out[:len(hs)][0])
		}
		return sbbfContainsAVX2(&blocks[0][0], nblocks, &hs[0], len(hs), &out[:len(hs)][0])
	}
}
