package cuckoo

import (
	"math/bits"
	"runtime"
	"unsafe"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/kernel"
)

// AddHash adds a key by its hash. It returns ErrFull, changing nothing, when
// the victim slot is in use, ErrNoSlot, changing nothing, when the key
// found no slot below 90% load, ErrDuplicateLimit, changing nothing, when
// both of the key's buckets hold only its fingerprint, and an error
// wrapping sift.ErrClosed on a closed or zero filter; otherwise it
// succeeds and the key is reported present until removed.
//
// The fingerprint goes into a free slot of either bucket; when both are full
// Add relocates fingerprints to their alternate buckets, at most MaxKicks
// steps, each first trying to move one of the full bucket's fingerprints
// into room in its alternate bucket and otherwise evicting a slot chosen by
// a seeded PRNG (see the package doc). If the last displaced fingerprint
// still has no home, then from 90% load on it is parked in the victim
// slot, where lookups find it: that Add succeeds and no key is lost, and
// later Adds return ErrFull until a Remove makes room for the victim (see
// RemoveHash). Below 90% load the relocations are undone and the Add
// returns ErrNoSlot: this key is walled in (see ErrNoSlot), the filter is
// not full.
//
// Adding the same key 8 times (2 buckets × 4 slots; or 8 keys sharing both
// buckets and the fingerprint) fills both its buckets: a ninth Add of it
// returns ErrDuplicateLimit, and other keys can still be added. A key whose
// alternate bucket is its first one (about one key in the bucket count,
// and every key of a one-bucket filter) has only those 4 slots: its fifth
// copy meets the limit.
func (f *Filter) AddHash(h uint64) error {
	_, err := f.add(h, addHash)
	return err
}

// What add is given (the branches on it go the same way at every call
// site, so they are predicted).
const (
	addKey  = 0 // x is the key (AddUint64): hash it, then find its buckets
	addHash = 1 // x is the key's hash (AddHash): find its buckets
	// addIfNew, or-ed into either: add nothing when the key is present
	// (AddNewHash).
	addIfNew = 2
)

