package main

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sift-go/sift/bench"
)

// report is the data behind the markdown and the plots.
type report struct {
	cfg     config
	m       machine
	byName  map[string]summary
	sizes   []string // n values, ascending
	fpps    []string // fpp values, descending
	specs   []bench.Spec
	elapsed time.Duration
	rawPath string
	runs    int
	// unit is the time metric the tables use: "cpu-ns/key" (the thread's
	// CPU time, steadier on a shared machine) when the run has it, else
	// "ns/key" (wall clock).
	unit string
	// limits maps "n/fpp" to the memory limit there: the prefetch probe's
	// fastest distance.
	limits map[string]limit
}

// limit is the memory limit at one n and fpp: the case of the prefetch
// probe whose median is lowest over the distances that ran.
type limit struct {
	name   string // the BenchmarkMemory case
	dist   int    // its prefetch distance in keys
	legacy bool   // raw output from before the sweep (probe=prefetch, 16 ahead)
	tried  []int  // the distances that ran, ascending
}

// tabulated are the benchmark functions whose cases the tables show: their
// n and fpp values make the tables' columns.
var tabulated = map[string]bool{"Contains": true, "Insert": true, "Memory": true}

func newReport(c config, m machine, ss []summary, elapsed time.Duration, rawPath string) *report {
	r := &report{cfg: c, m: m, byName: map[string]summary{}, specs: bench.Specs(), elapsed: elapsed, rawPath: rawPath, unit: "ns/key"}
	sizes, fpps := map[string]bool{}, map[string]bool{}
	for _, s := range ss {
		if _, ok := s.Metrics["cpu-ns/key"]; ok && !c.wall {
			r.unit = "cpu-ns/key"
		}
		r.byName[s.Name] = s
		r.runs = max(r.runs, s.Runs)
		if !tabulated[s.Key.Func] {
			// Other benchmarks of the module (BenchmarkInlineProbe, ...)
			// run too but name their sizes their own way.
			continue
		}
		if n := s.Key.Params["n"]; n != "" {
			sizes[n] = true
		}
		if f := s.Key.Params["fpp"]; f != "" {
			fpps[f] = true
		}
	}
	for n := range sizes {
		r.sizes = append(r.sizes, n)
	}
	sort.Slice(r.sizes, func(i, j int) bool { return parseCount(r.sizes[i]) < parseCount(r.sizes[j]) })
	for f := range fpps {
		r.fpps = append(r.fpps, f)
	}
	sort.Slice(r.fpps, func(i, j int) bool { return parseCount(r.fpps[i]) > parseCount(r.fpps[j]) })
	r.limits = map[string]limit{}
	for _, s := range ss {
		k := s.Key
		d, ok := strings.CutPrefix(k.Params["probe"], "prefetch")
		if k.Func != "Memory" || !ok {
			continue
		}
		l := limit{name: s.Name, dist: bench.LegacyPrefetchDistance, legacy: d == ""}
		if d != "" {
			var err error
			if l.dist, err = strconv.Atoi(d); err != nil {
				continue
			}
		}
		key := k.Params["n"] + "/" + k.Params["fpp"]
		old, seen := r.limits[key]
		l.tried = append(old.tried, l.dist)
		sort.Ints(l.tried)
		if !seen || r.metric(s.Name, r.unit) < r.metric(old.name, r.unit) {
			r.limits[key] = l
		} else {
			old.tried = l.tried
			r.limits[key] = old
		}
	}
	return r
}

// limitAt returns the memory limit at n and fpp (name "" where no
// prefetch probe ran).
func (r *report) limitAt(n, fpp string) limit { return r.limits[n+"/"+fpp] }

// legacyProbe reports whether the raw output's prefetch probe is the one
// from before the sweep of distances.
func (r *report) legacyProbe() bool {
	for _, l := range r.limits {
		if l.legacy {
			return true
		}
	}
	return false
}

// series returns a case's values of unit, one per round.
func (r *report) series(name, unit string) []float64 {
	s, ok := r.byName[name]
	if !ok {
		return nil
	}
	return s.Values[unit]
}

