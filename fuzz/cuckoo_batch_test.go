package fuzz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/internal/kernel"
)

// The cuckoo batch target, FuzzCuckooBatch: cuckoo.Filter's AddHashes and
// AddNewHashes on tables large enough for their stages, 4092 to 16384
// buckets (the vector insert kernel runs from 4096 on), prefilled to a
// fuzzed load (up to 0.97) and then driven by a fuzzed script of batch and
// single-key operations whose keys repeat, share buckets and fingerprints,
// reuse the victim's fingerprint, or crowd one bucket pair until a key
// finds no slot there (cbRun.crowdKey), so that a walled-in key
// (ErrNoSlot below 90% load) or the victim (from 90% on) comes at any
// load and any key. The same script runs on a reference
// filter that makes single-key calls only (AddHash, AddNewHash,
// ContainsHash) and, for every kernel set (kernel.SetImpl), on a clone
// that makes the batch calls; after every operation each must match the
// reference as the methods' docs promise below 4 MiB: the same n, the
// same error at the same key, the same answers, out past the stop (and
// one past the batch) untouched, and the same serialized image (bucket
// array, count, victim, kick PRNG state). An exact model (the multiset of
// the keys' tags, fingerprint and bucket pair) checks the reference key by
// key: AddHash's ErrFull exactly while the victim is parked, its
// ErrDuplicateLimit exactly at a key whose pair holds only copies of its
// tag, ErrNoSlot (a walled-in key, refused) only with neither and below
// 90% load, no victim parked below 90% load, AddNewHash never new for a held key, Count the model's size, every
// held key found after every operation, and at the end the table's
// multiset of tags equal to the model's.
//
// The stage of AddHashes that overlaps relocation walks (addWalks) runs
// only on bucket arrays of 4 MiB and more (scanMinBytes), half a million
// buckets and more: too large to fill in one fuzz execution, so it is
// left to package cuckoo's unit tests (TestAddHashesMatchesAddHash's third
// pass, TestAddHashesFillPastFullLarge). Below 4 MiB the full-pair scan
// does not run either; what runs here is the vector stage (or, with other
// kernel sets, the Go runs addRun16/addRun8) below 3/4 load, the groups
// of addAheadFull keys with relocation (addRun16Full, insertFull16,
// insertFull) above it, the switch between them inside a batch, the
// victim parked mid-batch, and AddNewHashes' one-key-at-a-time tail.

// Limits that keep one execution within tens of milliseconds.
const (
	cbHeader     = 8     // header bytes (see FuzzCuckooBatch)
	cbMaxOps     = 48    // operations per input
	cbMaxKeys    = 6144  // keys the operations make, in all
	cbMinBuckets = 4092  // a few below vectorMinBuckets, 4096
	cbSpan       = 12293 // bucket counts cbMinBuckets .. 16384
	cbMaxLoad    = 0.97  // the highest prefill load
)

// cbKicks are the kick limits hdr[0] bits 1-3 select.
var cbKicks = [8]int{0, 1, 2, 4, 16, 64, 200, cuckoo.DefaultMaxKicks}

// Operation codes: an op byte modulo cbNumOps.
const (
	cbOpAdd      = iota // AddHashes of a batch: [len][mix]
	cbOpAddNew          // AddNewHashes of a batch: [len][mix]
	cbOpAdd1            // AddHash of one key: [src]
	cbOpAddNew1         // AddNewHash of one key: [src]
	cbOpRemove          // RemoveHash of held keys: [b]
	cbOpContains        // ContainsHashes of a batch: [len][mix]
	cbNumOps
)

var cbOpNames = [cbNumOps]string{"add-batch", "add-new-batch", "add", "add-new", "remove", "contains-batch"}

// Key sources: where a key of an operation comes from (see cbRun.key).
const (
	srcFresh  = iota // a fresh random hash
	srcBatch         // a key earlier in the batch (the one before, with runs)
	srcScript        // a key an earlier operation used
	srcHeld          // a key the model holds (prefill keys included)
	srcTwin          // an earlier key's twin: its fingerprint, its pair's other bucket first
	srcBucket        // an earlier key's first bucket, a fresh fingerprint
	srcFP            // an earlier key's fingerprint, a fresh first bucket
	srcVictim        // the parked victim's fingerprint and pair (fresh if none)
	srcCrowd         // a key of the crowd (see cbRun.crowdKey)
	numSrc
)

// cbStats counts what one input reached; TestCuckooBatchSeedsReachTheirTargets
// sums them over the seeds. Those marked (stats) are counted only when
// runCuckooBatch is given a cbStats, since they cost a marshal per key.
type cbStats struct {
	vectorGroups int    // (stats) groups of eight the insert kernel takes at a batch's start (its contract, run by CuckooInsertGeneric on the table)
	vectorStops  int    // (stats) batches whose insert kernel stops before a group that the runs then take
	vectorLanes  int    // batches run below 3/4 load on a lane whose kernel set has the insert kernel, on >= 4096 buckets
	goRunLanes   int    // batches run below 3/4 load on a lane without it (the Go runs)
	cross        int    // AddHashes batches that crossed 3/4 load inside the call
	crossNew     int    // AddNewHashes batches that did
	reloc        [2]int // (stats) keys of batches that relocated (both buckets full), 8- and 16-bit
	parked       int    // AddHashes batches in which a key parked the victim, ending them with ErrFull
	parkedNew    int    // AddNewHashes batches in which a key parked the victim, with keys after it
	noSlot       int    // AddHashes batches stopped by ErrNoSlot (a walled-in key, below 90% load)
	noSlotNew    int    // AddNewHashes batches stopped by ErrNoSlot
	noSlotEdge   int    // those stopped at the last key of the stage below 3/4 load or the first after it
	victimNew    int    // add-if-new batch keys of the parked victim's tag: (false, nil)
	victimSame   int    // those in the batch that parked it
	newFull      int    // AddNewHashes batches stopped by ErrFull at a new key
	dupLimit     int    // AddHashes batches stopped by ErrDuplicateLimit
	rehomed      int    // removes that re-homed the victim
}

