package cuckoo

import (
	"math/bits"
	"unsafe"

	"github.com/sift-go/sift/internal/kernel"
)

// rngSeed derives the kick PRNG's starting state from the seed (never 0).
func rngSeed(seed uint64) uint64 {
	return (seed ^ 0x2545f4914f6cdd1d) | 1
}

// next returns 64 pseudo-random bits (xorshift64*: cheap, and good enough to
// pick kick victims).
func (f *Filter) next() uint64 {
	x := f.rng
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	f.rng = x
	return x * 0x2545f4914f6cdd1d
}

// The eviction code below is the one implementation of inserts into a full
// bucket pair and of re-homing the victim, for Filter and Concurrent alike.
// It reads buckets with plain loads and writes them through place and swap
// (so through store, atomic for a Concurrent), and it never touches the
// victim slot: it returns the fingerprint left homeless as a victim tag,
// which the caller parks (Filter in f.t.Victim, Concurrent in its atomic
// victim word, before its sequence number turns even again). A Concurrent
// runs it under its exclusive lock, inside an odd sequence number.

// insertFull inserts fp, whose buckets i1 and i2 are both full and hold b1
// and b2 (as bucket returns them; the callers have them loaded already),
// into a table holding count fingerprints. It returns ErrDuplicateLimit,
// changing nothing, when both buckets hold only fp. Otherwise it relocates
// fingerprints until one finds a free slot or the kick budget runs out.
// If a fingerprint is left homeless, it returns its victim tag for the
// caller to park when the table is nearly full (parks(count)); below that
// it undoes the walk (undoWalk) and returns ErrNoSlot, the table and the
// kick PRNG as they were. The caller's victim slot must be free.
func (f *Filter) insertFull(i1, i2, fp, b1, b2, count uint64) (victim uint64, err error) {
	if f.atDuplicateLimit(b1, b2, fp) {
		return 0, ErrDuplicateLimit
	}
	if f.t.FPBits == 16 && !f.shared {
		return f.insertFull16(i1, i2, fp, count)
	}
	rng0 := f.rng
	r := f.next()
	i := i1
	if r&1 != 0 {
		i = i2
	}
	r >>= 1
	left := 63
	// Both buckets are full. Before any eviction look one step ahead from
	// the other bucket too (the loop does it for i): eight fingerprints
	// may each have room in their alternate bucket. That move is a
	// relocation too: MaxKicks 0 (never relocate) makes none.
	if f.maxKicks > 0 && f.moveOut(i1^i2^i, fp) {
		return 0, nil
	}
	for k := 0; k < f.maxKicks; k++ {
		// Bucket i is full and fp wants in. First look one step ahead:
		// if a fingerprint of i has room in its own alternate bucket,
		// move it there and take its slot. The four alternates are
		// independent loads, so this costs about one memory latency and
		// ends most chains a step early.
		if f.moveOut(i, fp) {
			return 0, nil
		}
		if left < 2 {
			r, left = f.next(), 64
		}
		// The evicted fingerprint moves on to its alternate bucket. That
		// bucket is full: moveOut just found no room there for any of
		// i's fingerprints, this one included, and only i changed since
		// (if the alternate is i itself, i is full too). So there is no
		// insert to try; the next step's look-ahead reads the bucket.
		// (A tryInsert here succeeded 0 times in a 1e6-key fill.)
		fp = f.swap(i, r&3, fp)
		r >>= 2
		left -= 2
		i = kernel.CuckooAlt(i, fp, f.t.Buckets)
	}
	return f.homeless(i, fp, rng0, count)
}

// parks reports whether a walk that leaves a fingerprint homeless in a
// table holding count fingerprints parks it as the victim (from 90% of the
// slots on, parkLoadTenths) or is undone (below). See the package doc, "Insertion,
// ErrFull and the victim".
func (f *Filter) parks(count uint64) bool {
	return count*10 >= f.Capacity()*parkLoadTenths
}

