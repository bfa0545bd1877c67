package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/cpu"
	"github.com/sift-go/sift/internal/kernel"
)

var benchCmd = &command{
	name:    "bench",
	summary: "measure the blocked, cuckoo and classic filters on this machine",
	usage: `usage: sift bench [-n N] [-fpp P] [-kind K] [-seed S] [-probes M] [-progress]
       sift bench -kernels [-n N] [-seed S] [-progress]

Builds the blocked, cuckoo and classic filters from N deterministic keys
(the same keys for every kind and every run with the same -seed, so runs
are comparable) and prints, on stdout, a table: bits per key, nanoseconds
per key to add and to look up present ("hit") and absent ("miss") keys one
at a time and in batches of 1024 (where the filter has batch calls), and
the false-positive rate predicted by the filter's formula against the rate
measured over M absent keys. The split-block filter's kernels are timed by
-kernels (below), and against parquet-go's by the bench module (bench/).
It also prints the CPU, its features and the kernel set in use, with the
reason for the choice (set SIFT_KERNEL=generic to force the portable Go
kernels, for comparison).

Times are the best of 3 runs, single-threaded, measured in the thread's CPU
time where the system provides it (so that a busy machine's other processes
count less; wall time elsewhere), on hashes computed in advance
(the hash's own cost is printed once); the classic filter hashes internally
(murmur3, as Guava), so its times include hashing. A progress line is shown on
stderr when it is a terminal (or with -progress); stdout stays a clean table.

  -n N       keys per filter (default 1000000)
  -fpp P     target false-positive probability (default 0.01)
  -kind K    blocked, cuckoo, classic or all (default all)
  -seed S    seed for the keys and the filters' hash (default 0)
  -probes M  absent keys probed to measure each filter's FPR (default:
             enough for about 1000 false positives at its predicted rate,
             at least 1000000, at most 20000000)
  -progress  show progress on stderr even when it is not a terminal

With -kernels, bench compares the kernel sets instead: for each operation
that has its own kernel choice (blocked, cuckoo and split-block, single-key
and batch, add and lookup), it runs every kernel set this CPU has (avx512,
avx2, generic; neon on arm64) side by side, 5 interleaved rounds, and
prints the median ns/key of each at N = 1e6 (in cache) and 1e7 (out of
cache), or at -n N alone. It marks with * the set sift's table chose for
this CPU (sift version shows the table entry) and says whether that set
was the fastest measured (within 3%). Each measurement runs up to 2^20
present keys on a filter of N keys (1% false positives; cuckoo: 16-bit,
AddHashes fills a new filter with N keys), by thread CPU time, right after
an untimed run of the same set (what ran before must not decide the
time), with the sets' order rotated and reversed between rounds. It takes
about a minute. On a CPU family the table has no entry for, this output
is the evidence a new entry in internal/kernel/table.go cites: run it
two or three times and quote it with the CPU model it prints.
`,
	run: runBench,
}

// benchReps is how many times each measurement runs; the best counts.
const benchReps = 3

// maxMissTimed bounds the absent keys used for timing lookups (their
// hashes are held in memory); the FPR measurement streams any number.
const maxMissTimed = 1 << 22