// cbLane is one filter of the differential: the reference (single-key
// calls) or a batch lane (batch calls under kernel set impl).
type cbLane struct {
	name, impl string
	f          *cuckoo.Filter
	img        []byte // the last image, AppendBinary's buffer
}

// cbRun is one execution: the input, the filters and the model.
type cbRun struct {
	input  // the operations, after the header
	rnd    func() uint64
	geo    kernel.CuckooTable // the geometry (Buckets, FPBits) only
	fpIdx  int                // 0: 8-bit, 1: 16-bit
	ref    *cbLane
	lanes  []*cbLane
	held   []uint64       // every held key, once per copy
	tags   map[uint64]int // copies held of each tag
	script []uint64       // the keys the operations used
	keys   int            // keys made so far
	vtag   uint64         // the parked victim's tag, 0 if none (from ref's image)
	crowd  []uint64       // the crowd's keys (see crowdKey), made at its first use
	crowdK int            // the next of them
	st     *cbStats       // the counts (a discarded one without stats)
	stats  bool           // runCuckooBatch was given a cbStats: count all
	op     string         // what runs, for failures
}

// fail reports a violated invariant, with the operation (see failf).
func (r *cbRun) fail(format string, args ...any) {
	failf("%s: %s", r.op, fmt.Sprintf(format, args...))
}

// cbParam returns parameter k of the image of a cuckoo record (FORMAT.md,
// kind 2).
func cbParam(img []byte, k int) uint64 { return binary.LittleEndian.Uint64(img[48+8*k:]) }

// cbTable decodes the bucket array and victim of a cuckoo record's image
// (FORMAT.md, kind 2: little-endian words).
func cbTable(img []byte) *kernel.CuckooTable {
	off := binary.LittleEndian.Uint64(img[24:])
	n := binary.LittleEndian.Uint64(img[32:])
	t := &kernel.CuckooTable{Buckets: cbParam(img, 0), FPBits: uint(cbParam(img, 1))}
	t.Words = make([]uint64, n/8)
	for i := range t.Words {
		t.Words[i] = binary.LittleEndian.Uint64(img[off+8*uint64(i):])
	}
	t.Victim = cbVictim(img)
	return t
}

// cbVictim returns the victim tag of a cuckoo record's image, 0 if its
// victim slot is free.
func cbVictim(img []byte) uint64 {
	if cbParam(img, 5) == 0 {
		return 0
	}
	return kernel.CuckooTag(cbParam(img, 3), cbParam(img, 4))
}

// image refreshes l.img from l's filter and returns it.
func (l *cbLane) image() []byte {
	img, err := l.f.AppendBinary(l.img[:0])
	if err != nil {
		failf("%s: AppendBinary: %v", l.name, err)
	}
	l.img = img
	return img
}

// tag returns the tag of the key of hash h (its fingerprint and the smaller
// bucket of its pair, the victim's form) and how many slots its pair has:
// 8, or 4 when its two buckets are one.
func (r *cbRun) tag(h uint64) (tag uint64, slots int) {
	i1, i2, fp := modelCuckooBuckets(&r.geo, h)
	slots = 2 * kernel.CuckooSlots
	if i1 == i2 {
		slots = kernel.CuckooSlots
	}
	return cuckooPairTag(i1, i2, fp), slots
}

// hold adds one copy of h to the model.
func (r *cbRun) hold(h uint64) {
	t, _ := r.tag(h)
	r.tags[t]++
	r.held = append(r.held, h)
}

// highAt returns the smallest high half of a hash whose first bucket is i.
func (r *cbRun) highAt(i uint64) uint64 {
	n := r.geo.Buckets
	return (i<<32 + n - 1) / n << 32
}

// keyAt returns a hash whose first bucket is i and whose fingerprint is fp:
// the smallest high half that maps to i, and the smallest low half that
// maps to fp.
func (r *cbRun) keyAt(i, fp uint64) uint64 {
	fpMax := uint64(1)<<r.geo.FPBits - 1
	return r.highAt(i) | ((fp-1)<<32+fpMax-1)/fpMax
}

// pick returns a random element of hs (hs not empty).
func (r *cbRun) pick(hs []uint64) uint64 { return hs[r.rnd()%uint64(len(hs))] }

// base returns an earlier key for the sources built on one: the one before
// in batch (with run) or any of it, else one of the script's, else a held
// one, else a fresh one.
func (r *cbRun) base(batch []uint64, run bool) uint64 {
	switch {
	case len(batch) > 0 && run:
		return batch[len(batch)-1]
	case len(batch) > 0 && (len(r.script) == 0 || r.rnd()%4 != 0):
		return r.pick(batch)
	case len(r.script) > 0:
		return r.pick(r.script)
	case len(r.held) > 0:
		return r.pick(r.held)
	}
	return r.rnd()
}

// key returns a key of source src (srcFresh...), batch holding the keys of
// the operation so far; run makes srcBatch repeat the key before.
func (r *cbRun) key(src int, batch []uint64, run bool) uint64 {
	switch src {
	case srcBatch:
		if len(batch) == 0 && len(r.script) > 0 {
			return r.script[len(r.script)-1]
		}
		return r.base(batch, run)
	case srcScript:
		if len(r.script) > 0 {
			return r.pick(r.script)
		}
	case srcHeld:
		if len(r.held) > 0 {
			return r.pick(r.held)
		}
	case srcTwin:
		b := r.base(batch, run)
		_, i2, _ := modelCuckooBuckets(&r.geo, b)
		return r.highAt(i2) | b&(1<<32-1)
	case srcBucket:
		return r.base(batch, run)&^(1<<32-1) | r.rnd()&(1<<32-1)
	case srcFP:
		return r.rnd()&^(1<<32-1) | r.base(batch, run)&(1<<32-1)
	case srcCrowd:
		return r.crowdKey()
	case srcVictim:
		if r.vtag != 0 {
			return r.keyAt(r.vtag&(1<<32-1), r.vtag>>32)
		}
	}
	return r.rnd()
}

