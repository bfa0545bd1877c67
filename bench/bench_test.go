package bench

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	flagLarge  = flag.Bool("sift.large", false, "also run n = 1e8 (needs ~4 GB of memory)")
	flagSizes  = flag.String("sift.n", "", "comma-separated key counts, e.g. 1e5,1e6 (default 1e5,1e6,1e7; 1e5 with -short)")
	flagFPPs   = flag.String("sift.fpp", "0.01,0.001", "comma-separated target false-positive rates")
	flagFilter = flag.String("sift.filter", "", "regexp: only filters whose name matches")
	flagList   = flag.Bool("sift.list", false, "print every benchmark case this configuration runs, one per line, and exit")
)

// chunk is how many keys one benchmark iteration looks up: enough for a
// batch call to stream, small enough for -benchtime=1x to be quick.
const chunk = 4096

func TestMain(m *testing.M) {
	flag.Parse()
	if *flagList {
		for _, name := range Plan() {
			fmt.Println(name)
		}
		os.Exit(0)
	}
	// The first LockOSThread of a process allocates (the runtime starts its
	// template thread); do it here so that no benchmark is charged for it.
	warm := startCPUClock()
	warm.stop()
	os.Exit(m.Run())
}

// formatN writes 100000 as 1e5 (benchmark keys stay short and sortable).
func formatN(n int) string {
	s := strconv.Itoa(n)
	t := strings.TrimRight(s, "0")
	if t == "1" {
		return fmt.Sprintf("1e%d", len(s)-1)
	}
	return s
}

func parseN(s string) (int, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f < 1 || f > 1e9 {
		return 0, fmt.Errorf("bad key count %q", s)
	}
	return int(f), nil
}

// sizes returns the key counts this run covers.
func sizes() []int {
	if *flagSizes != "" {
		var out []int
		for _, s := range strings.Split(*flagSizes, ",") {
			n, err := parseN(s)
			if err != nil {
				panic(err)
			}
			out = append(out, n)
		}
		return out
	}
	if testing.Short() {
		return []int{1e5}
	}
	out := []int{1e5, 1e6, 1e7}
	if *flagLarge {
		out = append(out, 1e8)
	}
	return out
}

func fpps() []float64 {
	var out []float64
	for _, s := range strings.Split(*flagFPPs, ",") {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || f <= 0 || f >= 1 {
			panic(fmt.Sprintf("bad -sift.fpp value %q", s))
		}
		out = append(out, f)
	}
	return out
}

