package blocked

import (
	"sync/atomic"

	"github.com/sift-go/sift/internal/kernel"
)

// The single-key probe and insert are kernel.BlockedContains1 and
// kernel.BlockedAdd1: on amd64 an AVX2 assembly call (with the AVX2 kernel
// set in use), elsewhere the unrolled Go probe of
// kernel.BlockedContains1Generic. Concurrent keeps its own unrolled Go
// probes below: they read and write with atomics.

// probeAll sets out[i] = kernel.BlockedContains1(t, hs[i]) and returns how
// many are true. len(out) >= len(hs).
func probeAll(t *kernel.BlockedTable, hs []uint64, out []bool) int {
	out = out[:len(hs)]
	n := 0
	for i, h := range hs {
		c := kernel.BlockedContains1(t, h)
		out[i] = c
		if c {
			n++
		}
	}
	return n
}

// blockOf returns the block of h. The index is below len(blocks) for
// every h unless blocks is empty (a closed or zero Concurrent): the one
// compare is the bounds check the indexing would make anyway (the compiler
// drops that one after it), with a panic that names the misuse.
func blockOf(blocks []kernel.Block, h uint64) *kernel.Block {
	i := (h >> 32) * uint64(len(blocks)) >> 32
	if i >= uint64(len(blocks)) {
		panic(errUse)
	}
	return &blocks[i]
}

// probeAtomic is probe with atomic loads, for Concurrent.
func probeAtomic(blocks []kernel.Block, h uint64, k int) bool {
	b := blockOf(blocks, h)
	x := uint32(h)
	acc := uint64(1)
	switch k {
	case 16:
		acc &= atomic.LoadUint64(&b[7]) >> (x * kernel.Salt15 >> 26)
		fallthrough
	case 15:
		acc &= atomic.LoadUint64(&b[6]) >> (x * kernel.Salt14 >> 26)
		fallthrough
	case 14:
		acc &= atomic.LoadUint64(&b[5]) >> (x * kernel.Salt13 >> 26)
		fallthrough
	case 13:
		acc &= atomic.LoadUint64(&b[4]) >> (x * kernel.Salt12 >> 26)
		fallthrough
	case 12:
		acc &= atomic.LoadUint64(&b[3]) >> (x * kernel.Salt11 >> 26)
		fallthrough
	case 11:
		acc &= atomic.LoadUint64(&b[2]) >> (x * kernel.Salt10 >> 26)
		fallthrough
	case 10:
		acc &= atomic.LoadUint64(&b[1]) >> (x * kernel.Salt9 >> 26)
		fallthrough
	case 9:
		acc &= atomic.LoadUint64(&b[0]) >> (x * kernel.Salt8 >> 26)
		fallthrough
	case 8:
		acc &= atomic.LoadUint64(&b[7]) >> (x * kernel.Salt7 >> 26)
		fallthrough
	case 7:
		acc &= atomic.LoadUint64(&b[6]) >> (x * kernel.Salt6 >> 26)
		fallthrough
	case 6:
		acc &= atomic.LoadUint64(&b[5]) >> (x * kernel.Salt5 >> 26)
		fallthrough
	case 5:
		acc &= atomic.LoadUint64(&b[4]) >> (x * kernel.Salt4 >> 26)
		fallthrough
	case 4:
		acc &= atomic.LoadUint64(&b[3]) >> (x * kernel.Salt3 >> 26)
		fallthrough
	case 3:
		acc &= atomic.LoadUint64(&b[2]) >> (x * kernel.Salt2 >> 26)
		fallthrough
	case 2:
		acc &= atomic.LoadUint64(&b[1]) >> (x * kernel.Salt1 >> 26)
		fallthrough
	default:
		acc &= atomic.LoadUint64(&b[0]) >> (x * kernel.Salt0 >> 26)
	}
	return acc&1 != 0
}