// parkLoadTenths is the load, in tenths of the slots (90%), from which a
// failed walk parks its homeless fingerprint. Fills of distinct
// keys one at a time first ran out of kicks at 96.3-99.1% load (8 seeds
// each at 1e3, 1e5 and 1e6 keys, both fingerprint widths), so below 90% a
// failed walk means that the key's buckets are walled in by fingerprints
// that cannot move (a repeated key's copies fill both of their buckets),
// or that MaxKicks is small: parking would make every later Add fail,
// where undoing refuses this key alone.
const parkLoadTenths = 9

// homeless ends a walk of f.maxKicks steps that left fp homeless, wanting
// bucket i; rng0 is the kick PRNG's state before the walk. From 90% load
// on (parks) it returns fp's victim tag; below, it undoes the walk and
// returns ErrNoSlot.
func (f *Filter) homeless(i, fp, rng0, count uint64) (uint64, error) {
	if f.parks(count) {
		return kernel.CuckooTag(fp, min(i, kernel.CuckooAlt(i, fp, f.t.Buckets))), nil
	}
	f.undoWalk(i, fp, rng0)
	return 0, ErrNoSlot
}

// undoWalk reverses a walk of f.maxKicks evictions (insertFull's or
// insertFull16's) that left fingerprint fp homeless, wanting bucket i,
// and restores the kick PRNG to rng0, its state before the walk: the
// table and the PRNG are then exactly as they were before the insert, and
// the fingerprint the walk started with is dropped. The walk's slots are
// drawn again from rng0 (kickDraws) and its buckets found backwards:
// CuckooAlt is an involution, so the bucket a fingerprint was evicted from
// is the alternate of the one it was moving to. Each step swaps the later
// fingerprint back into the slot it was evicted from and takes out the one
// that evicted it. (Stores go through swap, atomic for a Concurrent, whose
// sequence number is odd throughout.)
//
// It allocates nothing, whatever the kick limit (up to MaxMaxKicks): the
// slots are drawn again a chunk of undoChunk at a time, last chunk first,
// each from the PRNG state marked at its start on a first pass. (It took
// a heap slice of f.maxKicks slots above DefaultMaxKicks: 64 KiB a failed
// Add at MaxMaxKicks, which a decoded file's header can set.)
func (f *Filter) undoWalk(i, fp, rng0 uint64) {
	var marks [MaxMaxKicks/undoChunk + 1]kickDraws
	k := f.maxKicks
	d := newKickDraws(rng0)
	chunks := 0
	for done := 0; done < k; done += undoChunk {
		marks[chunks] = d
		chunks++
		for range min(undoChunk, k-done) {
			d.next()
		}
	}
	var slots [undoChunk]uint8
	n := f.t.Buckets
	for c := chunks - 1; c >= 0; c-- {
		d := marks[c]
		m := min(undoChunk, k-c*undoChunk)
		for j := range m {
			slots[j] = d.next()
		}
		for j := m - 1; j >= 0; j-- {
			i = kernel.CuckooAlt(i, fp, n)
			fp = f.swap(i, uint64(slots[j]), fp)
		}
	}
	f.rng = rng0
}

// undoChunk is how many of a walk's slots undoWalk draws again at a time.
const undoChunk = DefaultMaxKicks

// kickDraws is the kick PRNG as a walk consumes it (insertFull and
// insertFull16 draw alike): one bit for the first bucket, then two bits an
// eviction, a new 64-bit draw when fewer than two are left.
type kickDraws struct {
	rng, r uint64
	left   int
}

// newKickDraws returns the draws of a walk that starts with the PRNG in
// state rng: the first bucket's bit is taken.
func newKickDraws(rng uint64) kickDraws {
	d := kickDraws{rng: rng}
	d.r = xorshiftStar(&d.rng) >> 1
	d.left = 63
	return d
}

// next returns the slot of the next eviction.
func (d *kickDraws) next() uint8 {
	if d.left < 2 {
		d.r, d.left = xorshiftStar(&d.rng), 64
	}
	s := uint8(d.r & 3)
	d.r >>= 2
	d.left -= 2
	return s
}

