package kernel

import "math/bits"

func trailingZeros(x uint64) int { return bits.TrailingZeros64(x) }

// BlockedContainsGens1Generic is the reference single-key windowed probe:
// the portable twin of every BlockedContainsGens1 kernel (same contract).
func BlockedContainsGens1Generic(blocks []Block, nb uint64, g int, live uint64, k int, h uint64) bool {
	group := gensGroup(blocks, nb, g, h)
	m := WindowMask(h, k, g)
	return gensProbe(group, g, liveMask(g, live), &m)
}

// BlockedContainsGensGeneric is the reference batch windowed probe: the
// portable twin of every BlockedContainsGens kernel. It computes a chunk
// of group indexes before touching memory, as BlockedContainsGeneric
// does. It panics if len(out) < len(hs).
func BlockedContainsGensGeneric(blocks []Block, nb uint64, g int, live uint64, k int, hs []uint64, out []bool) int {
	out = outputs(out, len(hs))
	live = liveMask(g, live)
	count := 0
	p := uint64(WindowLines(g))
	var idx [chunk]uint64
	for len(hs) > 0 {
		c := min(len(hs), chunk)
		for i, h := range hs[:c] {
			idx[i] = BlockIndex(h, nb) * p
		}
		for i, h := range hs[:c] {
			m := WindowMask(h, k, g)
			found := live != 0 && gensProbe(blocks[idx[i]:idx[i]+p], g, live, &m)
			out[i] = found
			if found {
				count++
			}
		}
		hs, out = hs[c:], out[c:]
	}
	return count
}
