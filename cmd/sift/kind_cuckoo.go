package main

import (
	"errors"
	"fmt"
	"github.com/sift-go/sift"
	"io"
	"math"
	"time"

	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/hash"
)

func init() {
	registerKind(&kindInfo{
		name:       "cuckoo",
		fileKind:   sift.KindCuckoo,
		newBuilder: newCuckooBuilder,
		memory:     cuckooMemory,
		open:       openCuckoo,
		merge:      mergeCuckoo,
		bench:      benchCuckoo,
	})
}

// cuckooFPP is a cuckoo filter's false-positive rate with f-bit
// fingerprints at the given load factor (cuckoo.Filter.FPP's formula).
func cuckooFPP(f int, load float64) float64 {
	return 1 - math.Pow(1-1/(math.Exp2(float64(f))-1), 2*cuckoo.SlotsPerBucket*load)
}

// cuckooBits chooses the fingerprint width for a build: the one asked for,
// or the smallest whose FPR at full load meets fpp.
func cuckooBits(spec buildSpec) (int, error) {
	if spec.fingerprintBits != 0 {
		if spec.fppSet && cuckooFPP(spec.fingerprintBits, cuckoo.TargetLoad) > spec.fpp {
			return 0, fmt.Errorf("-bits %d gives a false-positive rate of about %.2g at full load, above -fpp %g: use -bits 16 or omit -bits",
				spec.fingerprintBits, cuckooFPP(spec.fingerprintBits, cuckoo.TargetLoad), spec.fpp)
		}
		return spec.fingerprintBits, nil
	}
	for _, f := range []int{8, 16} {
		if cuckooFPP(f, cuckoo.TargetLoad) <= spec.fpp {
			return f, nil
		}
	}
	return 0, fmt.Errorf("a cuckoo filter's best false-positive rate is about %.2g (16-bit fingerprints at full load), above -fpp %g: use -kind blocked",
		cuckooFPP(16, cuckoo.TargetLoad), spec.fpp)
}

// cuckooMemory is what cuckoo.New will allocate for spec: its buckets, 4
// fingerprints each, of the width cuckooBits chooses (0 if none fits).
func cuckooMemory(spec buildSpec) float64 {
	bits, err := cuckooBits(spec)
	if err != nil {
		return 0
	}
	buckets := cuckoo.BucketsFor(uint64(max(spec.n, 1)))
	if spec.buckets != 0 {
		buckets = spec.buckets
	}
	return float64(buckets) * cuckoo.SlotsPerBucket * float64(bits) / 8
}

// capacityFor returns a capacity for which cuckoo.New makes exactly n
// buckets: BucketsFor(c) is ceil(c*5/19), and c = floor(19n/5) gives n.
func capacityFor(n uint64) uint64 {
	if n > cuckoo.MaxBuckets {
		return n * 4 // New refuses it with its own message
	}
	return 19 * n / 5
}

type cuckooBuilder struct {
	f          *cuckoo.Filter
	keys       int64 // keys given, duplicates included
	duplicates int64 // keys the filter already reported present
}

func newCuckooBuilder(spec buildSpec) (builder, error) {
	bits, err := cuckooBits(spec)
	if err != nil {
		return nil, err
	}
	capacity := uint64(max(spec.n, 1))
	if spec.buckets != 0 {
		capacity = capacityFor(spec.buckets)
	}
	f, err := cuckoo.New(capacity, cuckoo.WithSeed(spec.seed), cuckoo.WithFingerprintBits(bits))
	if err != nil {
		return nil, err
	}
	if spec.buckets != 0 && f.Buckets() != spec.buckets {
		f.Close()
		return nil, fmt.Errorf("-buckets %d: no capacity gives that many buckets (a bug)", spec.buckets)
	}
	return &cuckooBuilder{f: f}, nil
}

func (b *cuckooBuilder) hash(key []byte) uint64 { return b.f.Hash(key) }

// add inserts each key the filter does not already report present. Skipping
// those makes duplicate input lines harmless (a cuckoo filter stores every
// copy, and a key added nine times fills its buckets); a key skipped as a
// false positive stays reported present, since nothing is ever removed.
func (b *cuckooBuilder) add(hs []uint64) error {
	return addNew(hs, b.f.ContainsHash, b.f.AddHash, &b.keys, &b.duplicates)
}

// addNew adds each hash that contains does not report present with add,
// counting the keys and those skipped as duplicates; errFull wraps a full
// filter's error.
func addNew(hs []uint64, contains func(uint64) bool, add func(uint64) error, keys, duplicates *int64) error {
	for _, h := range hs {
		if contains(h) {
			*keys++
			*duplicates++
			continue
		}
		if err := add(h); err != nil {
			if errors.Is(err, cuckoo.ErrFull) {
				return fmt.Errorf("%w: %w", errFull, err)
			}
			return err
		}
		*keys++
	}
	return nil
}

// workers returns n handles on one cuckoo.Concurrent holding f's
// geometry; finish snapshots it back into f. A shared filter rather than
// shards: merging cuckoo shards reinserts every fingerprint (Union), which
// costs about as much as the adds themselves.
//
// The Concurrent is a copy of f, and finish copies it back: a filter
// whose two copies would take more than half the machine's memory (see
// shardCount) is built by one goroutine instead, in f itself.
func (b *cuckooBuilder) workers(n int) ([]builder, func() error, error) {
	if shardCount(2, b.f.SizeBytes()) < 2 {
		return alone(b)
	}
	c := cuckoo.NewConcurrentFrom(b.f)
	ws := make([]builder, n)
	adders := make([]*cuckooConcurrentAdder, n)
	for i := range ws {
		adders[i] = &cuckooConcurrentAdder{c: c, seed: b.f.Seed()}
		ws[i] = adders[i]
	}
	finish := func() error {
		for _, a := range adders {
			b.keys += a.keys
			b.duplicates += a.duplicates
		}
		b.f.Close()
		b.f = c.Snapshot()
		return c.Close()
	}
	return ws, finish, nil
}

