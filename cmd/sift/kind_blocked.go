package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/hash"
)

func init() {
	registerKind(&kindInfo{
		name:       "blocked",
		fileKind:   sift.KindBlocked,
		newBuilder: newBlockedBuilder,
		memory:     blockedMemory,
		open:       openBlocked,
		merge:      mergeBlocked,
		bench:      benchBlocked,
	})
}

type blockedBuilder struct {
	f    *blocked.Filter
	c    *blocked.Concurrent // instead of f after a parallel build with blockedShared
	keys int64
}

// blockedShared makes parallel builds of blocked filters add to one
// blocked.Concurrent (atomic OR) instead of per-worker shards merged at the
// end. Shards measured faster (DESIGN.md §11), so it is the fallback for
// filters too large to have one per worker.
var blockedShared = os.Getenv("SIFT_BUILD_SHARED") == "1"

// workers returns n builders for a parallel build: per-goroutine shards of
// f's geometry merged into f by finish, or, when n copies of the filter
// would not fit in memory (or blockedShared), one shared Concurrent. When
// even two copies would not fit (the Concurrent's WriteTo encodes a
// snapshot, a second copy), f itself, filled by one goroutine.
func (b *blockedBuilder) workers(n int) ([]builder, func() error, error) {
	if !blockedShared && shardCount(2, b.f.SizeBytes()) < 2 {
		return alone(b)
	}
	if blockedShared || shardCount(n, b.f.SizeBytes()) < n {
		// f is still empty: free it before the Concurrent that replaces
		// it is made, so that the build never holds two filters.
		bits, k, seed := b.f.Bits(), b.f.K(), b.f.Seed()
		b.f.Close()
		c, err := blocked.NewConcurrentWithSize(bits, k, blocked.WithSeed(seed))
		if err != nil {
			// f's memory was free a moment ago: make f again and fill
			// it from one goroutine.
			if b.f, err = blocked.NewWithSize(bits, k, blocked.WithSeed(seed)); err != nil {
				return nil, nil, err
			}
			return alone(b)
		}
		ws := make([]builder, n)
		for i := range ws {
			ws[i] = &blockedShardAdder{c: c}
		}
		finish := func() error {
			for _, w := range ws {
				b.keys += w.added()
			}
			b.f, b.c = nil, c
			return nil
		}
		return ws, finish, nil
	}
	return shardWorkers(b, n,
		func() (*blockedBuilder, error) {
			f, err := blocked.NewWithSize(b.f.Bits(), b.f.K(), blocked.WithSeed(b.f.Seed()))
			return &blockedBuilder{f: f}, err
		},
		func(into, from *blockedBuilder) error { return into.f.Union(from.f) },
		func(into, from *blockedBuilder) { into.keys += from.keys },
		func(s *blockedBuilder) { s.f.Close() })
}

// blockedShardAdder is one worker's handle on a shared Concurrent.
type blockedShardAdder struct {
	c    *blocked.Concurrent
	keys int64
}

func (a *blockedShardAdder) hash(key []byte) uint64 { return a.c.Hash(key) }
func (a *blockedShardAdder) add(hs []uint64) error {
	a.c.AddHashes(hs)
	a.keys += int64(len(hs))
	return nil
}
func (a *blockedShardAdder) added() int64                       { return a.keys }
func (a *blockedShardAdder) writeTo(w io.Writer) (int64, error) { return a.c.WriteTo(w) }
func (a *blockedShardAdder) stats() filterStats                 { return blockedStats(a.c) }

func newBlockedBuilder(spec buildSpec) (builder, error) {
	if spec.blocks != 0 {
		f, err := blocked.NewWithSize(spec.blocks*blocked.BlockBits, spec.k, blocked.WithSeed(spec.seed))
		if err != nil {
			return nil, err
		}
		return &blockedBuilder{f: f}, nil
	}
	if spec.unbounded {
		return newScalableBuilder(spec)
	}
	f, err := blocked.New(uint64(spec.n), spec.fpp, blocked.WithSeed(spec.seed))
	if err != nil {
		return nil, err
	}
	return &blockedBuilder{f: f}, nil
}

