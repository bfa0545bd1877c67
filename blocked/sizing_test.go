package blocked

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sift-go/sift/hash"
)

// measureFPR returns the share of q absent keys the filter reports present.
// Present keys are hash.Uint64(i) for i < n; absent ones start at 2^40.
func measureFPR(f *Filter, q int) float64 {
	const chunk = 1 << 14
	hs := make([]uint64, chunk)
	out := make([]bool, chunk)
	hits := 0
	for done := 0; done < q; done += chunk {
		c := min(chunk, q-done)
		for i := range hs[:c] {
			hs[i] = hash.Uint64(1<<40+uint64(done+i), f.seed)
		}
		hits += f.ContainsHashes(hs[:c], out)
	}
	return float64(hits) / float64(q)
}

func fill(f *Filter, n uint64) {
	const chunk = 1 << 14
	hs := make([]uint64, chunk)
	for done := uint64(0); done < n; done += chunk {
		c := min(chunk, n-done)
		for i := range hs[:c] {
			hs[i] = hash.Uint64(done+uint64(i), f.seed)
		}
		f.AddHashes(hs[:c])
	}
}

// TestSizing is the statistical check of the sizing: for each target rate
// and key count, New's filter, after n distinct adds, must show a measured
// false-positive rate over at least 10^7 absent keys that is within 10% of
// FalsePositiveRate's prediction (or, for small filters whose rate varies
// more than that from filter to filter, within three standard deviations of
// that spread and of the sampling noise) and at most fpp (up to three
// standard deviations of the sampling noise: no finite sample can do
// better near the bound). It also checks that the fill-based
// FPP() agrees with the measurement, and that the chosen size is the least
// meeting the bound. Seeded and deterministic.
func TestSizing(t *testing.T) {
	type row struct {
		fpp                 float64
		n                   uint64
		bitsPerKey          float64
		k                   int
		predicted, measured float64
		fill, classicPerKey float64
		spread              float64
	}
	var rows []row
	for _, fpp := range []float64{0.1, 0.01, 0.001, 0.0001} {
		for _, n := range []uint64{1e4, 1e6} {
			q := 10_000_000
			if fpp < 0.001 {
				q = 30_000_000 // 3000 expected false positives: 1.8% noise
			}
			if testing.Short() {
				if n > 1e4 {
					continue
				}
				q /= 10
			}
			t.Run(fmt.Sprintf("fpp=%g/n=%d", fpp, n), func(t *testing.T) {
				f := mustNew(t, n, fpp, WithSeed(uint64(n)+uint64(1/fpp)))
				fill(f, n)
				pred := FalsePositiveRate(f.Bits(), f.K(), n)
				got := measureFPR(f, q)
				now := f.FPP()
				sigma := math.Sqrt(pred * (1 - pred) / float64(q))
				// The spread of the rate across filters of this size (the
				// keys' random placement), from the same model.
				mean, sq := fprMoments(f.Blocks(), f.K(), n, nil)
				spread := math.Sqrt(max(0, sq-mean*mean) / float64(f.Blocks()))
				if pred > fpp {
					t.Errorf("predicted %v > fpp", pred)
				}
				if fprBound(f.Blocks()-1, f.K(), n) <= fpp {
					t.Errorf("one block fewer also meets fpp: not minimal")
				}
				if d := math.Abs(got - pred); d > 0.1*pred && d > 3*math.Hypot(sigma, spread) {
					t.Errorf("measured %v, predicted %v: off by more than 10%% and 3 sigma", got, pred)
				}
				if got > fpp+3*sigma {
					t.Errorf("measured %v > fpp %v (+3 sigma = %v)", got, fpp, 3*sigma)
				}
				if math.Abs(got-now) > 4*sigma+0.01*now {
					t.Errorf("measured %v, FPP() %v", got, now)
				}
				rows = append(rows, row{fpp, n, float64(f.Bits()) / float64(n), f.K(), pred, got, now, -math.Log2(fpp) / math.Ln2, spread / mean})
			})
		}
	}
	t.Logf("%-7s %-8s %-9s %-3s %-11s %-11s %-9s %-11s %-8s %s", "fpp", "n", "bits/key", "k", "predicted", "measured", "meas/pred", "FPP()", "spread", "classic bits/key")
	for _, r := range rows {
		t.Logf("%-7g %-8d %-9.3f %-3d %-11.5g %-11.5g %-9.4f %-11.5g %-8.4f %.3f", r.fpp, r.n, r.bitsPerKey, r.k, r.predicted, r.measured, r.measured/r.predicted, r.fill, r.spread, r.classicPerKey)
	}
}

