package interop

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/parquet-go/parquet-go/bloom"
	"github.com/sift-go/sift/sbbf"
)

// BenchmarkVsParquetGo runs sift's sbbf.Filter and parquet-go's
// bloom.SplitBlockFilter side by side in one run: the same layout (the
// block count sbbf.New picks for n values at 1%), the same keys
// (XXH64 of INT64 values 0..n-1, hashed once beforehand), the same query
// pool (half present). filter=sift and filter=parquet-go alternate per
// size:
//
//	go test -run '^$' -bench VsParquetGo -count 6 . | benchstat -col /filter -
//
// op=check is a loop of single-key lookups (ContainsHash, Check);
// op=check-batch is sift's ContainsHashes against parquet-go's only way,
// the same Check loop; op=insert is AddHash against Insert, op=insert-batch
// AddHashes against InsertBulk, 4096 keys a call. n = 1e5 (in cache), 1e6,
// 1e7 (DRAM; skipped with -short); the query pool for 1e7 is 2^22 hashes
// so its lines do not fit in cache.
func BenchmarkVsParquetGo(b *testing.B) {
	for _, n := range []int{1e5, 1e6, 1e7} {
		if n > 1e6 && testing.Short() {
			continue
		}
		s, err := sbbf.New(uint64(n), 0.01)
		if err != nil {
			b.Fatal(err)
		}
		p := make(bloom.SplitBlockFilter, s.Blocks())
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = sbbf.HashInt64(int64(i))
		}
		s.AddHashes(keys)
		p.InsertBulk(keys)
		pool := make([]uint64, 1<<16)
		if n >= 1e7 {
			pool = make([]uint64, 1<<22)
		}
		r := rand.New(rand.NewPCG(1, uint64(n)))
		for i := range pool {
			pool[i] = r.Uint64()
			if i%2 == 0 {
				pool[i] = keys[r.IntN(n)]
			}
		}
		mask := len(pool) - 1
		out := make([]bool, 4096)
		perKey := func(b *testing.B, keys int) {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(keys), "ns/key")
		}
		name := "n=1e" + strconv.Itoa(len(strconv.Itoa(n))-1)
		b.Run(name+"/op=check/filter=sift", func(b *testing.B) {
			hits := 0
			for i := 0; i < b.N; i++ {
				if s.ContainsHash(pool[i&mask]) {
					hits++
				}
			}
			perKey(b, b.N)
			sink = hits
		})
		b.Run(name+"/op=check/filter=parquet-go", func(b *testing.B) {
			hits := 0
			for i := 0; i < b.N; i++ {
				if p.Check(pool[i&mask]) {
					hits++
				}
			}
			perKey(b, b.N)
			sink = hits
		})
		b.Run(name+"/op=check-batch/filter=sift", func(b *testing.B) {
			k := 0
			for i := 0; i < b.N; i++ {
				off := (i * len(out)) & mask
				sink = s.ContainsHashes(pool[off:off+len(out)], out)
				k += len(out)
			}
			perKey(b, k)
		})
		b.Run(name+"/op=check-batch/filter=parquet-go", func(b *testing.B) {
			k := 0
			for i := 0; i < b.N; i++ {
				off := (i * len(out)) & mask
				for j, h := range pool[off : off+len(out)] {
					out[j] = p.Check(h)
				}
				k += len(out)
			}
			perKey(b, k)
		})
		b.Run(name+"/op=insert/filter=sift", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s.AddHash(pool[i&mask])
			}
			perKey(b, b.N)
		})
		b.Run(name+"/op=insert/filter=parquet-go", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p.Insert(pool[i&mask])
			}
			perKey(b, b.N)
		})
		b.Run(name+"/op=insert-batch/filter=sift", func(b *testing.B) {
			k := 0
			for i := 0; i < b.N; i++ {
				off := (i * len(out)) & mask
				s.AddHashes(pool[off : off+len(out)])
				k += len(out)
			}
			perKey(b, k)
		})
		b.Run(name+"/op=insert-batch/filter=parquet-go", func(b *testing.B) {
			k := 0
			for i := 0; i < b.N; i++ {
				off := (i * len(out)) & mask
				p.InsertBulk(pool[off : off+len(out)])
				k += len(out)
			}
			perKey(b, k)
		})
		s.Close()
	}
}

var sink int
