package kernel

import "runtime"

// Add-if-new: insert a key and report whether it was new, that is whether
// at least one of its probe bits was clear before the insert (so a probe
// just before would have answered absent). Each kernel computes the block
// and the mask of a key once, loads the block, tests the mask against it,
// ORs it in and stores the block back.
//
// BlockedAddNew keeps sequential semantics: its answers and memory image
// equal those of BlockedAddNew1 called for hs[0], hs[1], ... in order, so a
// hash repeated in the batch is new at most once and keys sharing a block
// see each other's bits. The assembly kernels get this for free: they
// handle one key after another, each key's block load after the previous
// key's store (store-to-load forwarding when two keys share a block).

// BlockedAddNew inserts every hash of hs in order, sets out[i] to whether
// the key of hs[i] was new when its turn came, and returns the number of
// trues, using the kernel set in use. It panics if len(out) < len(hs);
// out beyond len(hs) is left alone.
func BlockedAddNew(blocks []Block, k int, hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("kernel: BlockedAddNew: len(out) < len(hs)")
	}
	return blockedAddNew(blocks, k, hs, out[:len(hs)])
}

// BlockedAddNewGeneric is the reference batch add-if-new: the portable twin
// of every assembly BlockedAddNew kernel. It panics if len(out) < len(hs).
func BlockedAddNewGeneric(blocks []Block, k int, hs []uint64, out []bool) int {
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
			b := &blocks[idx[i]]
			m := BlockMask(h, k)
			var miss uint64
			for w := range b {
				miss |= m[w] &^ b[w]
				b[w] |= m[w]
			}
			out[i] = miss != 0
			if miss != 0 {
				count++
			}
		}
		hs, out = hs[c:], out[c:]
	}
	return count
}

// BlockedAddNew1Generic sets the k probe bits of hash h in its block and
// reports whether one of them was clear: the portable twin of
// BlockedAddNew1. It panics if blocks is empty.
func BlockedAddNew1Generic(blocks []Block, k int, h uint64) bool {
	return blockedAddNew1Go(&BlockedTable{blocks, k}, h)
}

// blockedAddNew1Go is BlockedAddNew1Generic taking a *BlockedTable: the
// fused Go probe (block and bit positions computed once, each probe's word
// read, tested and written back), unrolled as blockedAdd1Go is. It is the
// single-key add-if-new where there is no assembly and where the amd64
// kernel jumps when it does not run. It keeps t alive to its end.
func blockedAddNew1Go(t *BlockedTable, h uint64) bool {
	bs, k := t.Blocks, t.K
	b := &bs[blockOf(bs, h)]
	x := uint32(h)
	var bit, miss uint64
	switch k {
	case 16:
		bit = 1 << (x * Salt15 >> 26)
		miss |= bit &^ b[7]
		b[7] |= bit
		fallthrough
	case 15:
		bit = 1 << (x * Salt14 >> 26)
		miss |= bit &^ b[6]
		b[6] |= bit
		fallthrough
	case 14:
		bit = 1 << (x * Salt13 >> 26)
		miss |= bit &^ b[5]
		b[5] |= bit
		fallthrough
	case 13:
		bit = 1 << (x * Salt12 >> 26)
		miss |= bit &^ b[4]
		b[4] |= bit
		fallthrough
	case 12:
		bit = 1 << (x * Salt11 >> 26)
		miss |= bit &^ b[3]
		b[3] |= bit
		fallthrough
	case 11:
		bit = 1 << (x * Salt10 >> 26)
		miss |= bit &^ b[2]
		b[2] |= bit
		fallthrough
	case 10:
		bit = 1 << (x * Salt9 >> 26)
		miss |= bit &^ b[1]
		b[1] |= bit
		fallthrough
	case 9:
		bit = 1 << (x * Salt8 >> 26)
		miss |= bit &^ b[0]
		b[0] |= bit
		fallthrough
	case 8:
		bit = 1 << (x * Salt7 >> 26)
		miss |= bit &^ b[7]
		b[7] |= bit
		fallthrough
	case 7:
		bit = 1 << (x * Salt6 >> 26)
		miss |= bit &^ b[6]
		b[6] |= bit
		fallthrough
	case 6:
		bit = 1 << (x * Salt5 >> 26)
		miss |= bit &^ b[5]
		b[5] |= bit
		fallthrough
	case 5:
		bit = 1 << (x * Salt4 >> 26)
		miss |= bit &^ b[4]
		b[4] |= bit
		fallthrough
	case 4:
		bit = 1 << (x * Salt3 >> 26)
		miss |= bit &^ b[3]
		b[3] |= bit
		fallthrough
	case 3:
		bit = 1 << (x * Salt2 >> 26)
		miss |= bit &^ b[2]
		b[2] |= bit
		fallthrough
	case 2:
		bit = 1 << (x * Salt1 >> 26)
		miss |= bit &^ b[1]
		b[1] |= bit
		fallthrough
	default:
		bit = 1 << (x * Salt0 >> 26)
		miss |= bit &^ b[0]
		b[0] |= bit
	}
	runtime.KeepAlive(t)
	return miss != 0
}