func runBench(e *env) (int, error) {
	fs := newFlagSet("bench")
	n := countValue{n: 1_000_000}
	fpp := &fppValue{p: 0.01}
	choices := append(benchKindNames(), "all")
	kind := &choiceValue{val: "all", choices: choices}
	var seed seedValue
	var probes countValue
	fs.Var(&n, "n", "")
	fs.Var(fpp, "fpp", "")
	fs.Var(kind, "kind", "")
	fs.Var(&seed, "seed", "")
	fs.Var(&probes, "probes", "")
	showProgress := fs.Bool("progress", false, "")
	kernels := fs.Bool("kernels", false, "")
	args, err := parseFlags(fs, e.args)
	if err != nil {
		return exitError, err
	}
	if len(args) > 0 {
		return exitError, fmt.Errorf("unexpected argument %q (run 'sift bench -h' for usage)", args[0])
	}
	if n.n < 1 {
		return exitError, errors.New("-n must be at least 1")
	}
	if n.n > min(1<<31, math.MaxInt) {
		return exitError, fmt.Errorf("-n %d is too large for a benchmark (at most 2^31 keys)", n.n)
	}
	if *kernels {
		if fpp.set || kind.val != "all" || probes.set {
			return exitError, errors.New("-kernels takes only -n, -seed and -progress")
		}
		sizes := kernelSizes
		if n.set {
			sizes = []int{int(n.n)}
		}
		mode := progressAuto
		if *showProgress {
			mode = progressOn
		}
		p := newProgress(e.stderr, mode, "bench -kernels", -1)
		defer p.finish()
		return runBenchKernels(e, sizes, seed.seed, p)
	}
	if probes.set && probes.n < 1 {
		return exitError, errors.New("-probes must be at least 1")
	}
	// The keys, their hashes and the filters: about 60 bytes per key.
	if err := checkMemory(60*float64(n.n), fmt.Sprintf("bench -n %d", n.n)); err != nil {
		return exitError, err
	}
	var run []*kindInfo
	for _, k := range kinds {
		if k.bench != nil && (kind.val == "all" || kind.val == k.name) {
			run = append(run, k)
		}
	}
	if len(run) == 0 {
		return exitError, errors.New("no filter kind to benchmark")
	}
	mode := progressAuto
	if *showProgress {
		mode = progressOn
	}
	p := newProgress(e.stderr, mode, "bench: generating keys", -1)
	defer p.finish()

	// The thread CPU clock needs the measuring goroutine on one thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := newBenchRun(int(n.n), fpp.p, seed.seed, probes.n, p)
	var results []benchResult
	for _, k := range run {
		r.kind = k.name
		res, err := k.bench(r)
		if err != nil {
			if strings.HasPrefix(err.Error(), k.name+": ") {
				return exitError, err // the package's own prefix names the kind
			}
			return exitError, fmt.Errorf("%s: %w", k.name, err)
		}
		res.kind = k.name
		results = append(results, res)
	}
	p.finish()
	if err := printBench(e.stdout, r, results); err != nil {
		return exitError, err
	}
	for _, res := range results {
		if res.falseNegatives > 0 {
			return exitError, fmt.Errorf("%s: %d of %d added keys were reported absent: false negatives are a bug", res.kind, res.falseNegatives, r.n)
		}
	}
	return exitOK, nil
}

func benchKindNames() []string {
	var names []string
	for _, k := range kinds {
		if k.bench != nil {
			names = append(names, k.name)
		}
	}
	return names
}

// benchRun holds the keys and settings shared by every kind's benchmark.
type benchRun struct {
	n      int
	fpp    float64
	seed   uint64
	probes int64 // absent keys to probe for the FPR; 0 chooses per filter
	p      *progress
	kind   string

	keys   []uint64 // the present keys, benchKey(seed, 0..n-1)
	misses []uint64 // absent keys for timing, benchKey(seed, n..)

	hashNs float64 // cost of hash.Uint64 per key

	now   func() time.Duration // the clock measurements read
	clock string               // what it measures, for the report
}

// benchClock returns the clock bench measures with: the thread's CPU time
// where the system has one (the bench goroutine is locked to its thread),
// so that time the scheduler gives to other processes on a busy machine
// is not counted; else the monotonic wall clock.
func benchClock() (now func() time.Duration, name string) {
	if _, ok := threadCPUTime(); ok {
		return func() time.Duration { d, _ := threadCPUTime(); return d }, "thread CPU time"
	}
	epoch := time.Now()
	return func() time.Duration { return time.Since(epoch) }, "wall time"
}

