//go:build linux

package kernel_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
	"golang.org/x/sys/unix"
)

// BenchmarkBlockedAddNew sets the add-if-new batch kernel beside the add
// kernel of the same set, in pairs: each iteration adds benchBatch keys in
// calls of batch keys with BlockedAdd and the next benchBatch keys with
// BlockedAddNew (alternating which goes first) into a filter sized for n
// keys at 10 bits a key, k = 8 (New's choice at 1%), timed in thread CPU
// time so that time descheduled on a shared machine does not count. It
// reports both and the ratio of their sums. batch=1024 is what sift dedup
// passes.
//
//	go test -run '^$' -bench BlockedAddNew -benchtime 400x ./internal/kernel
func BenchmarkBlockedAddNew(b *testing.B) {
	const k = 8
	for _, s := range benchSizes(b)[1:3] {
		for _, batch := range []int{1024, benchBatch} {
			b.Run(fmt.Sprintf("n=%s/batch=%d", s.name, batch), func(b *testing.B) {
				f := benchAlloc(benchBlocks(s.n))
				q := benchQueryKeys(s.n)
				out := make([]bool, batch)
				kerneltest.Bench(b, func(b *testing.B, impl string) {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					clear(f)
					var spent [2]int64
					off := 0
					timed := func(i int) {
						var t0, t1 unix.Timespec
						unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &t0)
						for range benchBatch / batch {
							hs := q[off : off+batch]
							off = (off + batch) % len(q)
							if i == 0 {
								kernel.BlockedAdd(f, k, hs)
							} else {
								kernel.BlockedAddNew(f, k, hs, out)
							}
						}
						unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &t1)
						spent[i] += t1.Nano() - t0.Nano()
					}
					n := 0
					for b.Loop() {
						timed(n % 2)
						timed(1 - n%2)
						n++
					}
					keys := float64(n * benchBatch)
					b.ReportMetric(float64(spent[0])/keys, "add-cpu-ns/key")
					b.ReportMetric(float64(spent[1])/keys, "addnew-cpu-ns/key")
					b.ReportMetric(float64(spent[1])/float64(spent[0]), "addnew/add")
				})
			})
		}
	}
}