// cuckooConcurrentAdder is one worker's handle on the shared Concurrent:
// add is cuckooBuilder.add on it.
type cuckooConcurrentAdder struct {
	c          *cuckoo.Concurrent
	seed       uint64
	keys       int64
	duplicates int64
}

func (a *cuckooConcurrentAdder) hash(key []byte) uint64 { return hash.Bytes(key, a.seed) }

func (a *cuckooConcurrentAdder) add(hs []uint64) error {
	return addNew(hs, a.c.ContainsHash, a.c.AddHash, &a.keys, &a.duplicates)
}

func (a *cuckooConcurrentAdder) added() int64                       { return a.keys }
func (a *cuckooConcurrentAdder) writeTo(w io.Writer) (int64, error) { return a.c.WriteTo(w) }
func (a *cuckooConcurrentAdder) stats() filterStats                 { return filterStats{} }

func (b *cuckooBuilder) added() int64                       { return b.keys }
func (b *cuckooBuilder) writeTo(w io.Writer) (int64, error) { return b.f.WriteTo(w) }
func (b *cuckooBuilder) stats() filterStats                 { return cuckooStats(b.f) }

// cuckooGeometry is what cuckoo.Filter and cuckoo.View both report.
type cuckooGeometry interface {
	VictimInUse() bool
	Buckets() uint64
	FingerprintBits() int
	SizeBytes() uint64
	Count() uint64
	LoadFactor() float64
	FPP() float64
}

func cuckooStats(f cuckooGeometry) filterStats {
	victim := ""
	if f.VictimInUse() {
		victim = ", victim slot in use (full)"
	}
	return filterStats{
		kind:         "cuckoo",
		geometry:     fmt.Sprintf("%d bucket%s x %d slots, %d-bit fingerprints%s", f.Buckets(), plural(int(min(f.Buckets(), 2))), cuckoo.SlotsPerBucket, f.FingerprintBits(), victim),
		payloadBytes: int64(f.SizeBytes()),
		count:        int64(f.Count()),
		countExact:   true,
		fill:         f.LoadFactor(),
		fillWhat:     "of slots used",
		fpp:          f.FPP(),
	}
}

type cuckooReader struct{ f *cuckoo.View }

func openCuckoo(path string) (queryFilter, error) {
	f, err := cuckoo.Load(path) // a copy: a file changed meanwhile cannot fault it
	if err != nil {
		return nil, err
	}
	return cuckooReader{f}, nil
}

func (r cuckooReader) hash(key []byte) uint64 { return r.f.Hash(key) }
func (r cuckooReader) containsHashes(hs []uint64, out []bool) int {
	return r.f.ContainsHashes(hs, out)
}
func (r cuckooReader) stats() filterStats { return cuckooStats(r.f) }
func (r cuckooReader) close() error       { return r.f.Close() }

func benchCuckoo(r *benchRun) (benchResult, error) {
	var res benchResult
	bits, err := cuckooBits(buildSpec{n: int64(r.n), fpp: r.fpp})
	if err != nil {
		bits = 16 // bench measures the best the cuckoo filter can do
	}
	newFilter := func() (*cuckoo.Filter, error) {
		return cuckoo.New(uint64(r.n), cuckoo.WithSeed(r.seed), cuckoo.WithFingerprintBits(bits))
	}
	f, err := newFilter()
	if err != nil {
		return res, err
	}
	hits := hashes(r.keys, f.HashUint64)
	misses := hashes(r.misses, f.HashUint64)
	var buildErr error
	res.add = r.best("add", r.n, func() time.Duration {
		g, err := newFilter()
		if err != nil {
			buildErr = err
			return 0
		}
		start := r.now()
		for _, h := range hits {
			if err := g.AddHash(h); err != nil && buildErr == nil {
				buildErr = err
			}
		}
		d := r.now() - start
		f.Close()
		f = g
		return d
	})
	res.addBatch = r.best("add batch", r.n, func() time.Duration {
		g, err := newFilter()
		if err != nil {
			buildErr = err
			return 0
		}
		start := r.now()
		batches(hits, func(hs []uint64) {
			if _, err := g.AddHashes(hs); err != nil && buildErr == nil {
				buildErr = err
			}
		})
		d := r.now() - start
		g.Close()
		return d
	})
	if buildErr != nil {
		return res, fmt.Errorf("adding %d keys: %w", r.n, buildErr)
	}
	defer f.Close()
	res.shape = fmt.Sprintf("f=%d", f.FingerprintBits())
	res.sizeBytes = int64(f.SizeBytes())
	res.fppPredicted = f.FPP()

	var found int
	res.hit = r.best("lookup hit", len(hits), func() time.Duration {
		found = 0
		start := r.now()
		for _, h := range hits {
			if f.ContainsHash(h) {
				found++
			}
		}
		return r.now() - start
	})
	res.falseNegatives = int64(len(hits) - found)
	res.miss = r.best("lookup miss", len(misses), func() time.Duration {
		start := r.now()
		for _, h := range misses {
			if f.ContainsHash(h) {
				found++
			}
		}
		return r.now() - start
	})
	r.timeBatchLookups(&res, hits, misses, f.ContainsHashes)
	res.falsePositives, res.probes = r.measureFPR(res.fppPredicted, f.HashUint64, f.ContainsHashes)
	return res, nil
}
