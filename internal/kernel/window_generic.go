package kernel

import "math/bits"

func trailingZeros(x uint64) int { return bits.TrailingZeros64(x) }

// BlockedContainsGens1Generic is the reference single-key windowed probe:
// the portable twin of every BlockedContainsGens1 kernel (same contract).
func BlockedContainsGens1Generic(blocks []Block, nb uint64, g int, live uint64, k int, h uint64) bool {
	group := gensGroup(blocks, nb, g, h)
	m := BlockMask(h, k)
	return gensProbe(group, liveMask(g, live), &m)
}

// BlockedContainsGensGeneric is the reference batch windowed probe: the
// portable twin of every BlockedContainsGens kernel. It computes a chunk
// of block indexes before touching memory, as BlockedContainsGeneric
// does. It panics if len(out) < len(hs).
func BlockedContainsGensGeneric(blocks []Block, nb uint64, g int, live uint64, k int, hs []uint64, out []bool) int {
	out = out[:len(hs)]
	live = liveMask(g, live)
	count := 0
	var idx [chunk]uint64
	for len(hs) > 0 {
		c := min(len(hs), chunk)
		for i, h := range hs[:c] {
			idx[i] = BlockIndex(h, nb) * uint64(g)
		}
		for i, h := range hs[:c] {
			m := BlockMask(h, k)
			found := live != 0 && gensProbe(blocks[idx[i]:idx[i]+uint64(g)], live, &m)
			out[i] = found
			if found {
				count++
			}
		}
		hs, out = hs[c:], out[c:]
	}
	return count
}
