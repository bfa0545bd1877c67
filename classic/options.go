package classic

import (
	"github.com/sift-go/sift/internal/mem"
)

// Option configures New and NewCounting.
type Option func(*options)

// CountingOption is Option, under the name NewCounting's options had
// before New took options too.
type CountingOption = Option

type options struct {
	seed     uint64
	maxBytes uint64
}

func collect(opts []Option) options {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// WithSeed sets the hash seed of a Counting filter (default 0). Filters
// built with different seeds hash keys differently and cannot be combined.
// For keys an attacker chooses, use hash.RandomSeed(). New rejects a
// nonzero seed: a Filter hashes exactly as Guava does, with seed 0.
func WithSeed(seed uint64) Option {
	return func(o *options) { o.seed = seed }
}

// WithMaxSize bounds the memory New and NewCounting may allocate for the
// bits or counters to maxBytes bytes: they return an error wrapping
// sift.ErrTooLarge, allocating nothing, for a filter that needs more. 0,
// the default, means no bound but the type's own (MaxWords words for a
// Filter, Guava's limit: 16 GiB; 2^46 words for a Counting) and what the
// machine can provide (see New).
func WithMaxSize(maxBytes uint64) Option {
	return func(o *options) { o.maxBytes = maxBytes }
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