// crowdKey returns the next key of the run's crowd: keys of two or more
// fingerprints that share one bucket pair (fingerprints whose alternate
// bucket offsets are equal, H(fp) in the package doc, so that any bucket
// pairs with the same other bucket for each), in turn: up to nine
// fingerprints, so that add-if-new, to which a repeated fingerprint is
// not new, can fill the pair too. Once its eight slots hold only the
// crowd's fingerprints the next new crowd key must relocate, and every fingerprint it can move has its other bucket in
// the pair, full: whatever the kick limit, it parks the victim. That puts
// a victim wherever the input wants one, at any load (random keys park
// one only near full load). With no two fingerprints sharing an offset
// among those tried (8-bit fingerprints on a large table can have none)
// the crowd is one fingerprint in its pair, whose ninth copy is
// ErrDuplicateLimit instead.
func (r *cbRun) crowdKey() uint64 {
	if r.crowd == nil {
		fpMax := uint64(1)<<r.geo.FPBits - 1
		var fps []uint64
		for try := 0; try < 32 && len(fps) < 9; try++ {
			f0 := r.rnd()%fpMax + 1
			off := modelCuckooAlt(&r.geo, 0, f0)
			var these []uint64
			for fp := uint64(1); fp <= fpMax && len(these) < 9; fp++ {
				if modelCuckooAlt(&r.geo, 0, fp) == off {
					these = append(these, fp)
				}
			}
			if len(these) > len(fps) {
				fps = these
			}
		}
		x := r.rnd() % r.geo.Buckets
		for k, fp := range fps {
			i := x
			if k%2 == 1 { // the pair's other bucket first
				i = modelCuckooAlt(&r.geo, x, fp)
			}
			r.crowd = append(r.crowd, r.keyAt(i, fp))
		}
	}
	h := r.crowd[r.crowdK%len(r.crowd)]
	r.crowdK++
	return h
}

// batch decodes a batch: a length byte (v below 128: v keys; else
// (v-128)*16) and a mix byte: of every eight keys, about mix&7 repeat one
// (srcBatch, srcScript, srcHeld), mix>>3&7 share a bucket or a
// fingerprint with one (srcTwin, srcBucket, srcFP), the rest are fresh;
// with mix&0x40 half of them are the victim's, while it is parked (at the
// batch's start); with mix&0x80 repeats are of the key before (srcBatch)
// and shares are built on it. The total is capped
// at cbMaxKeys for the input.
func (r *cbRun) batch() []uint64 {
	v, mix := int(r.byte()), r.byte()
	n := v
	if v >= 128 {
		n = (v - 128) * 16
	}
	n = max(0, min(n, cbMaxKeys-r.keys)) // single keys may have passed the cap
	r.keys += n
	rep, share := uint64(mix&7), uint64(mix>>3&7)
	run := mix&0x80 != 0
	hs := make([]uint64, 0, n)
	for range n {
		src := srcFresh
		switch c := r.rnd() % 8; {
		case mix&0x40 != 0 && r.vtag != 0 && r.rnd()%2 == 0:
			src = srcVictim
		case c < rep && run:
			src = srcBatch
		case c < rep:
			src = srcBatch + int(r.rnd()%3)
		case c < rep+share:
			src = srcTwin + int(r.rnd()%4)
			if src == srcVictim {
				src = srcCrowd
			}
		}
		hs = append(hs, r.key(src, hs, run))
	}
	r.script = append(r.script, hs...)
	return hs
}

// single decodes one key: a source byte, src%numSrc (bit 7: srcBatch
// repeats the script's last key, as it does anyway with no batch).
func (r *cbRun) single() uint64 {
	r.keys++
	b := r.byte()
	h := r.key(int(b&0x7f)%numSrc, nil, b&0x80 != 0)
	r.script = append(r.script, h)
	return h
}

// sameImages checks every lane's image against the reference's, and
// refreshes r.vtag.
func (r *cbRun) sameImages() {
	want := r.ref.image()
	if len(r.held) != int(r.ref.f.Count()) {
		r.fail("Count %d, the model holds %d keys", r.ref.f.Count(), len(r.held))
	}
	r.vtag = cbVictim(want)
	for _, l := range r.lanes {
		got := l.image()
		if bytes.Equal(got, want) {
			continue
		}
		r.fail("%s's image differs from the single-key reference's: %s", l.name, cbImageDiff(got, want))
	}
}

// cbImageDiff describes the first difference of two cuckoo images of one
// length.
func cbImageDiff(got, want []byte) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d bytes, want %d", len(got), len(want))
	}
	for k := range 8 {
		if a, b := cbParam(got, k), cbParam(want, k); a != b {
			return fmt.Sprintf("parameter %d (count 2, victim 3-5, kick PRNG 7) is %#x, want %#x", k, a, b)
		}
	}
	off := binary.LittleEndian.Uint64(want[24:])
	for i := off; i+8 <= uint64(len(want)); i += 8 {
		if a, b := binary.LittleEndian.Uint64(got[i:]), binary.LittleEndian.Uint64(want[i:]); a != b {
			return fmt.Sprintf("bucket word %d is %#x, want %#x", (i-off)/8, a, b)
		}
	}
	return "the header differs"
}