// add is AddHash (how addHash) and AddUint64 (addKey: x is hashed here, so
// that AddUint64 is not a call of a call; see probe), and with addIfNew
// the insert of AddNewHash, which tests the two loaded buckets for the
// fingerprint first. It reports whether it added the key (false, with a
// nil error, only for a key found with addIfNew). AddHashes has its own
// loop for the same placement (addRun16, addRun8).
//
// The common path, a free slot in either bucket, is one flat function with
// straight-line code per fingerprint width, as in probe; only the relocation
// is a call. Both buckets are loaded before either is examined, so that
// their cache misses overlap. The fingerprint goes to whichever bucket has
// more free slots (i1 on a tie), chosen with a mask rather than a jump (it
// is a coin flip at middle loads), and the chosen bucket's new value is
// stored from the loaded one without a second load.
//
// Choosing the emptier bucket, rather than i1 whenever it has room, keeps
// the bucket loads even, so fewer inserts near full load find both
// buckets full: a fill to 95% takes 0.17-0.20 kick steps a key instead of
// 0.29-0.33 (both fingerprint widths, capacities 1e5 and 1e6). Slots fill
// lowest first, so the free lanes of a bucket without deletions are its
// top lanes and the larger lane mask has more of them; with deletions the
// comparison is a heuristic, and either choice is correct.
//
// Flattening measured: the insert was ~155 instructions in two calls
// (add, then an insert of located buckets, reading shift amounts and lane
// constants from f);
// it is now about half that in one (see the package doc for figures).
func (f *Filter) add(x uint64, how int) (bool, error) {
	if f.t.Buckets == 0 {
		return false, errClosed
	}
	if f.t.Victim != 0 {
		if how&addIfNew != 0 {
			return f.fullAddNew(x, how)
		}
		return false, ErrFull
	}
	h := x
	if how&addHash == 0 {
		h = f.h64.Hash(x)
	}
	n := f.t.Buckets
	i1 := kernel.CuckooIndex(h, n)
	if f.t.FPBits == 8 {
		fp := kernel.CuckooFingerprint(h, 1<<8-1)
		i2 := kernel.CuckooAlt(i1, fp, n)
		b1, b2 := f.w32[i1^w32Flip], f.w32[i2^w32Flip]
		const lo, hi = 0x01010101, 0x80808080
		const low = hi - lo // the low 7 bits of every lane
		if how&addIfNew != 0 {
			pat := uint32(fp) * lo
			x1, x2 := b1^pat, b2^pat
			if ((x1-lo)&^x1|(x2-lo)&^x2)&hi != 0 {
				return false, nil
			}
		}
		e1, e2 := ^((b1&low+low)|b1)&hi, ^((b2&low+low)|b2)&hi
		if e1|e2 == 0 {
			return f.addFull(i1, i2, fp, uint64(b1), uint64(b2))
		}
		m := secondEmptier(uint64(e1), uint64(e2))
		i, m32 := i1^(i1^i2)&m, uint32(m)
		b, e := b1^(b1^b2)&m32, e1^(e1^e2)&m32
		f.w32[i^w32Flip] = b | uint32(fp)<<(bits.TrailingZeros32(e)&^7)
	} else {
		fp := kernel.CuckooFingerprint(h, 1<<16-1)
		i2 := kernel.CuckooAlt(i1, fp, n)
		b1, b2 := f.t.Words[i1], f.t.Words[i2]
		const lo, hi = 0x0001000100010001, 0x8000800080008000
		const low = hi - lo // the low 15 bits of every lane
		if how&addIfNew != 0 {
			pat := fp * lo
			x1, x2 := b1^pat, b2^pat
			if ((x1-lo)&^x1|(x2-lo)&^x2)&hi != 0 {
				return false, nil
			}
		}
		e1, e2 := ^((b1&low+low)|b1)&hi, ^((b2&low+low)|b2)&hi
		if e1|e2 == 0 {
			return f.addFull(i1, i2, fp, b1, b2)
		}
		m := secondEmptier(e1, e2)
		i, b, e := i1^(i1^i2)&m, b1^(b1^b2)&m, e1^(e1^e2)&m
		f.t.Words[i] = b | fp<<(bits.TrailingZeros64(e)&^15)
	}
	f.count++
	runtime.KeepAlive(f) // see probe
	return true, nil
}

// addFull is add's insert into a full bucket pair (see insertFull), with
// the count and the victim updated; its caller checked that the victim
// slot is free. It reports whether it added fp: false only with
// ErrDuplicateLimit or ErrNoSlot, having changed nothing.
func (f *Filter) addFull(i1, i2, fp, b1, b2 uint64) (bool, error) {
	v, err := f.insertFull(i1, i2, fp, b1, b2, f.count)
	if err != nil {
		return false, err
	}
	f.t.Victim = v
	f.count++
	return true, nil
}

// Add adds key. See AddHash for the errors and the duplicate limit.
func (f *Filter) Add(key []byte) error { return f.AddHash(hash.Bytes(key, f.seed)) }

// AddString adds key. See AddHash.
func (f *Filter) AddString(key string) error { return f.AddHash(hash.String(key, f.seed)) }

// AddUint64 adds key, the same key as Add of its 8 little-endian bytes. See
// AddHash.
func (f *Filter) AddUint64(key uint64) error {
	_, err := f.add(key, addKey)
	return err
}

// splitLoc returns the two buckets kernel.CuckooLocate packed into l as
// i1 | i2<<32.
func splitLoc(l uint64) (i1, i2 uint64) { return l & (1<<32 - 1), l >> 32 }

