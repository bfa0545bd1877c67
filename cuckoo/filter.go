package cuckoo

import (
	"math"
	"runtime"
	"unsafe"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/mem"
	"github.com/sift-go/sift/internal/nocopy"
	"github.com/sift-go/sift/internal/race"
)

// Sizing and limits.
const (
	// SlotsPerBucket is the number of fingerprints a bucket holds.
	SlotsPerBucket = kernel.CuckooSlots
	// TargetLoad is the load factor New sizes for: a filter built for
	// capacity c has at least c/TargetLoad slots. Four-way buckets reach it
	// reliably with the default kick limit.
	TargetLoad = 0.95
	// MaxBuckets is the largest bucket count (the index math is 32-bit):
	// 2^32-1 buckets hold about 16 billion keys.
	MaxBuckets = kernel.MaxCuckooBuckets
	// DefaultMaxKicks is the default bound on relocations per Add.
	DefaultMaxKicks = 500
	// MaxMaxKicks is the largest kick limit WithMaxKicks accepts.
	MaxMaxKicks = 1 << 16
	// DefaultFingerprintBits is the default fingerprint width.
	DefaultFingerprintBits = 16
)

// Filter is a cuckoo filter: a set of key fingerprints in buckets of four,
// with deletion. Build one with New or decode one with UnmarshalBinary or
// ReadFrom (Open and FromBytes give a read-only View). The zero Filter has
// no buckets, like a closed one: it is only good as the target of
// UnmarshalBinary or ReadFrom, and any other use fails loudly (see Close).
//
// A Filter is safe for concurrent use by several goroutines calling only
// Contains* (and the other read-only methods); any mutation needs exclusive
// access. Use Concurrent for concurrent Add and Remove. Do not copy a
// Filter value: a copy shares its memory, and closing either unmaps it
// under the other; use Clone (go vet's copylocks check reports a copy).
type Filter struct {
	_ nocopy.NoCopy // go vet reports copies; no space
	// The probe reads t and w32 (and h64, for ContainsUint64); the
	// insert and delete paths also the four words after h64.
	t         kernel.CuckooTable
	w32       []uint32          // t.Words as uint32s, bucket i at w32[i^w32Flip] (f = 8 only)
	h64       hash.Uint64Hasher // hash.Uint64 with seed folded in
	fpMax     uint64            // 2^f - 1: fingerprints are 1..fpMax
	wordShift uint64            // bucket i lives in word i>>wordShift ...
	wordMask  uint64            // ... at bit (i&wordMask)<<5
	lo, hi    uint64            // SWAR lane constants for f-bit lanes

	count    uint64 // fingerprints stored, victim included
	seed     uint64
	rng      uint64 // kick PRNG state
	maxKicks int
	region   *mem.Region // memory to release on Close
	// maxBytes is the WithMaxSize bound the filter was made with, which
	// its decoders (UnmarshalBinary, ReadFrom) apply; 0: none.
	maxBytes uint64
	// shared is set for the filter inside a Concurrent: its bucket words
	// are read by lock-free lookups, so the eviction code stores them
	// atomically (see store).
	shared bool

	// touched receives the bucket words AddHashes reads ahead of its
	// inserts, so the compiler keeps those loads (see AddHashes).
	touched uint64
}

// BucketsFor returns the number of buckets New allocates for capacity keys:
// ceil(capacity / (4 * TargetLoad)), so space is within one bucket of
// f/TargetLoad bits per key (two with 8-bit fingerprints: a table of an
// odd bucket count is padded to whole 64-bit words).
func BucketsFor(capacity uint64) uint64 {
	// 4 * 0.95 = 3.8 slots per key; exact integer arithmetic for
	// ceil(capacity*10/38) without overflow.
	q, r := capacity/19, capacity%19
	return q*5 + (r*5+18)/19
}

