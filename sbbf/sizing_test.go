package sbbf

import (
	"errors"
	"math"
	"testing"
)

// TestSpecExamples checks the false-positive predictor against
// the figures of parquet-format's BloomFilter.md ("Sizing an SBBF"): its
// worked example of 1024 blocks and its table of bits per insert, which
// the specification's authors measured. The predictor must land on each
// figure to the precision the text gives.
func TestSpecExamples(t *testing.T) {
	for _, c := range []struct {
		n        uint64
		fpr, tol float64
	}{
		{26214, 0.0126, 0.00005}, // "around 1.26%"
		{52428, 0.18, 0.005},     // "18%"
		{13107, 0.0004, 0.00005}, // "0.04%"
	} {
		if got := FalsePositiveRate(1024*32, c.n); math.Abs(got-c.fpr) > c.tol {
			t.Errorf("1024 blocks, %d values: %.5f, the specification says %v", c.n, got, c.fpr)
		}
	}
	const n = 1 << 22
	for _, c := range []struct{ bitsPerValue, fpr float64 }{
		{6.0, 0.10}, {10.5, 0.01}, {16.9, 0.001}, {26.4, 0.0001}, {41, 0.00001},
	} {
		got := FalsePositiveRate(uint64(c.bitsPerValue*n/8), n)
		if math.Abs(got-c.fpr)/c.fpr > 0.02 {
			t.Errorf("%.1f bits per value: %.3g, the specification's table says %v", c.bitsPerValue, got, c.fpr)
		}
	}
	if !math.IsNaN(FalsePositiveRate(0, 10)) || FalsePositiveRate(64, 0) != 0 {
		t.Error("edge cases")
	}
}

// TestParquetSize: the rule Arrow C++ and arrow-go apply (the
// comparison with arrow-go itself is in the interop module).
func TestParquetSize(t *testing.T) {
	for _, c := range []struct {
		n    uint64
		fpp  float64
		want uint64
	}{
		{0, 0.01, 32}, {1, 0.5, 32}, {10, 0.01, 32}, {100, 0.01, 128}, {1000, 0.01, 2048},
		{1e6, 0.01, 2 << 20}, {1e6, 0.001, 2 << 20}, {1e6, 0.1, 1 << 20}, {1e9, 0.01, ParquetMaxBytes}, {1 << 62, 1e-9, ParquetMaxBytes},
		{0, 1e-300, 32},              // 1 - fpp^(1/8) is 1: 0/0, NaN, which arrow-go's uint32 conversion makes 0
		{5, 1e-300, ParquetMaxBytes}, // -40/0: -Inf, a negative estimate
	} {
		got, err := ParquetSize(c.n, c.fpp)
		if err != nil || got != c.want {
			t.Errorf("ParquetSize(%d, %v) = %d, %v; want %d", c.n, c.fpp, got, err, c.want)
		}
		// Arrow C++ reads only a power of two from 32 bytes to 128 MiB.
		if got&(got-1) != 0 || got < BlockBytes || got > ParquetMaxBytes {
			t.Errorf("ParquetSize(%d, %v) = %d, not a power of two from 32 bytes to ParquetMaxBytes", c.n, c.fpp, got)
		}
	}
}

// TestParquetSizeLogBoundary: at (n, fpp) where the estimate lands just
// above a power of two in bits, ln(1 - x) computed as math.Log(1 - x), as
// Arrow C++ and arrow-go compute it, and as math.Log1p(-x) differ in the
// last bit, and the power-of-two rounding turns that into a factor of two:
// ParquetSize must take Arrow's side. The sizes are arrow-go v18.8.0's
// (the interop module's TestParquetSizeArrowBoundary asks arrow-go
// itself).
func TestParquetSizeLogBoundary(t *testing.T) {
	for _, c := range []struct {
		n    uint64
		fpp  float64
		want uint64
	}{
		{999999, 0.00042801642562587014, 2 << 20},
		{5000000, 0.0016522716348272405, 8 << 20},
		{1000000, 4.0998711832176101e-06, 4 << 20},
		{12345, 7.5506911982857407e-07, 128 << 10},
	} {
		got, err := ParquetSize(c.n, c.fpp)
		if err != nil || got != c.want {
			t.Errorf("ParquetSize(%d, %.17g) = %d, %v; Arrow C++ and arrow-go choose %d", c.n, c.fpp, got, err, c.want)
		}
		// The cases are boundary cases: log1p's estimate rounds the other
		// way.
		if alt := ceilPow2(max(uint64(specBits(c.n, c.fpp)), BlockBytes*8)) / 8; alt == c.want {
			t.Errorf("n=%d fpp=%.17g: the log1p estimate gives %d as well; not a boundary case", c.n, c.fpp, alt)
		}
	}
}