// insertFull16 is insertFull's relocation for a Filter (not a
// Concurrent's, whose stores must be atomic) with 16-bit fingerprints,
// where a bucket is a word: the same steps, the same kick PRNG draws and
// so the same table, with the bucket array and the PRNG state held in
// locals and the look-ahead in move16. (The general form reloads the
// Filter's fields around every store and goes through the word and lane
// arithmetic of both widths; bench/README.md, "The 16-bit relocation,
// specialised", has the figures.) The caller has done the duplicate
// check. It returns as insertFull does, count being the fingerprints the
// table holds.
func (f *Filter) insertFull16(i1, i2, fp, count uint64) (victim uint64, err error) {
	words := f.t.Words
	n := f.t.Buckets
	rng0 := f.rng
	rng := rng0
	r := xorshiftStar(&rng)
	i := i1 ^ (i1^i2)&-(r&1)
	r >>= 1
	left := 63
	j := i1 ^ i2 ^ i
	if a, wa, wj, ok := move16(words, n, j, fp); ok && f.maxKicks > 0 {
		words[a], words[j] = wa, wj
		f.rng = rng
		return 0, nil
	}
	for k := 0; k < f.maxKicks; k++ {
		if a, wa, wi, ok := move16(words, n, i, fp); ok {
			words[a], words[i] = wa, wi
			f.rng = rng
			return 0, nil
		}
		if left < 2 {
			r, left = xorshiftStar(&rng), 64
		}
		// As in insertFull: swap fp into slot r&3 of i and move on with
		// what was there.
		sh := r & 3 * 16
		old := words[i]
		words[i] = old&^((1<<16-1)<<sh) | fp<<sh
		fp = old >> sh & (1<<16 - 1)
		r >>= 2
		left -= 2
		i = kernel.CuckooAlt(i, fp, n)
	}
	f.rng = rng
	return f.homeless(i, fp, rng0, count)
}

// xorshiftStar is Filter.next on the state x.
func xorshiftStar(x *uint64) uint64 {
	v := *x
	v ^= v >> 12
	v ^= v << 25
	v ^= v >> 27
	*x = v
	return v * 0x2545f4914f6cdd1d
}

// move16 is moveOut's look-ahead for 16-bit buckets in words (n of them),
// without the stores: it finds the first fingerprint of full bucket i, in
// slot order, whose alternate bucket a has a free slot, and returns a, the
// words of a with the fingerprint in its lowest free slot and of i with fp
// in the slot it left, and whether there was one. The caller stores both
// words (insertFull16 directly, the overlapped walks logged). Bucket
// indexes below n come from CuckooLocate and CuckooAlt, so the loads
// carry no bounds checks (as in addRun16).
func move16(words []uint64, n, i, fp uint64) (a, wa, wi uint64, ok bool) {
	w := unsafe.Pointer(unsafe.SliceData(words))
	const lo, hi = 0x0001000100010001, 0x8000800080008000
	const low = hi - lo
	b := elem64(w, i)
	for sh := uint64(0); sh < 64; sh += 16 {
		e := b >> sh & (1<<16 - 1)
		a := kernel.CuckooAlt(i, e, n)
		ba := elem64(w, a)
		if free := ^((ba&low + low) | ba) & hi; free != 0 {
			return a, ba | e<<(uint64(bits.TrailingZeros64(free))&^15), b&^((1<<16-1)<<sh) | fp<<sh, true
		}
	}
	return 0, 0, 0, false
}

// searchNodes bounds the breadth-first search of relocate, which re-homes
// the victim after a Remove: the buckets it reads (all at depth 4 and less
// from the two roots, 2+8+32+128+512 = 682, then part of depth 5, about
// 1024 loads at most). Near full load most free slots are found within
// three levels. (Add does not search: where its random walk fails, the
// search finds a path only for a few more keys, each at the cost of a
// failed walk, which measured 2-3x slower fills to the first ErrFull.)
const searchNodes = 1024

// searchNode is a bucket reached by the search: the fingerprint in slot
// slot of the bucket of node parent (-1 for one of the two roots) can move
// into it.
type searchNode struct {
	bucket uint32
	parent int16
	slot   uint8
}

