//go:build linux

package kernel_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
	"golang.org/x/sys/unix"
)

// threadCPU returns the calling thread's CPU time in nanoseconds.
func threadCPU() int64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return ts.Nano()
}

// BenchmarkWindowKernels compares the windowed probes (G generations in
// one table of 64-byte lines, every generation live) with the blocked
// probes of the same table read as blocks, single-key and batch (1024 keys a
// call), random absent keys: the windowed filter's worst case. The
// single-key pairs to compare are gensT (BlockedContainsGensT, the table
// entry a Window's ContainsHash calls) and blocked1 (BlockedContains1, a
// Filter's); gens1 is the slice-argument wrapper. Besides
// wall ns/key it reports thread-CPU ns/key (cpu-ns/key), which time spent
// descheduled on a shared machine does not inflate.
func BenchmarkWindowKernels(b *testing.B) {
	for _, blocks := range []int{36_000, 360_000} { // ~2.3 and 23 MB: 1e6 and 1e7 keys at 18 bits a key
		for _, g := range []int{2, 4, 8} {
			nb := blocks / kernel.WindowLines(g)
			tab := benchAlloc(blocks)
			r := rand.New(rand.NewPCG(1, 2))
			for range blocks * 4 {
				h := r.Uint64()
				kernel.BlockedAdd(tab, 8, []uint64{h})
			}
			qs := make([]uint64, 1<<16)
			for i := range qs {
				qs[i] = r.Uint64()
			}
			out := make([]bool, 1024)
			live := uint64(1)<<g - 1
			kerneltest.Bench(b, func(b *testing.B, impl string) {
				for _, op := range []string{"gensT", "gens1", "gens1-live1", "blocked1", "gens", "blocked"} {
					b.Run(fmt.Sprintf("MB=%d/G=%d/op=%s", blocks*64>>20, g, op), func(b *testing.B) {
						runtime.LockOSThread()
						defer runtime.UnlockOSThread()
						keys := 0
						t0 := threadCPU()
						bt := kernel.BlockedTable{Blocks: tab, K: 8}
						wt := mustWindowTable(b, tab, g, 8)
						for b.Loop() {
							j := keys & (len(qs) - 1)
							switch op {
							case "gensT":
								kernel.BlockedContainsGensT(&wt, live, qs[j])
								keys++
							case "gens1":
								kernel.BlockedContainsGens1(tab, uint64(nb), g, live, 8, qs[j])
								keys++
							case "gens1-live1": // one generation probed: the code path's cost
								kernel.BlockedContainsGens1(tab, uint64(nb), g, 1, 8, qs[j])
								keys++
							case "blocked1":
								kernel.BlockedContains1(&bt, qs[j])
								keys++
							case "gens":
								kernel.BlockedContainsGens(tab, uint64(nb), g, live, 8, qs[j:j+len(out)], out)
								keys += len(out)
							case "blocked":
								kernel.BlockedContains(tab, 8, qs[j:j+len(out)], out)
								keys += len(out)
							}
						}
						b.ReportMetric(float64(threadCPU()-t0)/float64(keys), "cpu-ns/key")
						b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(keys), "ns/key")
					})
				}
			})
		}
	}
}
