//go:build gc && !purego && goexperiment.simd

package kernel_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// TestBlockedContains1SIMD holds the inlinable probe equal to the generic
// one wherever BlockedSIMDOK accepts the table, and checks what it accepts.
func TestBlockedContains1SIMD(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(83, 84))
		for _, k := range []int{7, 8, 9} {
			for _, nb := range []int{0, 1, 3, 1000} {
				blocks := make([]kernel.Block, nb)
				for i := range blocks {
					for w := range blocks[i] {
						blocks[i][w] = r.Uint64() & r.Uint64()
					}
				}
				tab := &kernel.BlockedTable{Blocks: blocks, K: k}
				ok := kernel.BlockedSIMDOK(tab)
				if want := k == 8 && nb > 0 && impl != "generic"; ok != want {
					t.Fatalf("k=%d nb=%d: BlockedSIMDOK = %v, want %v", k, nb, ok, want)
				}
				if !ok {
					continue
				}
				for range 5000 {
					h := r.Uint64()
					if got, want := kernel.BlockedContains1SIMD(tab, h), kernel.BlockedContains1Generic(blocks, k, h); got != want {
						t.Fatalf("nb=%d h=%#x: %v, want %v", nb, h, got, want)
					}
				}
			}
		}
	})
}

// BenchmarkBlockedContains1K8Inlined is BenchmarkBlockedContains1K8's loop
// over the inlined probe, BlockedSIMDOK checked once outside it.
func BenchmarkBlockedContains1K8Inlined(b *testing.B) {
	for _, s := range []benchSize{{"1e5", 1e5}, {"1e6", 1e6}} {
		b.Run("n="+s.name, func(b *testing.B) {
			tab := benchTableK8(s.n)
			q := benchQueryKeys(s.n)
			kerneltest.Bench(b, func(b *testing.B, impl string) {
				if !kernel.BlockedSIMDOK(tab) {
					b.Skip("no AVX2 set in use")
				}
				keys, off, found := 0, 0, 0
				start := time.Now()
				for b.Loop() {
					for _, h := range q[off : off+benchBatch] {
						if kernel.BlockedContains1SIMD(tab, h) {
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