// checkHeld checks that the reference finds every key the model holds
// and that hs are found (keys gone through in the operation).
func (r *cbRun) checkHeld(hs []uint64) {
	out := make([]bool, len(r.held))
	if c := r.ref.f.ContainsHashes(r.held, out); c != len(r.held) {
		for i, h := range r.held {
			if !out[i] {
				r.fail("false negative: held key %#x (%d held) is not found", h, len(r.held))
			}
		}
	}
	for _, h := range hs {
		if !r.ref.f.ContainsHash(h) {
			r.fail("key %#x, gone through, is not found", h)
		}
	}
}

// census checks that the reference's table (its image) holds exactly the
// model's multiset of tags: every fingerprint in a slot or the victim slot
// belongs to the tag of its pair, as many as the model holds. It counts
// the table's tags down in the model (none may go below zero: with as many
// fingerprints as keys held, all then reach zero), then back up.
func (r *cbRun) census() {
	t := cbTable(r.ref.image())
	if c := r.ref.f.Count(); c != uint64(len(r.held)) {
		r.fail("Count %d, the model holds %d keys", c, len(r.held))
	}
	each := func(f func(tag uint64)) {
		for i := range t.Buckets {
			for s := range uint64(kernel.CuckooSlots) {
				if fp := cuckooSlot(t, i, s); fp != 0 {
					f(cuckooPairTag(i, modelCuckooAlt(t, i, fp), fp))
				}
			}
		}
		if t.Victim != 0 {
			f(t.Victim)
		}
	}
	total := 0
	each(func(tag uint64) {
		if r.tags[tag]--; r.tags[tag] < 0 {
			r.fail("the table holds more copies of tag %#x (fingerprint %#x) than the model", tag, tag>>32)
		}
		total++
	})
	if total != len(r.held) {
		r.fail("the table holds %d fingerprints, the model %d keys", total, len(r.held))
	}
	each(func(tag uint64) { r.tags[tag]++ })
}

// prng returns the reference's kick PRNG state (stats only: a marshal).
func (r *cbRun) prng() uint64 { return cbParam(r.ref.image(), 7) }

// vectorCall counts, for the stats, what the insert kernel does in one of
// addVector's calls on part, the keys it gets next, on the reference's
// table (which is the lanes' table there, key for key): the groups it
// takes and whether it stops before a group (the kernel's contract, run
// by CuckooInsertGeneric on a copy). It returns how many keys of part
// addVector goes through before its next call: those the kernel took and
// the group, or tail, that it hands to the runs.
func (r *cbRun) vectorCall(part []uint64, ifNew bool) int {
	t := cbTable(r.ref.image())
	var o []bool
	if ifNew {
		o = make([]bool, len(part))
	}
	n, _ := kernel.CuckooInsertGeneric(t, part, o)
	r.st.vectorGroups += n / 8
	if n+8 <= len(part) {
		r.st.vectorStops++
	}
	if n == len(part) {
		return n
	}
	return n + min(len(part)-n, 8)
}

// addBatch runs hs as one AddHashes (ifNew false) or AddNewHashes call on
// every lane and as a loop of AddHash or AddNewHash on the reference,
// which stops at the first error. The loop's every key is checked against
// the model; every lane must go through as many keys, stop with the same
// error, give the same answers and leave out past the stop untouched; then
// the images are compared.
func (r *cbRun) addBatch(hs []uint64, ifNew bool) {
	useImpl(r.ref.impl)
	f := r.ref.f
	count0 := f.Count()
	scanFrom := 3 * f.Capacity() / 4
	victim0 := f.VictimInUse()
	first := 0 // the keys the stage below 3/4 load gets
	if count0 < scanFrom && !victim0 {
		first = int(min(uint64(len(hs)), scanFrom-count0))
	}
	want := make([]bool, len(hs))
	n, parkedAt := len(hs), -1
	var refErr error
	var rng uint64
	if r.stats {
		rng = r.prng()
	}
	vecAt := 0 // the key at which addVector calls the insert kernel next
	for j, h := range hs {
		if r.stats && j == vecAt && j < first && f.Count() < scanFrom && f.Buckets() >= 4096 {
			vecAt = j + r.vectorCall(hs[j:min(first, j+int(scanFrom-f.Count()))], ifNew)
		}
		tag, slots := r.tag(h)
		victim := f.VictimInUse()
		held := r.tags[tag] > 0
		var err error
		added := false
		if ifNew {
			added, err = f.AddNewHash(h)
			switch {
			case added && held:
				r.fail("AddNewHash(%#x) = true, but the model holds its tag %d times", h, r.tags[tag])
			case errors.Is(err, cuckoo.ErrNoSlot):
				if victim || held || added || ckParks(f.Count(), f.Capacity()) {
					r.fail("AddNewHash(%#x) = %v, %v with the victim in use %v, the key held %v, at load %.3f", h, added, err, victim, held, f.LoadFactor())
				}
			case err != nil && (!errors.Is(err, cuckoo.ErrFull) || !victim || held || added):
				r.fail("AddNewHash(%#x) = %v, %v with the victim in use %v and the key held %v", h, added, err, victim, held)
			case err == nil && !added && victim && tag == r.vtag:
				r.st.victimNew++
				if parkedAt >= 0 {
					r.st.victimSame++
				}
			case err == nil && !added && !f.ContainsHash(h):
				r.fail("AddNewHash(%#x) = false, nil for a key that is not present", h)
			}
			want[j] = added
		} else {
			err = f.AddHash(h)
			r.checkAddHash(h, err, victim, tag, slots)
			added = err == nil
		}
		if err != nil {
			n, refErr = j, err
			if f.Count() != uint64(len(r.held)) {
				r.fail("a failed add of %#x changed Count to %d from %d", h, f.Count(), len(r.held))
			}
			break
		}
		if added {
			r.hold(h)
			if f.Count() != uint64(len(r.held)) {
				r.fail("after adding %#x Count is %d, the model holds %d", h, f.Count(), len(r.held))
			}
			if !victim && f.VictimInUse() {
				parkedAt = j
				if !ckParks(f.Count()-1, f.Capacity()) {
					r.fail("adding %#x parked the victim at load %.3f, below 90%%", h, float64(f.Count()-1)/float64(f.Capacity()))
				}
			}
		}
		if r.stats {
			if next := r.prng(); next != rng {
				r.st.reloc[r.fpIdx]++
				rng = next
			}
		}
		if parkedAt == j {
			r.vtag = cbVictim(r.ref.image()) // for the keys after it
		}
	}
	if parkedAt >= 0 && parkedAt < len(hs)-1 {
		if ifNew {
			r.st.parkedNew++
		} else {
			r.st.parked++
		}
	}
	if errors.Is(refErr, cuckoo.ErrNoSlot) {
		if ifNew {
			r.st.noSlotNew++
		} else {
			r.st.noSlot++
		}
		if first > 0 && (n == first-1 || n == first) {
			r.st.noSlotEdge++
		}
	}
	if first > 0 && n > first && !(parkedAt >= 0 && parkedAt < first) {
		if ifNew {
			r.st.crossNew++
		} else {
			r.st.cross++
		}
	}
	switch {
	case errors.Is(refErr, cuckoo.ErrNoSlot):
	case errors.Is(refErr, cuckoo.ErrFull) && ifNew:
		r.st.newFull++
	case errors.Is(refErr, cuckoo.ErrDuplicateLimit):
		r.st.dupLimit++
	}

	for _, l := range r.lanes {
		useImpl(l.impl)
		if first > 0 {
			if kernel.CuckooInsertKernel() && f.Buckets() >= 4096 {
				r.st.vectorLanes++
			} else {
				r.st.goRunLanes++
			}
		}
		keep := append([]uint64(nil), hs...)
		var m int
		var err error
		var out []bool
		if ifNew {
			out = make([]bool, len(hs)+1)
			for i := range out {
				out[i] = i%3 == 0 // stale answers, to stay past the stop
			}
			m, err = l.f.AddNewHashes(hs, out)
		} else {
			m, err = l.f.AddHashes(hs)
		}
		if m != n || !sameCuckooErr(err, refErr) {
			r.fail("%s: went through %d of %d keys, error %v; the single-key loop %d, %v", l.name, m, len(hs), err, n, refErr)
		}
		if i := firstDiff(hs, keep); i >= 0 {
			r.fail("%s: hash %d of the batch changed", l.name, i)
		}
		for i := range out {
			if i < n && out[i] != want[i] {
				r.fail("%s: out[%d] (hash %#x) is %v, AddNewHash said %v", l.name, i, hs[i], out[i], want[i])
			}
			if i >= n && out[i] != (i%3 == 0) {
				r.fail("%s: out[%d], past the stop at %d of %d, was written", l.name, i, n, len(hs))
			}
		}
	}
	r.sameImages()
	r.checkHeld(hs[:n])
	if parkedAt >= 0 {
		r.census()
	}
}