func formatFPP(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// caseSpec is one filter that takes part at a given fpp.
type caseSpec struct {
	Spec
	batch       bool // implements Batcher
	batchInsert bool // implements BatchInserter
}

// specsFor returns the filters that can be sized for fpp, probing each
// with a tiny instance.
func specsFor(fpp float64) []caseSpec {
	var re *regexp.Regexp
	if *flagFilter != "" {
		re = regexp.MustCompile(*flagFilter)
	}
	var out []caseSpec
	for _, s := range Specs() {
		if re != nil && !re.MatchString(s.Name) {
			continue
		}
		f, err := s.New(1000, fpp)
		if errors.Is(err, ErrUnsupported) {
			continue
		}
		if err != nil {
			panic(fmt.Sprintf("%s: New(1000, %g): %v", s.Name, fpp, err))
		}
		_, batch := f.(Batcher)
		_, batchInsert := f.(BatchInserter)
		out = append(out, caseSpec{Spec: s, batch: batch, batchInsert: batchInsert})
		closeFilter(f)
	}
	return out
}

// probes are BenchmarkMemory's cases at each size: prefetchD is the
// prefetch probe D keys ahead, for every D of PrefetchDistances.
var probes = func() []string {
	out := []string{"chain", "random"}
	for _, d := range PrefetchDistances {
		out = append(out, fmt.Sprintf("prefetch%d", d))
	}
	return append(out, "call")
}()

// Plan lists every leaf benchmark this configuration runs, as go test
// names them (without the -GOMAXPROCS suffix), in run order.
func Plan() []string {
	var out []string
	out = append(out, "BenchmarkHash/hash=xxh3")
	for _, n := range sizes() {
		for _, fpp := range fpps() {
			for _, p := range probes {
				out = append(out, fmt.Sprintf("BenchmarkMemory/n=%s/fpp=%s/probe=%s", formatN(n), formatFPP(fpp), p))
			}
		}
	}
	for _, n := range sizes() {
		for _, fpp := range fpps() {
			for _, s := range specsFor(fpp) {
				prefix := fmt.Sprintf("BenchmarkInsert/n=%s/fpp=%s/filter=%s", formatN(n), formatFPP(fpp), s.Name)
				out = append(out, prefix+"/mode=loop")
				if s.batchInsert {
					out = append(out, prefix+"/mode=batch")
				}
			}
		}
	}
	for _, n := range sizes() {
		for _, fpp := range fpps() {
			for _, s := range specsFor(fpp) {
				for _, keys := range []string{"present", "absent"} {
					prefix := fmt.Sprintf("BenchmarkContains/n=%s/fpp=%s/filter=%s/keys=%s", formatN(n), formatFPP(fpp), s.Name, keys)
					out = append(out, prefix+"/mode=loop")
					if s.batch {
						out = append(out, prefix+"/mode=batch")
					}
				}
			}
		}
	}
	return out
}

// The key sets of the current n, kept between benchmark functions and
// replaced when n changes so that at most one size is in memory.
var (
	cachedN       int
	cachedPresent *Keys
	cachedAbsent  *Keys
	cachedFilters = map[string]*builtFilter{}
)

type builtFilter struct {
	f   Filter
	fpr float64
}

// absentLen is how many absent keys measure the FPR and feed the absent
// lookups: at least 1e6 (enough false positives at 0.1% to be within a
// few percent), at most 1e7 (memory at n = 1e8).
func absentLen(n int) int {
	if testing.Short() {
		return max(n, 1e5)
	}
	return min(max(n, 1e6), 1e7)
}

func keysFor(n int) (present, absent *Keys) {
	if cachedN != n {
		for _, bf := range cachedFilters {
			closeFilter(bf.f)
		}
		cachedPresent, cachedAbsent, cachedFilters = nil, nil, map[string]*builtFilter{}
		runtime.GC()
		cachedPresent = MakeKeys(n, Present)
		cachedAbsent = MakeKeys(absentLen(n), Absent)
		cachedN = n
	}
	return cachedPresent, cachedAbsent
}

// filterFor returns spec s built with all n present keys, and its FPR
// measured over the absent keys, building it on first use.
func filterFor(b *testing.B, s Spec, n int, fpp float64) *builtFilter {
	present, absent := keysFor(n)
	id := s.Name + "/" + formatFPP(fpp)
	if bf, ok := cachedFilters[id]; ok {
		return bf
	}
	f, err := s.New(n, fpp)
	if err != nil {
		b.Fatalf("%s: New(%d, %g): %v", s.Name, n, fpp, err)
	}
	if err := f.Insert(present); err != nil {
		b.Skipf("%s: inserting %d keys: %v", s.Name, n, err)
	}
	bf := &builtFilter{f: f, fpr: MeasureFPR(f, absent)}
	cachedFilters[id] = bf
	return bf
}

// BenchmarkHash is the cost the hash-input filters are spared: XXH3-64 of
// the same 8-byte keys.
func BenchmarkHash(b *testing.B) {
	b.Run("hash=xxh3", func(b *testing.B) {
		keys := MakeKeys(chunk, Present)
		out := make([]uint64, chunk)
		b.ReportAllocs()
		iters := 0
		clock := startCPUClock()
		for b.Loop() {
			HashAll(out, keys.Raw)
			iters++
		}
		clock.stop()
		reportPerKey(b, iters*chunk, &clock)
	})
}

// cpuClock measures the CPU time of the benchmark's own thread, which on a
// shared machine is a steadier figure than wall-clock time: time spent
// descheduled while other processes run does not count (time stalled on
// memory does). It locks the goroutine to its thread until stop.
type cpuClock struct {
	start, total time.Duration
	ok           bool
}

// startCPUClock returns a running clock. It is a value, not a pointer, so
// that it stays on the stack: an allocation here would show up in the
// benchmark's allocs/op.
func startCPUClock() cpuClock {
	runtime.LockOSThread()
	var c cpuClock
	c.resume()
	return c
}

func (c *cpuClock) resume() { c.start, c.ok = threadCPU() }

func (c *cpuClock) pause() {
	if now, ok := threadCPU(); ok && c.ok {
		c.total += now - c.start
	} else {
		c.ok = false
	}
}

// stop ends the measurement and unlocks the thread.
func (c *cpuClock) stop() {
	c.pause()
	runtime.UnlockOSThread()
}

// reportPerKey reports wall-clock ns/key from b's timer and, where the
// thread CPU clock works, cpu-ns/key.
func reportPerKey(b *testing.B, keys int, c *cpuClock) {
	keys = max(keys, 1)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(keys), "ns/key")
	if c != nil && c.ok {
		b.ReportMetric(float64(c.total.Nanoseconds())/float64(keys), "cpu-ns/key")
	}
}