// TestParquetMRSize: parquet-mr's sizing (parquet-java's
// BlockSplitBloomFilter.optimalNumOfBits, the writer's division by 8 and
// initBitset's rounding and cap), worked by hand from the estimate's bit
// counts: 968 bits at n = 100, fpp = 0.01 (1223 after the rounding, 152
// bytes, 256 as a power of two; Arrow's 1024 bits make 128), 288 at 50 and
// 0.1, 8145 at 1411 and 0.1, 9681526 at 1e6 and 0.01.
func TestParquetMRSize(t *testing.T) {
	for _, c := range []struct {
		n        uint64
		fpp      float64
		maxBytes uint64
		want     uint64
	}{
		{0, 0.01, ParquetMRDefaultMaxBytes, 32},
		{10, 0.01, ParquetMRDefaultMaxBytes, 32},
		{100, 0.01, ParquetMRDefaultMaxBytes, 256},
		{50, 0.1, ParquetMRDefaultMaxBytes, 128},
		{1411, 0.1, ParquetMRDefaultMaxBytes, 2048},
		{1000, 0.01, ParquetMRDefaultMaxBytes, 2048},
		{1e6, 0.01, ParquetMRDefaultMaxBytes, 1 << 20}, // capped: 2 MiB uncapped
		{1e6, 0.01, 32, 2 << 20},                       // maxBytes 32 or from 128 MiB: 128 MiB
		{1e6, 0.01, ParquetMaxBytes, 2 << 20},
		{1e6, 0.01, 1 << 40, 2 << 20},
		{1e6, 0.01, 1e6, 1e6}, // a cap that is no power of two is kept
		{1e9, 0.01, ParquetMaxBytes, ParquetMaxBytes},
		{1 << 59, 1e-9, ParquetMaxBytes, ParquetMaxBytes},
		{1 << 62, 1e-9, ParquetMaxBytes, 32},                    // -8n wraps to 0 in parquet-mr's long
		{math.MaxInt64, 0.01, ParquetMaxBytes, ParquetMaxBytes}, // -8n wraps to 8: a negative estimate, taken as 2^30 bits
		{0, 1e-300, ParquetMaxBytes, 32},                        // 1 - fpp^(1/8) is 1: 0/0, NaN, which Java's (int) makes 0
		{5, 1e-300, ParquetMaxBytes, ParquetMaxBytes},           // -40/0: -Inf, a negative estimate
	} {
		got, err := ParquetMRSize(c.n, c.fpp, c.maxBytes)
		if err != nil || got != c.want {
			t.Errorf("ParquetMRSize(%d, %v, %d) = %d, %v; want %d", c.n, c.fpp, c.maxBytes, got, err, c.want)
		}
	}
	if _, err := ParquetMRSize(1e6, 0.01, 1e6+1); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("a cap of %d bytes, not whole blocks: %v", int(1e6+1), err)
	}
	for _, m := range []uint64{0, 1, 31} {
		if _, err := ParquetMRSize(100, 0.01, m); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("maxBytes %d, below parquet-mr's minimum: %v", m, err)
		}
	}
	for _, fpp := range []float64{0, 1, -0.5, math.NaN(), math.Inf(1)} {
		if _, err := ParquetMRSize(100, fpp, ParquetMaxBytes); !errors.Is(err, ErrInvalidFPP) {
			t.Errorf("ParquetMRSize(100, %v): %v", fpp, err)
		}
	}
	// Uncapped, parquet-mr's size is a power of two from 32 bytes, and
	// Arrow's (ParquetSize) or twice it (the 255 bits added push it past
	// a power of two), or half of it where clearing the 256 bit rounds
	// down across one: never anything else.
	var twice, half int
	for n := uint64(1); n < 1e7; n = n*5/4 + 1 {
		for _, fpp := range []float64{0.3, 0.1, 0.05, 0.01, 0.001, 1e-4} {
			mr, err := ParquetMRSize(n, fpp, ParquetMaxBytes)
			if err != nil {
				t.Fatal(err)
			}
			arrow, _ := ParquetSize(n, fpp)
			switch {
			case mr < 32 || mr&(mr-1) != 0:
				t.Fatalf("ParquetMRSize(%d, %v) = %d, not a power of two from 32", n, fpp, mr)
			case mr == 2*arrow:
				twice++
			case 2*mr == arrow:
				half++
			case mr != arrow:
				t.Fatalf("ParquetMRSize(%d, %v) = %d against ParquetSize's %d", n, fpp, mr, arrow)
			}
		}
	}
	if twice == 0 {
		t.Error("parquet-mr's size was never twice Arrow's in the sweep")
	}
	t.Logf("sweep: twice Arrow's size %d times, half %d times", twice, half)
}

// TestOptimalIsLeast: one block fewer than OptimalSize
// breaks the bound, and the size is within a few percent of the
// specification's estimate where that estimate is accurate.
func TestOptimalIsLeast(t *testing.T) {
	for _, n := range []uint64{1, 100, 1e4, 1e6, 1e8} {
		for _, fpp := range []float64{0.1, 0.01, 0.001, 1e-4, 1e-6} {
			size, err := OptimalSize(n, fpp)
			if err != nil {
				t.Fatal(err)
			}
			blocks := size / BlockBytes
			if fprBound(blocks, n) > fpp || blocks > 1 && fprBound(blocks-1, n) <= fpp {
				t.Errorf("n=%d fpp=%v: %d blocks is not the least meeting the bound", n, fpp, blocks)
			}
		}
	}
}