// checkAddHash checks the reference's AddHash(h) = err against the model:
// ErrFull exactly while the victim was in use (victim), ErrDuplicateLimit
// exactly where all slots copies of its tag were held, and ErrNoSlot, the
// walled-in key's refusal, only with neither and below 90% load (the
// model cannot tell a walk that fails from one that finds room, so it
// checks that the filter bears the refusal out; the images and the held
// keys checked after every operation show that nothing changed).
func (r *cbRun) checkAddHash(h uint64, err error, victim bool, tag uint64, slots int) {
	f := r.ref.f
	full, dup := victim, !victim && r.tags[tag] == slots
	switch {
	case errors.Is(err, cuckoo.ErrNoSlot):
		if victim || dup || ckParks(f.Count(), f.Capacity()) {
			r.fail("AddHash(%#x) = %v with the victim in use %v, %d of %d copies of its tag held, at load %.3f", h, err, victim, r.tags[tag], slots, f.LoadFactor())
		}
	case full != errors.Is(err, cuckoo.ErrFull) || dup != errors.Is(err, cuckoo.ErrDuplicateLimit):
		r.fail("AddHash(%#x) = %v with the victim in use %v and %d of %d copies of its tag held", h, err, victim, r.tags[tag], slots)
	case err != nil && !full && !dup:
		r.fail("AddHash(%#x) = %v", h, err)
	}
}

// add1 runs one AddHash (ifNew false) or AddNewHash on every filter; it
// is a batch of one for the reference's checks, the lanes making the
// same single-key call.
func (r *cbRun) add1(h uint64, ifNew bool) {
	useImpl(r.ref.impl)
	f := r.ref.f
	victim := f.VictimInUse()
	tag, slots := r.tag(h)
	held := r.tags[tag] > 0
	var added bool
	var err error
	if ifNew {
		added, err = f.AddNewHash(h)
		noSlot := errors.Is(err, cuckoo.ErrNoSlot)
		if (added && held) || noSlot && (victim || held || ckParks(f.Count(), f.Capacity())) ||
			(err != nil && !noSlot && (!errors.Is(err, cuckoo.ErrFull) || !victim || held || added)) {
			r.fail("AddNewHash(%#x) = %v, %v with the victim in use %v and the key held %v", h, added, err, victim, held)
		}
	} else {
		count := f.Count()
		err = f.AddHash(h)
		r.checkAddHash(h, err, victim, tag, slots)
		added = err == nil
		if added && !victim && f.VictimInUse() && !ckParks(count, f.Capacity()) {
			r.fail("AddHash(%#x) parked the victim at load %.3f, below 90%%", h, float64(count)/float64(f.Capacity()))
		}
	}
	if added {
		r.hold(h)
	}
	for _, l := range r.lanes {
		useImpl(l.impl)
		var a bool
		var e error
		if ifNew {
			a, e = l.f.AddNewHash(h)
		} else {
			e = l.f.AddHash(h)
			a = e == nil
		}
		if a != added || !sameCuckooErr(e, err) {
			r.fail("%s: %v, %v; the reference %v, %v", l.name, a, e, added, err)
		}
	}
	r.sameImages()
	r.checkHeld(nil)
}

