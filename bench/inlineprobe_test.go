package bench

import (
	"math/rand/v2"
	"testing"

	pqbloom "github.com/parquet-go/parquet-go/bloom"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/sbbf"
)

// BenchmarkInlineProbe is the single-key lookup loop of issue 23 item 5:
// sift's blocked and split-block ContainsHash (one assembly call a key),
// their Probes (inlined archsimd code, offered only in a GOEXPERIMENT=simd
// build), and parquet-go's SplitBlockFilter.Check, over the same 65536
// queries (half present), at 1% and n = 1e5 and 1e6. sift's split-block
// filter has parquet-go's block count, so both answer alike. Run it with
// and without the experiment, interleaved:
//
//	GOEXPERIMENT=simd go test -c -o simd.test . && go test -c -o plain.test .
//	for i in 1 2 3 4 5 6; do for b in simd plain; do
//	    ./$b.test -test.run '^$' -test.bench InlineProbe -test.benchtime 200ms
//	done; done
func BenchmarkInlineProbe(b *testing.B) {
	for _, n := range []int{1e5, 1e6} {
		rng := rand.New(rand.NewPCG(7, 8))
		bits := uint(1)
		for SplitBlockFPR(float64(bits)) > 0.01 {
			bits++
		}
		pq := make(pqbloom.SplitBlockFilter, pqbloom.NumSplitBlocksOf(int64(n), bits))
		sb, err := sbbf.NewWithSize(uint64(len(pq)) * pqbloom.BlockSize)
		if err != nil {
			b.Fatal(err)
		}
		bl, err := blocked.New(uint64(n), 0.01)
		if err != nil {
			b.Fatal(err)
		}
		qs := make([]uint64, 1<<16)
		for i := range n {
			h := rng.Uint64()
			pq.Insert(h)
			sb.AddHash(h)
			bl.AddHash(h)
			if i < len(qs)/2 {
				qs[2*i] = h
			}
		}
		for i := 1; i < len(qs); i += 2 {
			qs[i] = rng.Uint64()
		}
		blp, blok := bl.Probe()
		sbp, sbok := sb.Probe()
		impls := []struct {
			name     string
			ok       bool
			contains func([]uint64) int
		}{
			{"parquet-go.Check", true, func(qs []uint64) (c int) {
				for _, h := range qs {
					if pq.Check(h) {
						c++
					}
				}
				return c
			}},
			{"sbbf.ContainsHash", true, func(qs []uint64) (c int) {
				for _, h := range qs {
					if sb.ContainsHash(h) {
						c++
					}
				}
				return c
			}},
			{"sbbf.Probe", sbok, func(qs []uint64) (c int) {
				for _, h := range qs {
					if sbp.ContainsHash(h) {
						c++
					}
				}
				return c
			}},
			{"blocked.ContainsHash", true, func(qs []uint64) (c int) {
				for _, h := range qs {
					if bl.ContainsHash(h) {
						c++
					}
				}
				return c
			}},
			{"blocked.Probe", blok, func(qs []uint64) (c int) {
				for _, h := range qs {
					if blp.ContainsHash(h) {
						c++
					}
				}
				return c
			}},
		}
		for _, im := range impls {
			b.Run("n="+formatN(n)+"/impl="+im.name, func(b *testing.B) {
				if !im.ok {
					b.Skip("Probe not offered: build with GOEXPERIMENT=simd on amd64 with AVX2")
				}
				found := 0
				for b.Loop() {
					found += im.contains(qs)
				}
				if found < b.N*len(qs)/2 {
					b.Fatalf("%d of %d found: present keys missing", found, b.N*len(qs))
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(qs)), "ns/key")
			})
		}
		sb.Close()
		bl.Close()
	}
}