// New returns an empty filter sized to hold capacity keys at TargetLoad
// (95%) of its slots. It returns an error wrapping ErrInvalidArgument for a
// capacity of 0, one needing more than MaxBuckets buckets (also
// sift.ErrTooLarge), or bad options, and one wrapping sift.ErrTooLarge for
// a bucket array larger than WithMaxSize allows or than the machine can
// provide: from 4 MiB up the buckets are an anonymous mapping, and a
// mapping the system refuses (or one larger than the machine's RAM and
// swap, on Linux) is that error, never the Go runtime's fatal out-of-memory
// error (see package internal/mem for the policy). Options:
// WithFingerprintBits, WithSeed, WithMaxKicks, WithMaxSize.
func New(capacity uint64, opts ...Option) (*Filter, error) {
	o := collect(opts)
	if o.fpBits != 8 && o.fpBits != 16 {
		return nil, argError("fingerprint bits %d (must be 8 or 16)", o.fpBits)
	}
	if o.maxKicks < 0 || o.maxKicks > MaxMaxKicks {
		return nil, argError("max kicks %d (must be in [0, %d])", o.maxKicks, MaxMaxKicks)
	}
	if capacity == 0 {
		return nil, argError("capacity 0")
	}
	n := BucketsFor(capacity)
	if n > MaxBuckets {
		return nil, tooLargeArg("capacity %d needs %d buckets, more than %d", capacity, n, uint64(MaxBuckets))
	}
	nw := kernel.CuckooWords(n, uint(o.fpBits))
	if nw > math.MaxInt/8 {
		return nil, tooLargeArg("capacity %d needs more memory than this platform addresses", capacity)
	}
	if o.maxBytes != 0 && nw > o.maxBytes/8 {
		return nil, corrupt(ErrTooLarge, "capacity %d needs %d bytes of buckets, more than the maximum size of %d (WithMaxSize)", capacity, 8*nw, o.maxBytes)
	}
	words, region, err := allocWords(nw)
	if err != nil {
		return nil, err
	}
	f := newFilter(words, n, uint(o.fpBits), o.seed, o.maxKicks)
	f.maxBytes = o.maxBytes
	f.setRegion(region)
	return f, nil
}

// allocWords returns n zeroed words from mem.Alloc, or its error with this
// package's prefix (wrapping sift.ErrTooLarge).
func allocWords(n uint64) ([]uint64, *mem.Region, error) {
	w, r, err := mem.Alloc(int(n))
	return w, r, wrapDecode(err)
}

// newFilter wraps a bucket array; the caller validated every argument.
func newFilter(words []uint64, buckets uint64, fpBits uint, seed uint64, maxKicks int) *Filter {
	f := &Filter{
		t:        kernel.CuckooTable{Words: words, Buckets: buckets, FPBits: fpBits},
		fpMax:    1<<fpBits - 1,
		lo:       0x0001000100010001,
		hi:       0x8000800080008000,
		seed:     seed,
		h64:      hash.NewUint64Hasher(seed),
		maxKicks: maxKicks,
	}
	if fpBits == 8 {
		f.wordShift, f.wordMask, f.lo, f.hi = 1, 1, 0x01010101, 0x80808080
		// Bucket i is bits 32*(i&1) of word i>>1: the uint32 at byte 4i
		// on a little-endian machine, at 4*(i^1) on a big-endian one.
		f.w32 = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(words))), 2*len(words))
	}
	f.rng = rngSeed(seed)
	return f
}

// setRegion records memory to release with Close. A mapped Region frees
// itself (its finalizer, see package internal/mem) once unreachable: the
// filter holding it is the only object that references it.
func (f *Filter) setRegion(r *mem.Region) {
	f.region = r
}

// Hash returns the hash the filter uses for key: hash.Bytes(key, seed).
func (f *Filter) Hash(key []byte) uint64 { return hash.Bytes(key, f.seed) }

// HashString returns the hash the filter uses for key: hash.String(key, seed).
func (f *Filter) HashString(key string) uint64 { return hash.String(key, f.seed) }

// HashUint64 returns the hash the filter uses for key: hash.Uint64(key, seed).
func (f *Filter) HashUint64(key uint64) uint64 { return f.h64.Hash(key) }

// Seed returns the hash seed.
func (f *Filter) Seed() uint64 { return f.seed }

// FingerprintBits returns the fingerprint width, 8 or 16.
func (f *Filter) FingerprintBits() int { return int(f.t.FPBits) }

// Buckets returns the number of buckets.
func (f *Filter) Buckets() uint64 { return f.t.Buckets }

// MaxKicks returns the relocation bound per Add.
func (f *Filter) MaxKicks() int { return f.maxKicks }

// Capacity returns the number of fingerprint slots, 4 × Buckets: the most
// keys the filter can hold (plus one in the victim slot). New(c) gives a
// Capacity of at least c/TargetLoad.
func (f *Filter) Capacity() uint64 { return SlotsPerBucket * f.t.Buckets }

