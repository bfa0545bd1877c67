package cuckoo

import (
	"math"
	"math/bits"
	"runtime"
	"unsafe"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/mem"
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
// access. Use Concurrent for concurrent Add and Remove.
type Filter struct {
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

	// touched receives the bucket words AddHashes reads ahead of its
	// inserts, so the compiler keeps those loads (see AddHashes).
	touched uint64
}

// BucketsFor returns the number of buckets New allocates for capacity keys:
// ceil(capacity / (4 * TargetLoad)), so space is within one bucket of
// f/TargetLoad bits per key.
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

// locate returns the key's primary bucket, fingerprint and alternate bucket.
func (f *Filter) locate(h uint64) (i1, fp, i2 uint64) {
	n := f.t.Buckets
	i1 = kernel.CuckooIndex(h, n)
	fp = kernel.CuckooFingerprint(h, f.fpMax)
	return i1, fp, kernel.CuckooAlt(i1, fp, n)
}

// ContainsHash reports whether a key with hash h may be in the filter:
// false means certainly not added (or removed since); true means added, or
// a false positive with probability about FPP. It reads the key's two
// buckets with one load each and compares all four slots at once (SWAR),
// and checks the victim slot (only while it is in use). It inlines into
// its caller: a lookup is one call, of probe (see the package doc). On a
// closed or zero filter it panics with a nil dereference (see Close).
func (f *Filter) ContainsHash(h uint64) bool { return f.probe(h, true) }

// Contains reports whether key may be in the filter (see ContainsHash).
func (f *Filter) Contains(key []byte) bool { return f.probe(hash.Bytes(key, f.seed), true) }

// ContainsString reports whether key may be in the filter (see ContainsHash).
func (f *Filter) ContainsString(key string) bool {
	return f.probe(hash.String(key, f.seed), true)
}

// ContainsUint64 reports whether key may be in the filter (see ContainsHash).
// It is the same key as Contains of key's 8 little-endian bytes.
func (f *Filter) ContainsUint64(key uint64) bool { return f.probe(key, false) }

// probe is the lookup of ContainsHash (hashed true: x is the key's hash)
// and ContainsUint64 (hashed false: x is the key, hashed here). Hashing
// inside the one call saves a call level: ContainsUint64 calling
// ContainsHash measured 10.6-11.2 ns a lookup in cache against 9.3-9.9 for
// this (n = 1e5, f = 8), and about 6 with the hash precomputed. The branch on hashed goes the same way
// at every call site.
//
// It is a leaf function: every helper inlines into it, and each
// fingerprint width has its own straight-line code (SWAR constants as
// immediates, buckets read as whole uint32 or uint64 slice elements; the
// branch on the width always goes the same way): about 10% faster than
// one path for both widths, which shifted a shared uint64 word by amounts
// loaded from f.
func (f *Filter) probe(x uint64, hashed bool) bool {
	h := x
	if !hashed {
		h = f.h64.Hash(x)
	}
	n := f.t.Buckets
	i1 := kernel.CuckooIndex(h, n)
	var fp, i2, hit uint64
	if f.t.FPBits == 8 {
		fp = kernel.CuckooFingerprint(h, 1<<8-1)
		i2 = kernel.CuckooAlt(i1, fp, n)
		w := unsafe.Pointer(unsafe.SliceData(f.w32))
		b1, b2 := elem32(w, i1^w32Flip), elem32(w, i2^w32Flip)
		const lo, hi = 0x01010101, 0x80808080
		pat := uint32(fp) * lo
		x1, x2 := b1^pat, b2^pat
		hit = uint64(((x1-lo)&^x1 | (x2-lo)&^x2) & hi)
	} else {
		fp = kernel.CuckooFingerprint(h, 1<<16-1)
		i2 = kernel.CuckooAlt(i1, fp, n)
		w := unsafe.Pointer(unsafe.SliceData(f.t.Words))
		b1, b2 := elem64(w, i1), elem64(w, i2)
		const lo, hi = 0x0001000100010001, 0x8000800080008000
		pat := fp * lo
		x1, x2 := b1^pat, b2^pat
		hit = ((x1-lo)&^x1 | (x2-lo)&^x2) & hi
	}
	// The victim check runs only while the victim slot is in use: a
	// branch, but one that goes the same way on every lookup until the
	// filter fills or a Remove re-homes the victim, so it is predicted;
	// what it skips is about a tenth of the probe's instructions (see the
	// package doc). The check itself has no branch.
	if v := f.t.Victim; v != 0 {
		hit |= kernel.CuckooVictimHit(kernel.CuckooTag(fp, min(i1, i2)), v)
	}
	// A mapped bucket array is unmapped by a cleanup once f is
	// unreachable: keep f alive until its memory has been read.
	runtime.KeepAlive(f)
	return hit != 0
}

// elem64 and elem32 return element i of the array at w, with no bounds
// check. The probe reads its two buckets with them: its indexes come from
// CuckooIndex and CuckooAlt, which return values below t.Buckets for every
// hash (t.Buckets < 2^32), and the arrays hold t.Buckets words (f = 16) or
// t.Buckets rounded up to even (f = 8, so i^w32Flip stays inside). A closed
// filter has no buckets and nil arrays, so a probe after Close still panics
// (a nil dereference) instead of reading freed memory. Dropping the two
// checks also drops the probe's only calls (the index panics), so it needs
// no stack frame: eight instructions fewer a lookup (the frame pointer's
// push, set-up and pop, the length load, two compares and two branches),
// which a loop of lookups at DRAM sizes turns into more keys in flight
// (see the package doc).
func elem64(w unsafe.Pointer, i uint64) uint64 { return *(*uint64)(unsafe.Add(w, i*8)) }

func elem32(w unsafe.Pointer, i uint64) uint32 { return *(*uint32)(unsafe.Add(w, i*4)) }

// ContainsHashes looks up every hash of hs, sets out[i] to ContainsHash(hs[i]),
// and returns how many are true. It runs the whole loop in one assembly
// kernel where the CPU has one (AVX2 on amd64, arm64), computing and
// prefetching both buckets of keys ahead of their probes: for filters
// larger than the caches it is several times faster per key than a loop of
// ContainsHash. It panics if len(out) < len(hs), and on a closed or zero
// filter (see Close).
func (f *Filter) ContainsHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("cuckoo: ContainsHashes: len(out) < len(hs)")
	}
	f.mustOpen()
	c := kernel.CuckooContains(&f.t, hs, out)
	runtime.KeepAlive(f)
	return c
}