// insertAtomic is insert with atomic OR, for Concurrent. A bit already set
// is not written again (orBit), so adds of present keys write nothing and
// do not take the cache line away from other cores. For k <= 8 each word
// holds at most one of the key's bits, so this is already one atomic OR per
// word that lacks bits; building a mask first to OR each word once (which
// would merge the two bits a word can get for k > 8) measured 25% slower
// at k = 8 (n = 1e6, 1%).
func insertAtomic(blocks []kernel.Block, h uint64, k int) {
	b := blockOf(blocks, h)
	x := uint32(h)
	switch k {
	case 16:
		orBit(&b[7], x*kernel.Salt15>>26)
		fallthrough
	case 15:
		orBit(&b[6], x*kernel.Salt14>>26)
		fallthrough
	case 14:
		orBit(&b[5], x*kernel.Salt13>>26)
		fallthrough
	case 13:
		orBit(&b[4], x*kernel.Salt12>>26)
		fallthrough
	case 12:
		orBit(&b[3], x*kernel.Salt11>>26)
		fallthrough
	case 11:
		orBit(&b[2], x*kernel.Salt10>>26)
		fallthrough
	case 10:
		orBit(&b[1], x*kernel.Salt9>>26)
		fallthrough
	case 9:
		orBit(&b[0], x*kernel.Salt8>>26)
		fallthrough
	case 8:
		orBit(&b[7], x*kernel.Salt7>>26)
		fallthrough
	case 7:
		orBit(&b[6], x*kernel.Salt6>>26)
		fallthrough
	case 6:
		orBit(&b[5], x*kernel.Salt5>>26)
		fallthrough
	case 5:
		orBit(&b[4], x*kernel.Salt4>>26)
		fallthrough
	case 4:
		orBit(&b[3], x*kernel.Salt3>>26)
		fallthrough
	case 3:
		orBit(&b[2], x*kernel.Salt2>>26)
		fallthrough
	case 2:
		orBit(&b[1], x*kernel.Salt1>>26)
		fallthrough
	default:
		orBit(&b[0], x*kernel.Salt0>>26)
	}
}

// orBit sets bit i of *w atomically unless it is already set.
func orBit(w *uint64, i uint32) {
	if bit := uint64(1) << i; atomic.LoadUint64(w)&bit == 0 {
		atomic.OrUint64(w, bit)
	}
}

// addNewAtomic is insertAtomic reporting whether this call set a bit that
// was clear. The report comes from the old value OrUint64 returns, so of
// several goroutines racing to set the same clear bit exactly one sees it
// clear: a key added by racing goroutines is reported new by at least one
// of them (unless all its bits were already set), and by none after one add
// of it has returned.
func addNewAtomic(blocks []kernel.Block, h uint64, k int) bool {
	b := blockOf(blocks, h)
	x := uint32(h)
	set := false
	switch k {
	case 16:
		set = orBitNew(&b[7], x*kernel.Salt15>>26) || set
		fallthrough
	case 15:
		set = orBitNew(&b[6], x*kernel.Salt14>>26) || set
		fallthrough
	case 14:
		set = orBitNew(&b[5], x*kernel.Salt13>>26) || set
		fallthrough
	case 13:
		set = orBitNew(&b[4], x*kernel.Salt12>>26) || set
		fallthrough
	case 12:
		set = orBitNew(&b[3], x*kernel.Salt11>>26) || set
		fallthrough
	case 11:
		set = orBitNew(&b[2], x*kernel.Salt10>>26) || set
		fallthrough
	case 10:
		set = orBitNew(&b[1], x*kernel.Salt9>>26) || set
		fallthrough
	case 9:
		set = orBitNew(&b[0], x*kernel.Salt8>>26) || set
		fallthrough
	case 8:
		set = orBitNew(&b[7], x*kernel.Salt7>>26) || set
		fallthrough
	case 7:
		set = orBitNew(&b[6], x*kernel.Salt6>>26) || set
		fallthrough
	case 6:
		set = orBitNew(&b[5], x*kernel.Salt5>>26) || set
		fallthrough
	case 5:
		set = orBitNew(&b[4], x*kernel.Salt4>>26) || set
		fallthrough
	case 4:
		set = orBitNew(&b[3], x*kernel.Salt3>>26) || set
		fallthrough
	case 3:
		set = orBitNew(&b[2], x*kernel.Salt2>>26) || set
		fallthrough
	case 2:
		set = orBitNew(&b[1], x*kernel.Salt1>>26) || set
		fallthrough
	default:
		set = orBitNew(&b[0], x*kernel.Salt0>>26) || set
	}
	return set
}

// orBitNew is orBit reporting whether this call turned the bit on.
func orBitNew(w *uint64, i uint32) bool {
	bit := uint64(1) << i
	return atomic.LoadUint64(w)&bit == 0 && atomic.OrUint64(w, bit)&bit == 0
}