// addAhead is how many keys AddHashes locates (and prefetches) at a time
// below 3/4 load, two groups ahead of inserting them, and addAheadFull the
// same from 3/4 load on, where it also scans for full bucket pairs.
// Filling a 1e7-key filter from empty to half load (scratch loop, AMD
// EPYC, medians of 9 interleaved rounds) took 16.6, 16.3, 14.7 and 25.5 ns
// a key with 8, 12, 16 and 32, with the locate stage one group ahead and
// an insert call per key. With the locate stage two groups ahead and the
// insert runs (addRun16), whose per-key cost is lower, 32 does better
// below 3/4 load, where the locate kernel's cost per call weighs on half
// as many keys: the old and the new AddHashes interleaved in one process
// (fills of 16-bit filters to 95%, best of 9 rounds, two runs, AMD EPYC
// Zen 5) were 1.28-1.29x (n = 1e6) and 1.18-1.19x (1e7) apart at loads
// 0.24-0.47 with groups of 16, and 1.34-1.37x and 1.32x with 32; but at
// 0.90-0.95, where relocation walks dominate, 0.99-1.06x with 16 and
// 0.97-1.00x with 32, and the fill-curve benchmark had groups of 32 5-7%
// slower there than before at 1e6. Hence one size each side of 3/4 load.
const (
	addAhead     = 32
	addAheadFull = 16
)

// AddHashes adds every hash of hs in order and returns how many were added.
// It stops at the first error (ErrFull, ErrNoSlot, ErrDuplicateLimit, or
// ErrClosed on a closed or zero filter) and returns it:
// hs[:n] are in the filter, hs[n:] are not. ErrFull means that hs[n-1]
// parked the victim (or that it was in use at the call, with n = 0);
// ErrNoSlot that hs[n] found no slot below 90% load (a caller can pass
// over it and go on with hs[n+1:]); ErrDuplicateLimit that both buckets
// of hs[n] hold only its fingerprint.
// On bucket arrays under 4 MiB, and below 3/4 load on any, the result is
// exactly that of calling AddHash for each hash in turn, down to the bit
// pattern of the table. On arrays of 4 MiB and more, from 3/4 load on,
// keys that must relocate do so with their walks overlapped (see
// addWalks): the walks evict other fingerprints than AddHash's would, so
// the table differs, and so may the key at which the filter fills (the
// contract above holds either way). The table still depends only on the
// keys and on how they were split into calls, never on the build or the
// kernel set (TestAddHashesFillPastFullLarge pins its checksum). It is faster, because the keys that
// find room go in by a loop with no call per key, and for filters larger
// than the caches because the buckets the next keys need are on their way
// into the cache while the current ones are inserted, and the relocations'
// memory latencies overlap.
//
// It works in batches of addAhead keys (addAheadFull from 3/4 load on), as
// a three-stage pipeline. While
// batch k is inserted, batch k+2 is located: kernel.CuckooLocate computes
// its keys' buckets and, with an assembly kernel (amd64, arm64),
// prefetches them (a prefetch does not hold up the instructions after it
// as a load does, so a whole batch of lines is in flight at once). From 3/4
// load on, on bucket arrays of scanMinBytes (4 MiB) and more, batch k+1,
// whose buckets have arrived by then, is scanned for keys whose two
// buckets are both full: those will relocate, so the eight buckets their
// fingerprints could move to are prefetched too (kernel.CuckooAlternates).
// (On smaller arrays those buckets are in the caches, and the scan cost
// more than it saved.) Without an assembly kernel (purego, other
// architectures, SIFT_KERNEL=generic) a batch's buckets are loaded just
// before it is inserted instead. Batch k itself goes in as runs (addRun16,
// addRun8): each run places keys until one finds both its buckets full;
// that key alone goes through the eviction code (addFull), and the next
// run starts after it (a 16-bit Filter's run, addRun16Full, relocates for
// that key itself and goes on). Only the eviction code parks a victim, so
// the victim slot is checked once per call and after each such key, not
// per key. Below 3/4 load, where an insert kernel runs (see addVector), it
// takes the place of the pipeline; from 3/4 load on, on the arrays where
// the scan runs, addWalks keeps up to eight walks in flight instead of
// running each key's walk to its end before the next key.
func (f *Filter) AddHashes(hs []uint64) (int, error) {
	if f.t.Buckets == 0 {
		return 0, errClosed
	}
	if f.t.Victim != 0 && len(hs) > 0 {
		return 0, ErrFull
	}
	return f.addBatch(hs, nil)
}

