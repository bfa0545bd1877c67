package kernel

import (
	"runtime"

	"github.com/sift-go/sift/internal/errs"
)

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

// The single-key twins, unrolled: a loop over k probes costs the Go compiler
// about 14 instructions a probe (index masks, a table load, register moves
// for the variable shift); written out with the salts as immediates it is 5
// (multiply, shift, load, shift, and). The switch on k jumps into the
// sequence and falls through the remaining probes, so each call runs
// exactly its k probes. They are the single-key path wherever there is no
// assembly (arm64, purego, other architectures) and the fallback of the
// amd64 assembly when AVX2 is not in use.

// Salt0..Salt15 are Salts as constants, for the immediates of unrolled
// probes here and in package blocked (TestSaltConstants checks them against
// Salts; TestBlocked1 compares the probes with BlockMask for every k).
const (
	Salt0  = 0xe56cc05b
	Salt1  = 0xb97e54ed
	Salt2  = 0xd11029a5
	Salt3  = 0xf0594b3f
	Salt4  = 0x3ef0d3f7
	Salt5  = 0xdcec8bc1
	Salt6  = 0xd24e2077
	Salt7  = 0x2e6eab13
	Salt8  = 0x36dfad11
	Salt9  = 0xde4a21f9
	Salt10 = 0x14d0d1a5
	Salt11 = 0xc8e0e113
	Salt12 = 0x141ce343
	Salt13 = 0xa4792a01
	Salt14 = 0x067fad21
	Salt15 = 0xd415c1a5
)

// BlockedContains1Generic reports whether all k probes of hash h find their
// bits set in its block: the portable twin of BlockedContains1. It panics
// if blocks is empty.
func BlockedContains1Generic(blocks []Block, k int, h uint64) bool {
	return blockedContains1Go(&BlockedTable{blocks, k}, h)
}

// ErrNoBlocks is what the single-key calls panic with on an empty block
// array: that of a closed filter, or of a zero value no constructor or
// decoder made. It wraps errs.Closed (sift.ErrClosed) and is package
// blocked's panic value for that misuse too (blocked/errors.go's errUse).
var ErrNoBlocks error = errs.New("blocked", "use of a closed filter, or of a zero value never made by a constructor, UnmarshalBinary or ReadFrom", errs.Closed)

// ErrNoSBBFBlocks is ErrNoBlocks for the split-block kernels, in package
// sbbf's words (which returns it as its own misuse panic).
var ErrNoSBBFBlocks error = errs.New("sbbf", "use of a closed filter, or of a zero value never made by a constructor, UnmarshalBinary, ReadFrom or UnmarshalParquet", errs.Closed)

// blockOf returns the index of h's block in bs, and panics with ErrNoBlocks
// if bs is empty. Its check replaces the bounds check of bs[i] (i <
// len(bs) for every nonempty bs), so it costs the probe nothing.
func blockOf(bs []Block, h uint64) uint64 {
	i := (h >> 32) * uint64(len(bs)) >> 32
	if i >= uint64(len(bs)) {
		panic(ErrNoBlocks)
	}
	return i
}

// blockedContains1Go is BlockedContains1Generic taking a *BlockedTable: the
// single-key probe where there is no assembly, and where the amd64 kernel
// jumps when it does not run (the arguments are the kernel's). It keeps t
// alive to its end (see BlockedContains1).
func blockedContains1Go(t *BlockedTable, h uint64) bool {
	bs, k := t.Blocks, t.K
	b := &bs[blockOf(bs, h)]
	x := uint32(h)
	acc := uint64(1)
	switch k {
	case 16:
		acc &= b[7] >> (x * Salt15 >> 26)
		fallthrough
	case 15:
		acc &= b[6] >> (x * Salt14 >> 26)
		fallthrough
	case 14:
		acc &= b[5] >> (x * Salt13 >> 26)
		fallthrough
	case 13:
		acc &= b[4] >> (x * Salt12 >> 26)
		fallthrough
	case 12:
		acc &= b[3] >> (x * Salt11 >> 26)
		fallthrough
	case 11:
		acc &= b[2] >> (x * Salt10 >> 26)
		fallthrough
	case 10:
		acc &= b[1] >> (x * Salt9 >> 26)
		fallthrough
	case 9:
		acc &= b[0] >> (x * Salt8 >> 26)
		fallthrough
	case 8:
		acc &= b[7] >> (x * Salt7 >> 26)
		fallthrough
	case 7:
		acc &= b[6] >> (x * Salt6 >> 26)
		fallthrough
	case 6:
		acc &= b[5] >> (x * Salt5 >> 26)
		fallthrough
	case 5:
		acc &= b[4] >> (x * Salt4 >> 26)
		fallthrough
	case 4:
		acc &= b[3] >> (x * Salt3 >> 26)
		fallthrough
	case 3:
		acc &= b[2] >> (x * Salt2 >> 26)
		fallthrough
	case 2:
		acc &= b[1] >> (x * Salt1 >> 26)
		fallthrough
	default:
		acc &= b[0] >> (x * Salt0 >> 26)
	}
	runtime.KeepAlive(t)
	return acc&1 != 0
}

// BlockedAdd1Generic sets the k probe bits of hash h in its block: the
// portable twin of BlockedAdd1. It panics if blocks is empty.
func BlockedAdd1Generic(blocks []Block, k int, h uint64) {
	blockedAdd1Go(&BlockedTable{blocks, k}, h)
}

// blockedAdd1Go is BlockedAdd1Generic taking a *BlockedTable (see
// blockedContains1Go).
func blockedAdd1Go(t *BlockedTable, h uint64) {
	bs, k := t.Blocks, t.K
	b := &bs[blockOf(bs, h)]
	x := uint32(h)
	switch k {
	case 16:
		b[7] |= 1 << (x * Salt15 >> 26)
		fallthrough
	case 15:
		b[6] |= 1 << (x * Salt14 >> 26)
		fallthrough
	case 14:
		b[5] |= 1 << (x * Salt13 >> 26)
		fallthrough
	case 13:
		b[4] |= 1 << (x * Salt12 >> 26)
		fallthrough
	case 12:
		b[3] |= 1 << (x * Salt11 >> 26)
		fallthrough
	case 11:
		b[2] |= 1 << (x * Salt10 >> 26)
		fallthrough
	case 10:
		b[1] |= 1 << (x * Salt9 >> 26)
		fallthrough
	case 9:
		b[0] |= 1 << (x * Salt8 >> 26)
		fallthrough
	case 8:
		b[7] |= 1 << (x * Salt7 >> 26)
		fallthrough
	case 7:
		b[6] |= 1 << (x * Salt6 >> 26)
		fallthrough
	case 6:
		b[5] |= 1 << (x * Salt5 >> 26)
		fallthrough
	case 5:
		b[4] |= 1 << (x * Salt4 >> 26)
		fallthrough
	case 4:
		b[3] |= 1 << (x * Salt3 >> 26)
		fallthrough
	case 3:
		b[2] |= 1 << (x * Salt2 >> 26)
		fallthrough
	case 2:
		b[1] |= 1 << (x * Salt1 >> 26)
		fallthrough
	default:
		b[0] |= 1 << (x * Salt0 >> 26)
	}
	runtime.KeepAlive(t)
}

// outputs returns out[:n], the answers of n keys, and panics if out is
// shorter than that: a reslice alone would write past len(out) into its
// spare capacity instead (the generic twins' contract, as the kernels'
// entries check it).
func outputs(out []bool, n int) []bool {
	if len(out) < n {
		panic("kernel: len(out) < len(hs)")
	}
	return out[:n]
}
