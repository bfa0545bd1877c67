package cuckoo

import (
	"runtime"
	"unsafe"

	"github.com/sift-go/sift/internal/kernel"
)

// The batch insert's overlapped relocations (addWalks).
//
// On a table larger than the caches a relocation walk waits, at every
// step, for the four buckets the previous step points to: one memory
// latency a step, and near full load a key takes several steps. One key's
// steps depend on each other, but different keys' walks do not, so from
// 3/4 load on, where such tables are scanned for full bucket pairs (see
// scanMinBytes), AddHashes keeps up to walkSlots walks in flight while it
// goes on inserting the keys after them: each round moves every walk one
// step and prefetches the buckets its next step reads, so their latencies
// overlap each other and the inserts.
//
// A walk in flight holds one fingerprint that is in no bucket, and
// several walks can run out of kicks where one victim slot is all there is.
// So walks never park a victim here: every write of the stage goes to an
// undo log, and when a walk runs past MaxKicks steps, a key meets
// ErrDuplicateLimit, or the log fills, the stage rolls the table, the count
// and the kick PRNG back to the last point where no walk was in flight and
// redoes the keys from there one at a time on addGroups' path, which parks
// the victim and reports the errors exactly as AddHash does. Nothing reads
// a Filter during AddHashes, so the fingerprints in flight need not be
// findable until it returns, and at every return every key added is.

// walkSlots is how many relocation walks addWalks keeps in flight.
const walkSlots = 8

// walkLog is the capacity of addWalks' undo log, in word writes. Past half
// of it addWalks finishes the walks in flight and starts the log afresh.
const walkLog = 1024

// walk is a relocation in flight: fingerprint fp, evicted, wants a slot in
// bucket i (full when last seen), after steps evictions.
type walk struct{ fp, i, steps uint64 }

// undoEntry is a word of the bucket array and its value before a write.
type undoEntry struct{ w, old uint64 }

// walker is addWalks' state: the walks in flight and the undo log since
// the last point with none in flight.
type walker struct {
	f    *Filter
	w    [walkSlots]walk
	n    int
	log  [walkLog]undoEntry
	nlog int
}

// write sets word w of the bucket array to v, logging its old value.
func (k *walker) write(w, v uint64) {
	words := k.f.t.Words
	k.log[k.nlog] = undoEntry{w, words[w]}
	k.nlog++
	words[w] = v
}

// place is Filter.place, logged.
func (k *walker) place(i, free, fp uint64) {
	f := k.f
	w := i >> f.wordShift
	k.write(w, f.t.Words[w]|fp<<f.laneShift(i, free))
}

// swap is Filter.swap, logged.
func (k *walker) swap(i, s, fp uint64) uint64 {
	f := k.f
	w := i >> f.wordShift
	sh := f.slotShift(i, s)
	old := f.t.Words[w]
	k.write(w, old&^(f.fpMax<<sh)|fp<<sh)
	return old >> sh & f.fpMax
}

// moveOut is Filter.moveOut, logged.
func (k *walker) moveOut(i, fp uint64) bool {
	f := k.f
	if f.t.FPBits == 16 {
		a, wa, wi, ok := move16(f.t.Words, f.t.Buckets, i, fp)
		if ok {
			k.write(a, wa)
			k.write(i, wi)
		}
		return ok
	}
	b := f.bucket(i)
	fb := uint64(f.t.FPBits)
	n := f.t.Buckets
	for s := range uint64(SlotsPerBucket) {
		e := b >> (s * fb) & f.fpMax
		a := kernel.CuckooAlt(i, e, n)
		if free := f.emptyLanes(f.bucket(a)); free != 0 {
			k.place(a, free, e)
			k.swap(i, s, fp)
			return true
		}
	}
	return false
}

// room reports whether the log has room for a key's writes or a round of
// steps (at most two writes each).
func (k *walker) room() bool { return k.nlog+2*walkSlots+4 <= walkLog }

