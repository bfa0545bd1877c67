package cuckoo

import (
	"runtime"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/nocopy"
)

// Union adds every key of other to f, so that afterwards f reports present
// every key either filter held. Both filters must have the same bucket
// count, fingerprint width and seed (filters made by New with the same
// capacity and options do): then a fingerprint means the same key in both,
// in the same two buckets. Otherwise it returns an error wrapping
// ErrIncompatible and changes nothing; so it does for other == f.
//
// Union inserts other's fingerprints, its victim included, each into the
// bucket other keeps it in when that has room (so a filter merged into an
// empty one is copied bucket for bucket), else into its other bucket, else by
// relocation as Add does. other's victim goes into one of its buckets
// where f has room, else below 90% load by relocation, and where none
// finds room, or from 90% on, into f's victim slot, as it was in other's:
// so an empty filter takes a copy of a full filter, and of one whose
// victim removals left walled in below 90% load (its buckets held by a
// repeated key's copies), which Add would refuse. (A copy bucket for
// bucket: fingerprints go into the lowest free slots, so holes removals
// left in other's buckets are closed.) The result holds
// f.Count() + other.Count() fingerprints, and a key held by both filters is
// held twice, as if added twice (each copy needs its own Remove). It
// succeeds when every fingerprint finds a slot, the last one possibly the
// victim slot, as an Add may park its own. When they cannot all be placed,
// because together they exceed f's capacity (plus the victim slot), because
// relocation found no room before the last one (ErrFull; ErrNoSlot below
// 90% load), because f already holds a victim (ErrFull), or because a key
// would need a ninth copy
// (ErrDuplicateLimit), Union returns that error, wrapped, and leaves f
// exactly as it was: it works on a copy of f's buckets and keeps it only on
// success, so it needs memory for that copy while it runs (an allocation
// failure is an error wrapping sift.ErrTooLarge). A merge never loses an
// accepted key of either filter.
func (f *Filter) Union(other *Filter) error {
	switch {
	case f.t.Buckets == 0 || other != nil && other.t.Buckets == 0:
		return errClosed
	case other == nil:
		return incompatible("nil filter")
	case other == f:
		return incompatible("cannot combine a filter with itself")
	case f.t.Buckets != other.t.Buckets:
		return incompatible("bucket counts differ (%d and %d)", f.t.Buckets, other.t.Buckets)
	case f.t.FPBits != other.t.FPBits:
		return incompatible("fingerprint widths differ (%d and %d bits)", f.t.FPBits, other.t.FPBits)
	case f.seed != other.seed:
		return incompatible("seeds differ (%#x and %#x)", f.seed, other.seed)
	}
	if other.count == 0 {
		return nil
	}
	if f.t.Victim != 0 {
		return unionFull(ErrFull, "the filter already holds a victim (it is full)")
	}
	if room := f.Capacity() + 1 - f.count; other.count > room {
		return unionFull(ErrFull, "%d fingerprints do not fit in the %d free slots and the victim slot", other.count, room-1)
	}
	words, region, err := allocWords(uint64(len(f.t.Words)))
	if err != nil {
		return err
	}
	copy(words, f.t.Words)
	g := newFilter(words, f.t.Buckets, f.t.FPBits, f.seed, f.maxKicks)
	g.count, g.rng = f.count, f.rng
	g.setRegion(region)
	if err := g.insertAll(other); err != nil {
		_ = g.Close()
		return err
	}
	runtime.KeepAlive(other)
	g.maxBytes = f.maxBytes
	_ = f.region.Free()
	nocopy.Move(f, g)
	return nil
}

// insertAll inserts every fingerprint of other (same geometry and seed)
// into f, its victim last (putVictim), stopping at the first that cannot
// be placed.
func (f *Filter) insertAll(other *Filter) error {
	n := f.t.Buckets
	fb := uint64(f.t.FPBits)
	left := other.count
	put := func(i, fp uint64, victim bool) error {
		left--
		if f.t.Victim != 0 {
			return unionFull(ErrFull, "no room for %d more fingerprints: a relocation ran out of kicks and parked one in the victim slot", left+1)
		}
		insert := f.insertFingerprint
		if victim {
			insert = f.putVictim
		}
		if err := insert(i, kernel.CuckooAlt(i, fp, n), fp); err == ErrNoSlot {
			return unionFull(ErrNoSlot, "a fingerprint of the other filter found no slot reachable from its buckets")
		} else if err != nil {
			return unionFull(err, "a key of the other filter would be a ninth copy in its two buckets")
		}
		return nil
	}
	for i := range n {
		b := other.bucket(i)
		for s := range uint64(SlotsPerBucket) {
			if fp := b >> (s * fb) & f.fpMax; fp != 0 {
				if err := put(i, fp, false); err != nil {
					return err
				}
			}
		}
	}
	if other.t.Victim != 0 {
		fp, i := other.victim()
		return put(i, fp, true)
	}
	return nil
}

// putVictim is insertFingerprint for the other filter's victim fp, whose
// buckets are i1 and i2: below 90% load the same, except that where no
// relocation finds it room (ErrNoSlot, the walk undone) it takes f's
// victim slot, as it held the other filter's; from 90% load on it takes
// the victim slot without a relocation where both buckets are full
// (unless they hold only fp: ErrDuplicateLimit). So a full filter merged
// into an empty one is copied bucket for bucket with its victim, and so
// is one whose victim removals left walled in below 90% load (its buckets
// held by a repeated key's copies), which no relocation can place and Add
// would refuse; while a victim that a relocation can place below 90% load
// leaves f's victim slot free for later Adds. f's victim slot must be
// free.
func (f *Filter) putVictim(i1, i2, fp uint64) error {
	if !f.parks(f.count) {
		if err := f.insertFingerprint(i1, i2, fp); err != ErrNoSlot {
			return err
		}
	} else if f.tryInsert(i1, fp) || f.tryInsert(i2, fp) {
		f.count++
		return nil
	} else if f.atDuplicateLimit(f.bucket(i1), f.bucket(i2), fp) {
		return ErrDuplicateLimit
	}
	f.t.Victim = kernel.CuckooTag(fp, min(i1, i2))
	f.count++
	return nil
}

// insertFingerprint puts fp into bucket i1 if it has room, else into its
// alternate bucket i2, else by relocation as add does (parking the last
// homeless fingerprint in the victim slot from 90% load on, below that
// undoing the relocation and returning ErrNoSlot). Preferring i1, the bucket that
// holds fp in the filter it comes from, keeps that filter's arrangement
// where f has room: merged into an empty filter, a filter's table is copied
// bucket for bucket. f's victim slot must be free.
func (f *Filter) insertFingerprint(i1, i2, fp uint64) error {
	if f.tryInsert(i1, fp) || f.tryInsert(i2, fp) {
		f.count++
		return nil
	}
	_, err := f.addFull(i1, i2, fp, f.bucket(i1), f.bucket(i2))
	return err
}