// BenchmarkMemory is the memory limit at each filter size: over an array
// of ProbeBytes(n, fpp) bytes, a dependent chain of random line reads
// (latency), independent random reads, independent reads with software
// prefetch at each distance of PrefetchDistances (probe=prefetch16, ...),
// and the empty-call floor. Once the array is past the last-level cache, a
// one-line-per-key filter cannot beat the fastest prefetch distance by
// much; the report takes that one as the limit.
func BenchmarkMemory(b *testing.B) {
	for _, n := range sizes() {
		b.Run("n="+formatN(n), func(b *testing.B) {
			for _, fpp := range fpps() {
				b.Run("fpp="+formatFPP(fpp), func(b *testing.B) {
					benchMemory(b, n, fpp)
				})
			}
		})
	}
}

var sink uint64

func benchMemory(b *testing.B, n int, fpp float64) {
	_, absent := keysFor(n)
	p := NewProbe(ProbeBytes(n, fpp))
	defer p.Free()
	// Touch every line once so page faults stay out of the timings.
	p.ProbeChain(int(p.lines))
	for _, probe := range probes {
		dist := -1
		if d, ok := strings.CutPrefix(probe, "prefetch"); ok {
			dist, _ = strconv.Atoi(d)
		}
		b.Run("probe="+probe, func(b *testing.B) {
			b.ReportAllocs()
			iters := 0
			lo := 0
			clock := startCPUClock()
			for b.Loop() {
				hs := absent.Hashes[lo : lo+chunk]
				switch {
				case dist >= 0:
					sink += p.ProbePrefetch(hs, dist)
				case probe == "chain":
					sink += p.ProbeChain(chunk)
				case probe == "random":
					sink += p.ProbeRandom(hs)
				case probe == "call":
					sink += uint64(p.ProbeCall(hs))
				}
				lo = nextChunk(lo, absent.Len())
				iters++
			}
			clock.stop()
			reportPerKey(b, iters*chunk, &clock)
			// After the loop: b.Loop's first call deletes metrics reported earlier.
			b.ReportMetric(float64(p.Bytes())/(1<<20), "MiB")
		})
	}
}

// nextChunk advances a chunk start through a key set, wrapping at the end.
func nextChunk(lo, n int) int {
	lo += chunk
	if lo+chunk > n {
		lo = 0
	}
	return lo
}

// BenchmarkInsert adds all n keys to a fresh filter sized for n at fpp (a
// static filter: builds it from the n keys), with mode=loop the library's
// single-key insert and mode=batch its batch insert where it has one.
// Making the empty filter is not timed, and neither is touching its pages
// (Filter.Prefault): every filter's timed insert writes to a table whose
// pages are resident, as sift's constructors leave theirs (before the
// Prefault call the peers' Go-heap tables faulted on first write inside
// the timed insert and sift's did not; TestInsertTimedNoPageFaults).
func BenchmarkInsert(b *testing.B) {
	for _, n := range sizes() {
		b.Run("n="+formatN(n), func(b *testing.B) {
			present, _ := keysFor(n)
			for _, fpp := range fpps() {
				b.Run("fpp="+formatFPP(fpp), func(b *testing.B) {
					for _, s := range specsFor(fpp) {
						b.Run("filter="+s.Name, func(b *testing.B) {
							modes := []string{"loop"}
							if s.batchInsert {
								modes = append(modes, "batch")
							}
							for _, mode := range modes {
								b.Run("mode="+mode, func(b *testing.B) {
									benchInsert(b, s.Spec, n, fpp, present, mode)
								})
							}
						})
					}
				})
			}
		})
	}
}

