package cuckoo

import (
	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/kernel"
)

// RemoveHash removes one copy of a key's fingerprint, by the key's hash, and
// reports whether one was found. If the victim slot is in use, the victim is
// then re-homed when the table has room for it: into a free slot of its
// buckets, or along the shortest chain of relocations to a free slot (the
// search of relocate: the freed slot need not be in the victim's buckets),
// so Add works again. It panics on a closed or zero filter (see Close).
//
// Remove only keys that were added. Removing a key that was never added
// removes nothing if its fingerprint is absent from its buckets, but with
// probability about FPP it matches a fingerprint stored there by another key,
// removes it, and that other key is then no longer reported present (a false
// negative). Removing a key twice after one Add has the same risk.
func (f *Filter) RemoveHash(h uint64) bool {
	f.mustOpen()
	i1, fp, i2 := f.locate(h)
	if kernel.CuckooTag(fp, min(i1, i2)) == f.t.Victim {
		f.t.Victim = 0
		f.count--
		return true
	}
	if !f.tryDelete(i1, fp) && !f.tryDelete(i2, fp) {
		return false
	}
	f.count--
	if f.t.Victim != 0 {
		if f.rehome(f.t.Victim) {
			f.t.Victim = 0
		}
	}
	return true
}

// Remove removes key (see RemoveHash for the caveat on keys never added).
func (f *Filter) Remove(key []byte) bool { return f.RemoveHash(hash.Bytes(key, f.seed)) }

// RemoveString removes key (see RemoveHash).
func (f *Filter) RemoveString(key string) bool { return f.RemoveHash(hash.String(key, f.seed)) }

// RemoveUint64 removes key (see RemoveHash).
func (f *Filter) RemoveUint64(key uint64) bool { return f.RemoveHash(f.h64.Hash(key)) }