// remove removes 1 + b&7 held keys from every filter (RemoveHash must find
// each), the first, with b&8 and the victim parked, one of the victim's
// tag.
func (r *cbRun) remove(b byte) {
	for k := 0; k < 1+int(b&7) && len(r.held) > 0; k++ {
		i := int(r.rnd() % uint64(len(r.held)))
		if k == 0 && b&8 != 0 && r.vtag != 0 {
			for j, h := range r.held {
				if t, _ := r.tag(h); t == r.vtag {
					i = j
					break
				}
			}
		}
		h := r.held[i]
		victim := r.ref.f.VictimInUse()
		for _, l := range append([]*cbLane{r.ref}, r.lanes...) {
			useImpl(l.impl)
			if !l.f.RemoveHash(h) {
				r.fail("%s: RemoveHash(%#x) of a held key found nothing", l.name, h)
			}
		}
		t, _ := r.tag(h)
		r.tags[t]--
		r.held[i] = r.held[len(r.held)-1]
		r.held = r.held[:len(r.held)-1]
		if victim && !r.ref.f.VictimInUse() {
			r.st.rehomed++
		}
		r.sameImages()
	}
	r.checkHeld(nil)
}

// contains checks every lane's ContainsHashes against the reference's
// ContainsHash, key by key: the answers, the count returned, out past the
// batch untouched, and every held key present.
func (r *cbRun) contains(hs []uint64) {
	useImpl(r.ref.impl)
	want := make([]bool, len(hs))
	trues := 0
	for i, h := range hs {
		want[i] = r.ref.f.ContainsHash(h)
		if t, _ := r.tag(h); r.tags[t] > 0 && !want[i] {
			r.fail("false negative: ContainsHash(%#x) of a held key", h)
		}
		if want[i] {
			trues++
		}
	}
	for _, l := range r.lanes {
		useImpl(l.impl)
		out := make([]bool, len(hs)+1)
		out[len(hs)] = true
		if c := l.f.ContainsHashes(hs, out); c != trues {
			r.fail("%s: ContainsHashes counted %d, ContainsHash %d", l.name, c, trues)
		}
		if i := firstDiff(out[:len(hs)], want); i >= 0 {
			r.fail("%s: ContainsHashes out[%d] (hash %#x) is %v, ContainsHash %v", l.name, i, hs[i], out[i], want[i])
		}
		if !out[len(hs)] {
			r.fail("%s: ContainsHashes wrote out past the batch", l.name)
		}
	}
}

// runCuckooBatch runs the input (see FuzzCuckooBatch) and returns the first
// violated invariant as an error; st, if not nil, gets the counts of what
// it reached, including those that cost a marshal per key.
func runCuckooBatch(data []byte, st *cbStats) (err error) {
	prev := kernel.Impl()
	r := &cbRun{op: "setup", st: st, stats: st != nil}
	if r.st == nil {
		r.st = &cbStats{} // the cheap counts, discarded
	}
	defer endScript(prev, &err)
	var hdr [cbHeader]byte
	r.input = input{b: data[copy(hdr[:], data):]}
	fpBits := [2]int{8, 16}[hdr[0]&1]
	r.fpIdx = int(hdr[0] & 1)
	kicks := cbKicks[hdr[0]>>1&7]
	n := cbMinBuckets + uint64(binary.LittleEndian.Uint16(hdr[1:]))%cbSpan
	load := float64(binary.LittleEndian.Uint16(hdr[3:])) / 65535 * cbMaxLoad
	seed := uint64(hdr[5]) | uint64(hdr[6])<<8 | uint64(hdr[7])<<16
	r.rnd = splitmix(seed ^ uint64(hdr[0])<<32 ^ n<<40)
	r.geo = kernel.CuckooTable{Buckets: n, FPBits: uint(fpBits)}

	ref, err := cuckoo.New(n*19/5, cuckoo.WithFingerprintBits(fpBits), cuckoo.WithMaxKicks(kicks), cuckoo.WithSeed(seed))
	if err != nil {
		return err
	}
	if ref.Buckets() != n {
		return fmt.Errorf("capacity %d gave %d buckets, want %d", n*19/5, ref.Buckets(), n)
	}
	r.ref = &cbLane{name: "single", impl: "generic", f: ref}
	defer ref.Close()

	// The prefill, with AddHashes (the kernel set the build chose), up to
	// the load or the first error.
	pre := make([]uint64, int(load*float64(ref.Capacity())))
	for i := range pre {
		pre[i] = r.rnd()
	}
	useImpl(prev)
	r.tags = make(map[uint64]int, len(pre))
	r.held = make([]uint64, 0, len(pre)+cbMaxKeys)
	for len(pre) > 0 {
		m, err := ref.AddHashes(pre)
		for _, h := range pre[:m] {
			r.hold(h)
		}
		if !errors.Is(err, cuckoo.ErrNoSlot) {
			break
		}
		pre = pre[m+1:] // a walled-in key, refused: pass over it
	}
	for _, impl := range kernel.Impls() {
		l := &cbLane{name: "batch/" + impl, impl: impl, f: ref.Clone()}
		defer l.f.Close()
		r.lanes = append(r.lanes, l)
	}
	r.sameImages()
	r.checkHeld(nil)

	for k := 0; k < cbMaxOps && r.more(); k++ {
		op := int(r.byte()) % cbNumOps
		r.op = fmt.Sprintf("op %d (%s, f=%d, buckets=%d, kicks=%d, count %d, victim %v)", k, cbOpNames[op], fpBits, n, kicks, ref.Count(), ref.VictimInUse())
		switch op {
		case cbOpAdd:
			r.addBatch(r.batch(), false)
		case cbOpAddNew:
			r.addBatch(r.batch(), true)
		case cbOpAdd1:
			r.add1(r.single(), false)
		case cbOpAddNew1:
			r.add1(r.single(), true)
		case cbOpRemove:
			r.remove(r.byte())
		case cbOpContains:
			r.contains(r.batch())
		}
	}
	r.op = "end"
	r.census()
	return nil
}

