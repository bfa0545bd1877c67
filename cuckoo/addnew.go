package cuckoo

import (
	"unsafe"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/kernel"
)

// Add-if-new: the AddNew methods add a key only when the filter does not
// already report it present, and say whether they added it. The names and
// the polarity are blocked.Filter's (see blocked/addnew.go): true means
// "first time seen", the answer a de-duplicating loop branches on:
//
//	if isNew, err := f.AddNewString(line); err != nil {
//		return err // ErrFull: the filter has no room for a new key
//	} else if isNew {
//		emit(line)
//	}
//
// A key counts as present when its fingerprint is in one of its two
// buckets or in the victim slot, exactly when ContainsHash is true, so a
// repeated key takes no second slot: a stream with repeats never meets
// ErrDuplicateLimit, and fills the filter only with its distinct keys. A
// new key that is a false positive (another key's fingerprint in one of
// its buckets) is reported not new and not added, at the filter's FPP. So
// a filter filled with AddNew is for lookups: Remove of such a key, which
// was never stored, removes the other key's fingerprint, and that key is
// then reported absent. Fill a filter you will remove from with Add,
// which stores every key (and every copy of a repeated one).

// AddNew adds key unless the filter reports it present, and reports
// whether it added it (see AddNewHash).
func (f *Filter) AddNew(key []byte) (bool, error) {
	return f.add(hash.Bytes(key, f.seed), addHash|addIfNew)
}

// AddNewString is AddNew for a string key (see AddNewHash).
func (f *Filter) AddNewString(key string) (bool, error) {
	return f.add(hash.String(key, f.seed), addHash|addIfNew)
}

// AddNewUint64 is AddNew for key's eight little-endian bytes (see
// AddNewHash).
func (f *Filter) AddNewUint64(key uint64) (bool, error) { return f.add(key, addKey|addIfNew) }

// AddNewHash adds a key by its hash unless the key is present, and reports
// whether it added it. It equals
//
//	if f.ContainsHash(h) {
//		return false, nil
//	}
//	err := f.AddHash(h)
//	return err == nil, err
//
// down to the bit pattern of the table, but reads the key's two buckets
// once: (false, nil) when the key's fingerprint is in one of its buckets
// or in the victim slot, and nothing changes; (true, nil) when it was not
// and has been added, as AddHash adds it (possibly parking a victim). A
// new key that could not be added gives false and the error: ErrFull,
// changing nothing, while the victim slot is in use (a key that is present
// still gives (false, nil) then); ErrNoSlot, changing nothing, for a key
// walled in below 90% load; an error wrapping sift.ErrClosed on a
// closed or zero filter. It never returns ErrDuplicateLimit: a key whose
// buckets hold only its fingerprint is present. As with AddHash, every key
// added before stays present whatever the outcome.
func (f *Filter) AddNewHash(h uint64) (bool, error) { return f.add(h, addHash|addIfNew) }

// fullAddNew is AddNewHash's answer while the victim slot is in use (see
// add): false, with ErrFull for a key that is not present. x is the key
// or its hash, as for add.
func (f *Filter) fullAddNew(x uint64, how int) (bool, error) {
	h := x
	if how&addHash == 0 {
		h = f.h64.Hash(x)
	}
	if f.probe(h, true) {
		return false, nil
	}
	return false, ErrFull
}

// AddNewHashes sets out[i] to what AddNewHash(hs[i]) returns, for i in
// order, and returns how many of hs it went through and the error that
// stopped it: n == len(hs) and a nil error, or hs[n] is a new key that
// could not be added, with AddNewHash's error for it (ErrFull, ErrNoSlot,
// or an error wrapping sift.ErrClosed with n 0). hs[:n] are then present, out[:n]
// holds their answers (count the trues for the number of new keys), and
// hs[n:] and out[n:] are untouched. (Unlike blocked.Filter.AddNewHashes,
// whose int counts the new keys, the int is where the call stopped, as
// for AddHashes: a cuckoo filter can fail.) It panics if len(out) <
// len(hs).
//
// The answers and the table are exactly those of a loop of AddNewHash:
// a hash repeated in hs is new at most once, and keys sharing a bucket see
// each other. It runs on AddHashes' pipeline (the buckets of the keys
// ahead computed and prefetched by kernel.CuckooLocate), whose runs test
// each key's two buckets for its fingerprint before placing it; while the
// victim slot is in use it looks keys up one at a time. It does not
// overlap relocations as AddHashes does on large tables (each key's walk
// ends before the next key is tested), so that this equality holds at
// every size.
func (f *Filter) AddNewHashes(hs []uint64, out []bool) (int, error) {
	if len(out) < len(hs) {
		panic("cuckoo: AddNewHashes: len(out) < len(hs)")
	}
	if f.t.Buckets == 0 {
		return 0, errClosed
	}
	done := 0
	if f.t.Victim == 0 {
		n, err := f.addBatch(hs, out[:len(hs)])
		if err != ErrFull {
			return n, err
		}
		// The key before hs[n] parked a victim: from there a new key
		// is ErrFull, and a present one (false, nil).
		done = n
	}
	for ; done < len(hs); done++ {
		isNew, err := f.add(hs[done], addHash|addIfNew)
		if err != nil {
			return done, err
		}
		out[done] = isNew
	}
	return done, nil
}

