package cuckoo

import (
	"math/bits"
	"sync/atomic"
)

// bucket returns bucket i in the low bits (the 8-bit form also carries the
// neighbouring bucket in the high half, which the SWAR masks ignore).
func (f *Filter) bucket(i uint64) uint64 {
	return f.t.Words[i>>(f.wordShift&63)] >> ((i & f.wordMask) << 5 & 63)
}

// bucketMask masks the bits of one bucket in a value from bucket (which for
// 8-bit fingerprints also carries the neighbouring bucket).
func (f *Filter) bucketMask() uint64 { return f.hi | (f.hi - f.lo) }

// atDuplicateLimit reports whether bucket values b1 and b2 (as bucket
// returns them) hold fp in every slot: a key of fingerprint fp whose two
// buckets they are has all the copies it can have (ErrDuplicateLimit).
func (f *Filter) atDuplicateLimit(b1, b2, fp uint64) bool {
	mask, pat := f.bucketMask(), fp*f.lo
	return (b1^pat)&mask|(b2^pat)&mask == 0
}

// emptyLanes returns a mask with the top bit of every f-bit lane of bucket
// value b that is zero set (exactly, with no borrow false positives).
func (f *Filter) emptyLanes(b uint64) uint64 {
	low := f.hi - f.lo // the low f-1 bits of every lane
	return ^((b&low + low) | b) & f.hi
}

// matchLanes returns the lanes of bucket value b equal to fp, like emptyLanes.
func (f *Filter) matchLanes(b, fp uint64) uint64 {
	return f.emptyLanes(b ^ fp*f.lo)
}

// laneShift returns the bit position, in its word, of the lowest slot of
// bucket i whose top bit is set in the lane mask m (nonzero; as emptyLanes
// and matchLanes return): the lane's top bit rounded down to a multiple of
// the fingerprint width, a power of two (no division).
func (f *Filter) laneShift(i, m uint64) uint64 {
	return (i&f.wordMask)<<5 + uint64(bits.TrailingZeros64(m))&^uint64(f.t.FPBits-1)
}

// slotShift returns the bit position of slot s of bucket i in its word.
func (f *Filter) slotShift(i, s uint64) uint64 {
	return (i&f.wordMask)<<5 + s*uint64(f.t.FPBits)
}

// tryInsert puts fp in a free slot of bucket i, if there is one.
func (f *Filter) tryInsert(i, fp uint64) bool {
	free := f.emptyLanes(f.bucket(i))
	if free == 0 {
		return false
	}
	f.place(i, free, fp)
	return true
}

// emptier returns the bucket of i1 and i2 with more free slots and its
// free-lane mask (f1 and f2, from emptyLanes), i1 on a tie: see
// add. It selects with a mask (see secondEmptier), not a jump.
func emptier(i1, f1, i2, f2 uint64) (i, free uint64) {
	m := secondEmptier(f1, f2)
	return i1 ^ (i1^i2)&m, f1 ^ (f1^f2)&m
}

// secondEmptier returns all ones when free-lane mask f2 has more free slots
// than f1 (as a number: free lanes are the top ones, see add) and zero
// otherwise: the borrow of f1 - f2, negated, with no jump.
func secondEmptier(f1, f2 uint64) uint64 {
	_, b := bits.Sub64(f1, f2, 0)
	return -b
}

// place stores fp in the lowest free slot of bucket i; free is the bucket's
// emptyLanes mask, nonzero.
func (f *Filter) place(i, free, fp uint64) {
	w := &f.t.Words[i>>f.wordShift]
	f.store(w, *w|fp<<f.laneShift(i, free))
}

// tryDelete clears one slot of bucket i holding fp, if there is one.
func (f *Filter) tryDelete(i, fp uint64) bool {
	m := f.matchLanes(f.bucket(i), fp)
	if m == 0 {
		return false
	}
	f.t.Words[i>>f.wordShift] &^= f.fpMax << f.laneShift(i, m)
	return true
}

// swap puts fp in slot s of bucket i and returns what was there.
func (f *Filter) swap(i, s, fp uint64) uint64 {
	w := &f.t.Words[i>>f.wordShift]
	sh := f.slotShift(i, s)
	old := *w
	f.store(w, old&^(f.fpMax<<sh)|fp<<sh)
	return old >> sh & f.fpMax
}

// store writes v to word w of the bucket array. The bucket array of a
// Concurrent is read by lock-free lookups while the holder of its exclusive
// lock relocates fingerprints, so there (f.shared) every store is atomic;
// its loads need not be, as no other writer runs meanwhile. The branch
// goes the same way for the life of the filter. Every write of the
// eviction code (insertFull, moveOut, relocate) goes through place and swap, and
// so through store: the plain and the concurrent filter run the same code.
func (f *Filter) store(w *uint64, v uint64) {
	if f.shared {
		atomic.StoreUint64(w, v)
	} else {
		*w = v
	}
}
