package fuzz

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/classic"
	"github.com/sift-go/sift/cuckoo"
)

// Statistical equivalence: the filters are compared with the classic
// reference at equal memory, and each with its own prediction. A measured
// rate over N probes is binomial, so a check allows z standard deviations
// of sampling noise (relative 1/sqrt(expected hits) each) plus a slack for
// what the formulas leave out (filter-to-filter variation; the classic
// formula's approximation).
const (
	zNoise     = 4.5
	modelSlack = 0.03
)

// tolerance is the relative deviation allowed for a rate measured with
// hits expected positives.
func tolerance(hits float64) float64 { return zNoise/math.Sqrt(max(hits, 1)) + modelSlack }

// classicPredicted is the classic Bloom formula (1 - e^(-kn/m))^k.
func classicPredicted(m, n float64, k int) float64 {
	return math.Pow(-math.Expm1(-float64(k)*n/m), float64(k))
}

// bestBlockedK is the k with the lowest predicted rate for bits and n.
func bestBlockedK(bits, n uint64) int {
	best, bestP := 1, math.Inf(1)
	for k := 1; k <= blocked.MaxK; k++ {
		if p := blocked.FalsePositiveRate(bits, k, n); p < bestP {
			best, bestP = k, p
		}
	}
	return best
}

// measureRate returns the fraction of about probes random hashes that
// contains reports present.
func measureRate(probes int, seed uint64, contains func([]uint64, []bool) int) float64 {
	next := splitmix(seed)
	hs := make([]uint64, 4096)
	out := make([]bool, len(hs))
	hits := 0
	for done := 0; done < probes; done += len(hs) {
		for i := range hs {
			hs[i] = next()
		}
		hits += contains(hs, out)
	}
	return float64(hits) / float64((probes+len(hs)-1)/len(hs)*len(hs))
}

// TestStatisticalEquivalence checks that at equal bits per key the blocked
// filter's measured false-positive rate exceeds the classic filter's by no
// more than the penalty blocked.FalsePositiveRate predicts over the classic
// formula, and that each agrees with its prediction.
func TestStatisticalEquivalence(t *testing.T) {
	n, classicProbes, blockedProbes := 500_000, 8_000_000, 32_000_000
	fpps := []float64{0.05, 0.01, 0.001}
	if testing.Short() {
		n, classicProbes, blockedProbes = 20_000, 400_000, 2_000_000
		fpps = []float64{0.01}
	}
	for _, fpp := range fpps {
		t.Run(fmt.Sprintf("fpp=%g", fpp), func(t *testing.T) {
			c, err := classic.New(int64(n), fpp)
			if err != nil {
				t.Fatal(err)
			}
			m := uint64(c.BitSize())
			k := bestBlockedK(m, uint64(n))
			b, err := blocked.NewWithSize(m, k, blocked.WithSeed(5))
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			next := splitmix(1)
			batch := make([]uint64, 0, 4096)
			for i := 0; i < n; i++ {
				c.PutInt64(int64(i))
				batch = append(batch, next())
				if len(batch) == cap(batch) || i == n-1 {
					b.AddHashes(batch)
					batch = batch[:0]
				}
			}
			hits := 0
			for i := 0; i < classicProbes; i++ {
				if c.MightContainInt64(-1 - int64(i)) {
					hits++
				}
			}
			measuredC := float64(hits) / float64(classicProbes)
			predictedC := classicPredicted(float64(m), float64(n), c.NumHashFunctions())
			measuredB := measureRate(blockedProbes, 2, b.ContainsHashes)
			predictedB := blocked.FalsePositiveRate(b.Bits(), k, uint64(n))
			penalty := predictedB / predictedC
			tolC := tolerance(predictedC * float64(classicProbes))
			tolB := tolerance(predictedB * float64(blockedProbes))
			t.Logf("%.2f bits/key: classic k=%d measured %.5g predicted %.5g; blocked k=%d measured %.5g predicted %.5g; predicted penalty %.3f, measured %.3f",
				float64(m)/float64(n), c.NumHashFunctions(), measuredC, predictedC, k, measuredB, predictedB, penalty, measuredB/measuredC)
			if math.Abs(measuredC/predictedC-1) > tolC {
				t.Errorf("classic measured %.5g, predicted %.5g (tolerance %.1f%%)", measuredC, predictedC, 100*tolC)
			}
			if math.Abs(measuredB/predictedB-1) > tolB {
				t.Errorf("blocked measured %.5g, predicted %.5g (tolerance %.1f%%)", measuredB, predictedB, 100*tolB)
			}
			if measuredB > measuredC*penalty*(1+tolB+tolC) {
				t.Errorf("blocked measured %.5g exceeds classic's %.5g by %.3fx, more than the predicted penalty %.3fx", measuredB, measuredC, measuredB/measuredC, penalty)
			}
		})
	}
}

// TestCuckooRate checks the cuckoo filter's measured false-positive rate
// against 2b/2^f scaled by the load: 8α/2^f for buckets of b = 4 slots.
func TestCuckooRate(t *testing.T) {
	capacity, probes := 400_000, 40_000_000
	if testing.Short() {
		capacity, probes = 20_000, 4_000_000
	}
	for _, bits := range []int{8, 16} {
		for _, load := range []float64{0.5, 0.95} {
			if testing.Short() && (bits == 16 || load != 0.95) {
				continue // too few hits at 16 bits for a short run
			}
			t.Run(fmt.Sprintf("f=%d/load=%g", bits, load), func(t *testing.T) {
				f, err := cuckoo.New(uint64(capacity), cuckoo.WithFingerprintBits(bits), cuckoo.WithSeed(7))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				next := splitmix(3)
				target := uint64(load * float64(f.Capacity()))
				for f.Count() < target {
					if err := f.AddHash(next()); err != nil {
						if errors.Is(err, cuckoo.ErrFull) {
							break
						}
						t.Fatal(err)
					}
				}
				alpha := f.LoadFactor()
				predicted := 2 * float64(cuckoo.SlotsPerBucket) * alpha / math.Exp2(float64(bits))
				measured := measureRate(probes, 4, f.ContainsHashes)
				// 10% is more than zNoise standard deviations of sampling
				// noise here (2,400 expected hits at the least).
				const tol = 0.10
				t.Logf("f=%d load %.3f: measured %.5g, 8α/2^f = %.5g (%+.1f%%), FPP() = %.5g", bits, alpha, measured, predicted, 100*(measured/predicted-1), f.FPP())
				if math.Abs(measured/predicted-1) > tol {
					t.Errorf("measured %.5g, want 8α/2^f = %.5g within %.0f%%", measured, predicted, 100*tol)
				}
				if alpha < load-0.02 {
					t.Errorf("reached load %.3f only, want %.2f", alpha, load)
				}
			})
		}
	}
}
