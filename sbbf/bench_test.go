package sbbf

import (
	"testing"

	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// BenchmarkFilter measures the split-block filter at 1% false
// positives (New's size) over n = 1e5 (in cache) to 1e7 (DRAM),
// with INT64 values 0..n-1 added and a pool of hashes half present:
//
//	go test -run '^$' -bench Filter -count 6 ./sbbf | benchstat -col /impl -
//
// op=contains is a loop over ContainsHash, op=add over AddHash;
// op=contains-batch and op=add-batch call ContainsHashes and AddHashes on
// 4096 hashes at a time, for every kernel set (impl=...). The side-by-side
// comparison with parquet-go's filter is in the interop module.
func BenchmarkFilter(b *testing.B) {
	for _, s := range benchSizes {
		if s.n > 1e7 || s.n > 1e6 && testing.Short() {
			continue
		}
		f, err := New(s.n, 0.01)
		if err != nil {
			b.Fatal(err)
		}
		fillKeys(f, s.n)
		pool := hashes(poolSize, 77)
		for i := 0; i < len(pool); i += 2 {
			pool[i] = HashInt64(int64(pool[i] % s.n))
		}
		out := make([]bool, 4096)
		b.Run("n="+s.name, func(b *testing.B) { benchFilter(b, f, pool, out) })
		f.Close()
	}
}

func benchFilter(b *testing.B, f *Filter, pool []uint64, out []bool) {
	b.Run("op=contains", func(b *testing.B) {
		hits := 0
		for i := 0; i < b.N; i++ {
			if f.ContainsHash(pool[i&(poolSize-1)]) {
				hits++
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/key")
		sinkInt = hits
	})
	b.Run("op=add", func(b *testing.B) {
		g := f.Clone()
		defer g.Close()
		for i := 0; i < b.N; i++ {
			g.AddHash(pool[i&(poolSize-1)])
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/key")
	})
	kerneltest.Bench(b, func(b *testing.B, impl string) {
		b.Run("op=contains-batch", func(b *testing.B) {
			keys := 0
			for i := 0; i < b.N; i++ {
				off := (i * len(out)) & (poolSize - 1)
				f.ContainsHashes(pool[off:off+len(out)], out)
				keys += len(out)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(keys), "ns/key")
		})
		b.Run("op=add-batch", func(b *testing.B) {
			g := f.Clone()
			defer g.Close()
			keys := 0
			for i := 0; i < b.N; i++ {
				off := (i * len(out)) & (poolSize - 1)
				g.AddHashes(pool[off : off+len(out)])
				keys += len(out)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(keys), "ns/key")
		})
	})
}

var sinkInt int