func newBenchRun(n int, fpp float64, seed uint64, probes int64, p *progress) *benchRun {
	r := &benchRun{n: n, fpp: fpp, seed: seed, probes: probes, p: p}
	r.now, r.clock = benchClock()
	r.keys = make([]uint64, n)
	for i := range r.keys {
		r.keys[i] = benchKey(seed, uint64(i))
	}
	r.misses = make([]uint64, min(n, maxMissTimed))
	for i := range r.misses {
		r.misses[i] = benchKey(seed, uint64(n+i))
	}
	// The hash's own cost, on the present keys.
	hs := make([]uint64, len(r.keys))
	best := time.Duration(math.MaxInt64)
	for range benchReps {
		start := r.now()
		for i, k := range r.keys {
			hs[i] = hash.Uint64(k, seed)
		}
		best = min(best, r.now()-start)
	}
	r.hashNs = perKey(best, n)
	return r
}

// benchKey returns the i-th benchmark key. Distinct i give distinct keys
// (the steps are bijections of uint64), so the present keys 0..n-1 and the
// absent keys from n on never overlap.
func benchKey(seed, i uint64) uint64 {
	x := i + seed*0x9e3779b97f4a7c15
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hashes returns the keys hashed with h.
func hashes(keys []uint64, h func(uint64) uint64) []uint64 {
	hs := make([]uint64, len(keys))
	for i, k := range keys {
		hs[i] = h(k)
	}
	return hs
}

// best runs fn benchReps times, showing what it measures, and returns the
// fastest time per key for keys keys.
func (r *benchRun) best(what string, keys int, fn func() time.Duration) float64 {
	d := time.Duration(math.MaxInt64)
	for rep := range benchReps {
		r.p.phase(fmt.Sprintf("bench %s: %s (%d/%d)", r.kind, what, rep+1, benchReps), -1)
		d = min(d, fn())
	}
	return perKey(d, keys)
}

func perKey(d time.Duration, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(d.Nanoseconds()) / float64(n)
}

// probesFor returns how many absent keys to probe for a filter whose
// predicted false-positive rate is fpp: -probes, or enough for about 1000
// false positives (a 3% standard error), within [1e6, 2e7].
func (r *benchRun) probesFor(fpp float64) int64 {
	if r.probes > 0 {
		return r.probes
	}
	if !(fpp > 0) {
		return 1e6
	}
	return int64(math.Min(math.Max(1e6, 1e3/fpp), 2e7))
}

// measureFPR probes absent keys (see probesFor), hashed with h, in batches
// through contains, and returns how many it reported present of how many.
func (r *benchRun) measureFPR(predicted float64, h func(uint64) uint64, contains func(hs []uint64, out []bool) int) (fp, probes int64) {
	probes = r.probesFor(predicted)
	r.p.phase(fmt.Sprintf("bench %s: measuring the FPR over %s absent keys", r.kind, countString(probes)), -1)
	const chunk = 4096
	hs := make([]uint64, chunk)
	out := make([]bool, chunk)
	base := uint64(r.n)
	for done := int64(0); done < probes; {
		m := int(min(chunk, probes-done))
		for i := range m {
			hs[i] = h(benchKey(r.seed, base+uint64(done)+uint64(i)))
		}
		fp += int64(contains(hs[:m], out[:m]))
		done += int64(m)
		r.p.addKeys(int64(m))
	}
	return fp, probes
}

// batches calls fn on hs in slices of batchSize.
func batches(hs []uint64, fn func([]uint64)) {
	for len(hs) > 0 {
		m := min(len(hs), batchSize)
		fn(hs[:m])
		hs = hs[m:]
	}
}

// timeBatchLookups times containsHashes over hits and over misses in
// batches of batchSize, into res.hitBatch and res.missBatch, and counts a
// hit it reports absent as a false negative. The single-key loops stay
// written out in each kind: through a function value they would time an
// indirect call per key as well; here it is one call per batch.
func (r *benchRun) timeBatchLookups(res *benchResult, hits, misses []uint64, containsHashes func([]uint64, []bool) int) {
	out := make([]bool, batchSize)
	found := 0
	res.hitBatch = r.best("batch hit", len(hits), func() time.Duration {
		found = 0
		start := r.now()
		batches(hits, func(hs []uint64) { found += containsHashes(hs, out) })
		return r.now() - start
	})
	res.falseNegatives = max(res.falseNegatives, int64(len(hits)-found))
	res.missBatch = r.best("batch miss", len(misses), func() time.Duration {
		start := r.now()
		batches(misses, func(hs []uint64) { found += containsHashes(hs, out) })
		return r.now() - start
	})
}

// benchResult is one kind's figures; a zero time means not applicable.
type benchResult struct {
	kind           string
	shape          string // k or fingerprint width
	sizeBytes      int64
	add, addBatch  float64 // ns per key
	hit, miss      float64
	hitBatch       float64
	missBatch      float64
	fppPredicted   float64
	falsePositives int64
	probes         int64 // absent keys probed
	falseNegatives int64
	hashIncluded   bool   // times include hashing the key
	note           string // printed under the table, when set
}

func printBench(w io.Writer, r *benchRun, results []benchResult) error {
	features := strings.Join(cpu.Features(), " ")
	if features == "" {
		features = "none of avx2, bmi2, avx512f, asimd"
	}
	fmt.Fprintf(w, "sift bench: n=%d keys, fpp=%g, seed=%#x, single-threaded, best of %d runs by %s\n",
		r.n, r.fpp, r.seed, benchReps, r.clock)
	fmt.Fprintf(w, "cpu:    %s [%s], %s/%s, GOMAXPROCS=%d, %s\n", cpu.Name(), features, runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.Version())
	fmt.Fprintf(w, "kernel: %s (%s)\n", kernel.Impl(), cpu.Reason())
	fmt.Fprintf(w, "hash:   %.2f ns/key (xxh3-64 of 8-byte keys; not in the times below, except where marked *)\n\n", r.hashNs)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(name string, cell func(benchResult) string) {
		fmt.Fprintf(tw, "%s\t", name)
		for _, res := range results {
			fmt.Fprintf(tw, "%s\t", cell(res))
		}
		fmt.Fprintln(tw)
	}
	ns := func(get func(benchResult) float64) func(benchResult) string {
		return func(res benchResult) string {
			v := get(res)
			if v == 0 {
				return "-"
			}
			s := fmt.Sprintf("%.1f", v)
			if v < 10 {
				s = fmt.Sprintf("%.2f", v)
			}
			if res.hashIncluded {
				s += "*"
			}
			return s
		}
	}
	row("", func(res benchResult) string { return res.kind })
	row("shape", func(res benchResult) string { return res.shape })
	row("size", func(res benchResult) string { return sizeString(res.sizeBytes) })
	row("bits/key", func(res benchResult) string { return fmt.Sprintf("%.2f", float64(res.sizeBytes)*8/float64(r.n)) })
	row("add ns/key", ns(func(res benchResult) float64 { return res.add }))
	row("add batch ns/key", ns(func(res benchResult) float64 { return res.addBatch }))
	row("lookup hit ns/key", ns(func(res benchResult) float64 { return res.hit }))
	row("lookup miss ns/key", ns(func(res benchResult) float64 { return res.miss }))
	row("batch hit ns/key", ns(func(res benchResult) float64 { return res.hitBatch }))
	row("batch miss ns/key", ns(func(res benchResult) float64 { return res.missBatch }))
	row("FPR predicted", func(res benchResult) string { return fmt.Sprintf("%.4g%%", 100*res.fppPredicted) })
	row("FPR measured", func(res benchResult) string {
		return fmt.Sprintf("%.4g%%", 100*float64(res.falsePositives)/float64(res.probes))
	})
	row("absent keys probed", func(res benchResult) string { return countString(res.probes) })
	row("measured/predicted", func(res benchResult) string {
		if res.fppPredicted == 0 {
			return "-"
		}
		return fmt.Sprintf("%.3f", float64(res.falsePositives)/float64(res.probes)/res.fppPredicted)
	})
	row("false negatives", func(res benchResult) string { return fmt.Sprint(res.falseNegatives) })
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, res := range results {
		if res.note != "" {
			if _, err := fmt.Fprintf(w, "\nnote: %s: %s\n", res.kind, res.note); err != nil {
				return err
			}
		}
	}
	return nil
}
