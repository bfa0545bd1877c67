package blocked

import (
	"fmt"
	"sync"
	"testing"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
	"github.com/sift-go/sift/internal/mem"
)

// Benchmarks run at 1% false positives over filters of n keys, n = 1e5 (in
// cache) to 1e8 (DRAM, skipped with -short). Lookups use a precomputed pool
// of random hashes, half of them present keys.
//
//	go test -run '^$' -bench . -count 6 ./blocked | benchstat -col /impl -
//
// On a shared machine wall time is noisy; TestCPUTimeReport (Linux, opt-in)
// measures the same loops in thread CPU time.

var benchSizes = []struct {
	name string
	n    uint64
}{{"1e5", 1e5}, {"1e6", 1e6}, {"1e7", 1e7}, {"1e8", 1e8}}

const poolSize = 1 << 20

var (
	benchMu      sync.Mutex
	benchFilters = map[uint64]*Filter{}
)

// benchFilter returns a filter for n keys at 1% holding hash.Uint64(i, 0)
// for i < n, built once per process.
func benchFilter(b testing.TB, n uint64) *Filter {
	benchMu.Lock()
	defer benchMu.Unlock()
	if f := benchFilters[n]; f != nil {
		return f
	}
	f, err := New(n, 0.01)
	if err != nil {
		b.Fatal(err)
	}
	fill(f, n)
	benchFilters[n] = f
	return f
}

// lookupPool returns poolSize hashes: even ones present, odd ones absent.
func lookupPool(n uint64) []uint64 {
	hs := hashes(poolSize, 99)
	for i := 0; i < len(hs); i += 2 {
		hs[i] = hash.Uint64(hs[i]%n, 0)
	}
	return hs
}

func forSizes(b *testing.B, f func(b *testing.B, n uint64)) {
	for _, s := range benchSizes {
		if s.n > 1e7 && testing.Short() {
			continue
		}
		b.Run("n="+s.name, func(b *testing.B) { f(b, s.n) })
	}
}

func BenchmarkAdd(b *testing.B) {
	forSizes(b, func(b *testing.B, n uint64) {
		f, err := New(n, 0.01)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		f.Reset() // fault the pages in: measure adds, not first touches
		hs := hashes(poolSize, 1)
		i := 0
		for b.Loop() {
			f.AddHash(hs[i&(poolSize-1)])
			i++
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i), "ns/key")
	})
}

func BenchmarkAddHashes(b *testing.B) {
	forSizes(b, func(b *testing.B, n uint64) {
		kerneltest.Bench(b, func(b *testing.B, impl string) {
			f, err := New(n, 0.01)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			f.Reset()
			hs := hashes(poolSize, 1)
			const batch = 1024
			i, keys := 0, 0
			for b.Loop() {
				off := (i * batch) & (poolSize - 1)
				f.AddHashes(hs[off : off+batch])
				i++
				keys += batch
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(keys), "ns/key")
		})
	})
}

func BenchmarkContains(b *testing.B) {
	forSizes(b, func(b *testing.B, n uint64) {
		f := benchFilter(b, n)
		hs := lookupPool(n)
		i, found := 0, 0
		for b.Loop() {
			if f.ContainsHash(hs[i&(poolSize-1)]) {
				found++
			}
			i++
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i), "ns/key")
		if found < i/2 {
			b.Fatalf("%d of %d found: present keys missing", found, i)
		}
	})
}

func BenchmarkContainsUint64(b *testing.B) {
	f := benchFilter(b, 1e5)
	i, found := uint64(0), 0
	for b.Loop() {
		if f.ContainsUint64(i & (1<<17 - 1)) {
			found++
		}
		i++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i), "ns/key")
}

func BenchmarkContainsHashes(b *testing.B) {
	forSizes(b, func(b *testing.B, n uint64) {
		f := benchFilter(b, n)
		hs := lookupPool(n)
		const batch = 1024
		out := make([]bool, batch)
		kerneltest.Bench(b, func(b *testing.B, impl string) {
			i, keys := 0, 0
			for b.Loop() {
				off := (i * batch) & (poolSize - 1)
				f.ContainsHashes(hs[off:off+batch], out)
				i++
				keys += batch
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(keys), "ns/key")
		})
	})
}

// BenchmarkConcurrentContains measures the atomic-load lookups of
// Concurrent beside Filter's, in cache.
func BenchmarkConcurrentContains(b *testing.B) {
	c, err := NewConcurrent(1e5, 0.01)
	if err != nil {
		b.Fatal(err)
	}
	hs := lookupPool(1e5)
	c.AddHashes(hs[:1e5])
	i := 0
	for b.Loop() {
		c.ContainsHash(hs[i&(poolSize-1)])
		i++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i), "ns/key")
}

// BenchmarkMemory compares the same 1e8-key filter (126 MB) in huge-page
// mapped memory (what New uses) and in plain 4 KiB-page heap memory, for
// random single-key lookups and batches.
func BenchmarkMemory(b *testing.B) {
	if testing.Short() {
		b.Skip("needs a 1e8-key filter")
	}
	const n = 1e8
	huge := benchFilter(b, n)
	heap := &Filter{}
	heap.setWords(mem.AlignedWords(len(huge.words)), &mem.Region{}, huge.t.K, huge.seed)
	copy(heap.words, huge.words)
	hs := lookupPool(n)
	for _, m := range []struct {
		name string
		f    *Filter
	}{{"huge", huge}, {"heap", heap}} {
		b.Run(fmt.Sprintf("n=1e8/mem=%s/op=ContainsHash", m.name), func(b *testing.B) {
			if m.name == "huge" && !m.f.region.Mapped() {
				b.Skip("no mapped memory on this system")
			}
			i := 0
			for b.Loop() {
				m.f.ContainsHash(hs[i&(poolSize-1)])
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i), "ns/key")
		})
		b.Run(fmt.Sprintf("n=1e8/mem=%s/op=ContainsHashes", m.name), func(b *testing.B) {
			const batch = 1024
			out := make([]bool, batch)
			i, keys := 0, 0
			for b.Loop() {
				off := (i * batch) & (poolSize - 1)
				m.f.ContainsHashes(hs[off:off+batch], out)
				i++
				keys += batch
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(keys), "ns/key")
		})
	}
}

func BenchmarkNew(b *testing.B) {
	for _, fpp := range []float64{0.01, 1e-6} {
		b.Run(fmt.Sprintf("fpp=%g", fpp), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := OptimalSize(1e6, fpp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