// blockedMemory is what blocked.New will allocate for spec; 0 for a
// scalable filter, which grows as keys come, or a spec New refuses (it says
// why).
func blockedMemory(spec buildSpec) float64 {
	if spec.blocks != 0 {
		return float64(spec.blocks) * blocked.BlockBits / 8
	}
	if spec.unbounded {
		return 0
	}
	bits, _, err := blocked.OptimalSize(uint64(spec.n), spec.fpp)
	if err != nil {
		return 0
	}
	return float64(bits / 8)
}

func (b *blockedBuilder) hash(key []byte) uint64 { return b.f.Hash(key) }

func (b *blockedBuilder) add(hs []uint64) error {
	b.f.AddHashes(hs)
	b.keys += int64(len(hs))
	return nil
}

func (b *blockedBuilder) added() int64 { return b.keys }

func (b *blockedBuilder) writeTo(w io.Writer) (int64, error) {
	if b.c != nil {
		return b.c.WriteTo(w)
	}
	return b.f.WriteTo(w)
}

func (b *blockedBuilder) stats() filterStats {
	if b.c != nil {
		return blockedStats(b.c)
	}
	return blockedStats(b.f)
}

// blockedGeometry is what blocked.Filter and blocked.View both report.
type blockedGeometry interface {
	Blocks() uint64
	K() int
	Bits() uint64
	EstimatedCount() uint64
	FPP() float64
	Seed() uint64
}

func blockedStats(f blockedGeometry) filterStats {
	count, saturated := estimated(f.EstimatedCount())
	return filterStats{
		kind:         "blocked",
		geometry:     fmt.Sprintf("%d block%s x %d bits, k=%d", f.Blocks(), plural(int(min(f.Blocks(), 2))), blocked.BlockBits, f.K()),
		payloadBytes: int64(f.Bits() / 8),
		count:        count,
		saturated:    saturated,
		fill:         -1, // info counts the set bits itself
		fpp:          f.FPP(),
	}
}

type blockedReader struct{ f *blocked.View }

func openBlocked(path string) (queryFilter, error) {
	f, err := blocked.Load(path) // a copy: a file changed meanwhile cannot fault it
	if err != nil {
		return nil, err
	}
	return blockedReader{f}, nil
}

func (r blockedReader) hash(key []byte) uint64 { return r.f.Hash(key) }
func (r blockedReader) containsHashes(hs []uint64, out []bool) int {
	return r.f.ContainsHashes(hs, out)
}
func (r blockedReader) stats() filterStats { return blockedStats(r.f) }
func (r blockedReader) close() error       { return r.f.Close() }

func benchBlocked(r *benchRun) (benchResult, error) {
	var res benchResult
	newFilter := func() (*blocked.Filter, error) {
		return blocked.New(uint64(r.n), r.fpp, blocked.WithSeed(r.seed))
	}
	f, err := newFilter()
	if err != nil {
		return res, err
	}
	hashKey := func(k uint64) uint64 { return hash.Uint64(k, f.Seed()) }
	hits := hashes(r.keys, hashKey)
	misses := hashes(r.misses, hashKey)
	var buildErr error
	// Each add run builds a fresh filter; the last one is kept for lookups.
	res.add = r.best("add", r.n, func() time.Duration {
		g, err := newFilter()
		if err != nil {
			buildErr = err
			return 0
		}
		start := r.now()
		for _, h := range hits {
			g.AddHash(h)
		}
		d := r.now() - start
		g.Close()
		return d
	})
	res.addBatch = r.best("add batch", r.n, func() time.Duration {
		g, err := newFilter()
		if err != nil {
			buildErr = err
			return 0
		}
		start := r.now()
		batches(hits, g.AddHashes)
		d := r.now() - start
		f.Close()
		f = g
		return d
	})
	if buildErr != nil {
		return res, buildErr
	}
	defer f.Close()
	res.shape = fmt.Sprintf("k=%d", f.K())
	res.sizeBytes = int64(f.Bits() / 8)
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
	res.falsePositives, res.probes = r.measureFPR(res.fppPredicted, hashKey, f.ContainsHashes)
	return res, nil
}
