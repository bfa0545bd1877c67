package blocked

import (
	"fmt"
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
