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

// maskOf returns the bits h's k probes set in its block, word by word:
// kernel.BlockMask unrolled as the probes above are (probe j sets a bit of
// word j mod 8), so k <= 8 sets at most one bit a word.
func maskOf(h uint64, k int) (m kernel.Block) {
	x := uint32(h)
	switch k {
	case 16:
		m[7] |= 1 << (x * kernel.Salt15 >> 26)
		fallthrough
	case 15:
		m[6] |= 1 << (x * kernel.Salt14 >> 26)
		fallthrough
	case 14:
		m[5] |= 1 << (x * kernel.Salt13 >> 26)
		fallthrough
	case 13:
		m[4] |= 1 << (x * kernel.Salt12 >> 26)
		fallthrough
	case 12:
		m[3] |= 1 << (x * kernel.Salt11 >> 26)
		fallthrough
	case 11:
		m[2] |= 1 << (x * kernel.Salt10 >> 26)
		fallthrough
	case 10:
		m[1] |= 1 << (x * kernel.Salt9 >> 26)
		fallthrough
	case 9:
		m[0] |= 1 << (x * kernel.Salt8 >> 26)
		fallthrough
	case 8:
		m[7] |= 1 << (x * kernel.Salt7 >> 26)
		fallthrough
	case 7:
		m[6] |= 1 << (x * kernel.Salt6 >> 26)
		fallthrough
	case 6:
		m[5] |= 1 << (x * kernel.Salt5 >> 26)
		fallthrough
	case 5:
		m[4] |= 1 << (x * kernel.Salt4 >> 26)
		fallthrough
	case 4:
		m[3] |= 1 << (x * kernel.Salt3 >> 26)
		fallthrough
	case 3:
		m[2] |= 1 << (x * kernel.Salt2 >> 26)
		fallthrough
	case 2:
		m[1] |= 1 << (x * kernel.Salt1 >> 26)
		fallthrough
	default:
		m[0] |= 1 << (x * kernel.Salt0 >> 26)
	}
	return m
}

// insertAtomic is insert with atomic OR, for Concurrent, and reports
// whether this call set a bit that was clear: it reads each word of the
// block first and ORs, atomically, only the words that lack some of the
// key's bits, one locked OR a word with all of that word's missing bits.
// Adds of present keys therefore write nothing and do not take the cache
// line away from other cores. The report comes from the value OrUint64
// returns, so of several goroutines racing to set the same clear bit
// exactly one sees it clear: a key added by racing goroutines is reported
// new by at least one of them (unless all its bits were already set), and
// by none after one add of it has returned.
func insertAtomic(blocks []kernel.Block, h uint64, k int) bool {
	b := blockOf(blocks, h)
	m := maskOf(h, k)
	set := false
	for w := range m {
		if miss := m[w] &^ atomic.LoadUint64(&b[w]); miss != 0 {
			if atomic.OrUint64(&b[w], miss)&miss != miss {
				set = true
			}
		}
	}
	return set
}

// addNew sets h's k probe bits in its block, as kernel.BlockedAdd1 does, and
// reports whether any of them was clear (the key was new): one pass over the
// block, each probe's word read, tested and written back. For Filter (not
// atomic).
func addNew(blocks []kernel.Block, h uint64, k int) bool {
	b := blockOf(blocks, h)
	x := uint32(h)
	var bit, miss uint64
	switch k {
	case 16:
		bit = 1 << (x * kernel.Salt15 >> 26)
		miss |= bit &^ b[7]
		b[7] |= bit
		fallthrough
	case 15:
		bit = 1 << (x * kernel.Salt14 >> 26)
		miss |= bit &^ b[6]
		b[6] |= bit
		fallthrough
	case 14:
		bit = 1 << (x * kernel.Salt13 >> 26)
		miss |= bit &^ b[5]
		b[5] |= bit
		fallthrough
	case 13:
		bit = 1 << (x * kernel.Salt12 >> 26)
		miss |= bit &^ b[4]
		b[4] |= bit
		fallthrough
	case 12:
		bit = 1 << (x * kernel.Salt11 >> 26)
		miss |= bit &^ b[3]
		b[3] |= bit
		fallthrough
	case 11:
		bit = 1 << (x * kernel.Salt10 >> 26)
		miss |= bit &^ b[2]
		b[2] |= bit
		fallthrough
	case 10:
		bit = 1 << (x * kernel.Salt9 >> 26)
		miss |= bit &^ b[1]
		b[1] |= bit
		fallthrough
	case 9:
		bit = 1 << (x * kernel.Salt8 >> 26)
		miss |= bit &^ b[0]
		b[0] |= bit
		fallthrough
	case 8:
		bit = 1 << (x * kernel.Salt7 >> 26)
		miss |= bit &^ b[7]
		b[7] |= bit
		fallthrough
	case 7:
		bit = 1 << (x * kernel.Salt6 >> 26)
		miss |= bit &^ b[6]
		b[6] |= bit
		fallthrough
	case 6:
		bit = 1 << (x * kernel.Salt5 >> 26)
		miss |= bit &^ b[5]
		b[5] |= bit
		fallthrough
	case 5:
		bit = 1 << (x * kernel.Salt4 >> 26)
		miss |= bit &^ b[4]
		b[4] |= bit
		fallthrough
	case 4:
		bit = 1 << (x * kernel.Salt3 >> 26)
		miss |= bit &^ b[3]
		b[3] |= bit
		fallthrough
	case 3:
		bit = 1 << (x * kernel.Salt2 >> 26)
		miss |= bit &^ b[2]
		b[2] |= bit
		fallthrough
	case 2:
		bit = 1 << (x * kernel.Salt1 >> 26)
		miss |= bit &^ b[1]
		b[1] |= bit
		fallthrough
	default:
		bit = 1 << (x * kernel.Salt0 >> 26)
		miss |= bit &^ b[0]
		b[0] |= bit
	}
	return miss != 0
}