// add inserts the key of hash h, whose buckets are i1 and i2: into the
// emptier bucket if either has room; else through the look-ahead of both
// buckets; else it evicts a fingerprint and leaves the rest of the walk in
// flight (after moving the walks in flight on until a slot frees). It
// reports false, having counted nothing, where addWalks must roll back: the
// key meets the duplicate limit, or a walk ran out of kicks.
func (k *walker) add(h, i1, i2 uint64) bool {
	f := k.f
	b1, b2 := f.bucket(i1), f.bucket(i2)
	e1, e2 := f.emptyLanes(b1), f.emptyLanes(b2)
	fp := kernel.CuckooFingerprint(h, f.fpMax)
	if e1|e2 != 0 {
		i, free := emptier(i1, e1, i2, e2)
		k.place(i, free, fp)
		f.count++
		return true
	}
	if f.atDuplicateLimit(b1, b2, fp) {
		return false
	}
	if k.moveOut(i2, fp) || k.moveOut(i1, fp) {
		f.count++
		return true
	}
	for k.n == walkSlots {
		if !k.advance() {
			return false
		}
	}
	r := f.next()
	i := i1
	if r&1 != 0 {
		i = i2
	}
	e := k.swap(i, r>>1&3, fp)
	j := kernel.CuckooAlt(i, e, f.t.Buckets)
	k.w[k.n] = walk{fp: e, i: j, steps: 1}
	k.n++
	f.count++
	var is, bs [1]uint64
	var alts [4]uint64
	is[0], bs[0] = j, f.bucket(j)
	kernel.CuckooAlternates(&f.t, is[:], bs[:], alts[:])
	return true
}

// addRun16 is add for each key of hs, whose buckets are in locs, in a
// 16-bit filter: a key with a free slot in either bucket goes in by
// addRun16's loop (cuckoo/insert.go), its write logged, with no call;
// the others through add. It reports false where add does, or where the
// log has no room for a key's writes, having added the keys before that
// one. The placements, and so the table, are add's.
//
// Filling a 16-bit filter of 1e7 keys, the keys of the band 0.76-0.85
// took 23 ns each through add and 20 through addGroups' runs (three
// alternated rounds, AMD EPYC family 26 model 2, Zen 5, of
// BenchmarkFillCurve/n=1e+07/fpbits=16/call=batch at -benchtime 1x, the
// second a scratch build that ran addRun16Full in place of the walks up
// to 0.85 load; bench/README.md, "The overlapped walks' fast paths"): the
// generic bucket arithmetic and a call per key were the difference.
func (k *walker) addRun16(hs, locs []uint64) bool {
	f := k.f
	words := f.t.Words
	w := unsafe.Pointer(unsafe.SliceData(words))
	locs = locs[:len(hs)]
	const lo, hi = 0x0001000100010001, 0x8000800080008000
	for j, l := range locs {
		if !k.room() {
			return false
		}
		i1, i2 := splitLoc(l)
		n1, n2 := fullLanes(elem64(w, i1), lo, hi), fullLanes(elem64(w, i2), lo, hi)
		if n1&n2 == hi {
			if !k.add(hs[j], i1, i2) {
				return false
			}
			continue
		}
		e1, e2 := n1^hi, n2^hi
		i, e := emptier(i1, e1, i2, e2)
		old := words[i]
		k.log[k.nlog] = undoEntry{i, old}
		k.nlog++
		words[i] = old | kernel.CuckooFingerprint(hs[j], 1<<16-1)*lowestLane(e, 16)
		f.count++
	}
	return true
}

// fullPairs is addWalks' scan of a group of keys (at most addAheadFull),
// whose buckets are in locs, for full bucket pairs: for each key whose two
// buckets are both full it appends the buckets and their words to is and
// bs, and it returns how many it appended (two a key).
func (f *Filter) fullPairs(locs []uint64, is, bs *[2 * addAheadFull]uint64) int {
	if f.t.FPBits == 16 {
		return fullPairs16(f.t.Words, locs, is, bs)
	}
	m := 0
	for _, l := range locs[:min(len(locs), addAheadFull)] {
		i1, i2 := splitLoc(l)
		b1, b2 := f.bucket(i1), f.bucket(i2)
		if f.emptyLanes(b1)|f.emptyLanes(b2) == 0 {
			is[m], bs[m], is[m+1], bs[m+1] = i1, b1, i2, b2
			m += 2
		}
	}
	return m
}

// fullPairs16 is fullPairs for the 16-bit bucket array words, with no
// branch on the buckets' contents: each key's pair is written, and kept
// or overwritten by the next key's as the count says. With it (and
// walker.addRun16) the keys of the band 0.76-0.85 of a 1e7-key fill took
// 19.2 ns each instead of 21.0 with fullPairs' branching loop (three
// alternated rounds of BenchmarkFillCurve/n=1e+07/fpbits=16/call=batch at
// -benchtime 1x, the second a scratch build; AMD EPYC family 26 model 2,
// Zen 5): the scan's branch on whether a pair is full, taken for about
// one key in five there, is mispredicted.
func fullPairs16(words, locs []uint64, is, bs *[2 * addAheadFull]uint64) int {
	w := unsafe.Pointer(unsafe.SliceData(words))
	const lo, hi = 0x0001000100010001, 0x8000800080008000
	m := 0
	for _, l := range locs[:min(len(locs), addAheadFull)] {
		i1, i2 := splitLoc(l)
		b1, b2 := elem64(w, i1), elem64(w, i2)
		x := fullLanes(b1, lo, hi)&fullLanes(b2, lo, hi) ^ hi
		is[m], bs[m], is[m+1], bs[m+1] = i1, b1, i2, b2
		m += int(2 - (x|-x)>>63*2)
	}
	return m
}

