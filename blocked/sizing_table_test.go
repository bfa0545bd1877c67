package blocked

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"
	"time"
)

// TestSizingTable prints the sizing table of the package documentation
// ("Supported rates"): for fpp from 1e-1 to 1e-12 at n = 10^6, the bits
// per key and k New chooses (below MinFPP, what it would choose without the
// limit), FalsePositiveRate's prediction, the rate measured on absent keys
// where the sample holds at least about 20 expected false positives within
// the probe budget, and the classic optimum. It takes minutes, so it runs
// only when SIFT_SIZING_TABLE is set; SIFT_SIZING_PROBES sets the budget
// per row (default 2e9 absent keys):
//
//	SIFT_SIZING_TABLE=1 go test ./blocked -run TestSizingTable -v -timeout 1h
func TestSizingTable(t *testing.T) {
	if os.Getenv("SIFT_SIZING_TABLE") == "" {
		t.Skip("set SIFT_SIZING_TABLE=1 to measure the sizing table")
	}
	budget := 2e9
	if s := os.Getenv("SIFT_SIZING_PROBES"); s != "" {
		b, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		budget = b
	}
	const n = 1e6
	t.Logf("%-8s %9s %3s %10s %22s %9s %6s", "fpp", "bits/key", "k", "predicted", "measured (probes)", "classic", "ratio")
	for e := 1; e <= 12; e++ {
		fpp := math.Pow(10, -float64(e))
		blocks, k, err := searchBlocks(n, fpp)
		if err != nil {
			t.Logf("%-8g %v", fpp, err)
			continue
		}
		bits := blocks * BlockBits
		pred := FalsePositiveRate(bits, k, n)
		classic := classicBitsPerKey(fpp)
		measured := "-"
		if 20/fpp <= budget {
			q := min(max(1e7, 2000/fpp), budget)
			start := time.Now()
			f := mustNewSize(t, bits, k, WithSeed(uint64(e)))
			fill(f, n)
			got := measureFPR(f, int(q))
			f.Close()
			measured = fmt.Sprintf("%.3g (%.0e, %s)", got, q, time.Since(start).Round(time.Second))
		}
		note := ""
		if fpp < MinFPP {
			note = " (refused: below MinFPP)"
		}
		t.Logf("%-8g %9.2f %3d %10.3g %22s %9.2f %6.2f%s", fpp, float64(bits)/n, k, pred, measured, classic, float64(bits)/n/classic, note)
	}
}
