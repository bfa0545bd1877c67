package kernel

import "runtime"

// SBBFAddGeneric is the reference batch insert of the split-block filter:
// the portable twin of every assembly SBBFAdd kernel. It computes the block
// indexes of a chunk of keys before touching memory, so the chunk's loads
// are independent and overlap.
func SBBFAddGeneric(blocks []SBBFBlock, hs []uint64) {
	n := uint64(len(blocks))
	var idx [chunk]uint32
	for len(hs) > 0 {
		c := min(len(hs), chunk)
		for i, h := range hs[:c] {
			idx[i] = uint32(BlockIndex(h, n))
		}
		for i, h := range hs[:c] {
			sbbfOr(&blocks[idx[i]], uint32(h))
		}
		hs = hs[c:]
	}
}

// SBBFContainsGeneric is the reference batch probe of the split-block
// filter: the portable twin of every assembly SBBFContains kernel. It panics
// if len(out) < len(hs).
func SBBFContainsGeneric(blocks []SBBFBlock, hs []uint64, out []bool) int {
	out = outputs(out, len(hs))
	n := uint64(len(blocks))
	count := 0
	var idx [chunk]uint32
	for len(hs) > 0 {
		c := min(len(hs), chunk)
		for i, h := range hs[:c] {
			idx[i] = uint32(BlockIndex(h, n))
		}
		for i, h := range hs[:c] {
			hit := sbbfTest(&blocks[idx[i]], uint32(h))
			out[i] = hit
			if hit {
				count++
			}
		}
		hs, out = hs[c:], out[c:]
	}
	return count
}

// sbbfOr sets x's eight bits in b (the specification's block_insert),
// unrolled with the salts as immediates: five instructions a word.
func sbbfOr(b *SBBFBlock, x uint32) {
	b[0] |= 1 << (x * SBBFSalt0 >> 27)
	b[1] |= 1 << (x * SBBFSalt1 >> 27)
	b[2] |= 1 << (x * SBBFSalt2 >> 27)
	b[3] |= 1 << (x * SBBFSalt3 >> 27)
	b[4] |= 1 << (x * SBBFSalt4 >> 27)
	b[5] |= 1 << (x * SBBFSalt5 >> 27)
	b[6] |= 1 << (x * SBBFSalt6 >> 27)
	b[7] |= 1 << (x * SBBFSalt7 >> 27)
}

// sbbfTest reports whether x's eight bits are all set in b (the
// specification's block_check), without a branch per word: each word is
// shifted right by its bit number and the bit 0s are ANDed.
func sbbfTest(b *SBBFBlock, x uint32) bool {
	return b[0]>>(x*SBBFSalt0>>27)&
		(b[1]>>(x*SBBFSalt1>>27))&
		(b[2]>>(x*SBBFSalt2>>27))&
		(b[3]>>(x*SBBFSalt3>>27))&
		(b[4]>>(x*SBBFSalt4>>27))&
		(b[5]>>(x*SBBFSalt5>>27))&
		(b[6]>>(x*SBBFSalt6>>27))&
		(b[7]>>(x*SBBFSalt7>>27))&1 != 0
}

// SBBFContains1Generic reports whether the key with hash h is present:
// the portable twin of SBBFContains1. It panics if blocks is empty.
func SBBFContains1Generic(blocks []SBBFBlock, h uint64) bool {
	return sbbfContains1Go(&blocks, h)
}

// SBBFAdd1Generic inserts the key with hash h: the portable twin of
// SBBFAdd1. It panics if blocks is empty.
func SBBFAdd1Generic(blocks []SBBFBlock, h uint64) {
	sbbfAdd1Go(&blocks, h)
}

// sbbfBlockOf is blockOf for split blocks: h's block index, or a panic
// with ErrNoSBBFBlocks (a closed or zero filter) for an empty bs, a check
// that replaces the index's bounds check.
func sbbfBlockOf(bs []SBBFBlock, h uint64) uint64 {
	i := (h >> 32) * uint64(len(bs)) >> 32
	if i >= uint64(len(bs)) {
		panic(ErrNoSBBFBlocks)
	}
	return i
}

// sbbfContains1Go is the single-key probe where there is no assembly, and
// where the amd64 kernels jump when they do not run (the arguments are the
// kernels'). It keeps t alive to its end (see SBBFContains1). The probe is
// sbbfTest written out again: sbbfTest is over the inlining budget (cost
// 92 of 80), and a second call per key would cost more than the probe.
func sbbfContains1Go(t *[]SBBFBlock, h uint64) bool {
	bs := *t
	b := &bs[sbbfBlockOf(bs, h)]
	x := uint32(h)
	hit := b[0]>>(x*SBBFSalt0>>27)&
		(b[1]>>(x*SBBFSalt1>>27))&
		(b[2]>>(x*SBBFSalt2>>27))&
		(b[3]>>(x*SBBFSalt3>>27))&
		(b[4]>>(x*SBBFSalt4>>27))&
		(b[5]>>(x*SBBFSalt5>>27))&
		(b[6]>>(x*SBBFSalt6>>27))&
		(b[7]>>(x*SBBFSalt7>>27))&1 != 0
	runtime.KeepAlive(t)
	return hit
}

// sbbfAdd1Go is sbbfContains1Go's insert, sbbfOr written out for the same
// reason.
func sbbfAdd1Go(t *[]SBBFBlock, h uint64) {
	bs := *t
	b := &bs[sbbfBlockOf(bs, h)]
	x := uint32(h)
	b[0] |= 1 << (x * SBBFSalt0 >> 27)
	b[1] |= 1 << (x * SBBFSalt1 >> 27)
	b[2] |= 1 << (x * SBBFSalt2 >> 27)
	b[3] |= 1 << (x * SBBFSalt3 >> 27)
	b[4] |= 1 << (x * SBBFSalt4 >> 27)
	b[5] |= 1 << (x * SBBFSalt5 >> 27)
	b[6] |= 1 << (x * SBBFSalt6 >> 27)
	b[7] |= 1 << (x * SBBFSalt7 >> 27)
	runtime.KeepAlive(t)
}
