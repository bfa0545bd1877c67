package blocked

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkAddNew sets add-if-new beside the plain add, one goroutine,
// into an empty filter for n keys at 1% (the reset is not timed):
// op=add/addnew are AddHash/AddNewHash in a loop, op=addhashes/addnewhashes
// the batch calls over all n keys. ns/key is wall time over all keys.
//
//	go test -run '^$' -bench AddNew -benchtime 3x ./blocked
func BenchmarkAddNew(b *testing.B) {
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
		out := make([]bool, n)
		sink := 0
		for _, typ := range []struct {
			name string
			f    adder
		}{{"filter", f}, {"concurrent", c}} {
			for _, op := range []struct {
				name string
				fn   func()
			}{
				{"add", func() {
					for _, h := range hs {
						typ.f.AddHash(h)
					}
				}},
				{"addnew", func() {
					for _, h := range hs {
						if typ.f.AddNewHash(h) {
							sink++
						}
					}
				}},
				{"addhashes", func() { typ.f.(batchFilter).AddHashes(hs) }},
				{"addnewhashes", func() { sink += typ.f.AddNewHashes(hs, out) }},
			} {
				b.Run(fmt.Sprintf("n=%.0e/type=%s/op=%s", float64(n), typ.name, op.name), func(b *testing.B) {
					var spent time.Duration
					for range b.N {
						typ.f.(batchFilter).Reset()
						start := time.Now()
						op.fn()
						spent += time.Since(start)
					}
					b.ReportMetric(float64(spent.Nanoseconds())/float64(b.N*n), "ns/key")
				})
			}
		}
		f.Close()
		c.Close()
	}
}