// cbSeed builds a seed input: the header, then operations.
type cbSeed struct{ b []byte }

// newCBSeed starts a seed: 16-bit fingerprints or 8, kick limit class
// kicks (cbKicks), about buckets buckets (cbMinBuckets and up), prefill
// load, and a seed.
func newCBSeed(fp16 bool, kicks byte, buckets uint64, load float64, seed uint32) *cbSeed {
	h0 := kicks << 1
	if fp16 {
		h0 |= 1
	}
	b := []byte{h0}
	b = binary.LittleEndian.AppendUint16(b, uint16(buckets-cbMinBuckets))
	b = binary.LittleEndian.AppendUint16(b, uint16(load/cbMaxLoad*65535))
	b = append(b, byte(seed), byte(seed>>8), byte(seed>>16))
	return &cbSeed{b}
}

// cbLen encodes a batch length (rounded down to a multiple of 16 from 128
// on).
func cbLen(n int) byte {
	if n < 128 {
		return byte(n)
	}
	return byte(128 + min(n/16, 127))
}

// op appends an operation and its argument bytes.
func (s *cbSeed) op(op int, args ...byte) *cbSeed {
	s.b = append(append(s.b, byte(op)), args...)
	return s
}

// batch appends a batch operation of n keys with mix.
func (s *cbSeed) batch(op, n int, mix byte) *cbSeed { return s.op(op, cbLen(n), mix) }

// cuckooBatchSeeds are hand-made inputs, each aimed at a stage or an edge
// of the batch insert (TestCuckooBatchSeedsReachTheirTargets checks that
// together they reach them all).
func cuckooBatchSeeds() [][]byte {
	return [][]byte{
		// The vector stage on an empty 4096-bucket table: a batch of
		// fresh keys (groups the kernel takes), then batches with
		// repeats and shared buckets (groups it hands to the runs),
		// add-if-new of keys repeated and held, and a lookup batch.
		newCBSeed(true, 7, 4096, 0, 1).
			batch(cbOpAdd, 512, 0).
			batch(cbOpAdd, 256, 0x1a).
			batch(cbOpAddNew, 256, 0x23).
			batch(cbOpContains, 128, 0x12).bytes(),
		newCBSeed(false, 7, 4200, 0.3, 2).
			batch(cbOpAdd, 400, 0x08).
			batch(cbOpAddNew, 400, 0x33).
			op(cbOpRemove, 5).
			batch(cbOpAddNew, 64, 0x07).bytes(),
		// Batches that cross 3/4 load: the vector stage (or the runs),
		// then the groups of addAheadFull with relocation, in one call.
		newCBSeed(true, 7, 4500, 0.74, 3).
			batch(cbOpAdd, 640, 0x01).
			batch(cbOpAddNew, 640, 0x0a).bytes(),
		newCBSeed(false, 7, 4096, 0.745, 4).
			batch(cbOpAddNew, 512, 0x02).
			batch(cbOpAdd, 512, 0x09).bytes(),
		// Relocation near full load, both widths, with repeats, shared
		// buckets and single adds between.
		newCBSeed(true, 7, 4100, 0.93, 5).
			batch(cbOpAdd, 256, 0x11).
			op(cbOpAdd1, srcTwin).op(cbOpAddNew1, srcHeld).
			batch(cbOpAddNew, 256, 0x1b).
			batch(cbOpContains, 64, 0x3f).bytes(),
		newCBSeed(false, 6, 4300, 0.92, 6).
			batch(cbOpAdd, 400, 0x11).
			batch(cbOpAddNew, 400, 0x1b).bytes(),
		// ErrFull: with 16 kicks a table at 94% load parks the victim
		// in a batch, which stops there (below 90% a failed walk is
		// undone: ErrNoSlot); add-if-new of held keys and of the
		// victim's key, a remove of the victim's tag (re-homing it),
		// and more batches that fill and re-park it.
		newCBSeed(true, 4, 4096, 0.94, 7).
			batch(cbOpAdd, 400, 0).
			op(cbOpAddNew1, srcVictim).
			batch(cbOpAddNew, 64, 0xc7).
			op(cbOpRemove, 0x08).
			batch(cbOpAdd, 200, 0).
			op(cbOpRemove, 0x0f).
			batch(cbOpAddNew, 200, 0x42).bytes(),
		// Add-if-new parks the victim mid-batch with no kicks (so the
		// homeless fingerprint is the key's own) just past 90% load and
		// goes on one key at a time: the parking key again (the
		// victim's tag, false), held keys (false) and a new key
		// (ErrFull). The prefill's loads are tuned to end just above
		// 90% without a parked victim (retuned when MaxKicks 0 lost the
		// look-ahead's move: its prefills wall keys in sooner).
		newCBSeed(false, 0, 4096, 0.9585, 2).
			batch(cbOpAddNew, 1008, 0x86).bytes(),
		newCBSeed(true, 0, 4096, 0.9625, 1).
			batch(cbOpAddNew, 1008, 0x85).
			op(cbOpRemove, 0x0f).
			batch(cbOpAddNew, 300, 0x86).bytes(),
		// The key at the end of the stage below 3/4 load is walled in
		// (crowd keys): the batch must stop there with ErrNoSlot,
		// AddHashes and AddNewHashes alike, changing nothing. (Before
		// failed walks were undone below 90% load, it parked the victim
		// there.)
		newCBSeed(true, 7, 4096, 0.75-32.5/16384, 1).
			batch(cbOpAdd, 64, 0x38).bytes(),
		newCBSeed(true, 7, 4096, 0.75-45.5/16384, 1).
			batch(cbOpAddNew, 64, 0x30).bytes(),
		// ErrDuplicateLimit: runs of one key, nine copies and more, in
		// an AddHashes batch below and above 3/4 load.
		newCBSeed(true, 7, 4096, 0.2, 10).
			batch(cbOpAdd, 64, 0x87).bytes(),
		newCBSeed(false, 7, 4096, 0.8, 11).
			batch(cbOpAdd, 64, 0x87).bytes(),
		// Below the vector stage's 4096 buckets, and at the top of the
		// range.
		newCBSeed(true, 7, 4092, 0.5, 12).
			batch(cbOpAdd, 600, 0x09).bytes(),
		newCBSeed(false, 7, 16384, 0.7, 13).
			batch(cbOpAdd, 2032, 0x09).bytes(),
	}
}