// advance moves every walk in flight one step: a walk whose bucket's
// fingerprints have room in an alternate ends there; the others evict a
// slot chosen by the kick PRNG, and the four alternates of the bucket they
// move to are prefetched. It reports false where a walk has run MaxKicks
// steps or the log has no room for the round.
func (k *walker) advance() bool {
	if !k.room() {
		return false
	}
	f := k.f
	var is, bs [walkSlots]uint64
	var alts [4 * walkSlots]uint64
	m := 0
	for j := 0; j < k.n; {
		w := &k.w[j]
		if k.moveOut(w.i, w.fp) {
			k.n--
			k.w[j] = k.w[k.n]
			continue
		}
		if w.steps >= uint64(f.maxKicks) {
			return false
		}
		e := k.swap(w.i, f.next()&3, w.fp)
		w.i, w.fp, w.steps = kernel.CuckooAlt(w.i, e, f.t.Buckets), e, w.steps+1
		is[m], bs[m] = w.i, f.bucket(w.i)
		m++
		j++
	}
	if m > 0 {
		kernel.CuckooAlternates(&f.t, is[:m], bs[:m], alts[:4*m])
	}
	return true
}

// drain moves the walks in flight on until none is left, and reports
// false where advance does.
func (k *walker) drain() bool {
	for k.n > 0 {
		if !k.advance() {
			return false
		}
	}
	return true
}

// addWalks is the stage of AddHashes from scanFrom on, for tables of
// scanMinBytes and more with a locate kernel that prefetches: addGroups'
// pipeline (groups of addAheadFull, located two ahead, the next group
// scanned for full bucket pairs and their alternates prefetched), with
// the keys inserted by a walker (see the comment at the top of this file).
// It returns as addGroups does.
func (f *Filter) addWalks(hs []uint64, scanFrom uint64) (int, error) {
	const g = addAheadFull
	var k walker
	k.f = f
	var locs [3][g]uint64
	var is, bs [2 * addAheadFull]uint64
	var alts [8 * g]uint64
	// The checkpoint: where the log starts, with no walk in flight.
	start, count, rng := 0, f.count, f.rng
	for j := 0; j < 2 && j*g < len(hs); j++ {
		b := hs[j*g : min((j+1)*g, len(hs))]
		kernel.CuckooLocate(&f.t, b, locs[j][:len(b)])
	}
	done := 0
	ok := true
	for r := 0; ok && done < len(hs); r++ {
		if lo := done + 2*g; lo < len(hs) {
			b := hs[lo:min(lo+g, len(hs))]
			kernel.CuckooLocate(&f.t, b, locs[(r+2)%3][:len(b)])
		}
		if lo := done + g; lo < len(hs) {
			if m := f.fullPairs(locs[(r+1)%3][:min(g, len(hs)-lo)], &is, &bs); m > 0 {
				kernel.CuckooAlternates(&f.t, is[:m], bs[:m], alts[:4*m])
			}
		}
		if k.nlog > walkLog/2 {
			if ok = k.drain(); !ok {
				break
			}
			start, count, rng, k.nlog = done, f.count, f.rng, 0
		}
		cur := hs[done:min(done+g, len(hs))]
		if f.t.FPBits == 16 {
			ok = k.addRun16(cur, locs[r%3][:len(cur)])
		} else {
			for j, l := range locs[r%3][:len(cur)] {
				i1, i2 := splitLoc(l)
				if ok = k.room() && k.add(cur[j], i1, i2); !ok {
					break
				}
			}
		}
		if !ok {
			break
		}
		done += len(cur)
		if k.n > 0 {
			ok = k.advance()
		} else {
			start, count, rng, k.nlog = done, f.count, f.rng, 0
		}
	}
	if ok && k.drain() {
		runtime.KeepAlive(f) // see probe
		return len(hs), nil
	}
	// Roll back to the checkpoint and go on one key at a time.
	words := f.t.Words
	for j := k.nlog - 1; j >= 0; j-- {
		words[k.log[j].w] = k.log[j].old
	}
	f.count, f.rng = count, rng
	n, err := f.addGroups(hs[start:], nil, g, scanFrom, false)
	return start + n, err
}
