package kernel_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// TestBlocked1K8 holds the single-key probe at k = 8 (the case that
// blocked/inlineprobe_simd.go runs in Go when built with GOEXPERIMENT=simd)
// equal to the generic probe, on blocks from empty to full, so that the
// experiment's build and the default one are held to the same answers
// (CI runs the kernel tests once with GOEXPERIMENT=simd).
func TestBlocked1K8(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(81, 82))
		for _, nb := range []int{1, 2, 3, 61, 1000} {
			for _, density := range []uint64{0, 1, 4, 16, 64} {
				blocks := make([]kernel.Block, nb)
				for i := range blocks {
					for w := range blocks[i] {
						for range density {
							blocks[i][w] |= 1 << r.IntN(64)
						}
					}
				}
				tab := &kernel.BlockedTable{Blocks: blocks, K: 8}
				for range 2000 {
					h := r.Uint64()
					if got, want := kernel.BlockedContains1(tab, h), kernel.BlockedContains1Generic(blocks, 8, h); got != want {
						t.Fatalf("nb=%d density=%d h=%#x: %v, want %v", nb, density, h, got, want)
					}
				}
				// Every added key is found, and is found by both.
				for range 200 {
					h := r.Uint64()
					kernel.BlockedAdd1(tab, h)
					if !kernel.BlockedContains1(tab, h) || !kernel.BlockedContains1Generic(blocks, 8, h) {
						t.Fatalf("nb=%d: %#x added but not found", nb, h)
					}
				}
			}
		}
	})
}

// BenchmarkBlockedContains1K8 is ContainsHash's probe at k = 8, a loop of
// BlockedContains1 calls (the assembly call) over present and absent keys.
// Built with GOEXPERIMENT=simd, BenchmarkBlockedContains1K8Inlined runs the
// same loop over the inlined Go probe: run both with -count to compare.
func BenchmarkBlockedContains1K8(b *testing.B) {
	for _, s := range []benchSize{{"1e5", 1e5}, {"1e6", 1e6}} {
		b.Run("n="+s.name, func(b *testing.B) {
			tab := benchTableK8(s.n)
			q := benchQueryKeys(s.n)
			kerneltest.Bench(b, func(b *testing.B, impl string) {
				keys, off, found := 0, 0, 0
				start := time.Now()
				for b.Loop() {
					for _, h := range q[off : off+benchBatch] {
						if kernel.BlockedContains1(tab, h) {
							found++
						}
					}
					off = (off + benchBatch) % len(q)
					keys += benchBatch
				}
				reportPerKey(b, keys, start)
				if found < keys/2 {
					b.Fatalf("%d of %d found: present keys missing", found, keys)
				}
			})
		})
	}
}

// benchTableK8 returns (and caches) a k = 8 filter holding keys
// splitmix(0..n-1).
func benchTableK8(n int) *kernel.BlockedTable {
	if t, ok := benchTablesK8[n]; ok {
		return t
	}
	f := benchAlloc(benchBlocks(n))
	hs := make([]uint64, n)
	for i := range hs {
		hs[i] = splitmix(uint64(i))
	}
	kernel.BlockedAdd(f, 8, hs)
	t := &kernel.BlockedTable{Blocks: f, K: 8}
	benchTablesK8[n] = t
	return t
}

var benchTablesK8 = map[int]*kernel.BlockedTable{}
