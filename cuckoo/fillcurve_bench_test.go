package cuckoo

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// now returns the thread's CPU time, or else the wall-clock time, as a
// duration from an arbitrary origin.
func now() time.Duration {
	if t, ok := threadCPU(); ok {
		return t
	}
	return time.Duration(time.Now().UnixNano())
}

// fillBands are the load bands of BenchmarkFillCurve: the cost of an insert
// rises with the load, slowly to about 0.8 and steeply beyond, where more
// inserts find both buckets full and relocate.
var fillBands = []float64{0, 0.24, 0.47, 0.76, 0.85, 0.90, 0.95}

// BenchmarkFillCurve fills a 16-bit filter made by New(n) from empty to 95%
// load, one key at a time with AddHash (call=single) or with AddHashes over
// each band's keys (call=batch), and reports the cost per key in each load
// band as the metric ns/key@lo-hi (the whole fill is ns/key). The time is
// the benchmarking thread's CPU time where the system has that clock
// (Linux), which other processes on a busy machine disturb less than the
// wall-clock time used elsewhere.
//
//	go test -run '^$' -bench FillCurve -count 5 ./cuckoo
//
// n = 1e7 runs only without -short.
func BenchmarkFillCurve(b *testing.B) {
	caps := []uint64{1e6, 1e7}
	if testing.Short() {
		caps = caps[:1]
	}
	for _, c := range caps {
		for _, call := range []string{"single", "batch"} {
			b.Run(fmt.Sprintf("n=%.0e/fpbits=16/call=%s", float64(c), call), func(b *testing.B) {
				fillCurve(b, c, call == "batch")
			})
		}
	}
}

func fillCurve(b *testing.B, capacity uint64, batch bool) {
	f, err := New(capacity)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	ends := make([]int, len(fillBands))
	for k, l := range fillBands {
		ends[k] = int(l * float64(f.Capacity()))
	}
	hs := make([]uint64, ends[len(ends)-1])
	for i := range hs {
		hs[i] = f.HashUint64(uint64(i))
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	spent := make([]time.Duration, len(fillBands)-1)
	for b.Loop() {
		f.Reset()
		for k := range spent {
			band := hs[ends[k]:ends[k+1]]
			start := now()
			if batch {
				if n, err := f.AddHashes(band); err != nil {
					b.Fatalf("full after %d: %v", ends[k]+n, err)
				}
			} else {
				for _, h := range band {
					if err := f.AddHash(h); err != nil {
						b.Fatal(err)
					}
				}
			}
			spent[k] += now() - start
		}
	}
	var total time.Duration
	for k, d := range spent {
		total += d
		keys := float64(b.N * (ends[k+1] - ends[k]))
		b.ReportMetric(float64(d.Nanoseconds())/keys, fmt.Sprintf("ns/key@%.2f-%.2f", fillBands[k], fillBands[k+1]))
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N*len(hs)), "ns/key")
}
