//go:build gc && !purego

package kernel

func init() {
	SBBFAsmAddN = func(blocks []SBBFBlock, nblocks uint64, hs []uint64) {
		if sbbfAddSet == setAVX512 {
			sbbfAddAVX512(&blocks[0][0], nblocks, &hs[0], len(hs), sbbfMode(nblocks, true))
			return
		}
		sbbfAddAVX2(&blocks[0][0], nblocks, &hs[0], len(hs), sbbfMode(nblocks, true))
	}
	SBBFAsmContainsN = func(blocks []SBBFBlock, nblocks uint64, hs []uint64, out []bool) int {
		if sbbfContainsSet == setAVX512 {
			return sbbfContainsAVX512(&blocks[0][0], nblocks, &hs[0], len(hs), &out[:len(hs)][0], sbbfMode(nblocks, false))
		}
		return sbbfContainsAVX2(&blocks[0][0], nblocks, &hs[0], len(hs), &out[:len(hs)][0], sbbfMode(nblocks, false))
	}
}
