package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/classic"
)

// keyFile writes n keys "prefix-i" and returns its path.
func keyFile(t *testing.T, dir, prefix string, n int) string {
	t.Helper()
	return writeFile(t, dir, prefix+".txt", keyLines(prefix, n))
}

// count runs sift query -c and returns the count.
func queryCount(t *testing.T, filter, input string) int {
	t.Helper()
	r := runSift(t, nil, "query", "-c", filter, input)
	n, err := strconv.Atoi(strings.TrimSpace(r.stdout))
	if err != nil {
		t.Fatalf("query -c %s %s: %q, exit %d: %s", filter, input, r.stdout, r.code, r.stderr)
	}
	return n
}

// infoFPP returns the FPR sift info predicts for a filter.
func infoFPP(t *testing.T, path string) float64 {
	t.Helper()
	r := mustRun(t, nil, "info", path)
	for _, l := range lines(r.stdout) {
		if rest, ok := strings.CutPrefix(l, "predicted FPR:"); ok {
			f, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("no predicted FPR in:\n%s", r.stdout)
	return 0
}

// TestShardsMerge is the map-reduce recipe end to end, for every kind
// build makes: two shards built apart from disjoint keys with explicit
// geometry, merged; every key of both is found, absent keys are found at
// the rate predicted for the union, and for the Bloom kinds the merged file
// is the one a single build of all the keys makes, bit for bit.
func TestShardsMerge(t *testing.T) {
	n := 100_000
	if testing.Short() {
		n = 20_000
		if slowBinary() {
			n = 5_000
		}
	}
	dir := t.TempDir()
	a, b := keyFile(t, dir, "a", n), keyFile(t, dir, "b", n)
	absent := keyFile(t, dir, "absent", 4*n)
	for _, c := range []struct {
		kind     string
		geometry []string
	}{
		// About 10 bits a key for the union, so the predicted rate is
		// near 1%: large enough to measure.
		{"blocked", []string{"-blocks", fmt.Sprint(2 * n * 10 / 512), "-k", "7", "-seed", "0x5eed"}},
		{"sbbf", []string{"-blocks", fmt.Sprint(2 * n * 10 / 256)}},
		{"cuckoo", []string{"-buckets", fmt.Sprint(2 * n / 3), "-bits", "8", "-seed", "9"}},
		{"classic", []string{"-n", fmt.Sprint(2 * n), "-fpp", "0.01"}},
	} {
		t.Run(c.kind, func(t *testing.T) {
			sa, sb := filepath.Join(dir, c.kind+"-a.sift"), filepath.Join(dir, c.kind+"-b.sift")
			all, out := filepath.Join(dir, c.kind+"-all.sift"), filepath.Join(dir, c.kind+"-merged.sift")
			build := func(out string, in ...string) {
				mustRun(t, nil, append(append([]string{"build", "-q", "-kind", c.kind}, c.geometry...), append([]string{"-o", out}, in...)...)...)
			}
			build(sa, a)
			build(sb, b)
			build(all, a, b)
			r := mustRun(t, nil, "merge", "-o", out, sa, sb)
			if !strings.Contains(r.stderr, "2 shards merged") {
				t.Errorf("merge summary: %s", r.stderr)
			}
			if got := queryCount(t, out, a) + queryCount(t, out, b); got != 2*n {
				t.Fatalf("merged filter finds %d of the %d keys", got, 2*n)
			}
			if c.kind != "cuckoo" {
				x, _ := os.ReadFile(out)
				y, _ := os.ReadFile(all)
				if !bytes.Equal(x, y) {
					t.Fatal("the merged filter differs from the one built from all keys")
				}
			}
			predicted := infoFPP(t, out)
			fp := queryCount(t, out, absent)
			trials := float64(4 * n)
			sigma := math.Sqrt(trials * predicted * (1 - predicted))
			if math.Abs(float64(fp)-trials*predicted) > 5*sigma+3 {
				t.Fatalf("%d false positives in %d absent keys, predicted %.4g (%.0f ± %.0f)", fp, 4*n, predicted, trials*predicted, sigma)
			}
			if predicted < 0.001 || predicted > 0.05 {
				t.Fatalf("predicted FPR %g: the test's geometry is not near 1%% for the union", predicted)
			}
			t.Logf("%s: %d false positives in %d absent keys, predicted %.4g", c.kind, fp, 4*n, predicted)
		})
	}
}

// TestMergeErrors: shards that do not agree are refused, naming the shard,
// and nothing is written.
func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	a := keyFile(t, dir, "a", 1000)
	b := keyFile(t, dir, "b", 1000)
	path := func(name string) string { return filepath.Join(dir, name) }
	mustRun(t, nil, "build", "-q", "-blocks", "40", "-k", "7", "-o", path("k7.sift"), a)
	mustRun(t, nil, "build", "-q", "-blocks", "40", "-k", "6", "-o", path("k6.sift"), b)
	mustRun(t, nil, "build", "-q", "-blocks", "41", "-k", "7", "-o", path("b41.sift"), b)
	mustRun(t, nil, "build", "-q", "-blocks", "40", "-k", "7", "-seed", "1", "-o", path("seed1.sift"), b)
	mustRun(t, nil, "build", "-q", "-kind", "cuckoo", "-buckets", "300", "-o", path("c1.sift"), a)
	mustRun(t, nil, "build", "-q", "-kind", "cuckoo", "-buckets", "300", "-o", path("c2.sift"), b)
	scalable := runSift(t, []byte("x\ny\n"), "build", "-q", "-o", path("s.sift"))
	if scalable.code != 0 {
		t.Fatal(scalable.stderr)
	}
	out := path("out.sift")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{path("k7.sift"), path("k6.sift")}, []string{"k6.sift", "k differs", "same geometry"}},
		{[]string{path("k7.sift"), path("b41.sift")}, []string{"b41.sift", "block counts differ"}},
		{[]string{path("k7.sift"), path("seed1.sift")}, []string{"seed1.sift", "seed"}},
		{[]string{path("k7.sift"), path("c1.sift")}, []string{"c1.sift", "wrong filter kind", "one kind"}},
		{[]string{path("c1.sift"), path("c2.sift")}, []string{"c2.sift", "full", "more -buckets"}},
		{[]string{path("s.sift"), path("s.sift")}, []string{"scalable filters cannot be merged"}},
		{[]string{path("k7.sift"), path("missing.sift")}, []string{"missing.sift"}},
		{[]string{}, []string{"no shards"}},
	} {
		wantError(t, runSift(t, nil, append([]string{"merge", "-o", out}, c.args...)...), c.want...)
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("merge %v failed but wrote %s", c.args, out)
		}
	}
	wantError(t, runSift(t, nil, "merge", path("k7.sift")), "-o FILE is required")
	// FILE may be one of the shards.
	mustRun(t, nil, "build", "-q", "-blocks", "40", "-k", "7", "-o", path("k7b.sift"), b)
	mustRun(t, nil, "merge", "-q", "-o", path("k7.sift"), path("k7.sift"), path("k7b.sift"))
	if got := queryCount(t, path("k7.sift"), a) + queryCount(t, path("k7.sift"), b); got != 2000 {
		t.Fatalf("merge into a shard: %d of 2000 keys", got)
	}
}