// addBatch is AddHashes (out nil) and, with out (len(hs) answers), the
// batch of AddNewHashes, on a filter whose victim slot is free: the two
// stages of the pipeline, each side of 3/4 load. It returns how many keys
// of hs it went through and the error that stopped it; ErrFull means that
// the victim was parked by the key before hs[n].
func (f *Filter) addBatch(hs []uint64, out []bool) (int, error) {
	scanFrom := 3 * f.Capacity() / 4
	done := 0
	if f.count < scanFrom {
		// The first stage gets exactly the keys that bring the count to
		// scanFrom (each key AddHashes takes adds one fingerprint or
		// fails), so the second starts at the same key whatever the
		// kernel set and its group size: the table then depends only on
		// the keys and the calls, never on the build.
		first := hs[:min(uint64(len(hs)), scanFrom-f.count)]
		fout := out
		if out != nil {
			fout = out[:len(first)]
		}
		var n int
		var err error
		if f.t.Buckets >= vectorMinBuckets && kernel.CuckooInsertKernel() {
			n, err = f.addVector(first, fout, scanFrom)
		} else {
			n, err = f.addGroups(first, fout, addAhead, scanFrom, true)
		}
		if done = n; err != nil || done == len(hs) {
			return done, err
		}
		if f.t.Victim != 0 {
			// The first stage's last key parked the victim. That cannot
			// happen since walks below 90% load are undone (ErrNoSlot)
			// rather than parked, and the first stage ends at 3/4; the
			// guard stays because the second stage's runs must never get
			// a filter with the victim in use: they test only the
			// buckets, so they would add new keys and answer the
			// victim's own key new. The batch stops at the next key, as
			// AddHash would, and AddNewHashes goes on one key at a time.
			return done, ErrFull
		}
	}
	if out != nil {
		out = out[done:]
	}
	// Every kernel set walks this way (generic ones without the prefetch),
	// so the same keys give the same table in every build. The walks
	// evict before they count kicks; MaxKicks 0 (never relocate) takes
	// AddHash's path.
	if out == nil && f.maxKicks > 0 && uint64(len(f.t.Words))*8 >= scanMinBytes {
		n, err := f.addWalks(hs[done:], scanFrom)
		return done + n, err
	}
	n, err := f.addGroups(hs[done:], out, addAheadFull, scanFrom, false)
	return done + n, err
}

// scanMinBytes is the smallest bucket array, in bytes, on which AddHashes
// scans each group for full bucket pairs from 3/4 load on and prefetches
// their alternate buckets (see AddHashes). The prefetch pays only where
// those buckets are not in the caches already, and the scan costs its
// bucket reads and masks either way. Filling a 16-bit filter of 1e7 keys
// (a 21 MB array) without the prefetch was 1.3-2.1x slower per key
// between 0.76 and 0.95 load; filling one of 1e6 keys (2.1 MB) without the
// scan was 1.2x faster between 0.76 and 0.85 load and level above (AMD
// EPYC Zen 5, interleaved rounds: bench/README.md, "Cuckoo inserts"). At
// 1e6 the time there goes to instructions, not to waiting: a 1e5-key
// filter, whose 210 KB array is in L2, costs as much per key in those
// bands. 4 MiB is also where the array leaves the Go heap for a mapping
// (internal/mem.HugeThreshold). (A variable for the tests, which also run
// the scan on small tables.)
var scanMinBytes uint64 = 4 << 20

// vectorMinBuckets is the fewest buckets for which AddHashes runs the
// vector insert kernel (see addVector): it stops at every group of eight
// keys that share a bucket, which for n buckets is about 120/n of the
// groups (3% at 4096). (A variable for the tests, which also run the
// kernel on small tables.)
var vectorMinBuckets uint64 = 4096