// bucket returns bucket i in the low bits (the 8-bit form also carries the
// neighbouring bucket in the high half, which the SWAR masks ignore).
func (f *Filter) bucket(i uint64) uint64 {
	return f.t.Words[i>>(f.wordShift&63)] >> ((i & f.wordMask) << 5 & 63)
}

// bucketMask masks the bits of one bucket in a value from bucket (which for
// 8-bit fingerprints also carries the neighbouring bucket).
func (f *Filter) bucketMask() uint64 { return f.hi | (f.hi - f.lo) }

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
	f.t.Words[i>>f.wordShift] |= fp << f.laneShift(i, free)
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
	old := *w >> sh & f.fpMax
	*w = *w&^(f.fpMax<<sh) | fp<<sh
	return old
}

// AddHash adds a key by its hash. It returns ErrFull, changing nothing, when
// the victim slot is in use, ErrDuplicateLimit, changing nothing, when both
// of the key's buckets hold only its fingerprint, and an error wrapping
// sift.ErrClosed on a closed or zero filter; otherwise it succeeds and the
// key is reported present until removed.
//
// The fingerprint goes into a free slot of either bucket; when both are full
// Add relocates fingerprints to their alternate buckets, at most MaxKicks
// steps, each first trying to move one of the full bucket's fingerprints
// into room in its alternate bucket and otherwise evicting a slot chosen by
// a seeded PRNG (see the package doc). If the last displaced fingerprint
// still has no home it is parked in the victim slot, where lookups find it:
// that Add succeeds and no key is lost, and later Adds return ErrFull until
// a Remove makes room for the victim (see RemoveHash).
//
// Adding the same key 8 times (2 buckets × 4 slots; or 8 keys sharing both
// buckets and the fingerprint) fills both its buckets: a ninth Add of it
// returns ErrDuplicateLimit, and other keys can still be added.
func (f *Filter) AddHash(h uint64) error { return f.add(h, 0, addHash) }

// What add is given (the branches on it go the same way at every call
// site, so they are predicted).
const (
	addKey     = iota // x is the key (AddUint64): hash it, then find its buckets
	addHash           // x is the key's hash (AddHash): find its buckets
	addLocated        // x is the hash and loc = i1 | i2<<32 its buckets (AddHashes)
)

