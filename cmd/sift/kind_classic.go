package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/classic"
	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/mem"
)

// The classic (Guava-compatible) Bloom filter: build makes it (in sift's
// format, or Guava's with -guava), sift bench measures it as the
// reference, and query and info read it and the counting Bloom filter,
// which build does not make, in sift's format (into memory: neither has a
// mapped form).
func init() {
	registerKind(&kindInfo{name: "classic", fileKind: sift.KindClassic, newBuilder: newClassicBuilder, memory: classicMemory, open: openClassic, merge: mergeClassic, bench: benchClassic})
	registerKind(&kindInfo{name: "counting", fileKind: sift.KindCounting, open: openCounting, merge: mergeCounting})
}

// classicMemory is about what classic.New will allocate for spec: Guava's
// optimalNumOfBits, -n ln(fpp) / ln(2)^2 bits, in whole 64-bit words.
func classicMemory(spec buildSpec) float64 {
	bits := -float64(max(spec.n, 1)) * math.Log(spec.fpp) / (math.Ln2 * math.Ln2)
	return math.Ceil(bits/64) * 8
}

// classicBuilder builds a classic filter, in sift's format or, with
// -guava, Guava's stream format. It takes keys (keyAdder): the filter hashes
// them itself.
type classicBuilder struct {
	f     *classic.Filter
	keys  int64
	guava bool
	n     int64   // -n, for the shards of a parallel build
	fpp   float64 // -fpp, likewise
}

func newClassicBuilder(spec buildSpec) (builder, error) {
	if spec.seed != 0 {
		return nil, fmt.Errorf("-seed does not apply to -kind classic: it hashes as Guava does (murmur3, seed 0)")
	}
	f, err := classic.New(spec.n, spec.fpp)
	if err != nil {
		return nil, err
	}
	return &classicBuilder{f: f, guava: spec.guava, n: spec.n, fpp: spec.fpp}, nil
}

func (b *classicBuilder) addKey(key []byte) error {
	b.f.Put(key)
	b.keys++
	return nil
}

// hash and add are not used: build calls addKey.
func (b *classicBuilder) hash(key []byte) uint64 { return 0 }
func (b *classicBuilder) add(hs []uint64) error {
	if len(hs) > 0 {
		return fmt.Errorf("classic filter: add by hash is not supported")
	}
	return nil
}

func (b *classicBuilder) added() int64 { return b.keys }

// workers returns n per-goroutine shards (the same size and hash count),
// merged into f by finish with PutAll (fewer when n would not fit in half
// the machine's memory, see shardCount). Guava's murmur3 hashing is most of a
// classic build's cost, and each shard hashes its own keys.
func (b *classicBuilder) workers(n int) ([]builder, func() error, error) {
	n = shardCount(n, uint64(b.f.BitSize()/8))
	return shardWorkers(b, n,
		func() (*classicBuilder, error) {
			// New, not Clone: the same geometry (Guava's sizing of the
			// same -n and -fpp), and an error, not a panic, when memory
			// is short.
			f, err := classic.New(b.n, b.fpp)
			return &classicBuilder{f: f}, err
		},
		func(into, from *classicBuilder) error { return into.f.PutAll(from.f) },
		func(into, from *classicBuilder) { into.keys += from.keys },
		func(s *classicBuilder) { s.f.Close() })
}

func (b *classicBuilder) writeTo(w io.Writer) (int64, error) {
	if b.guava {
		return b.f.WriteGuava(w)
	}
	return b.f.WriteTo(w)
}

func (b *classicBuilder) stats() filterStats { return classicStats(b.f) }

// classicReader adapts classic.Filter, which hashes keys itself (murmur3,
// as Guava) and has no lookup by a precomputed hash: its "hash" of a key is
// the answer, 1 when the filter may contain the key, and containsHashes
// just reports those answers.
type classicReader struct{ f *classic.Filter }

