package bench

import (
	"errors"
	"fmt"
	"sort"
)

// Input is what a library's API takes as a key.
type Input int

const (
	// InputBytes: the library hashes the key bytes itself.
	InputBytes Input = iota
	// InputHash: the library takes a 64-bit hash (or 64-bit key) that the
	// caller computes; the benchmark feeds it the precomputed XXH3 of the
	// key, and BenchmarkHash reports what computing that costs.
	InputHash
)

// String returns "bytes" or "hash".
func (in Input) String() string {
	if in == InputHash {
		return "hash"
	}
	return "bytes"
}

// Kind groups filters that answer the same question.
type Kind string

// The kinds of filter compared.
const (
	KindBloom  Kind = "bloom"  // Bloom filters: insert-only, FPR tunable
	KindCuckoo Kind = "cuckoo" // cuckoo filters: deletable, FPR set by the fingerprint
	KindStatic Kind = "static" // built once from the whole key set
)

// ErrUnsupported is returned by Spec.New when a library cannot be sized for
// the requested false-positive rate (a cuckoo or xor filter whose
// fingerprint width fixes its rate belongs to one rate group only).
var ErrUnsupported = errors.New("bench: configuration not supported by this filter")

// Filter is one library's filter behind a benchmark adapter. Every loop
// over keys runs inside the adapter on the library's concrete type, so the
// measured cost is the library's, not an interface call per key.
type Filter interface {
	// Insert adds every key of k (for a static filter: builds it from k).
	Insert(k *Keys) error
	// CountContains looks up keys lo..hi-1 of k one at a time with the
	// library's single-key call and returns how many it reports present.
	CountContains(k *Keys, lo, hi int) int
	// SizeBytes is the memory the filter's table occupies.
	SizeBytes() int
	// Prefault writes every page of the empty filter's table, with the
	// library's own clear or reset where it has one, so that the page
	// faults of fresh memory (the kernel zeroing and mapping each page)
	// are paid here and not in a timed insert. BenchmarkInsert calls it
	// untimed, between New and the timed Insert. It is a no-op where the
	// constructor already touched every page (sift's filters, whose
	// constructors prefault their memory) and where there is no table
	// before the keys come (a static filter, which allocates its table
	// in the build).
	Prefault()
}

// Batcher is implemented by filters with a batch lookup over 64-bit hashes.
type Batcher interface {
	// CountContainsBatch looks up every hash of hs with the library's batch
	// call, using out as its result buffer (len(out) >= len(hs)), and
	// returns how many it reports present.
	CountContainsBatch(hs []uint64, out []bool) int
}

// BatchInserter is implemented by filters with a batch insert over 64-bit
// hashes.
type BatchInserter interface {
	// InsertBatch adds every key of k with the library's batch call.
	InsertBatch(k *Keys) error
}

// Spec describes one benchmarked library configuration.
type Spec struct {
	Name    string // benchmark key: filter=Name
	Library string // module path and package, for the report
	Input   Input
	Kind    Kind
	Sift    bool // one of sift's own filters
	// Note says anything a reader needs to compare fairly (fixed FPR,
	// power-of-two rounding, ...).
	Note string
	// New returns an empty filter sized by the library's own API for n keys
	// at false-positive rate fpp, or ErrUnsupported.
	New func(n int, fpp float64) (Filter, error)
}

var registry = map[string]Spec{}

// register adds a spec; adapters call it from init.
func register(s Spec) {
	if _, dup := registry[s.Name]; dup {
		panic(fmt.Sprintf("bench: filter %q registered twice", s.Name))
	}
	registry[s.Name] = s
}

// Specs returns every registered filter: sift's first, then by name.
func Specs() []Spec {
	out := make([]Spec, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Sift != out[j].Sift {
			return out[i].Sift
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Lookup returns the spec registered under name.
func Lookup(name string) (Spec, bool) {
	s, ok := registry[name]
	return s, ok
}

// MeasureFPR returns the fraction of absent keys f reports present.
func MeasureFPR(f Filter, absent *Keys) float64 {
	if absent.Len() == 0 {
		return 0
	}
	return float64(f.CountContains(absent, 0, absent.Len())) / float64(absent.Len())
}

// BitsPerKey is the filter's size in bits divided by the n keys it holds.
func BitsPerKey(f Filter, n int) float64 {
	return float64(f.SizeBytes()) * 8 / float64(n)
}

// closeFilter releases a filter's memory now if its library maps memory
// outside the Go heap (sift's big filters); nil is fine.
func closeFilter(f Filter) {
	if c, ok := f.(interface{ Close() error }); ok {
		_ = c.Close()
	}
}