// add is AddHash (how addHash), AddUint64 (addKey: x is hashed here, so
// that AddUint64 is not a call of a call; see probe) and the inserts of
// AddHashes (addLocated: the buckets come from kernel.CuckooLocate, which
// computed them, and prefetched them, a batch earlier).
//
// The common path, a free slot in either bucket, is one flat function with
// straight-line code per fingerprint width, as in probe; only the kick loop
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
// (add, then addLocated, reading shift amounts and lane constants from f);
// it is now about half that in one (see the package doc for figures).
func (f *Filter) add(x, loc uint64, how int) error {
	if f.t.Buckets == 0 {
		return errClosed
	}
	if f.t.Victim != 0 {
		return ErrFull
	}
	h := x
	if how == addKey {
		h = f.h64.Hash(x)
	}
	n := f.t.Buckets
	i1, i2 := splitLoc(loc)
	if how != addLocated {
		i1 = kernel.CuckooIndex(h, n)
	}
	if f.t.FPBits == 8 {
		fp := kernel.CuckooFingerprint(h, 1<<8-1)
		if how != addLocated {
			i2 = kernel.CuckooAlt(i1, fp, n)
		}
		b1, b2 := f.w32[i1^w32Flip], f.w32[i2^w32Flip]
		const lo, hi = 0x01010101, 0x80808080
		const low = hi - lo // the low 7 bits of every lane
		e1, e2 := ^((b1&low+low)|b1)&hi, ^((b2&low+low)|b2)&hi
		if e1|e2 == 0 {
			if pat := uint32(fp) * lo; b1 == pat && b2 == pat {
				return ErrDuplicateLimit
			}
			f.kick(i1, i2, fp)
		} else {
			m := secondEmptier(uint64(e1), uint64(e2))
			i, m32 := i1^(i1^i2)&m, uint32(m)
			b, e := b1^(b1^b2)&m32, e1^(e1^e2)&m32
			f.w32[i^w32Flip] = b | uint32(fp)<<(bits.TrailingZeros32(e)&^7)
		}
	} else {
		fp := kernel.CuckooFingerprint(h, 1<<16-1)
		if how != addLocated {
			i2 = kernel.CuckooAlt(i1, fp, n)
		}
		b1, b2 := f.t.Words[i1], f.t.Words[i2]
		const lo, hi = 0x0001000100010001, 0x8000800080008000
		const low = hi - lo // the low 15 bits of every lane
		e1, e2 := ^((b1&low+low)|b1)&hi, ^((b2&low+low)|b2)&hi
		if e1|e2 == 0 {
			if pat := fp * lo; b1 == pat && b2 == pat {
				return ErrDuplicateLimit
			}
			f.kick(i1, i2, fp)
		} else {
			m := secondEmptier(e1, e2)
			i, b, e := i1^(i1^i2)&m, b1^(b1^b2)&m, e1^(e1^e2)&m
			f.t.Words[i] = b | fp<<(bits.TrailingZeros64(e)&^15)
		}
	}
	f.count++
	runtime.KeepAlive(f) // see probe
	return nil
}