// TestBuildGeometryFlags checks the explicit geometry flags and their
// errors.
func TestBuildGeometryFlags(t *testing.T) {
	dir := t.TempDir()
	a := keyFile(t, dir, "a", 1000)
	out := filepath.Join(dir, "f.sift")
	mustRun(t, nil, "build", "-q", "-blocks", "123", "-k", "5", "-seed", "77", "-o", out, a)
	info, err := sift.InspectFile(out)
	if err != nil || info.Blocks != 123 || info.K != 5 || info.Seed != 77 {
		t.Fatalf("-blocks 123 -k 5 -seed 77: %+v, %v", info, err)
	}
	mustRun(t, nil, "build", "-q", "-kind", "sbbf", "-blocks", "99", "-o", out, a)
	if info, err = sift.InspectFile(out); err != nil || info.Blocks != 99 {
		t.Fatalf("sbbf -blocks 99: %+v, %v", info, err)
	}
	for _, buckets := range []uint64{1000, 1001, 1003, 4096} {
		mustRun(t, nil, "build", "-q", "-kind", "cuckoo", "-buckets", fmt.Sprint(buckets), "-bits", "16", "-o", out, a)
		if info, err = sift.InspectFile(out); err != nil || info.Buckets != buckets || info.FingerprintBits != 16 {
			t.Fatalf("cuckoo -buckets %d: %+v, %v", buckets, info, err)
		}
	}
	// From a pipe without -n: the geometry is enough (no scalable filter).
	r := mustRun(t, []byte("x\ny\n"), "build", "-blocks", "8", "-k", "3", "-o", out)
	if info, err = sift.InspectFile(out); err != nil || info.Kind != sift.KindBlocked || info.Blocks != 8 {
		t.Fatalf("pipe with -blocks: %+v, %v (%s)", info, err, r.stderr)
	}
	if strings.Contains(r.stderr, "warning") {
		t.Fatalf("a warning for explicit geometry without -n: %s", r.stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-kind", "cuckoo", "-blocks", "10"}, "-blocks applies to"},
		{[]string{"-k", "3"}, "-k applies to"},
		{[]string{"-kind", "sbbf", "-blocks", "10", "-k", "3"}, "-k applies to"},
		{[]string{"-blocks", "10"}, "-blocks needs -k"},
		{[]string{"-buckets", "10"}, "-buckets applies to"},
		{[]string{"-blocks", "10", "-k", "3", "-fpp", "0.01"}, "use one or the other"},
		{[]string{"-blocks", "0", "-k", "3"}, "not a positive integer"},
		{[]string{"-blocks", "10", "-k", "3", "-n", "100"}, "-n sizes the filter, -blocks gives its size"},
		{[]string{"-kind", "cuckoo", "-buckets", "10", "-n", "100"}, "-n sizes the filter, -buckets gives its size"},
		{[]string{"-n", "0"}, "-n 0: a filter is sized for at least one key"},
		{[]string{"-blocks", "4294967297", "-k", "3"}, "a blocked filter has at most 4294967296 blocks"},
		{[]string{"-kind", "sbbf", "-blocks", "4294967296"}, "a split-block filter has at most"},
		{[]string{"-kind", "cuckoo", "-buckets", "4294967296"}, "a cuckoo filter has at most"},
		{[]string{"-blocks", "10", "-k", "17"}, "k"},
		{[]string{"-j", "0"}, "-j 0"},
		{[]string{"-guava", "-generation", "3"}, "Guava's format"},
		{[]string{"-generation", "0"}, "not a generation"},
	} {
		wantError(t, runSift(t, nil, append(append([]string{"build"}, c.args...), "-o", out, a)...), c.want)
	}
}

// TestBuildParallel: -j builds the same Bloom filter, bit for bit, at
// every number of goroutines, and a cuckoo filter holding every key.
func TestBuildParallel(t *testing.T) {
	n := 200_000
	jobs := []string{"1", "2", "3", "8"}
	if testing.Short() {
		n = 30_000
		if slowBinary() {
			n, jobs = 5_000, []string{"1", "3"}
		}
	}
	dir := t.TempDir()
	a, b := keyFile(t, dir, "a", n), keyFile(t, dir, "b", n/3)
	for _, kind := range testKinds() {
		var first []byte
		for _, j := range jobs {
			out := filepath.Join(dir, kind+"-"+j+".sift")
			args := []string{"build", "-q", "-kind", kind, "-j", j, "-o", out, a, b}
			if kind == "classic" {
				args = append(args, "-n", fmt.Sprint(n*4/3))
			}
			mustRun(t, nil, args...)
			if got := queryCount(t, out, a) + queryCount(t, out, b); got != n+n/3 {
				t.Fatalf("%s -j %s: %d of %d keys found", kind, j, got, n+n/3)
			}
			data, _ := os.ReadFile(out)
			if kind == "cuckoo" {
				info, _ := sift.InspectFile(out)
				if info.Count > uint64(n+n/3) || info.Count < uint64(n+n/3)*99/100 {
					t.Fatalf("cuckoo -j %s: %d fingerprints for %d keys", j, info.Count, n+n/3)
				}
				continue
			}
			if first == nil {
				first = data
			} else if !bytes.Equal(data, first) {
				t.Fatalf("%s -j %s differs from -j 1", kind, j)
			}
		}
	}
	// The shared-Concurrent form that blocked builds fall back to when
	// shards would not fit in memory makes the same file.
	t.Setenv("SIFT_BUILD_SHARED", "1")
	shared := filepath.Join(dir, "shared.sift")
	mustRun(t, nil, "build", "-q", "-j", "3", "-o", shared, a, b)
	x, _ := os.ReadFile(shared)
	y, _ := os.ReadFile(filepath.Join(dir, "blocked-1.sift"))
	if !bytes.Equal(x, y) {
		t.Fatal("blocked -j 3 with a shared Concurrent differs from -j 1")
	}
	// A full cuckoo filter fails with -j as without.
	r := runSift(t, nil, "build", "-kind", "cuckoo", "-j", "2", "-buckets", "100", "-o", filepath.Join(dir, "full.sift"), a)
	wantError(t, r, "full")
}

// TestGeneration: -generation is recorded (format version 2) and shown by
// info; without it the file is version 1.
func TestGeneration(t *testing.T) {
	dir := t.TempDir()
	a := keyFile(t, dir, "a", 100)
	out := filepath.Join(dir, "f.sift")
	for _, kind := range []string{"blocked", "cuckoo", "classic", "sbbf"} {
		mustRun(t, nil, "build", "-q", "-kind", kind, "-generation", "12345", "-o", out, a)
		info, err := sift.InspectFile(out)
		if err != nil || info.Generation != 12345 || info.Version != 2 {
			t.Fatalf("%s -generation 12345: %+v, %v", kind, info, err)
		}
		if _, err := os.ReadFile(out); err != nil {
			t.Fatal(err)
		}
		if got := queryCount(t, out, a); got != 100 {
			t.Fatalf("%s with a generation: %d of 100 keys", kind, got)
		}
		r := mustRun(t, nil, "info", out)
		if !strings.Contains(r.stdout, "generation:") || !strings.Contains(r.stdout, "12345") || !strings.Contains(r.stdout, "format version 2") {
			t.Fatalf("info of a version 2 file:\n%s", r.stdout)
		}
	}
	mustRun(t, nil, "build", "-q", "-o", out, a)
	if info, _ := sift.InspectFile(out); info.Version != 1 || info.Generation != 0 {
		t.Fatalf("no -generation: %+v", info)
	}
	if r := mustRun(t, nil, "info", out); strings.Contains(r.stdout, "generation") {
		t.Fatalf("info of a version 1 file shows a generation:\n%s", r.stdout)
	}
	mustRun(t, nil, "build", "-q", "-generation", "now", "-o", out, a)
	if info, _ := sift.InspectFile(out); info.Generation < 1_700_000_000 {
		t.Fatalf("-generation now: %d", info.Generation)
	}
	mustRun(t, nil, "merge", "-q", "-generation", "77", "-o", filepath.Join(dir, "m.sift"), out, out)
	if info, _ := sift.InspectFile(filepath.Join(dir, "m.sift")); info.Generation != 77 {
		t.Fatalf("merge -generation 77: %+v", info)
	}
}

// TestMergeCounting merges counting filters made with the library: the
// counters add (a key in both shards survives one Remove, as it would in one
// filter that had it added twice) and saturate at 15 (a key added ten times
// in each shard is never removed, where a wrapping sum would leave 4).
func TestMergeCounting(t *testing.T) {
	dir := t.TempDir()
	var shardPaths []string
	for i := range 2 {
		c, err := classic.NewCounting(1000, 0.01, classic.WithSeed(3))
		if err != nil {
			t.Fatal(err)
		}
		c.AddString("both")
		for range 10 {
			c.AddString("often")
		}
		c.AddString(fmt.Sprint("only-", i))
		b, err := c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		shardPaths = append(shardPaths, writeFile(t, dir, fmt.Sprint("c", i, ".sift"), b))
	}
	out := filepath.Join(dir, "merged.sift")
	mustRun(t, nil, append([]string{"merge", "-q", "-o", out}, shardPaths...)...)
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := classic.ReadCounting(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"both", "often", "only-0", "only-1"} {
		if !c.ContainsString(k) {
			t.Fatalf("merged counting filter lacks %q", k)
		}
	}
	if err := c.RemoveString("both"); err != nil || !c.ContainsString("both") {
		t.Fatalf("a key of both shards is gone after one Remove (%v): the counters were not added", err)
	}
	for range 20 {
		c.RemoveString("often")
	}
	if !c.ContainsString("often") {
		t.Fatal("a key added 20 times is gone after 20 removes: the sum wrapped instead of saturating")
	}
	c2, _ := classic.NewCounting(1000, 0.01, classic.WithSeed(4))
	b, _ := c2.MarshalBinary()
	other := writeFile(t, dir, "seed4.sift", b)
	wantError(t, runSift(t, nil, "merge", "-o", out, shardPaths[0], other), "seed4.sift", "incompatible")
}

// TestParallelBuildMemory: a parallel build never holds more copies of the
// filter than fit in half the machine's memory. Blocked: n shards when n
// fit, one shared Concurrent (which closes the builder's own filter first)
// when only two copies fit (its WriteTo encodes a snapshot), the builder
// alone, filled by one goroutine, when two do not; cuckoo: the builder
// alone, always.
func TestParallelBuildMemory(t *testing.T) {
	defer func(f func() uint64) { shardMemory = f }(shardMemory)
	f, err := blocked.New(1e5, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	size := f.SizeBytes()
	for _, tc := range []struct {
		total   uint64
		blocked int  // workers returned for 4 asked
		shared  bool // the blocked workers share a Concurrent
	}{
		{8 * size, 4, false},
		{4 * size, 4, true},
		{3 * size, 1, false},
	} {
		shardMemory = func() uint64 { return tc.total }
		fb, _ := blocked.New(1e5, 0.01)
		b := &blockedBuilder{f: fb}
		ws, finish, err := b.workers(4)
		if err != nil {
			t.Fatal(err)
		}
		_, shared := ws[0].(*blockedShardAdder)
		if len(ws) != tc.blocked || shared != tc.shared {
			t.Errorf("blocked, memory for %d filters: %d workers (shared %v), want %d (shared %v)", tc.total/size, len(ws), shared, tc.blocked, tc.shared)
		}
		if shared && fb.SizeBytes() != 0 {
			t.Error("the shared Concurrent was made while the builder's filter was still open")
		}
		for i, w := range ws {
			if err := w.add([]uint64{uint64(i) * 0x9e3779b97f4a7c15}); err != nil {
				t.Fatal(err)
			}
		}
		if err := finish(); err != nil || b.added() != int64(len(ws)) {
			t.Errorf("blocked finish: %v, %d keys", err, b.added())
		}
	}
	// cuckoo: build's own goroutine, at any -j (kind_cuckoo.go's add has
	// the figures).
	if _, ok := builder(&cuckooBuilder{}).(parallelBuilder); ok {
		t.Error("cuckooBuilder is a parallelBuilder: cuckoo builds would share a Concurrent")
	}
}

// TestShardWorkersMemoryShort: a parallel build whose extra shard is
// refused memory (sift.ErrTooLarge, memory ran short after shardCount
// looked) goes on with the shards it has, and a build left with one worker
// adds from build's own goroutine (no chunk copies for another).
func TestShardWorkersMemoryShort(t *testing.T) {
	f, err := blocked.New(1e4, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	b := &blockedBuilder{f: f}
	made := 0
	newShard := func() (*blockedBuilder, error) {
		if made == 1 {
			return nil, fmt.Errorf("shard: %w", sift.ErrTooLarge)
		}
		made++
		g, err := blocked.New(1e4, 0.01)
		return &blockedBuilder{f: g}, err
	}
	merge := func(into, from *blockedBuilder) error { return into.f.Union(from.f) }
	addKeys := func(into, from *blockedBuilder) { into.keys += from.keys }
	closeShard := func(s *blockedBuilder) { s.f.Close() }
	ws, finish, err := shardWorkers(b, 4, newShard, merge, addKeys, closeShard)
	if err != nil || len(ws) != 2 {
		t.Fatalf("4 workers asked, the second extra shard refused: %d workers, error %v; want 2 and no error", len(ws), err)
	}
	if err := ws[1].add([]uint64{42}); err != nil {
		t.Fatal(err)
	}
	if err := finish(); err != nil || b.added() != 1 || !b.f.ContainsHash(42) {
		t.Errorf("finish: %v, %d keys; want the second shard's key merged", err, b.added())
	}
	// Any other error still fails the build.
	other := errors.New("disk on fire")
	if _, _, err := shardWorkers(b, 2, func() (*blockedBuilder, error) { return nil, other }, merge, addKeys, closeShard); !errors.Is(err, other) {
		t.Errorf("a shard's other error: %v", err)
	}
	// One worker: a serial sink that runs finish.
	ran := false
	s, err := newSink(oneWorker{b, &ran}, 8)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.(*finishingSink); !ok {
		t.Errorf("one worker: sink %T, want *finishingSink", s)
	}
	if err := s.key([]byte("k")); err != nil {
		t.Fatal(err)
	}
	if err := s.finish(); err != nil || !ran || b.added() != 2 {
		t.Errorf("one worker's finish: %v, ran %v, %d keys", err, ran, b.added())
	}
	b.f.Close()
}

// oneWorker is a parallelBuilder whose workers are the builder alone, with
// a finish that records it ran.
type oneWorker struct {
	*blockedBuilder
	ran *bool
}

func (o oneWorker) workers(int) ([]builder, func() error, error) {
	return []builder{o.blockedBuilder}, func() error { *o.ran = true; return nil }, nil
}
