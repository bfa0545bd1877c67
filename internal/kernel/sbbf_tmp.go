//go:build gc && !purego && (amd64 || arm64)

package kernel

func sbbfAdd(blocks []SBBFBlock, hs []uint64) { SBBFAddGeneric(blocks, hs) }

func sbbfContains(blocks []SBBFBlock, hs []uint64, out []bool) int {
	return SBBFContainsGeneric(blocks, hs, out)
}

func SBBFContains1(t *[]SBBFBlock, h uint64) bool { return sbbfContains1Go(t, h) }

func SBBFAdd1(t *[]SBBFBlock, h uint64) { sbbfAdd1Go(t, h) }