// ratio is case num's time over case den's: the median of the per-round
// ratios where both have a value in every round (the report's rounds run
// every case once each, so round i of one case ran beside round i of the
// other, under the same load), else the ratio of the medians. NaN where
// either case did not run.
func (r *report) ratio(num, den string) float64 {
	a, b := r.series(num, r.unit), r.series(den, r.unit)
	if len(a) == 0 || len(b) == 0 {
		return math.NaN()
	}
	if len(a) != len(b) {
		return median(a) / median(b)
	}
	rs := make([]float64, len(a))
	for i := range a {
		rs[i] = a[i] / b[i]
	}
	return median(rs)
}

func containsName(n, fpp, filter, keys, mode string) string {
	return fmt.Sprintf("BenchmarkContains/n=%s/fpp=%s/filter=%s/keys=%s/mode=%s", n, fpp, filter, keys, mode)
}

func insertName(n, fpp, filter, mode string) string {
	return fmt.Sprintf("BenchmarkInsert/n=%s/fpp=%s/filter=%s/mode=%s", n, fpp, filter, mode)
}

func memoryName(n, fpp, probe string) string {
	return fmt.Sprintf("BenchmarkMemory/n=%s/fpp=%s/probe=%s", n, fpp, probe)
}

// metric returns a case's median metric, or NaN when the case did not run.
func (r *report) metric(name, unit string) float64 {
	s, ok := r.byName[name]
	if !ok {
		return math.NaN()
	}
	v, ok := s.Metrics[unit]
	if !ok {
		return math.NaN()
	}
	return v
}