// bytes returns the seed's input.
func (s *cbSeed) bytes() []byte { return s.b }

// FuzzCuckooBatch runs a fuzzed script of batch and single-key operations
// on a cuckoo filter of 4092 to 16384 buckets prefilled to a fuzzed load,
// with the batch calls (AddHashes, AddNewHashes, ContainsHashes) under
// every kernel set against single-key calls and an exact model (see the
// comment at the top of this file and runCuckooBatch).
//
// The input: an 8-byte header,
//
//	hdr[0] bit 0: 16-bit fingerprints (else 8); bits 1-3: the kick limit,
//	       cbKicks (0, 1, 2, 4, 16, 64, 200, 500)
//	hdr[1:3]: the bucket count, cbMinBuckets + v % cbSpan (4092..16384)
//	hdr[3:5]: the prefill load, v/65535 * 0.97 of the slots, with fresh
//	       keys through AddHashes, up to the first ErrFull
//	hdr[5:8]: the hash seed, which also seeds the keys' random choices
//
// then operations, an op byte (modulo cbNumOps: add-batch, add-new-batch,
// add, add-new, remove, contains-batch) and its arguments: a batch is a
// length byte and a mix byte (cbRun.batch), a single key a source byte
// (cbRun.single), a remove one byte (cbRun.remove).
func FuzzCuckooBatch(f *testing.F) {
	for _, s := range cuckooBatchSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := runCuckooBatch(data, nil); err != nil {
			t.Fatal(err)
		}
	})
}

// TestCuckooBatchSeedsReachTheirTargets keeps the hand-made seeds
// meaningful: together they must run the insert kernel's groups and its
// stops (where a kernel set has it: avx512 with AVX-512 CD; the Go runs
// always), cross 3/4 load inside AddHashes and AddNewHashes calls,
// relocate in batches with both widths, park the victim mid-batch (ending
// AddHashes with ErrFull, and with AddNewHashes going on), stop both at a
// walled-in key with ErrNoSlot (also at the last key of the stage below
// 3/4 load), answer the victim's key not new, stop AddNewHashes at
// ErrFull and AddHashes at ErrDuplicateLimit, and re-home the victim by a
// remove.
func TestCuckooBatchSeedsReachTheirTargets(t *testing.T) {
	var total cbStats
	for i, s := range cuckooBatchSeeds() {
		var st cbStats
		if err := runCuckooBatch(s, &st); err != nil {
			t.Fatalf("seed %d: %v", i, err)
		}
		total.vectorGroups += st.vectorGroups
		total.vectorStops += st.vectorStops
		total.vectorLanes += st.vectorLanes
		total.goRunLanes += st.goRunLanes
		total.cross += st.cross
		total.crossNew += st.crossNew
		total.reloc[0] += st.reloc[0]
		total.reloc[1] += st.reloc[1]
		total.parked += st.parked
		total.parkedNew += st.parkedNew
		total.noSlot += st.noSlot
		total.noSlotNew += st.noSlotNew
		total.noSlotEdge += st.noSlotEdge
		total.victimNew += st.victimNew
		total.victimSame += st.victimSame
		total.newFull += st.newFull
		total.dupLimit += st.dupLimit
		total.rehomed += st.rehomed
	}
	t.Logf("%+v", total)
	hasKernel := false
	for _, impl := range kernel.Impls() {
		restore, err := kernel.SetImpl(impl)
		if err != nil {
			t.Fatal(err)
		}
		hasKernel = hasKernel || kernel.CuckooInsertKernel()
		restore()
	}
	for _, c := range []struct {
		name string
		n    int
	}{
		{"insert kernel groups (its contract)", total.vectorGroups},
		{"insert kernel stops", total.vectorStops},
		{"batches on the Go runs", total.goRunLanes},
		{"AddHashes crossing 3/4 load", total.cross},
		{"AddNewHashes crossing 3/4 load", total.crossNew},
		{"8-bit relocations in batches", total.reloc[0]},
		{"16-bit relocations in batches", total.reloc[1]},
		{"AddHashes parking the victim mid-batch", total.parked},
		{"AddNewHashes parking the victim mid-batch", total.parkedNew},
		{"AddHashes stopped by ErrNoSlot (a walled-in key)", total.noSlot},
		{"AddNewHashes stopped by ErrNoSlot", total.noSlotNew},
		{"ErrNoSlot at the end of the stage below 3/4 load", total.noSlotEdge},
		{"add-if-new of the victim's key", total.victimNew},
		{"... in the batch that parked it", total.victimSame},
		{"AddNewHashes stopped by ErrFull", total.newFull},
		{"AddHashes stopped by ErrDuplicateLimit", total.dupLimit},
		{"removes re-homing the victim", total.rehomed},
	} {
		if c.n == 0 {
			t.Errorf("no seed reaches %s", c.name)
		}
	}
	if hasKernel && total.vectorLanes == 0 {
		t.Errorf("no seed runs a batch on the insert kernel, which %v has", kernel.Impls())
	}
}