func benchInsert(b *testing.B, s Spec, n int, fpp float64, present *Keys, mode string) {
	var last Filter
	b.ReportAllocs()
	clock := startCPUClock()
	for range b.N {
		// The thread clock stops before the benchmark timer and restarts
		// after it: StopTimer and StartTimer each call
		// runtime.ReadMemStats (a stop-the-world of tens of µs), which
		// counted otherwise in cpu-ns/key and not in ns/key: +0.4-0.8
		// ns/key at n = 1e5 (sift's AddHashes read 1.67 there against
		// 0.91 in a loop of its own).
		clock.pause()
		b.StopTimer()
		closeFilter(last)
		last = nil
		f, err := s.New(n, fpp)
		if err != nil {
			b.Fatal(err)
		}
		// sift's constructors touch every page of the table; the
		// peers' tables are touched here, so that no filter's timed
		// insert pays the first-touch page faults of fresh memory.
		f.Prefault()
		b.StartTimer()
		clock.resume()
		if mode == "batch" {
			err = f.(BatchInserter).InsertBatch(present)
		} else {
			err = f.Insert(present)
		}
		if err != nil {
			b.Skipf("%s: %v", s.Name, err)
		}
		last = f
	}
	clock.stop()
	reportPerKey(b, b.N*n, &clock)
	b.ReportMetric(BitsPerKey(last, n), "bits/key")
	closeFilter(last)
}

// BenchmarkContains looks keys up in a filter holding the n present keys:
// keys=present or keys=absent, mode=loop (the library's single-key call in
// a loop) or mode=batch (its batch call over hashes, where it has one).
func BenchmarkContains(b *testing.B) {
	for _, n := range sizes() {
		b.Run("n="+formatN(n), func(b *testing.B) {
			for _, fpp := range fpps() {
				b.Run("fpp="+formatFPP(fpp), func(b *testing.B) {
					for _, s := range specsFor(fpp) {
						b.Run("filter="+s.Name, func(b *testing.B) {
							benchContains(b, s, n, fpp)
						})
					}
				})
			}
		})
	}
}

func benchContains(b *testing.B, s caseSpec, n int, fpp float64) {
	bf := filterFor(b, s.Spec, n, fpp)
	present, absent := keysFor(n)
	for _, keys := range []string{"present", "absent"} {
		ks := present
		if keys == "absent" {
			ks = absent
		}
		b.Run("keys="+keys, func(b *testing.B) {
			modes := []string{"loop"}
			if s.batch {
				modes = append(modes, "batch")
			}
			for _, mode := range modes {
				b.Run("mode="+mode, func(b *testing.B) {
					b.ReportAllocs()
					var out []bool
					batcher, _ := bf.f.(Batcher)
					if mode == "batch" {
						out = make([]bool, chunk)
					}
					iters, found, lo := 0, 0, 0
					clock := startCPUClock()
					for b.Loop() {
						if mode == "batch" {
							found += batcher.CountContainsBatch(ks.Hashes[lo:lo+min(chunk, ks.Len())], out)
						} else {
							found += bf.f.CountContains(ks, lo, lo+min(chunk, ks.Len()))
						}
						lo = nextChunk(lo, ks.Len())
						iters++
					}
					clock.stop()
					looked := iters * min(chunk, ks.Len())
					reportPerKey(b, looked, &clock)
					b.ReportMetric(BitsPerKey(bf.f, n), "bits/key")
					b.ReportMetric(bf.fpr, "fpr")
					if keys == "present" && found != looked {
						b.Errorf("%s: %d of %d present keys reported absent", s.Name, looked-found, looked)
					}
				})
			}
		})
	}
}