// addVector is the stage of addBatch below scanFrom where an insert
// kernel runs (kernel.CuckooInsert: AVX-512, eight keys at a time, placed
// exactly as add places them, with the buckets of the keys 64 on
// prefetched, 128 on arrays of 4 MiB and more). The kernel stops before a
// group of eight in which two keys share a bucket or a key must relocate;
// that group (or the tail of fewer than eight keys) goes through addRuns,
// and the kernel goes on after
// it. The kernel is given at most scanFrom - count keys, so that the
// stage ends within a group of scanFrom. It returns as addGroups does.
func (f *Filter) addVector(hs []uint64, out []bool, scanFrom uint64) (int, error) {
	done := 0
	for done < len(hs) && f.count < scanFrom {
		part := hs[done:min(len(hs), done+int(min(scanFrom-f.count, 1<<30)))]
		var o []bool
		if out != nil {
			o = out[done : done+len(part)]
		}
		n, added := kernel.CuckooInsert(&f.t, part, o)
		f.count += uint64(added)
		done += n
		if n == len(part) {
			continue
		}
		// The group the kernel stopped at (its buckets are prefetched).
		g := min(len(part)-n, 8)
		if out != nil {
			o = out[done : done+g]
		}
		var locs [8]uint64
		kernel.CuckooLocateGeneric(&f.t, hs[done:done+g], locs[:g])
		m, err := f.addRuns(hs[done:done+g], locs[:g], o)
		done += m
		if err != nil {
			return done, err
		}
		if f.t.Victim != 0 && done < len(hs) {
			return done, ErrFull
		}
	}
	return done, nil
}

// addGroups is the pipeline of AddHashes with groups of g keys (at most
// addAhead), for hs; with out, that of AddNewHashes (see addBatch). With
// below true it is the stage below scanFrom: it
// returns at the first group boundary where the count has reached
// scanFrom (the keys after it go to the next stage). Otherwise, on a
// bucket array of scanMinBytes and more, it scans for full bucket pairs
// from scanFrom on. It returns how many keys of hs it went through and the
// error that stopped it, as addBatch does.
func (f *Filter) addGroups(hs []uint64, out []bool, g int, scanFrom uint64, below bool) (int, error) {
	prefetched := kernel.CuckooLocatePrefetches()
	scan := prefetched && !below && uint64(len(f.t.Words))*8 >= scanMinBytes
	var locs [3][addAhead]uint64
	var is, bs [2 * addAhead]uint64
	var alts [8 * addAhead]uint64
	for k := 0; k < 2 && k*g < len(hs); k++ {
		b := hs[k*g : min((k+1)*g, len(hs))]
		kernel.CuckooLocate(&f.t, b, locs[k][:len(b)])
	}
	done := 0
	for k := 0; done < len(hs); k++ {
		if below && f.count >= scanFrom {
			break
		}
		if lo := done + 2*g; lo < len(hs) {
			b := hs[lo:min(lo+g, len(hs))]
			kernel.CuckooLocate(&f.t, b, locs[(k+2)%3][:len(b)])
		}
		if lo := done + g; scan && f.count >= scanFrom && lo < len(hs) {
			m := 0
			for _, l := range locs[(k+1)%3][:min(g, len(hs)-lo)] {
				i1, i2 := splitLoc(l)
				b1, b2 := f.bucket(i1), f.bucket(i2)
				if f.emptyLanes(b1)|f.emptyLanes(b2) == 0 {
					is[m], bs[m], is[m+1], bs[m+1] = i1, b1, i2, b2
					m += 2
				}
			}
			if m > 0 {
				kernel.CuckooAlternates(&f.t, is[:m], bs[:m], alts[:4*m])
			}
		}
		cur := hs[done:min(done+g, len(hs))]
		batch := locs[k%3][:len(cur)]
		if !prefetched {
			// Load the batch's buckets before inserting any of it, so
			// their cache misses overlap; f.touched keeps the loads from
			// being optimised away.
			touched := f.touched
			for _, l := range batch {
				i1, i2 := splitLoc(l)
				touched ^= f.bucket(i1) ^ f.bucket(i2)
			}
			f.touched = touched
		}
		var o []bool
		if out != nil {
			o = out[done : done+len(cur)]
		}
		n, err := f.addRuns(cur, batch, o)
		done += n
		if err != nil {
			return done, err
		}
		// Only the eviction code parks a victim: from then on every
		// Add is ErrFull.
		if f.t.Victim != 0 && done < len(hs) {
			return done, ErrFull
		}
	}
	runtime.KeepAlive(f) // see probe
	return done, nil
}