// addNewRun16 is addRun16 for AddNewHashes: a key whose fingerprint is in
// one of its buckets is passed over with out[j] false, and a key added
// gets out[j] true. It stops at a key that is not present and whose
// buckets are both full, and returns its index (len(hs) if none) and how
// many keys it added. The test for the fingerprint is the probe's
// (ContainsHash), and the pass-over has no branch: a present key's store
// ors zero into its bucket.
func addNewRun16(words, hs, locs []uint64, out []bool) (n, added int) {
	w := unsafe.Pointer(unsafe.SliceData(words))
	locs, out = locs[:len(hs)], out[:len(hs)]
	const lo, hi = 0x0001000100010001, 0x8000800080008000
	for j, l := range locs {
		i1, i2 := splitLoc(l)
		b1, b2 := elem64(w, i1), elem64(w, i2)
		fp := kernel.CuckooFingerprint(hs[j], 1<<16-1)
		pat := fp * lo
		x1, x2 := b1^pat, b2^pat
		hit := ((x1-lo)&^x1 | (x2-lo)&^x2) & hi
		p := (hit | -hit) >> 63 // 1: present
		n1, n2 := fullLanes(b1, lo, hi), fullLanes(b2, lo, hi)
		if n1&n2 == hi && p == 0 {
			return j, added
		}
		e1, e2 := n1^hi, n2^hi
		i, e := emptier(i1, e1, i2, e2)
		words[i] |= fp * lowestLane(e, 16) & (p - 1)
		out[j] = p == 0
		added += int(p ^ 1)
	}
	return len(hs), added
}

// addNewRun8 is addNewRun16 for 8-bit fingerprints (see addRun8).
func addNewRun8(w32 []uint32, hs, locs []uint64, out []bool) (n, added int) {
	w := unsafe.Pointer(unsafe.SliceData(w32))
	locs, out = locs[:len(hs)], out[:len(hs)]
	const lo, hi = 0x01010101, 0x80808080
	for j, l := range locs {
		i1, i2 := splitLoc(l)
		b1, b2 := uint64(elem32(w, i1^w32Flip)), uint64(elem32(w, i2^w32Flip))
		fp := kernel.CuckooFingerprint(hs[j], 1<<8-1)
		pat := fp * lo
		x1, x2 := b1^pat, b2^pat
		hit := ((x1-lo)&^x1 | (x2-lo)&^x2) & hi
		p := (hit | -hit) >> 63 // 1: present
		n1, n2 := fullLanes(b1, lo, hi), fullLanes(b2, lo, hi)
		if n1&n2 == hi && p == 0 {
			return j, added
		}
		e1, e2 := n1^hi, n2^hi
		i, e := emptier(i1, e1, i2, e2)
		w32[i^w32Flip] |= uint32(fp * lowestLane(e, 8) & (p - 1))
		out[j] = p == 0
		added += int(p ^ 1)
	}
	return len(hs), added
}

// AddNew adds key unless the filter reports it present, and reports
// whether it added it (see AddNewHash).
func (c *Concurrent) AddNew(key []byte) (bool, error) {
	return c.AddNewHash(hash.Bytes(key, c.Seed()))
}

// AddNewString is AddNew for a string key (see AddNewHash).
func (c *Concurrent) AddNewString(key string) (bool, error) {
	return c.AddNewHash(hash.String(key, c.Seed()))
}

// AddNewUint64 is AddNew for key's eight little-endian bytes (see
// AddNewHash).
func (c *Concurrent) AddNewUint64(key uint64) (bool, error) {
	if c.f == nil {
		return false, errClosed
	}
	return c.AddNewHash(c.f.h64.Hash(key))
}

// AddNewHash adds a key by its hash unless the filter reports it present,
// and reports whether it added it, with Filter.AddNewHash's answers and
// errors. Under races it guarantees:
//
//   - never new after an add: once an AddHash or AddNewHash of the key (or
//     of a key with the same fingerprint and buckets) has returned having
//     added it, and until a Remove of it, AddNewHash of the key returns
//     (false, nil);
//   - new at least once: of goroutines that race to AddNewHash one key
//     that is absent, at least one is told true, unless the filter is
//     full (ErrFull).
//
// Racing calls for one absent key may each find it absent and each add
// it: the test for the fingerprint and the compare-and-swap that places
// it are atomic for one bucket word, and the key has two. Such a key is
// then held more than once (each copy counted, each needing a Remove, as
// after repeated Adds). Calls that do not race for a key behave exactly as
// Filter's do.
func (c *Concurrent) AddNewHash(h uint64) (bool, error) { return c.add(h, true) }

// AddNewHashes sets out[i] to what AddNewHash(hs[i]) returns, for i in
// order, and returns how many of hs it went through and the error that
// stopped it, as Filter.AddNewHashes does. It runs AddNewHash key by key,
// with the buckets of the keys two batches ahead prefetched, as AddHashes
// does. It panics if len(out) < len(hs).
func (c *Concurrent) AddNewHashes(hs []uint64, out []bool) (int, error) {
	if len(out) < len(hs) {
		panic("cuckoo: AddNewHashes: len(out) < len(hs)")
	}
	if c.open() == nil {
		return 0, errClosed
	}
	var p prefetcher
	p.start(c, hs)
	for i, h := range hs {
		if i%prefetchAhead == 0 {
			p.next(i)
		}
		isNew, err := c.AddNewHash(h)
		if err != nil {
			return i, err
		}
		out[i] = isNew
	}
	return len(hs), nil
}