// Count returns the number of fingerprints stored: successful Adds minus
// successful Removes, the victim included.
func (f *Filter) Count() uint64 { return f.count }

// LoadFactor returns Count / Capacity. It panics on a closed or zero
// filter (see Close).
func (f *Filter) LoadFactor() float64 {
	f.mustOpen()
	return float64(f.count) / float64(f.Capacity())
}

// VictimInUse reports whether a fingerprint is parked in the victim slot,
// in which case Add returns ErrFull until a Remove re-homes it.
func (f *Filter) VictimInUse() bool { return f.t.Victim != 0 }

// mustOpen panics with an error wrapping sift.ErrClosed if f has no
// buckets: it was closed, or is a zero value.
func (f *Filter) mustOpen() {
	if f.t.Buckets == 0 {
		panic(errUse)
	}
}

// SizeBytes returns the size of the bucket array in bytes.
func (f *Filter) SizeBytes() uint64 { return 8 * uint64(len(f.t.Words)) }

// BitsPerKey returns the bucket array's bits divided by Count (+Inf when
// empty). It panics on a closed or zero filter (see Close).
func (f *Filter) BitsPerKey() float64 {
	f.mustOpen()
	return float64(8*f.SizeBytes()) / float64(f.count)
}

// FPP returns the predicted false positive probability at the current load:
// a key not in the filter is compared with the 2b = 8 slots of its two
// buckets, each occupied with probability LoadFactor and then matching with
// probability 1/(2^f-1), so FPP = 1 - (1 - 1/(2^f-1))^(8 × LoadFactor),
// about 8 × LoadFactor / 2^f. It panics on a closed or zero filter (see
// Close).
func (f *Filter) FPP() float64 {
	return fppAt(f.LoadFactor(), f.t.FPBits)
}

func fppAt(load float64, fpBits uint) float64 {
	p := 1 / float64(uint64(1)<<fpBits-1)
	return -math.Expm1(2 * SlotsPerBucket * load * math.Log1p(-p))
}

// Reset empties the filter, keeping its size and options; the kick PRNG
// restarts from the seed, so a reset filter fed the same keys ends up
// bit-identical. It panics on a closed or zero filter (see Close).
func (f *Filter) Reset() {
	f.mustOpen()
	race.Clear(f.t.Words) // the builtin's clear is invisible to -race
	f.t.Victim = 0
	f.count = 0
	f.rng = rngSeed(f.seed)
}

// Clone returns a deep copy. It panics on a closed or zero filter (see
// Close), and, with the error wrapping sift.ErrTooLarge, when the copy's
// memory cannot be had.
func (f *Filter) Clone() *Filter {
	f.mustOpen()
	words, region, err := allocWords(uint64(len(f.t.Words)))
	if err != nil {
		panic(err)
	}
	copy(words, f.t.Words)
	g := newFilter(words, f.t.Buckets, f.t.FPBits, f.seed, f.maxKicks)
	g.t.Victim = f.t.Victim
	g.count, g.rng = f.count, f.rng
	g.maxBytes = f.maxBytes
	g.setRegion(region)
	runtime.KeepAlive(f)
	return g
}

// Close releases the filter's memory: it frees the mapping of a large
// filter (4 MiB and more) at once. Calling Close is optional (the garbage
// collector reclaims heap memory, and a finalizer releases a mapping once
// the filter is unreachable) but frees mapped memory promptly. It is
// harmless more than once.
//
// Afterwards the filter has no buckets, like the zero Filter, and using it
// fails loudly, never touching freed memory: Add and its forms, AddHashes,
// AddNew and its forms, AddNewHashes, MarshalBinary and WriteTo return an
// error wrapping sift.ErrClosed;
// Remove and its forms, ContainsHashes, Reset, Clone, LoadFactor, FPP and
// BitsPerKey panic with such an error; the single-key Contains methods
// panic with a nil dereference (their probe has no check to spare: see the
// package doc). Count, Capacity, Buckets and SizeBytes return 0.
// UnmarshalBinary and ReadFrom make it a filter again.
func (f *Filter) Close() error {
	r := f.region
	f.region = nil
	f.t.Words, f.w32 = nil, nil
	f.t.Buckets, f.t.Victim, f.count = 0, 0, 0
	return r.Free()
}