// kick relocates fingerprints from a full bucket pair until one finds a free
// slot or the kick budget runs out, and then parks the homeless one in the
// victim slot.
func (f *Filter) kick(i1, i2, fp uint64) {
	r := f.next()
	i := i1
	if r&1 != 0 {
		i = i2
	}
	r >>= 1
	left := 63
	// Both buckets are full. Before any eviction look one step ahead from
	// the other bucket too (the loop does it for i): eight fingerprints
	// may each have room in their alternate bucket.
	if f.moveOut(i1^i2^i, fp) {
		return
	}
	for k := 0; k < f.maxKicks; k++ {
		// Bucket i is full and fp wants in. First look one step ahead:
		// if a fingerprint of i has room in its own alternate bucket,
		// move it there and take its slot. The four alternates are
		// independent loads, so this costs about one memory latency and
		// ends most chains a step early.
		if f.moveOut(i, fp) {
			return
		}
		if left < 2 {
			r, left = f.next(), 64
		}
		fp = f.swap(i, r&3, fp)
		r >>= 2
		left -= 2
		i = kernel.CuckooAlt(i, fp, f.t.Buckets)
		if f.tryInsert(i, fp) {
			return
		}
	}
	f.setVictim(fp, i)
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
// or -1. It only reads; relocate (and Concurrent.relocate) make the moves.
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
// before it, so every fingerprint stays findable throughout.
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

func (f *Filter) setVictim(fp, i uint64) {
	f.t.Victim = kernel.CuckooTag(fp, min(i, kernel.CuckooAlt(i, fp, f.t.Buckets)))
}

// victim returns the parked fingerprint and the smaller of its buckets.
func (f *Filter) victim() (fp, i uint64) {
	return f.t.Victim >> 32, f.t.Victim & (1<<32 - 1)
}

// Add adds key. See AddHash for the errors and the duplicate limit.
func (f *Filter) Add(key []byte) error { return f.add(hash.Bytes(key, f.seed), 0, addHash) }

// AddString adds key. See AddHash.
func (f *Filter) AddString(key string) error {
	return f.add(hash.String(key, f.seed), 0, addHash)
}

// AddUint64 adds key, the same key as Add of its 8 little-endian bytes. See
// AddHash.
func (f *Filter) AddUint64(key uint64) error { return f.add(key, 0, addKey) }

// splitLoc returns the two buckets kernel.CuckooLocate packed into l as
// i1 | i2<<32.
func splitLoc(l uint64) (i1, i2 uint64) { return l & (1<<32 - 1), l >> 32 }

// addAhead is how many keys AddHashes locates (and prefetches) ahead of
// inserting them. Filling a 1e7-key filter from empty to half load
// (scratch loop, AMD EPYC, medians of 9 interleaved rounds) took 16.6,
// 16.3, 14.7 and 25.5 ns a key with 8, 12, 16 and 32; with 32 or more
// the prefetches queue behind each other and the inserts wait. (Plain
// loads ahead, as before the kernel, took 43-57.) That was measured with
// the locate stage one batch ahead; it is now two (see AddHashes), and the
// batch size was not measured again.
const addAhead = 16

// AddHashes adds every hash of hs in order and returns how many were added.
// It stops at the first error (ErrFull, ErrDuplicateLimit, or ErrClosed on
// a closed or zero filter) and returns it:
// hs[:n] are in the filter, hs[n:] are not. The result is exactly that of
// calling AddHash for each hash in turn; for filters larger than the caches
// it is faster, because the buckets the next keys need are on their way
// into the cache while the current ones are inserted.
//
// It works in batches of addAhead keys, as a three-stage pipeline. While
// batch k is inserted, batch k+2 is located: kernel.CuckooLocate computes
// its keys' buckets and, with an assembly kernel (amd64, arm64),
// prefetches them (a prefetch does not hold up the instructions after it
// as a load does, so a whole batch of lines is in flight at once). From 3/4
// load on, batch k+1, whose buckets have arrived by then, is scanned for
// keys whose two buckets are both full: those will relocate, so the eight
// buckets their fingerprints could move to are prefetched too
// (kernel.CuckooAlternates). Without an assembly kernel (purego, other
// architectures, SIFT_KERNEL=generic) a batch's buckets are loaded just
// before it is inserted instead.
func (f *Filter) AddHashes(hs []uint64) (int, error) {
	if f.t.Buckets == 0 {
		return 0, errClosed
	}
	prefetched := kernel.CuckooLocatePrefetches()
	scanFrom := 3 * f.Capacity() / 4
	var locs [3][addAhead]uint64
	var is, bs [2 * addAhead]uint64
	var alts [8 * addAhead]uint64
	for k := 0; k < 2 && k*addAhead < len(hs); k++ {
		b := hs[k*addAhead : min((k+1)*addAhead, len(hs))]
		kernel.CuckooLocate(&f.t, b, locs[k][:len(b)])
	}
	done := 0
	for k := 0; done < len(hs); k++ {
		if lo := done + 2*addAhead; lo < len(hs) {
			b := hs[lo:min(lo+addAhead, len(hs))]
			kernel.CuckooLocate(&f.t, b, locs[(k+2)%3][:len(b)])
		}
		if lo := done + addAhead; prefetched && f.count >= scanFrom && lo < len(hs) {
			m := 0
			for _, l := range locs[(k+1)%3][:min(addAhead, len(hs)-lo)] {
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
		cur := hs[done:min(done+addAhead, len(hs))]
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
		for j, h := range cur {
			if err := f.add(h, batch[j], addLocated); err != nil {
				return done + j, err
			}
		}
		done += len(cur)
	}
	runtime.KeepAlive(f) // see probe
	return done, nil
}

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
		if vfp, vi := f.victim(); f.relocate(vfp, vi) {
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

// Reset empties the filter, keeping its size and options; the kick PRNG
// restarts from the seed, so a reset filter fed the same keys ends up
// bit-identical. It panics on a closed or zero filter (see Close).
func (f *Filter) Reset() {
	f.mustOpen()
	clear(f.t.Words)
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
// MarshalBinary and WriteTo return an error wrapping sift.ErrClosed;
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
