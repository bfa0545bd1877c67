package classic

import (
	"github.com/sift-go/sift/internal/mem"
)

// Option configures a constructor (New, NewCounting) or a loader
// (ReadFilter, ReadCounting, ReadGuava). Each option says which calls use
// it; the others ignore it, except New, which refuses a seed.
type Option func(*options)

type options struct {
	seed         uint64
	maxBytes     uint64
	strategy     Strategy
	skipChecksum bool
}

func collect(opts []Option) options {
	o := options{strategy: DefaultStrategy}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// WithStrategy sets how New's filter turns a key's hash into bit positions
// (default DefaultStrategy, Guava's MURMUR128_MITZ_64, which
// BloomFilter.create uses). Murmur128Mitz32 is only for reading and
// matching filters made by Guava before version 12. New rejects an unknown
// strategy. Used by New.
func WithStrategy(s Strategy) Option {
	return func(o *options) { o.strategy = s }
}

// WithSeed sets the hash seed of a Counting filter (default 0). Filters
// built with different seeds hash keys differently and cannot be combined.
// For keys an attacker chooses, use hash.RandomSeed(). The seed is stored in
// the serialized filter. Used by NewCounting. New rejects a nonzero seed
// (ErrInvalidArgument): a Filter hashes exactly as Guava does, with seed 0,
// and ignoring the option would leave a caller believing the filter seeded.
func WithSeed(seed uint64) Option {
	return func(o *options) { o.seed = seed }
}

// WithMaxSize bounds the memory of a filter's bits or counters to maxBytes
// bytes. New and NewCounting return an error wrapping sift.ErrTooLarge,
// allocating nothing, for a filter that needs more; ReadFilter,
// ReadCounting and ReadGuava refuse an encoding that declares more, before
// reading it; and a filter made with the option keeps the bound for its own
// UnmarshalBinary and ReadFrom. 0, the default, means no bound but the
// type's own (MaxWords words for a Filter, Guava's limit: 16 GiB; 2^46
// words for a Counting), the machine's memory for stream decoders (see
// Filter.ReadFrom), and what the machine can provide (see New).
func WithMaxSize(maxBytes uint64) Option {
	return func(o *options) { o.maxBytes = maxBytes }
}

// WithoutChecksum makes ReadFilter and ReadCounting skip the verification
// of the payload's CRC-32C, for callers who trust their storage. The
// header's own checksum and every size check still run. (Guava's stream
// format has no checksum: ReadGuava ignores the option.)
func WithoutChecksum() Option {
	return func(o *options) { o.skipChecksum = true }
}

// allocWords returns n zeroed words from mem.Alloc (mapped memory from 4
// MiB up, freed by its Region's finalizer once the filter holding the
// Region is unreachable), or why they cannot be had: an error wrapping
// sift.ErrTooLarge, with this package's prefix.
func allocWords(n int64, maxBytes uint64, what string) ([]uint64, *mem.Region, error) {
	if maxBytes != 0 && uint64(n) > maxBytes/8 {
		return nil, nil, sizeErr(nil, "%s need %d bytes, more than the maximum size of %d (WithMaxSize)", what, 8*uint64(n), maxBytes)
	}
	w, r, err := mem.Alloc(int(n))
	if err != nil {
		return nil, nil, sizeErr(err, "%s: %v", what, err)
	}
	return w, r, nil
}