// addRuns inserts the keys of cur, whose buckets kernel.CuckooLocate (or
// its Go twin) put in batch, as runs: the keys up to the first one whose
// buckets are both full go in as one run, with no call per key; that key
// then goes through the eviction code, as in add (with 16-bit
// fingerprints one run, addRun16Full, goes through them all and relocates
// in place). For AddNewHashes (out: len(cur) answers) the runs pass over
// keys found in their buckets (addNewRun16, addNewRun8) and stop only at a
// new key with both full. It
// returns how many keys it went through and the eviction code's error; it
// stops after a key that parked a victim (the caller returns ErrFull if
// keys remain).
func (f *Filter) addRuns(cur, batch []uint64, out []bool) (int, error) {
	done := 0
	for len(cur) > 0 {
		var n, added int
		switch {
		case out == nil && f.t.FPBits == 16 && !f.shared:
			n, err := f.addRun16Full(cur, batch)
			return done + n, err
		case out == nil && f.t.FPBits == 8:
			n = addRun8(f.w32, cur, batch)
			added = n
		case out == nil:
			n = addRun16(f.t.Words, cur, batch)
			added = n
		case f.t.FPBits == 8:
			n, added = addNewRun8(f.w32, cur, batch, out[done:done+len(cur)])
		default:
			n, added = addNewRun16(f.t.Words, cur, batch, out[done:done+len(cur)])
		}
		f.count += uint64(added)
		done += n
		if n == len(cur) {
			break
		}
		i1, i2 := splitLoc(batch[n])
		fp := kernel.CuckooFingerprint(cur[n], f.fpMax)
		if _, err := f.addFull(i1, i2, fp, f.bucket(i1), f.bucket(i2)); err != nil {
			return done, err
		}
		if out != nil {
			out[done] = true
		}
		done++
		cur, batch = cur[n+1:], batch[n+1:]
		if f.t.Victim != 0 {
			break
		}
	}
	runtime.KeepAlive(f) // see probe
	return done, nil
}

// addRun16 inserts the keys of hs, whose buckets kernel.CuckooLocate put in
// locs, into the 16-bit bucket array words exactly as add does (into the
// emptier of the two buckets, its lowest free slot), until it meets a key
// whose buckets are both full; it returns how many it inserted (len(hs) if
// it met none). Each key costs two bucket loads and an or into the chosen
// bucket's word, and no call: it is the batch insert's fast path, a leaf
// that reads nothing of the Filter. (Written this way, with the bucket's
// word or-ed in place rather than stored from a selected copy, it measured
// about 17% faster than add's form, interleaved in one process at 1e4 and
// 1e6 keys.)
//
// The loads carry no bounds checks, as in probe: the kernels' locate
// returns buckets below Buckets (held to the Go twin by the kernel tests),
// and words holds Buckets words. The store is checked, so a wrong bucket
// index would panic rather than write outside the array.
func addRun16(words, hs, locs []uint64) int {
	w := unsafe.Pointer(unsafe.SliceData(words))
	locs = locs[:len(hs)]
	const lo, hi = 0x0001000100010001, 0x8000800080008000
	for j, l := range locs {
		i1, i2 := splitLoc(l)
		b1, b2 := elem64(w, i1), elem64(w, i2)
		n1, n2 := fullLanes(b1, lo, hi), fullLanes(b2, lo, hi)
		if n1&n2 == hi {
			return j
		}
		e1, e2 := n1^hi, n2^hi
		i, e := emptier(i1, e1, i2, e2)
		words[i] |= kernel.CuckooFingerprint(hs[j], 1<<16-1) * lowestLane(e, 16)
	}
	return len(hs)
}