func openClassic(path string) (queryFilter, error) {
	var f *classic.Filter
	err := readFilterFile(path, func(r io.Reader) (err error) {
		f, err = classic.ReadFilter(r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return classicReader{f}, nil
}

// openGuava reads a filter in Guava's stream format (BloomFilter.writeTo),
// which has no magic number or checksum: only its structure is checked.
func openGuava(path string) (*classic.Filter, error) {
	var f *classic.Filter
	opened := false
	err := readFilterFile(path, func(r io.Reader) (err error) {
		opened = true
		f, err = classic.ReadGuava(r)
		return err
	})
	switch {
	case err != nil && !opened:
		return nil, err // names path already ("PATH: not a regular file")
	case errors.Is(err, mem.ErrChanged):
		return nil, filterErr(path, err)
	case err != nil:
		if info, ierr := sift.InspectFile(path); ierr == nil {
			return nil, fmt.Errorf("%s: a sift file (a %v filter), not Guava's stream format: leave out -guava", path, info.Kind)
		}
		return nil, filterErr(path, fmt.Errorf("reading Guava's format: %w", err))
	}
	return f, nil
}

func (r classicReader) hash(key []byte) uint64 {
	if r.f.MightContain(key) {
		return 1
	}
	return 0
}

func (r classicReader) containsHashes(hs []uint64, out []bool) int {
	n := 0
	for i, h := range hs {
		out[i] = h != 0
		if out[i] {
			n++
		}
	}
	return n
}

func (r classicReader) stats() filterStats { return classicStats(r.f) }

func classicStats(f *classic.Filter) filterStats {
	return filterStats{
		kind:         "classic",
		geometry:     fmt.Sprintf("%d bits, k=%d, strategy %v (Guava-compatible)", f.BitSize(), f.NumHashFunctions(), f.Strategy()),
		payloadBytes: f.BitSize() / 8,
		count:        f.ApproximateElementCount(),
		saturated:    f.BitCount() == f.BitSize(),
		fill:         float64(f.BitCount()) / float64(f.BitSize()),
		fillWhat:     "of bits set",
		fpp:          f.ExpectedFpp(),
	}
}

func (r classicReader) close() error { return nil }

type countingReader struct{ c *classic.Counting }

func openCounting(path string) (queryFilter, error) {
	var c *classic.Counting
	err := readFilterFile(path, func(r io.Reader) (err error) {
		c, err = classic.ReadCounting(r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return countingReader{c}, nil
}

func (r countingReader) hash(key []byte) uint64 { return hash.Bytes(key, r.c.Seed()) }

func (r countingReader) containsHashes(hs []uint64, out []bool) int {
	n := 0
	for i, h := range hs {
		out[i] = r.c.ContainsHash(h)
		if out[i] {
			n++
		}
	}
	return n
}

func (r countingReader) stats() filterStats {
	c := r.c
	count, saturated := estimated(c.EstimatedCount())
	return filterStats{
		kind:         "counting",
		geometry:     fmt.Sprintf("%d 4-bit counters, k=%d, %d saturated", c.Counters(), c.NumHashFunctions(), c.Saturated()),
		payloadBytes: int64(c.SizeBytes()),
		count:        count,
		saturated:    saturated,
		fill:         math.Pow(c.ExpectedFpp(), 1/float64(c.NumHashFunctions())),
		fillWhat:     "of counters non-zero",
		fpp:          c.ExpectedFpp(),
	}
}

func (r countingReader) close() error { return nil }

func benchClassic(r *benchRun) (benchResult, error) {
	res := benchResult{hashIncluded: true}
	newFilter := func() (*classic.Filter, error) {
		return classic.New(int64(r.n), r.fpp)
	}
	f, err := newFilter()
	if err != nil {
		return res, err
	}
	var addErr error
	res.add = r.best("add", r.n, func() time.Duration {
		g, err := newFilter()
		if err != nil {
			addErr = err
			return 0
		}
		start := r.now()
		for _, k := range r.keys {
			g.PutInt64(int64(k))
		}
		d := r.now() - start
		f = g
		return d
	})
	if addErr != nil {
		return res, addErr
	}
	res.shape = "k=" + itoa(f.NumHashFunctions())
	res.sizeBytes = f.BitSize() / 8
	res.fppPredicted = f.ExpectedFpp()

	var hits int
	res.hit = r.best("lookup hit", r.n, func() time.Duration {
		hits = 0
		start := r.now()
		for _, k := range r.keys {
			if f.MightContainInt64(int64(k)) {
				hits++
			}
		}
		return r.now() - start
	})
	res.falseNegatives = int64(r.n - hits)
	res.miss = r.best("lookup miss", len(r.misses), func() time.Duration {
		start := r.now()
		for _, k := range r.misses {
			if f.MightContainInt64(int64(k)) {
				hits++
			}
		}
		return r.now() - start
	})
	res.falsePositives, res.probes = r.measureFPR(res.fppPredicted, func(k uint64) uint64 { return k }, func(ks []uint64, out []bool) int {
		c := 0
		for _, k := range ks {
			if f.MightContainInt64(int64(k)) {
				c++
			}
		}
		return c
	})
	return res, nil
}
