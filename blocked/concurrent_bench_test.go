package blocked

import (
	"flag"
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/sift-go/sift/internal/edgetest"
)

// batchFilter is what Filter and Concurrent share for the batch benchmarks.
type batchFilter interface {
	AddHashes(hs []uint64)
	ContainsHashes(hs []uint64, out []bool) int
	Reset()
}

// mergeMin, where set, replaces Concurrent.AddHashes' merge threshold
// (keys a block) for BenchmarkConcurrentBatch, to place it on a new CPU or
// core count.
var mergeMin = flag.Int("blocked.mergemin", 0, "BenchmarkConcurrentBatch: Concurrent.AddHashes' merge threshold in keys a block (0: the default)")

// BenchmarkConcurrentBatch sets Concurrent's batch calls beside Filter's,
// with 1 and GOMAXPROCS goroutines splitting the keys (Filter only with
// one: its adds are not safe concurrently): op=contains is ContainsHashes
// of the n added keys; op=add is AddHashes of n keys into an empty filter;
// op=addhalf is AddHashes of n keys of which half were added before (the
// prefill is not timed); op=add1k and addhalf1k are those in calls of 1024
// keys (below Concurrent's merge threshold). ns/key is wall time over all
// keys.
//
//	go test -run '^$' -bench ConcurrentBatch -benchtime 3x ./blocked
func BenchmarkConcurrentBatch(b *testing.B) {
	if *mergeMin > 0 {
		defer func(was int) { mergeMinKeysPerBlock = was }(mergeMinKeysPerBlock)
		mergeMinKeysPerBlock = *mergeMin
	}
	for _, n := range []int{1e6, 1e7} {
		f, err := New(uint64(n), 0.01)
		if err != nil {
			b.Fatal(err)
		}
		c, err := NewConcurrent(uint64(n), 0.01)
		if err != nil {
			b.Fatal(err)
		}
		hs := hashes(n, 7)
		half := make([]uint64, n)
		copy(half, hs[:n/2])
		copy(half[n/2:], hashes(n-n/2, 8))
		for _, typ := range []struct {
			name string
			f    batchFilter
		}{{"filter", f}, {"concurrent", c}} {
			gs := edgetest.GoroutineCounts()
			if typ.name == "filter" {
				gs = []int{1}
			}
			for _, g := range gs {
				name := fmt.Sprintf("n=%.0e/type=%s/goroutines=%d", float64(n), typ.name, g)
				run := func(op string, prefill []uint64, keys []uint64, fn func(part []uint64)) {
					b.Run(name+"/op="+op, func(b *testing.B) {
						var spent time.Duration
						for range b.N {
							if prefill != nil {
								typ.f.Reset()
								typ.f.AddHashes(prefill)
							}
							start := time.Now()
							edgetest.InParallel(g, keys, fn)
							spent += time.Since(start)
						}
						b.ReportMetric(float64(spent.Nanoseconds())/float64(b.N*len(keys)), "ns/key")
					})
				}
				run("add", []uint64{}, hs, typ.f.AddHashes)
				run("addhalf", hs[:n/2], half, typ.f.AddHashes)
				in1k := func(part []uint64) {
					for len(part) > 0 {
						c := min(len(part), 1024)
						typ.f.AddHashes(part[:c])
						part = part[c:]
					}
				}
				run("add1k", []uint64{}, hs, in1k)
				run("addhalf1k", hs[:n/2], half, in1k)
				typ.f.Reset()
				typ.f.AddHashes(hs)
				out := make([]bool, len(hs))
				run("contains", nil, hs, func(part []uint64) {
					// part is hs[i*n/g:...]: its answers go to the same range of out.
					i := (cap(hs) - cap(part))
					if typ.f.ContainsHashes(part, out[i:i+len(part)]) != len(part) {
						panic("false negative")
					}
				})
			}
		}
		f.Close()
		c.Close()
	}
}

// BenchmarkConcurrentMerge places Concurrent.AddHashes' merge threshold:
// n keys are added, into an empty filter sized for them, in calls of
// perblock keys for each block of the filter (so a call's batch is
// perblock*Blocks keys), by 1 and GOMAXPROCS goroutines splitting the
// keys, with path=merge forcing the merge buffer for every call and
// path=atomic forcing the lookups and atomic ORs. ns/key is wall time over
// all keys. The threshold (mergeMinKeysPerBlock, doubled on filters of
// several stripes) belongs where the two paths cross: n = 5e7 (60 MiB) is
// a filter of four 16 MiB stripes.
//
//	go test -run '^$' -bench ConcurrentMerge -benchtime 3x ./blocked
func BenchmarkConcurrentMerge(b *testing.B) {
	defer func(was int) { mergeMinKeysPerBlock = was }(mergeMinKeysPerBlock)
	for _, n := range []int{1e6, 1e7, 5e7} {
		c, err := NewConcurrent(uint64(n), 0.01)
		if err != nil {
			b.Fatal(err)
		}
		hs := hashes(n, 7)
		for _, g := range []int{1, runtime.GOMAXPROCS(0)} {
			for _, perBlock := range []float64{0.125, 0.25, 0.5, 1, 2, 4} {
				batch := max(1, int(perBlock*float64(c.Blocks())))
				for _, path := range []string{"merge", "atomic"} {
					name := fmt.Sprintf("n=%.0e/goroutines=%d/perblock=%g/path=%s", float64(n), g, perBlock, path)
					b.Run(name, func(b *testing.B) {
						mergeMinKeysPerBlock = 0
						if path == "atomic" {
							mergeMinKeysPerBlock = math.MaxInt32
						}
						var spent time.Duration
						for range b.N {
							c.Reset()
							start := time.Now()
							edgetest.InParallel(g, hs, func(part []uint64) {
								for len(part) > 0 {
									m := min(len(part), batch)
									c.AddHashes(part[:m])
									part = part[m:]
								}
							})
							spent += time.Since(start)
						}
						b.ReportMetric(float64(spent.Nanoseconds())/float64(b.N*n), "ns/key")
					})
				}
			}
		}
		c.Close()
	}
}