// addRun16Full is addRun16 for a Filter (not a Concurrent's) that does not
// stop at a key whose buckets are both full: it relocates for it there
// (insertFull16, after add's duplicate check), with no return to addRuns
// and no new run after it. It counts the keys it adds and returns how many
// keys of hs it went through and, as addRuns, ErrDuplicateLimit at a key
// whose buckets hold only its fingerprint or ErrNoSlot at one that found
// no slot below 90% load (neither counted; the count goes up by the keys
// before it); it stops after a key that parked the victim. The
// placements, the kick PRNG's draws and so the table are those of
// addRuns' runs and addFull.
func (f *Filter) addRun16Full(hs, locs []uint64) (int, error) {
	words := f.t.Words
	w := unsafe.Pointer(unsafe.SliceData(words))
	locs = locs[:len(hs)]
	const lo, hi = 0x0001000100010001, 0x8000800080008000
	for j, l := range locs {
		i1, i2 := splitLoc(l)
		b1, b2 := elem64(w, i1), elem64(w, i2)
		n1, n2 := fullLanes(b1, lo, hi), fullLanes(b2, lo, hi)
		fp := kernel.CuckooFingerprint(hs[j], 1<<16-1)
		if n1&n2 == hi {
			if pat := fp * lo; (b1^pat)|(b2^pat) == 0 {
				f.count += uint64(j)
				return j, ErrDuplicateLimit
			}
			v, err := f.insertFull16(i1, i2, fp, f.count+uint64(j))
			if err != nil {
				f.count += uint64(j)
				return j, err
			}
			if v != 0 {
				f.t.Victim = v
				f.count += uint64(j + 1)
				return j + 1, nil
			}
			continue
		}
		e1, e2 := n1^hi, n2^hi
		i, e := emptier(i1, e1, i2, e2)
		words[i] |= fp * lowestLane(e, 16)
	}
	f.count += uint64(len(hs))
	runtime.KeepAlive(f) // see probe
	return len(hs), nil
}

// addRun8 is addRun16 for 8-bit fingerprints: w32 is the bucket array as
// uint32s (Filter.w32), bucket i at w32[i^w32Flip].
func addRun8(w32 []uint32, hs, locs []uint64) int {
	w := unsafe.Pointer(unsafe.SliceData(w32))
	locs = locs[:len(hs)]
	const lo, hi = 0x01010101, 0x80808080
	for j, l := range locs {
		i1, i2 := splitLoc(l)
		b1, b2 := uint64(elem32(w, i1^w32Flip)), uint64(elem32(w, i2^w32Flip))
		n1, n2 := fullLanes(b1, lo, hi), fullLanes(b2, lo, hi)
		if n1&n2 == hi {
			return j
		}
		e1, e2 := n1^hi, n2^hi
		i, e := emptier(i1, e1, i2, e2)
		w32[i^w32Flip] |= uint32(kernel.CuckooFingerprint(hs[j], 1<<8-1) * lowestLane(e, 8))
	}
	return len(hs)
}

// fullLanes returns the top bit of every lane of bucket value b that is
// not zero (lo has a 1 at the bottom of every lane, hi at the top; b has
// no bits outside the lanes): setting a lane's top bit before subtracting
// 1 keeps the borrow inside the lane, and the lane's own top bit is or-ed
// back in. emptyLanes is its complement within hi.
func fullLanes(b, lo, hi uint64) uint64 {
	return ((b | hi) - lo | b) & hi
}

// lowestLane returns 1 shifted to the lowest bit of the lowest lane of
// width bits whose top bit is set in e (nonzero; as emptyLanes returns):
// fp times it is fp in that lane. It isolates the lowest set bit and
// shifts it down to the lane's bottom: no bit scan, no variable shift.
func lowestLane(e uint64, width uint) uint64 {
	return (e & -e) >> (width - 1)
}