// TestOptimalK checks that New's choice is the best over every k: no other
// k meets the bound with fewer blocks.
func TestOptimalK(t *testing.T) {
	for _, fpp := range []float64{0.5, 0.1, 0.01, 1e-3, 1e-5, 1e-8} {
		for _, n := range []uint64{1, 100, 1e5} {
			blocks, k, err := optimalBlocks(n, fpp)
			if err != nil {
				t.Fatal(err)
			}
			if fprBound(blocks, k, n) > fpp {
				t.Errorf("fpp=%g n=%d: chosen size misses the bound", fpp, n)
			}
			for kk := 1; kk <= MaxK; kk++ {
				if blocks > 1 && fprBound(blocks-1, kk, n) <= fpp {
					t.Errorf("fpp=%g n=%d: k=%d meets the bound with %d blocks < %d", fpp, n, kk, blocks-1, blocks)
				}
			}
		}
	}
}

// TestFalsePositiveRateModel checks the formula's pieces against direct
// computation: a single block of exact load, monotonicity, and edge cases.
func TestFalsePositiveRateModel(t *testing.T) {
	if !math.IsNaN(FalsePositiveRate(0, 3, 10)) || !math.IsNaN(FalsePositiveRate(512, 0, 10)) ||
		!math.IsNaN(FalsePositiveRate(512, 17, 10)) || !math.IsNaN(FalsePositiveRate(MaxBits+1, 3, 10)) {
		t.Fatal("invalid arguments must give NaN")
	}
	if FalsePositiveRate(512, 3, 0) != 0 {
		t.Fatal("empty filter must have rate 0")
	}
	// One block, one key, k = 1: the query's single bit is set with 1/64.
	if got := FalsePositiveRate(512, 1, 1); math.Abs(got-1.0/64) > 1e-9 {
		t.Fatalf("1 block, 1 key, k=1: %v, want 1/64", got)
	}
	// k = 9 puts two probes in word 0: with one stored key the chance that
	// both query bits are among the stored key's (at most 2) bits is
	// computed here by enumeration over the 64^2 x 64^2 positions.
	var hitsW0 float64
	for a := 0; a < 64; a++ {
		for b := 0; b < 64; b++ {
			for c := 0; c < 64; c++ {
				for d := 0; d < 64; d++ {
					if (c == a || c == b) && (d == a || d == b) {
						hitsW0++
					}
				}
			}
		}
	}
	want := hitsW0 / (1 << 24) * math.Pow(1.0/64, 7)
	want += (1 - want) * 0x1p-32
	if got := FalsePositiveRate(512, 9, 1); math.Abs(got-want) > 1e-9*want {
		t.Fatalf("1 block, 1 key, k=9: %v, want %v", got, want)
	}
	prev := 0.0
	for n := uint64(1); n < 1e6; n *= 3 {
		r := FalsePositiveRate(1<<20, 7, n)
		if r <= prev || r > 1 {
			t.Fatalf("rate not increasing in n: %v after %v", r, prev)
		}
		prev = r
	}
	// Huge n and a tiny filter: every bit set, rate 1 (no overflow, no NaN).
	if r := FalsePositiveRate(512, 8, math.MaxUint64); r != 1 {
		t.Fatalf("saturated: %v", r)
	}
	if r := FalsePositiveRate(MaxBits, 16, 1<<40); !(r > 0 && r < 1) {
		t.Fatalf("largest filter: %v", r)
	}
}

// TestExtremes: huge key counts and loads neither hang nor overflow.
func TestExtremes(t *testing.T) {
	start := time.Now()
	for _, n := range []uint64{1 << 40, 1 << 62, math.MaxUint64} {
		if _, err := New(n, 0.01); !errors.Is(err, ErrTooLarge) {
			t.Errorf("New(%d): %v", n, err)
		}
		for _, bits := range []uint64{512, 1024, 1 << 20, MaxBits} {
			r := FalsePositiveRate(bits, 8, n)
			if !(r > 0 && r <= 1) {
				t.Errorf("FalsePositiveRate(%d, 8, %d) = %v", bits, n, r)
			}
		}
	}
	if _, _, err := OptimalSize(1<<35, 0.5); err != nil {
		t.Errorf("OptimalSize(2^35, 0.5): %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("extremes took %v", d)
	}
}

// TestRateMessages: refusals name the rate asked for as given (%.3g
// rounded 0.999999 to "1", and a rate just below MinFPP to MinFPP itself:
// "1e-08 is below MinFPP = 1e-08").
func TestRateMessages(t *testing.T) {
	_, err := New(4.6e18, 0.999999)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "rate of 0.999999 ") {
		t.Errorf("New(4.6e18, 0.999999): %v", err)
	}
	p := MinFPP * (1 - 1e-6)
	_, err = New(1000, p)
	if want := "rate " + strconv.FormatFloat(p, 'g', -1, 64) + " is below MinFPP"; !errors.Is(err, ErrFPPTooLow) || !strings.Contains(err.Error(), want) {
		t.Errorf("New(1000, %v): %v, want %q", p, err, want)
	}
}
