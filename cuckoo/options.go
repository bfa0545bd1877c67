package cuckoo

// Option configures a constructor (New, NewConcurrent) or a loader (Open,
// FromBytes, ReadFilter). Each option says which calls use it; the others
// ignore it. Invalid values are reported by the call, as an error wrapping
// ErrInvalidArgument.
type Option func(*options)

type options struct {
	fpBits       int
	seed         uint64
	maxKicks     int
	maxBytes     uint64
	skipChecksum bool
	countCheck   bool
}

func collect(opts []Option) options {
	o := options{fpBits: DefaultFingerprintBits, maxKicks: DefaultMaxKicks}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// WithFingerprintBits sets the fingerprint width: 16 (the default; false
// positive rate about 1.2e-4 at full load, 16.8 bits per key) or 8 (about
// 3%, 8.4 bits per key). Used by New and NewConcurrent, which reject other
// widths.
func WithFingerprintBits(bits int) Option {
	return func(o *options) { o.fpBits = bits }
}

// WithSeed sets the hash seed (default 0). Filters only agree on keys, and
// can only be combined (Union), when their seeds agree; use
// hash.RandomSeed for keys an attacker can choose. The seed is stored in
// the serialized filter. Used by New and NewConcurrent.
func WithSeed(seed uint64) Option {
	return func(o *options) { o.seed = seed }
}

// WithMaxKicks bounds the relocations one Add may make before it parks the
// homeless fingerprint in the victim slot, or below 90% load undoes them
// and returns ErrNoSlot (default DefaultMaxKicks, at most MaxMaxKicks; 0
// means never relocate). More kicks reach a slightly higher load at a
// higher worst-case insert cost; with few kicks, more keys are refused
// with ErrNoSlot below 90% load. Used by New and NewConcurrent.
func WithMaxKicks(n int) Option {
	return func(o *options) { o.maxKicks = n }
}

// WithMaxSize bounds a filter's bucket array to maxBytes bytes. New and
// NewConcurrent return an error wrapping sift.ErrTooLarge, allocating
// nothing, for a capacity that needs more; Open, Load, FromBytes and
// ReadFilter refuse an encoding whose payload declares more, before reading it; and a
// filter made with the option keeps the bound for its own UnmarshalBinary
// and ReadFrom. 0 (the default) means no bound but the design's
// (MaxBuckets buckets: 32 GiB with 16-bit fingerprints), the input's actual
// length, and what the machine can provide (see New and ReadFrom).
func WithMaxSize(maxBytes uint64) Option {
	return func(o *options) { o.maxBytes = maxBytes }
}

// WithoutChecksum makes Open, FromBytes and ReadFilter skip the pass over
// the payload that verifies its CRC-32C, for callers who trust their
// storage: Open then costs nothing but the mapping. The header's own
// checksum and every header field are still checked, so hostile headers
// are still rejected; a damaged payload gives wrong answers instead of an
// error. (Views never scan the payload to check the stored count against
// the occupied slots, as UnmarshalBinary and ReadFrom do: a wrong count only
// skews the View's Count, LoadFactor and FPP, and the scan would be a second
// pass; View.Clone counts the slots of the writable copy it makes.)
func WithoutChecksum() Option {
	return func(o *options) { o.skipChecksum = true }
}

// WithCountCheck makes Open, Load and FromBytes check the stored count
// against the slots in use, as UnmarshalBinary and ReadFrom do (one more
// pass over the table), and refuse a file where they differ with
// ErrCorrupt: for tools that vouch for a file (sift info and query use
// it), where a View without it takes the count as stored.
func WithCountCheck() Option {
	return func(o *options) { o.countCheck = true }
}