// specsIn returns the filters with results at fpp, in Specs order.
func (r *report) specsIn(fpp string) []bench.Spec {
	var out []bench.Spec
	for _, s := range r.specs {
		for _, n := range r.sizes {
			if _, ok := r.byName[insertName(n, fpp, s.Name, "loop")]; ok {
				out = append(out, s)
				break
			}
			if _, ok := r.byName[containsName(n, fpp, s.Name, "present", "loop")]; ok {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// hasBatch reports whether filter ran lookups in batch mode at fpp.
func (r *report) hasBatch(fpp, filter string) bool {
	for _, n := range r.sizes {
		if _, ok := r.byName[containsName(n, fpp, filter, "present", "batch")]; ok {
			return true
		}
	}
	return false
}

// hasBatchInsert reports whether filter ran inserts in batch mode at fpp.
func (r *report) hasBatchInsert(fpp, filter string) bool {
	for _, n := range r.sizes {
		if _, ok := r.byName[insertName(n, fpp, filter, "batch")]; ok {
			return true
		}
	}
	return false
}

// siftRef names the sift filter each filter's ratio is taken against: the
// sift filter of the same kind and input in the same fpp group
// (sift-blocked for hash-input Bloom and static filters, sift-blocked-bytes
// for byte-input Bloom filters, sift-cuckoo8 or -16 and their -bytes twins
// for cuckoo filters), among those that ran. Where none of the same input
// ran (raw output from before the byte-input sift cuckoo adapters, or a
// -filter that left sift-blocked-bytes out), it falls back to the one of
// the other input and says so: mismatch is true, and the ratio cells are
// marked "(hash)" or "(bytes)".
func (r *report) siftRef(fpp string, s bench.Spec) (name string, mismatch bool) {
	kind := s.Kind
	if kind == bench.KindStatic {
		kind = bench.KindBloom
	}
	var other string
	for _, t := range r.specsIn(fpp) {
		if !t.Sift || t.Kind != kind || (kind == bench.KindBloom && !strings.HasPrefix(t.Name, "sift-blocked")) {
			continue
		}
		if t.Input == s.Input {
			return t.Name, false
		}
		if other == "" {
			other = t.Name
		}
	}
	if other != "" {
		return other, true
	}
	if kind == bench.KindBloom && s.Input == bench.InputHash {
		return "sift-blocked", false
	}
	return "sift-blocked", true
}

// fmtRefRatio is fmtRatio, marked with the reference's input when it is
// not the row's (see siftRef).
func fmtRefRatio(v float64, mismatch bool, refInput bench.Input) string {
	out := fmtRatio(v)
	if mismatch && out != "–" {
		out += " (" + refInput.String() + ")"
	}
	return out
}

// inputOf returns the input of the registered filter name.
func inputOf(name string) bench.Input {
	s, _ := bench.Lookup(name)
	return s.Input
}

func fmtNs(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func fmtRatio(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + "×"
}

func fmtFPR(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func pct(fpp string) string {
	return strconv.FormatFloat(parseCount(fpp)*100, 'g', -1, 64) + "%"
}

func (r *report) markdown(plots []plotFile) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# sift benchmarks: %s\n\n", r.m.CPU)
	w("Produced by `cd bench && %s` on %s. Every figure is the median of %d runs (`-count %d`: that many rounds, each running every case once, so drift in the machine's load shifts all cases alike; `-benchtime %s`), single-threaded, on the same deterministic keys (8-byte keys, XXH3 hashes precomputed).", r.command(), r.m.Date, r.runs, r.runs, r.cfg.benchtime)
	if r.elapsed > 0 {
		w(" The run took %s.", fmtDur(r.elapsed))
	} else if r.m.Elapsed != "" {
		w(" The run took %s.", r.m.Elapsed)
	}
	if r.cfg.from != "" && r.cfg.recorded != "" {
		w(" Tables and plots were redrawn from its raw output with `go run ./cmd/report -from %s`.", r.cfg.from)
	}
	w(" Raw `go test` output: [%s](%s) (benchstat-ready).\n\n", baseName(r.rawPath), baseName(r.rawPath))
	r.writeMachine(&b)
	if r.unit == "cpu-ns/key" {
		w(" All times are **CPU time of the benchmark thread per key** (`cpu-ns/key`, from CLOCK_THREAD_CPUTIME_ID), which leaves out the time the thread was descheduled while other processes ran; it still includes every cache and memory stall, and other processes still compete for the shared L3 cache and memory bandwidth. The wall-clock `ns/key` of every case is in the raw output (`-wall` makes the tables use it).")
	} else {
		w(" All times are wall-clock ns/key.")
	}
	w(" Times are medians over the rounds; every ratio (`×sift`, `×mem`, the comparisons and the targets) is the median of the per-round ratios, round i of one case against round i of the other (the ratio of the medians where a case lacks a round).\n\n")

	r.writePeers(&b)
	r.writeStanding(&b)
	r.writeTargets(&b)
	for _, p := range plots {
		w("![%s](%s.svg)\n\n", p.Title, p.File)
	}
	r.writeMemory(&b)
	for _, fpp := range r.fpps {
		for _, keys := range []string{"present", "absent"} {
			r.writeLookups(&b, fpp, keys)
		}
		r.writeInserts(&b, fpp)
		r.writeSpace(&b, fpp)
	}
	return b.String()
}

// writeMachine writes the machine table and the sentence after it, which
// the caller continues. A report redrawn from raw output that did not
// record its machine says so, and names the host that redrew it as that
// and nothing more.
func (r *report) writeMachine(b *strings.Builder) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	m := r.m
	w("| machine | |\n|---|---|\n")
	if m.NotRecorded {
		cpu := m.CPU
		if cpu == "" {
			cpu = "not recorded"
		}
		w("| CPU | %s (go test's `cpu:` line; core count not recorded) |\n", cpu)
		if m.Kernel != "" {
			w("| OS/architecture | %s (go test's `goos:` and `goarch:` lines) |\n", m.Kernel)
		}
		w("| caches, memory, kernel, Go, huge pages, peer versions | not recorded in the raw output |\n")
	} else {
		w("| CPU | %s (%d logical cores) |\n", m.CPU, m.Cores)
		if m.Caches != "" {
			w("| caches | %s |\n", m.Caches)
		}
		w("| memory | %s |\n| OS | %s |\n| Go | %s |\n", m.Memory, m.Kernel, m.GoVersion)
		if m.THP != "" {
			w("| transparent huge pages | %s |\n", m.THP)
		}
	}
	if m.Git != "" {
		w("| sift commit | %s |\n", m.Git)
	}
	if m.LoadStart != "" {
		w("| load average (start → end) | %s → %s |\n", m.LoadStart, m.LoadEnd)
	}
	if m.NotRecorded {
		w("\nMachine not recorded in the raw output beyond go test's own lines (it predates the `sift-cpu` header lines); redrawn on: %s. Nothing here describes the run's machine but the CPU and OS/architecture lines above.", m.RedrawnOn)
		w(" Compare ratios within one run, not absolute numbers across runs.")
		return
	}
	w("\nThis is a %d-core machine; where other work shares it, compare ratios within one run, not absolute numbers across runs.", m.Cores)
}

// lastLevel returns the last entry of a "L1 32K, L2 1024K, L3 32768K" list.
func lastLevel(caches string) string {
	parts := strings.Split(caches, ", ")
	if caches == "" {
		return "size not recorded"
	}
	return parts[len(parts)-1]
}

func baseName(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

func (r *report) command() string {
	if r.cfg.recorded != "" {
		return strings.TrimSpace(r.cfg.recorded)
	}
	cmd := "go run ./cmd/report"
	if r.cfg.quick {
		cmd += " -quick"
	}
	if r.cfg.large {
		cmd += " -large"
	}
	if r.cfg.from != "" {
		cmd += " -from " + r.cfg.from
	}
	return cmd
}

// harness names what the benchmark harness does that older raw output
// did not, written as the sift-harness header line at run time.
const harness = "insert-prefault prefetch-sweep"

// prefaulted reports whether the raw output's BenchmarkInsert touched
// every filter's table before the timer (Filter.Prefault).
func (r *report) prefaulted() bool {
	return r.cfg.from == "" || slices.Contains(strings.Fields(r.cfg.harness), "insert-prefault")
}

// libraries returns the package of every registered adapter.
func libraries() []string {
	var pkgs []string
	for _, s := range bench.Specs() {
		pkgs = append(pkgs, s.Library)
	}
	return pkgs
}

func (r *report) writePeers(b *strings.Builder) {
	versions := r.m.Peers
	fmt.Fprintf(b, "## Filters\n\n")
	if versions == nil {
		versions = moduleVersions(libraries())
		if r.m.NotRecorded {
			fmt.Fprintf(b, "The raw output did not record the peers' versions: the module column is what this tree's go.mod resolves when the report is redrawn, which may not be what ran.\n\n")
		}
	}
	fmt.Fprintf(b, "| filter | module | input | kind | notes |\n|---|---|---|---|---|\n")
	ran := map[string]bool{}
	for _, fpp := range r.fpps {
		for _, s := range r.specsIn(fpp) {
			ran[s.Name] = true
		}
	}
	for _, s := range r.specs {
		if !ran[s.Name] {
			continue // registered now, but not in this output
		}
		v := versions[s.Library]
		if v == "" {
			v = s.Library
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", s.Name, v, s.Input, s.Kind, s.Note)
	}
	hash := r.metric("BenchmarkHash/hash=xxh3", r.unit)
	fmt.Fprintf(b, "\n*input*: `hash` filters get the precomputed 64-bit XXH3 hash of each key; `bytes` filters hash the key themselves. Hashing an 8-byte key with XXH3 costs **%s ns** here: add it to a `hash` filter's figure to compare it with a `bytes` filter (sift-blocked-bytes is sift-blocked doing exactly that).\n\n", fmtNs(hash))
	fmt.Fprintf(b, "Not measured: jcalabro/gloom; this machine's module proxy refuses it (403), so the bench module cannot depend on it here.\n\n")
}

func (r *report) writeMemory(b *strings.Builder) {
	fmt.Fprintf(b, "## The memory limit\n\nOver an array the size of a 512-bit blocked filter for n keys at the target rate (64-byte aligned, huge-page advised like sift's big filters): **chain** = dependent random 64-byte reads (latency), **random** = independent random reads, ")
	if r.legacyProbe() {
		fmt.Fprintf(b, "**prefetch** = independent reads with PREFETCHT0/PRFM %d keys ahead, in assembly: this raw output predates the sweep of prefetch distances, so its limit is that one distance, which measures the probe's distance as much as the memory system (a batch kernel that prefetches further ahead can beat it by far past the last-level cache). The `×mem` columns below divide by *prefetch*. ", bench.LegacyPrefetchDistance)
	} else {
		fmt.Fprintf(b, "**prefetch D** = independent reads with PREFETCHT0/PRFM D keys ahead, in assembly (the first D keys' lines prefetched before the first read, as a batch kernel does), for D in %s. The **limit** is the fastest distance at that n (by median; the distance in parentheses): how far ahead to prefetch is a property of the loop, and the best of several is the closest this probe comes to what the memory system allows. The `×mem` columns below divide by the limit. ", joinInts(bench.PrefetchDistances))
	}
	fmt.Fprintf(b, "Once the array is larger than the last-level cache (%s here), no filter that reads one cache line per key can beat the limit by much. While it fits in cache the probe's scalar loop (one multiply, one prefetch, one load per key) is what it measures, and a vectorised batch kernel can beat it: a `×mem` below 1 there means the loop overhead, not the memory, is the limit. **call** = a loop that calls an empty assembly function once per key (a pointer and the hash in, a bool out, as sift's single-key kernels and parquet-go's Check take them) and reads no memory: the floor under every single-key lookup that is one call into assembly, whatever the call does.\n\n", lastLevel(r.m.Caches))
	// The distances that ran anywhere in this output, for the columns.
	seen := map[int]bool{}
	var dists []int
	for _, l := range r.limits {
		for _, d := range l.tried {
			if !seen[d] {
				seen[d] = true
				dists = append(dists, d)
			}
		}
	}
	sort.Ints(dists)
	probeName := func(n, fpp string, d int) string {
		if r.legacyProbe() {
			return memoryName(n, fpp, "prefetch")
		}
		return memoryName(n, fpp, "prefetch"+strconv.Itoa(d))
	}
	fmt.Fprintf(b, "| n | fpp | array | chain | random |")
	for _, d := range dists {
		if r.legacyProbe() {
			fmt.Fprintf(b, " prefetch (%d) |", d)
		} else {
			fmt.Fprintf(b, " prefetch %d |", d)
		}
	}
	fmt.Fprintf(b, " limit | call |\n|---|---|---|---|---|%s---|---|\n", strings.Repeat("---|", len(dists)))
	for _, n := range r.sizes {
		for _, fpp := range r.fpps {
			mib := r.metric(memoryName(n, fpp, "chain"), "MiB")
			if math.IsNaN(mib) {
				continue
			}
			fmt.Fprintf(b, "| %s | %s | %s MiB | %s | %s |", n, pct(fpp), strconv.FormatFloat(mib, 'g', 3, 64),
				fmtNs(r.metric(memoryName(n, fpp, "chain"), r.unit)),
				fmtNs(r.metric(memoryName(n, fpp, "random"), r.unit)))
			for _, d := range dists {
				fmt.Fprintf(b, " %s |", fmtNs(r.metric(probeName(n, fpp, d), r.unit)))
			}
			l := r.limitAt(n, fpp)
			lim := "–"
			if l.name != "" {
				lim = fmt.Sprintf("%s (%d)", fmtNs(r.metric(l.name, r.unit)), l.dist)
			}
			fmt.Fprintf(b, " %s | %s |\n", lim, fmtNs(r.metric(memoryName(n, fpp, "call"), r.unit)))
		}
	}
	fmt.Fprintf(b, "\nTimes in %s.\n\n", r.unit)
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}

// modes returns the modes a filter's rows show: its per-key loop, and its
// batch call when it has one.
func modes(hasBatch bool) []string {
	if hasBatch {
		return []string{"loop", "batch"}
	}
	return []string{"loop"}
}

// modeLabel names a filter's row or line in a mode.
func modeLabel(name, mode string) string {
	if mode == "batch" {
		return name + " (batch)"
	}
	return name
}

// writeFilterHeader writes the header of a per-filter table: the filter
// and its input, then for every n its figure and the named ratio columns.
func (r *report) writeFilterHeader(b *strings.Builder, ratios ...string) {
	b.WriteString("| filter | input |")
	for _, n := range r.sizes {
		fmt.Fprintf(b, " n=%s |", n)
		for _, c := range ratios {
			fmt.Fprintf(b, " %s |", c)
		}
	}
	b.WriteString("\n|---|---|")
	for range r.sizes {
		b.WriteString(strings.Repeat("---|", 1+len(ratios)))
	}
	b.WriteString("\n")
}

// filterLabel is a table row's filter name: the mode's label, bold for
// sift's own filters.
func filterLabel(s bench.Spec, mode string) string {
	label := modeLabel(s.Name, mode)
	if s.Sift {
		label = "**" + label + "**"
	}
	return label
}

func (r *report) writeLookups(b *strings.Builder, fpp, keys string) {
	fmt.Fprintf(b, "## Lookup, %s keys, fpp %s (%s)\n\n", keys, pct(fpp), r.unit)
	fmt.Fprintf(b, "`×sift`: this filter's time over that of the sift filter of its kind and input (sift-blocked for hash-input Bloom and static filters, sift-blocked-bytes for byte-input Bloom filters, the sift cuckoo filter of the same width and input for cuckoo filters) in the same mode; above 1 means sift is faster; *(hash)* marks a ratio against a hash-input sift filter where its byte-input twin did not run (the row's figure includes hashing the key, the reference's does not). `×mem`: over the memory limit at that n (the prefetch probe; see *The memory limit*).\n\n")
	r.writeFilterHeader(b, "×sift", "×mem")
	for _, s := range r.specsIn(fpp) {
		for _, mode := range modes(r.hasBatch(fpp, s.Name)) {
			fmt.Fprintf(b, "| %s | %s |", filterLabel(s, mode), s.Input)
			ref, mismatch := r.siftRef(fpp, s)
			for _, n := range r.sizes {
				name := containsName(n, fpp, s.Name, keys, mode)
				v := r.metric(name, r.unit)
				fmt.Fprintf(b, " %s | %s | %s |", fmtNs(v),
					fmtRefRatio(r.ratio(name, containsName(n, fpp, ref, keys, mode)), mismatch, inputOf(ref)),
					fmtRatio(r.ratio(name, r.limitAt(n, fpp).name)))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
}

func (r *report) writeInserts(b *strings.Builder, fpp string) {
	fmt.Fprintf(b, "## Insert all n keys into an empty filter, fpp %s (%s)\n\n", pct(fpp), r.unit)
	if r.prefaulted() {
		fmt.Fprintf(b, "Making the empty filter is not timed, nor is touching its table's pages (sift's constructors do; the peers' tables are cleared with their own Reset or Clear before the timer starts), so no insert pays first-touch page faults. ")
	} else {
		fmt.Fprintf(b, "**This raw output predates the harness's touch of every table before the timed insert:** sift's constructors touch their pages untimed, while a peer's fresh Go-heap table took its first-touch page faults inside the timed insert (every time from n = 1e7 up; at smaller n when the heap had no freed span to reuse), so the `×sift` ratios below are biased in sift's favour. ")
	}
	fmt.Fprintf(b, "Static filters (xor-fuse) are built from the whole key set instead, and the build allocates its own arrays. `(batch)`: the library's batch insert over hashes (sift's AddHashes, parquet-go's InsertBulk). `×sift` as above, batch against sift's batch.\n\n")
	r.writeFilterHeader(b, "×sift")
	for _, s := range r.specsIn(fpp) {
		for _, mode := range modes(r.hasBatchInsert(fpp, s.Name)) {
			fmt.Fprintf(b, "| %s | %s |", filterLabel(s, mode), s.Input)
			ref, mismatch := r.siftRef(fpp, s)
			for _, n := range r.sizes {
				name := insertName(n, fpp, s.Name, mode)
				fmt.Fprintf(b, " %s | %s |", fmtNs(r.metric(name, r.unit)),
					fmtRefRatio(r.ratio(name, insertName(n, fpp, ref, mode)), mismatch, inputOf(ref)))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
}

func (r *report) writeSpace(b *strings.Builder, fpp string) {
	fmt.Fprintf(b, "## Space and accuracy, fpp %s\n\nBits per key (table size × 8 / n) and the false-positive rate measured over at least 10⁶ absent keys (10⁷ from n = 10⁷ up). Allocations per lookup or insert were zero unless listed under *allocs*.\n\n", pct(fpp))
	b.WriteString("| filter |")
	for _, n := range r.sizes {
		fmt.Fprintf(b, " n=%s bits/key | FPR |", n)
	}
	b.WriteString(" allocs |\n|---|")
	for range r.sizes {
		b.WriteString("---|---|")
	}
	b.WriteString("---|\n")
	for _, s := range r.specsIn(fpp) {
		fmt.Fprintf(b, "| %s |", s.Name)
		var allocs []string
		for _, n := range r.sizes {
			name := containsName(n, fpp, s.Name, "absent", "loop")
			fmt.Fprintf(b, " %s | %s |", fmtNs(r.metric(name, "bits/key")), fmtFPR(r.metric(name, "fpr")))
			for _, keys := range []string{"present", "absent"} {
				if a := r.metric(containsName(n, fpp, s.Name, keys, "loop"), "allocs/op"); a > 0 {
					allocs = append(allocs, fmt.Sprintf("lookup n=%s: %g per %d keys", n, a, 4096))
				}
			}
			if a := r.metric(insertName(n, fpp, s.Name, "loop"), "allocs/op"); a > 0 {
				allocs = append(allocs, fmt.Sprintf("insert n=%s: %g per %s keys", n, a, n))
			}
		}
		fmt.Fprintf(b, " %s |\n", strings.Join(dedupe(allocs), "; "))
	}
	b.WriteString("\n")
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