// searchPath looks, breadth first, for the shortest chain of relocations
// that makes room for fingerprint fp in bucket i or its alternate: a path
// of buckets, each holding a fingerprint whose alternate bucket is the next
// one, ending in a bucket with a free slot. No bucket appears twice on a
// path, so the moves along it cannot interfere. It returns the index in
// nodes of the bucket with the free slot and that bucket's free-lane mask,
// or -1. It only reads; relocate makes the moves.
func (f *Filter) searchPath(nodes *[searchNodes]searchNode, fp, i uint64) (int, uint64) {
	n := f.t.Buckets
	fb := uint64(f.t.FPBits)
	nodes[0] = searchNode{bucket: uint32(i), parent: -1}
	m := 1
	if j := kernel.CuckooAlt(i, fp, n); j != i {
		nodes[1] = searchNode{bucket: uint32(j), parent: -1}
		m = 2
	}
	for head := 0; head < m; head++ {
		bi := uint64(nodes[head].bucket)
		b := f.bucket(bi)
		if free := f.emptyLanes(b); free != 0 {
			return head, free
		}
	slots:
		for s := range uint64(SlotsPerBucket) {
			if m == searchNodes {
				break
			}
			alt := kernel.CuckooAlt(bi, b>>(s*fb)&f.fpMax, n)
			for a := head; a >= 0; a = int(nodes[a].parent) {
				if uint64(nodes[a].bucket) == alt {
					continue slots
				}
			}
			nodes[m] = searchNode{bucket: uint32(alt), parent: int16(head), slot: uint8(s)}
			m++
		}
	}
	return -1, 0
}

// relocate puts fingerprint fp, which belongs in bucket i or its
// alternate, into the table along the path searchPath finds, and reports
// whether there was one (if not, nothing changed). The moves go from the
// free slot back to the root: each fingerprint is copied into the bucket
// after it on the path before its old slot is overwritten by the one
// before it, so every fingerprint stays findable throughout (for a
// Concurrent, by lookups that retry under the shared lock: the sequence
// number is odd meanwhile).
func (f *Filter) relocate(fp, i uint64) bool {
	var nodes [searchNodes]searchNode
	t, free := f.searchPath(&nodes, fp, i)
	if t < 0 {
		return false
	}
	fb := uint64(f.t.FPBits)
	slot := -1 // the slot of nodes[t] to fill; -1: a free one
	for nodes[t].parent >= 0 {
		nd, p := nodes[t], nodes[nodes[t].parent]
		e := f.bucket(uint64(p.bucket)) >> (uint64(nd.slot) * fb) & f.fpMax
		if slot < 0 {
			f.place(uint64(nd.bucket), free, e)
		} else {
			f.swap(uint64(nd.bucket), uint64(slot), e)
		}
		slot, t = int(nd.slot), int(nd.parent)
	}
	if slot < 0 {
		f.place(uint64(nodes[t].bucket), free, fp)
	} else {
		f.swap(uint64(nodes[t].bucket), uint64(slot), fp)
	}
	return true
}

// rehome moves the fingerprint of victim tag v into the table, along the
// shortest chain of relocations to a free slot (see relocate), and reports
// whether there was room; the caller then clears its victim slot.
func (f *Filter) rehome(v uint64) bool {
	fp, i := splitTag(v)
	return f.relocate(fp, i)
}

// moveOut moves a fingerprint of full bucket i to a free slot of its
// alternate bucket, if one has room, and puts fp in the freed slot.
func (f *Filter) moveOut(i, fp uint64) bool {
	b := f.bucket(i)
	fb := uint64(f.t.FPBits)
	n := f.t.Buckets
	for s := range uint64(SlotsPerBucket) {
		e := b >> (s * fb) & f.fpMax
		if f.tryInsert(kernel.CuckooAlt(i, e, n), e) {
			f.swap(i, s, fp)
			return true
		}
	}
	return false
}

// victim returns the fingerprint parked in the victim slot and the smaller
// of its buckets.
func (f *Filter) victim() (fp, i uint64) { return splitTag(f.t.Victim) }

// splitTag returns the fingerprint and bucket of victim tag v (see
// kernel.CuckooTag).
func splitTag(v uint64) (fp, i uint64) { return v >> 32, v & (1<<32 - 1) }
