package kernel

// chunk is how many block indexes the generic batch kernels compute before
// touching memory, so the loads of one chunk are independent and overlap.
const chunk = 32

// BlockedAddGeneric is the reference batch insert: the portable twin of every
// assembly BlockedAdd kernel.
func BlockedAddGeneric(blocks []Block, k int, hs []uint64) {
	n := uint64(len(blocks))
	var idx [chunk]uint32
	for len(hs) > 0 {
		c := min(len(hs), chunk)
		for i, h := range hs[:c] {
			idx[i] = uint32(BlockIndex(h, n))
		}
		for i, h := range hs[:c] {
			b := &blocks[idx[i]]
			m := BlockMask(h, k)
			for w := range b {
				b[w] |= m[w]
			}
		}
		hs = hs[c:]
	}
}

// BlockedContainsGeneric is the reference batch probe: the portable twin of
// every assembly BlockedContains kernel. It panics if len(out) < len(hs).
func BlockedContainsGeneric(blocks []Block, k int, hs []uint64, out []bool) int {
	out = out[:len(hs)]
	n := uint64(len(blocks))
	count := 0
	var idx [chunk]uint32
	for len(hs) > 0 {
		c := min(len(hs), chunk)
		for i, h := range hs[:c] {
			idx[i] = uint32(BlockIndex(h, n))
		}
		for i, h := range hs[:c] {
			b := &blocks[idx[i]]
			m := BlockMask(h, k)
			var miss uint64
			for w := range b {
				miss |= m[w] &^ b[w]
			}
			out[i] = miss == 0
			if miss == 0 {
				count++
			}
		}
		hs, out = hs[c:], out[c:]
	}
	return count
}
