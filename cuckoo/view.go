package cuckoo

import (
	"io"
	"runtime"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/nocopy"
)

// View is a read-only cuckoo filter served straight from encoded bytes: a
// file mapped by Open, or a caller's buffer given to FromBytes. It answers
// exactly as the Filter that was saved, and has no methods that change it
// (no Add, Remove or Reset): the type system, not a run-time check, keeps
// writes away from read-only memory, as for blocked.View. Clone returns a
// writable Filter.
//
// All of View's methods but Close may be called from many goroutines at
// once. The zero View has no buckets, like a closed one, and fails loudly
// as a closed Filter does. Do not copy a View value (a copy shares its
// memory, and closing either unmaps it under the other); share the
// pointer, or Clone a Filter (go vet's copylocks check reports a copy).
type View struct {
	_      nocopy.NoCopy // go vet reports copies; no space
	f      Filter
	mapped bool // the buckets are Open's file mapping
}

// Hash returns the hash the filter uses for key: hash.Bytes(key, seed).
func (v *View) Hash(key []byte) uint64 { return hash.Bytes(key, v.f.seed) }

// HashString returns the hash the filter uses for key.
func (v *View) HashString(key string) uint64 { return hash.String(key, v.f.seed) }

// HashUint64 returns the hash the filter uses for key.
func (v *View) HashUint64(key uint64) uint64 { return v.f.h64.Hash(key) }

// ContainsHash reports whether a key with hash h may be in the filter (see
// Filter.ContainsHash, also for what it does after Close).
func (v *View) ContainsHash(h uint64) bool { return v.f.probe(h, true) }

// Contains reports whether key may be in the filter.
func (v *View) Contains(key []byte) bool { return v.f.probe(hash.Bytes(key, v.f.seed), true) }

// ContainsString reports whether key may be in the filter.
func (v *View) ContainsString(key string) bool {
	return v.f.probe(hash.String(key, v.f.seed), true)
}

// ContainsUint64 reports whether key may be in the filter; the same key as
// Contains of its 8 little-endian bytes.
func (v *View) ContainsUint64(key uint64) bool { return v.f.probe(key, false) }

// ContainsHashes sets out[i] to ContainsHash(hs[i]) and returns how many are
// true (see Filter.ContainsHashes).
func (v *View) ContainsHashes(hs []uint64, out []bool) int {
	n := v.f.ContainsHashes(hs, out)
	runtime.KeepAlive(v)
	return n
}

// Seed returns the hash seed.
func (v *View) Seed() uint64 { return v.f.seed }

// FingerprintBits returns the fingerprint width, 8 or 16.
func (v *View) FingerprintBits() int { return v.f.FingerprintBits() }

// Buckets returns the number of buckets.
func (v *View) Buckets() uint64 { return v.f.Buckets() }

// MaxKicks returns the relocation bound per Add the filter was saved with.
func (v *View) MaxKicks() int { return v.f.maxKicks }

// Capacity returns the number of fingerprint slots (see Filter.Capacity).
func (v *View) Capacity() uint64 { return v.f.Capacity() }

// Count returns the number of fingerprints stored, the victim included, as
// the encoding's header states it (a View does not scan the buckets).
func (v *View) Count() uint64 { return v.f.count }

// LoadFactor returns Count / Capacity (see Filter.LoadFactor).
func (v *View) LoadFactor() float64 { return v.f.LoadFactor() }

// FPP returns the predicted false positive probability at the current load
// (see Filter.FPP).
func (v *View) FPP() float64 { return v.f.FPP() }

// BitsPerKey returns the bucket array's bits divided by Count.
func (v *View) BitsPerKey() float64 { return v.f.BitsPerKey() }

// SizeBytes returns the size of the bucket array in bytes.
func (v *View) SizeBytes() uint64 { return v.f.SizeBytes() }

// VictimInUse reports whether the saved filter held a victim (it was full).
func (v *View) VictimInUse() bool { return v.f.VictimInUse() }

// Mapped reports whether the View reads a file mapping (Open on a Unix
// system, little-endian) rather than its own copy or the caller's buffer.
func (v *View) Mapped() bool { return v.mapped }

// Clone returns a writable Filter holding the same keys, in memory of its
// own (it panics as Filter.Clone does). Its count is the slots in use (and
// the victim), counted here: a View takes the saved count unchecked, and a
// wrong one in a writable filter would go below zero on a Remove and make
// every file it writes one the decoders refuse.
func (v *View) Clone() *Filter {
	g := v.f.Clone()
	g.count = g.occupied()
	if g.t.Victim != 0 {
		g.count++
	}
	runtime.KeepAlive(v)
	return g
}

// MarshalBinary encodes the filter (see Filter.MarshalBinary).
func (v *View) MarshalBinary() ([]byte, error) {
	b, err := v.f.MarshalBinary()
	runtime.KeepAlive(v)
	return b, err
}

// AppendBinary appends the filter's encoding to b (see
// Filter.AppendBinary).
func (v *View) AppendBinary(b []byte) ([]byte, error) {
	b, err := v.f.AppendBinary(b)
	runtime.KeepAlive(v)
	return b, err
}

// WriteTo writes the filter's encoding to w (see Filter.WriteTo).
func (v *View) WriteTo(w io.Writer) (int64, error) {
	n, err := v.f.WriteTo(w)
	runtime.KeepAlive(v)
	return n, err
}

// Close unmaps the file of a View from Open (or frees a copy). Afterwards
// the View fails loudly as a closed Filter does (see Filter.Close). It must
// not run concurrently with other methods. A View from FromBytes that used
// the caller's buffer leaves the buffer alone.
func (v *View) Close() error {
	v.mapped = false
	return v.f.Close()
}