// measureFPR returns the share of q absent INT64 values (from 2^40 on)
// the filter reports present.
func measureFPR(f *Filter, q int) float64 {
	const chunk = 1 << 14
	hs := make([]uint64, chunk)
	out := make([]bool, chunk)
	hits := 0
	for done := 0; done < q; done += chunk {
		c := min(chunk, q-done)
		for i := range hs[:c] {
			hs[i] = HashInt64(1<<40 + int64(done+i))
		}
		hits += f.ContainsHashes(hs[:c], out)
	}
	return float64(hits) / float64(q)
}

// fillKeys adds the INT64 values 0..n-1.
func fillKeys(f *Filter, n uint64) {
	const chunk = 1 << 14
	hs := make([]uint64, chunk)
	for done := uint64(0); done < n; done += chunk {
		c := min(chunk, n-done)
		for i := range hs[:c] {
			hs[i] = HashInt64(int64(done + uint64(i)))
		}
		f.AddHashes(hs[:c])
	}
}

// checkMeasured fails unless measured (over q absent keys) is within 10%
// of predicted, or within three standard deviations of the sampling noise
// and of the filter-to-filter spread (spreadSD) where those are wider.
func checkMeasured(t *testing.T, what string, measured, predicted, spreadSD float64, q int) {
	t.Helper()
	noise := math.Sqrt(predicted * (1 - predicted) / float64(q))
	if d := math.Abs(measured - predicted); d > 0.1*predicted && d > 3*math.Hypot(noise, spreadSD) {
		t.Errorf("%s: measured %.5g, predicted %.5g (sampling sd %.2g, spread sd %.2g)", what, measured, predicted, noise, spreadSD)
	}
}

// TestSizingStatistical builds New filters, adds n
// distinct values, and measures the false-positive rate over absent ones:
// it must agree with the predictor and stay at most fpp (up to the
// sampling noise). Seeded and deterministic; -short measures fewer keys.
func TestSizingStatistical(t *testing.T) {
	ns, q := []uint64{1e4, 1e5, 1e6}, 4<<20
	if testing.Short() {
		ns, q = []uint64{1e4, 1e5}, 1<<20
	}
	for _, n := range ns {
		for _, fpp := range []float64{0.1, 0.01, 0.001} {
			f, err := New(n, fpp)
			if err != nil {
				t.Fatal(err)
			}
			fillKeys(f, n)
			measured := measureFPR(f, q)
			mean, sq := momentsOf(f.Blocks(), n)
			spread := math.Sqrt(max(0, sq-mean*mean) / float64(f.Blocks()))
			checkMeasured(t, "n="+itoa(n)+" fpp="+ftoa(fpp), measured, mean, spread, q)
			if noise := math.Sqrt(fpp * (1 - fpp) / float64(q)); measured > fpp+3*noise {
				t.Errorf("n=%d fpp=%v: measured %.5g exceeds the target", n, fpp, measured)
			}
			t.Logf("n=%-8d fpp=%-6v %6.2f bits/value  predicted %.5f  measured %.5f  FPP() %.5f", n, fpp, float64(f.NumBytes()*8)/float64(n), mean, measured, f.FPP())
			f.Close()
		}
	}
}

// TestFoldStatistical: build at the Parquet size for 16 times the
// keys, add n values, fold to a target, and measure: the folded filter's
// rate agrees with the predictor for its size and meets the target.
func TestFoldStatistical(t *testing.T) {
	ns, q := []uint64{3e4, 3e5}, 4<<20
	if testing.Short() {
		ns, q = []uint64{3e4}, 1<<20
	}
	for _, n := range ns {
		for _, target := range []float64{0.05, 0.01, 0.002} {
			size, _ := ParquetSize(16*n, target)
			f, err := NewWithSize(size)
			if err != nil {
				t.Fatal(err)
			}
			fillKeys(f, n)
			times, err := f.Fold(target)
			if err != nil {
				t.Fatal(err)
			}
			measured := measureFPR(f, q)
			mean, sq := momentsOf(f.Blocks(), n)
			spread := math.Sqrt(max(0, sq-mean*mean) / float64(f.Blocks()))
			checkMeasured(t, "fold n="+itoa(n)+" target="+ftoa(target), measured, mean, spread, q)
			if noise := math.Sqrt(target * (1 - target) / float64(q)); measured > target+3*noise {
				t.Errorf("fold n=%d target=%v: measured %.5g exceeds the target", n, target, measured)
			}
			t.Logf("n=%-7d target=%-6v %8d -> %7d bytes (%d folds, %.2f bits/value)  predicted %.5f  measured %.5f", n, target, size, f.NumBytes(), times, float64(f.NumBytes()*8)/float64(n), mean, measured)
			f.Close()
		}
	}
}

func itoa(n uint64) string { return ftoa(float64(n)) }
