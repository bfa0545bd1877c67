package kernel_test

import (
	"slices"
	"testing"
	"time"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// BenchmarkBlockedModes runs the batch kernels of each assembly set in each
// of their modes (the windowed probes too, on the same table read as
// windows of 2 and 4 generations, one line a key) (amd64's batchMode and blockedMode: the offset ring, prefetches with the
// offsets computed again, no prefetches for inserts, prefetches further
// ahead; the windowed kernels run their prefetch loops in "far") on the
// same filter in
// one process, so that a mode's threshold can be judged on a new CPU
// without the page placement and code layout that differ between two
// binaries. Pivot with
//
//	benchstat -col /mode out.txt
//
// (its sizes and filters are BenchmarkBlockedContains' and
// BenchmarkBlockedAdd's; run with -count for interleaved rounds).
func BenchmarkBlockedModes(b *testing.B) {
	if kernel.SetBatchModes == nil {
		b.Skip("the kernels have no modes here")
	}
	for _, s := range benchSizes(b) {
		b.Run("n="+s.name, func(b *testing.B) {
			f := benchFilter(s.n)
			// The inserts go into a copy: half the query keys are absent
			// from f, which the other benchmarks share (benchFilter).
			fa := benchAlloc(len(f))
			copy(fa, f)
			benchEachMode(b, benchQueryKeys(s.n), []string{"contains", "add", "addnew", "window2", "window4"}, func(op string, hs []uint64, out []bool) {
				switch op {
				case "add":
					kernel.BlockedAdd(fa, benchK, hs)
				case "addnew":
					kernel.BlockedAddNew(fa, benchK, hs, out)
				case "window2":
					kernel.BlockedContainsGens(f, uint64(len(f)), 2, 3, benchK, hs, out)
				case "window4":
					kernel.BlockedContainsGens(f, uint64(len(f)), 4, 15, benchK, hs, out)
				default:
					kernel.BlockedContains(f, benchK, hs, out)
				}
			})
		})
	}
}

// benchEachMode runs, for each assembly kernel set, each op of ops in each
// of kernel.BatchModes (noprefetch for "add" alone: only the inserts may skip
// their prefetches), call(op, hs, out) on successive batches of
// benchBatch keys of q, reporting ns/key.
func benchEachMode(b *testing.B, q []uint64, ops []string, call func(op string, hs []uint64, out []bool)) {
	out := make([]bool, benchBatch)
	kerneltest.Bench(b, func(b *testing.B, impl string) {
		if impl == "generic" {
			b.Skip("no modes")
		}
		for _, op := range ops {
			for _, m := range kernel.BatchModes {
				if op != "add" && m.Name == "noprefetch" {
					continue
				}
				b.Run("op="+op+"/mode="+m.Name, func(b *testing.B) {
					defer kernel.SetBatchModes(m)()
					keys, off := 0, 0
					start := time.Now()
					for b.Loop() {
						call(op, q[off:off+benchBatch], out)
						off = (off + benchBatch) % len(q)
						keys += benchBatch
					}
					reportPerKey(b, keys, start)
				})
			}
		}
	})
}

// BenchmarkSBBFModes is BenchmarkBlockedModes for the split-block batch
// kernels (internal/kernel/sbbf_amd64.go, sbbfMode): a filter of the
// same bytes as BenchmarkBlockedModes' (two 32-byte blocks for each of
// its 64-byte ones) holding the same n keys, probed with the same keys
// (half absent) and, in a copy, inserted into.
//
//	benchstat -col /mode out.txt
func BenchmarkSBBFModes(b *testing.B) {
	if kernel.SetBatchModes == nil {
		b.Skip("the kernels have no modes here")
	}
	for _, s := range benchSizes(b) {
		b.Run("n="+s.name, func(b *testing.B) {
			f := make([]kernel.SBBFBlock, 2*benchBlocks(s.n))
			hs := make([]uint64, 4096)
			for i := 0; i < s.n; i += len(hs) {
				c := min(len(hs), s.n-i)
				for j := range hs[:c] {
					hs[j] = splitmix(uint64(i + j))
				}
				kernel.SBBFAdd(f, hs[:c])
			}
			fa := slices.Clone(f)
			benchEachMode(b, benchQueryKeys(s.n), []string{"contains", "add"}, func(op string, hs []uint64, out []bool) {
				if op == "add" {
					kernel.SBBFAdd(fa, hs)
				} else {
					kernel.SBBFContains(f, hs, out)
				}
			})
		})
	}
}
