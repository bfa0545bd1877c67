//go:build linux

package reload_test

import (
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sift-go/sift/reload"
	"golang.org/x/sys/unix"
)

// threadCPU returns the calling thread's CPU time (user and system).
func threadCPU() time.Duration {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// TestCPUTimeReport compares serving a copy (the default) with serving a
// mapping (WithMmap), side by side in one process, in thread CPU time
// (CLOCK_THREAD_CPUTIME_ID: time the thread spends descheduled on a
// shared, overloaded machine does not count; cache and memory contention
// from other processes still does), medians of interleaved rounds:
//
//   - open: reading (or mapping) and checking a 256 MiB file in the page
//     cache, s/GiB, in CPU time and wall time, and the anonymous memory the
//     open Filter holds;
//   - lookup: ContainsString through the Filter on filters of 256 KiB and
//     1 MiB (in cache), 32 MiB and 256 MiB (cache and TLB misses), for the
//     copy, the mapping, and
//     the mapping with each lookup wrapped to contain a fault
//     (debug.SetPanicOnFault and recover: containedContains).
//
// Run it with
//
//	SIFT_CPUTIME_REPORT=1 go test -run CPUTimeReport -v ./reload
func TestCPUTimeReport(t *testing.T) {
	if os.Getenv("SIFT_CPUTIME_REPORT") == "" {
		t.Skip("set SIFT_CPUTIME_REPORT=1 to run")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const big = 256 << 20
	path := bigFileT(t, big, 100_000)

	// Open.
	variants := []string{"copy", "mmap"}
	cpu := map[string][]float64{}
	wall := map[string][]float64{}
	private := map[string]int64{}
	for range 7 {
		for _, m := range variants {
			opts := []reload.Option{reload.WithInterval(0)}
			if m == "mmap" {
				opts = append(opts, reload.WithMmap())
			}
			runtime.GC()
			before := rssAnon()
			c0, w0 := threadCPU(), time.Now()
			f, err := reload.Open(path, opts...)
			c1, w1 := threadCPU(), time.Now()
			if err != nil {
				t.Fatal(err)
			}
			private[m] = rssAnon() - before
			f.Close()
			perGiB := float64(1<<30) / big
			cpu[m] = append(cpu[m], (c1-c0).Seconds()*perGiB)
			wall[m] = append(wall[m], w1.Sub(w0).Seconds()*perGiB)
		}
	}
	for _, m := range variants {
		t.Logf("open mem=%s: %.3f s/GiB CPU, %.3f s/GiB wall, %d MiB private memory", m, median(cpu[m]), median(wall[m]), private[m]>>20)
	}

	// Lookups.
	keys := make([]string, 1<<16)
	for i := range keys {
		keys[i] = "k-" + strconv.Itoa(i*7919%200_000) // half present
	}
	for _, size := range []uint64{256 << 10, 1 << 20, 32 << 20, big} {
		p := path
		if size != big {
			p = bigFileT(t, size, 100_000)
		}
		cp, err := reload.Open(p, reload.WithInterval(0))
		if err != nil {
			t.Fatal(err)
		}
		mp, err := reload.Open(p, reload.WithInterval(0), reload.WithMmap())
		if err != nil {
			t.Fatal(err)
		}
		look := map[string]func(string) bool{
			"copy":           cp.ContainsString,
			"mmap":           mp.ContainsString,
			"mmap-contained": func(k string) bool { ok, _ := containedContains(mp, k); return ok },
		}
		names := []string{"copy", "mmap", "mmap-contained"}
		ns := map[string][]float64{}
		const n = 1 << 18
		for round := range 12 {
			if round%2 == 1 {
				slices.Reverse(names) // no variant always runs after the same one
			}
			for _, name := range names {
				fn := look[name]
				hits := 0
				c0 := threadCPU()
				for i := range n {
					if fn(keys[i&(1<<16-1)]) {
						hits++
					}
				}
				ns[name] = append(ns[name], float64(threadCPU()-c0)/n)
				sink = hits
			}
		}
		m := map[string]float64{}
		for _, name := range names {
			m[name] = median(ns[name])
		}
		t.Logf("lookup size=%dKiB: copy %.1f ns, mmap %.1f ns (copy/mmap %.3f), mmap-contained %.1f ns (+%.1f ns, %.3fx)",
			size>>10, m["copy"], m["mmap"], m["copy"]/m["mmap"], m["mmap-contained"], m["mmap-contained"]-m["mmap"], m["mmap-contained"]/m["mmap"])
		cp.Close()
		mp.Close()
	}
}
