package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/cuckoo"
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
	// The kind that reaches -fpp: blocked down to its MinFPP, classic
	// below it.
	other := "blocked"
	if spec.fpp < blocked.MinFPP {
		other = "classic"
	}
	return 0, fmt.Errorf("a cuckoo filter's best false-positive rate is about %.2g (16-bit fingerprints at full load), above -fpp %g: use -kind %s",
		cuckooFPP(16, cuckoo.TargetLoad), spec.fpp, other)
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
func capacityFor(n uint64) uint64 { return 19 * n / 5 } // n <= MaxBuckets: checkGeometry

type cuckooBuilder struct {
	f      *cuckoo.Filter
	keys   int64  // keys given, duplicates included
	isNew  []bool // AddNewHashes answers, reused
	copies bool   // -copies: AddHashes, every key stored
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
	return &cuckooBuilder{f: f, copies: spec.copies}, nil
}

func (b *cuckooBuilder) hash(key []byte) uint64 { return b.f.Hash(key) }

// add inserts each key the filter does not already report present. Skipping
// those makes duplicate input lines harmless (a cuckoo filter stores every
// copy, and a key added nine times fills its buckets); a key skipped as a
// false positive stays reported present, since nothing is ever removed.
// It is one AddNewHashes call, whose table is exactly that of a loop of
// ContainsHash and AddHash (cuckoo's doc): the file is what the per-key
// loop it replaced wrote, in half the time (`sift build -kind cuckoo -n
// 5e6 -j 1` of the lines of `seq 1 5000000`, two runs each on the 2-core
// AMD EPYC family 25 model 17 VM: 10.5M and 10.3M keys a second before,
// 22.0M and 21.1M after).
//
// cuckooBuilder is no parallelBuilder: build's own goroutine reads, hashes
// and adds, whatever -j says. Cuckoo builds used to share one
// cuckoo.Concurrent between -j workers (shards would not do: merging
// cuckoo shards reinserts every fingerprint, about the cost of the adds),
// which was slower than one goroutine at every -j measured: `sift build
// -kind cuckoo -n 5e7 -j J` of `seq 1 50000000`, one run each, on an Intel
// Xeon family 6 model 207 with 16 vCPUs, 5.92M keys a second at -j 1
// against 3.56M, 3.58M, 3.44M and 3.14M at -j 2, 4, 8 and 16 (the adds
// fill the table to 95%, where most relocate under the Concurrent's
// exclusive lock, and every add takes its reader count). On the Zen 4 VM
// above the default -j (2 there) gave 4.9M and 5.2M keys a second with
// per-key adds to the Concurrent; with the batch add, 15.2M and 17.5M
// from one worker goroutine behind the reader, 22.0M and 21.1M from
// build's own.
func (b *cuckooBuilder) add(hs []uint64) error {
	var n int
	var err error
	if b.copies {
		n, err = b.f.AddHashes(hs)
	} else {
		if cap(b.isNew) < len(hs) {
			b.isNew = make([]bool, len(hs))
		}
		n, err = b.f.AddNewHashes(hs, b.isNew[:len(hs)])
	}
	b.keys += int64(n)
	load := 100 * b.f.LoadFactor()
	switch {
	case errors.Is(err, cuckoo.ErrNoSlot) && b.copies:
		return fmt.Errorf("-copies: a key found no free slot at %.0f%% load: copies of keys on many lines most likely fill the buckets around it; build without -copies, or with a larger -n", load)
	case errors.Is(err, cuckoo.ErrNoSlot):
		// Distinct keys first fail at 96-99% load, so below 90% this
		// takes a pair of buckets crowded by chance with fingerprints
		// that cannot move: the build stops rather than drop the key
		// (query would then miss it).
		return fmt.Errorf("a key found no free slot at %.0f%% load (its relocations ran out of kicks around buckets crowded with fingerprints that cannot move): build with a larger -n, or use -kind blocked", load)
	case errors.Is(err, cuckoo.ErrFull):
		return fmt.Errorf("%w: %w", errFull, err)
	case errors.Is(err, cuckoo.ErrDuplicateLimit): // only AddHashes (-copies) meets it
		return fmt.Errorf("-copies: a key is on more lines than its two buckets hold copies (8, or 4 when they are one bucket): %w", err)
	}
	return err
}

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

// openCuckoo reads the file into memory of its own (a file changed
// meanwhile cannot fault it) and checks the stored count against the slots
// in use (WithCountCheck): a View takes the count as stored, and info
// printed "keys: 0, checksum: ok" for a file whose count was 0 and whose
// slots held 20,000 fingerprints, which merge and every writable decoder
// refuse. (ReadFilter checks it too, but holds about three times the
// file's size at its peak: 671 MB for a 210 MB file, against 210 MB.)
func openCuckoo(path string) (queryFilter, error) {
	f, err := cuckoo.Load(path, cuckoo.WithCountCheck())
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
		// bench measures the best the cuckoo filter can do, and says so.
		bits = 16
		res.note = fmt.Sprintf("no fingerprint width meets -fpp %g (16 bits give about %.2g at full load); measured with 16-bit fingerprints", r.fpp, cuckooFPP(16, cuckoo.TargetLoad))
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
