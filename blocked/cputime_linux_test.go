//go:build linux

package blocked

import (
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/mem"
	"golang.org/x/sys/unix"
)

// TestCPUTimeReport measures what the benchmarks measure, but in thread
// CPU time (CLOCK_THREAD_CPUTIME_ID) rather than wall time, so that on a
// shared, overloaded machine the time the thread spends descheduled does
// not count; the median of 7 runs is reported. Memory and cache contention
// from other processes still show. Run it with
//
//	SIFT_CPUTIME_REPORT=1 go test -run CPUTimeReport -v ./blocked
func TestCPUTimeReport(t *testing.T) {
	if os.Getenv("SIFT_CPUTIME_REPORT") == "" {
		t.Skip("set SIFT_CPUTIME_REPORT=1 to run")
	}
	cpuNS := func(iters int, fn func(n int) int) float64 {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var r []float64
		for range 7 {
			var a, b unix.Timespec
			unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &a)
			fn(iters)
			unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &b)
			r = append(r, float64(b.Nano()-a.Nano())/float64(iters))
		}
		slices.Sort(r)
		return r[len(r)/2]
	}
	const iters, batch = 1 << 21, 1024
	lookups := func(f *Filter, hs []uint64) float64 {
		return cpuNS(iters, func(m int) int {
			c := 0
			for i := range m {
				if f.ContainsHash(hs[i&(poolSize-1)]) {
					c++
				}
			}
			return c
		})
	}
	batches := func(f *Filter, hs []uint64) float64 {
		out := make([]bool, batch)
		return cpuNS(iters/batch, func(m int) int {
			c := 0
			for i := range m {
				off := (i * batch) & (poolSize - 1)
				c += f.ContainsHashes(hs[off:off+batch], out)
			}
			return c
		}) / batch
	}
	for _, s := range benchSizes {
		if s.n > 1e7 && testing.Short() {
			continue
		}
		f := benchFilter(t, s.n)
		hs := lookupPool(s.n)
		g, _ := New(s.n, 0.01)
		g.Reset()
		add := cpuNS(iters, func(m int) int {
			for i := range m {
				g.AddHash(hs[i&(poolSize-1)])
			}
			return 0
		})
		addBatch := cpuNS(iters/batch, func(m int) int {
			for i := range m {
				off := (i * batch) & (poolSize - 1)
				g.AddHashes(hs[off : off+batch])
			}
			return 0
		}) / batch
		g.Close()
		line := ""
		for _, impl := range kernel.Impls() {
			restore, _ := kernel.SetImpl(impl)
			line += " " + impl + ": " + ftoa(batches(f, hs))
			restore()
		}
		t.Logf("n=%s: ContainsHash %s ns, ContainsHashes ns/key%s; AddHash %s ns, AddHashes %s ns/key",
			s.name, ftoa(lookups(f, hs)), line, ftoa(add), ftoa(addBatch))
		if s.n == 1e8 {
			heap := &Filter{}
			heap.setWords(mem.AlignedWords(len(f.words)), &mem.Region{}, f.t.K, f.seed)
			copy(heap.words, f.words)
			for range 3 {
				t.Logf("n=1e8 huge pages (mapped %v): ContainsHash %s ns, ContainsHashes %s ns/key; heap: %s ns, %s ns/key",
					f.region.Mapped(), ftoa(lookups(f, hs)), ftoa(batches(f, hs)), ftoa(lookups(heap, hs)), ftoa(batches(heap, hs)))
			}
		}
	}
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
