// Command report runs sift's comparison benchmarks (package bench) with
// -count repetitions, takes medians, and writes results/<cpu>.md with
// tables against every peer and the memory limit, plus plots in SVG and
// PNG. Run it from the bench directory:
//
//	go run ./cmd/report            # full: n = 1e5, 1e6, 1e7 (~15 min on 2 cores)
//	go run ./cmd/report -quick     # n = 1e5, 1e6, fewer repetitions (~2 min)
//	go run ./cmd/report -large     # also n = 1e8 (needs ~4 GB and much longer)
//	go run ./cmd/report -from results/<cpu>.txt   # redo tables and plots from saved output
//
// The raw go test output is saved next to the report (results/<cpu>.txt)
// and can be fed to benchstat.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/sift-go/sift/internal/mem"
)

type config struct {
	quick     bool
	large     bool
	count     int
	benchtime string
	sizes     string
	fpps      string
	filter    string
	outDir    string
	slug      string
	from      string
	wall      bool
	recorded  string // the command that produced a -from file, if it says
	harness   string // a -from file's sift-harness line (see harness)
}

func main() {
	var c config
	flag.BoolVar(&c.quick, "quick", false, "quick mode: n = 1e5,1e6, -count 3, -benchtime 100ms (~2 min)")
	flag.BoolVar(&c.large, "large", false, "also run n = 1e8 (needs ~4 GB of memory)")
	flag.IntVar(&c.count, "count", 0, "repetitions of each case, medians reported (default 5; 3 with -quick)")
	flag.StringVar(&c.benchtime, "benchtime", "", "go test -benchtime per repetition (default 200ms; 100ms with -quick)")
	flag.StringVar(&c.sizes, "n", "", "comma-separated key counts (overrides the mode's sizes), e.g. 1e5,1e7")
	flag.StringVar(&c.fpps, "fpp", "0.01,0.001", "comma-separated target false-positive rates")
	flag.StringVar(&c.filter, "filter", "", "regexp: only filters whose name matches (sift's and the memory probe are always useful to keep)")
	flag.StringVar(&c.outDir, "out", "results", "directory for the report, plots and raw output")
	flag.StringVar(&c.slug, "name", "", "report file name stem (default: a slug of the CPU model)")
	flag.StringVar(&c.from, "from", "", "skip running: build the report from this saved go test output")
	flag.BoolVar(&c.wall, "wall", false, "tables use wall-clock ns/key instead of the thread's CPU time (cpu-ns/key)")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func run(c config) error {
	if err := checkDir(); err != nil {
		return err
	}
	if c.count == 0 {
		c.count = 5
		if c.quick {
			c.count = 3
		}
	}
	if c.benchtime == "" {
		c.benchtime = "200ms"
		if c.quick {
			c.benchtime = "100ms"
		}
	}
	if c.sizes == "" {
		c.sizes = "1e5,1e6,1e7"
		if c.quick {
			c.sizes = "1e5,1e6"
		}
		if c.large {
			c.sizes += ",1e8"
		}
	}
	m := probeMachine()
	if c.slug == "" {
		c.slug = slugify(m.CPUName)
		if c.from != "" {
			// Redrawing keeps the raw file's name: the report of
			// results/amd-epyc-1e8.txt is results/amd-epyc-1e8.md,
			// whatever machine redraws it.
			c.slug = strings.TrimSuffix(filepath.Base(c.from), ".txt")
		}
	}
	if err := os.MkdirAll(c.outDir, 0o755); err != nil {
		return err
	}
	rawPath := filepath.Join(c.outDir, c.slug+".txt")
	var raw []byte
	var elapsed time.Duration
	if c.from != "" {
		b, err := os.ReadFile(c.from)
		if err != nil {
			return err
		}
		raw = b
		rawPath = c.from
	} else {
		start := time.Now()
		m.LoadStart = loadAverage()
		m.Peers = moduleVersions(libraries())
		// Configuration lines (benchfmt "key: value") make the raw output
		// self-describing, so -from can redo the report faithfully,
		// the machine it ran on included.
		c.recorded = strings.TrimSpace("go run ./cmd/report " + shellJoin(os.Args[1:]))
		head := append([]string{
			"sift-command: " + c.recorded,
			"sift-date: " + m.Date,
			"sift-git: " + m.Git,
			"sift-benchtime: " + c.benchtime,
			"sift-load-start: " + m.LoadStart,
			"sift-harness: " + harness,
		}, m.headerLines()...)
		// The raw output streams into a .partial file beside rawPath,
		// renamed over it once the run is complete: an interrupted or
		// failed run leaves the partial output to look at and the results
		// of the last complete run as they were.
		partial := rawPath + ".partial"
		b, err := runBenchmarks(c, partial, head, func() []string {
			elapsed = time.Since(start)
			m.LoadEnd = loadAverage()
			return []string{"sift-elapsed: " + fmtDur(elapsed), "sift-load-end: " + m.LoadEnd}
		})
		if err != nil {
			return err
		}
		if err := mem.RenameDurable(partial, rawPath); err != nil {
			return err
		}
		raw = b
	}
	hdr, results, err := parseAll(strings.NewReader(string(raw)))
	if err != nil {
		return err
	}
	if c.from != "" {
		m.restore(hdr)
		if v := hdr["sift-benchtime"]; v != "" {
			c.benchtime = v
		}
		c.recorded = hdr["sift-command"]
		c.harness = hdr["sift-harness"]
	}
	if len(results) == 0 {
		return fmt.Errorf("no benchmark results in the output (see %s)", rawPath)
	}
	rep := newReport(c, m, summarize(results), elapsed, rawPath)
	if len(rep.sizes) == 0 || len(rep.fpps) == 0 {
		return fmt.Errorf("no Contains, Insert or Memory results with n and fpp in %s: nothing to tabulate", rawPath)
	}
	mdPath := filepath.Join(c.outDir, c.slug+".md")
	plots, err := rep.plots(c.outDir, c.slug)
	if err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	if err := writeFileAtomic(mdPath, func(w io.Writer) error {
		_, err := io.WriteString(w, rep.markdown(plots))
		return err
	}); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s", mdPath)
	for _, p := range plots {
		fmt.Fprintf(os.Stderr, ", %s.{svg,png}", filepath.Join(c.outDir, p.File))
	}
	fmt.Fprintf(os.Stderr, ", %s\n", rawPath)
	return nil
}

// checkDir makes sure we run in the bench module, where go test finds the
// benchmarks.
func checkDir() error {
	b, err := os.ReadFile("go.mod")
	if err != nil || !strings.Contains(string(b), "module github.com/sift-go/sift/bench") {
		return fmt.Errorf("run me from sift's bench directory: cd bench && go run ./cmd/report")
	}
	return nil
}

func (c config) testFlags() []string {
	f := []string{"-sift.n=" + c.sizes, "-sift.fpp=" + c.fpps}
	if c.filter != "" {
		f = append(f, "-sift.filter="+c.filter)
	}
	return f
}

// runBenchmarks builds the test binary, lists the cases, runs them with
// progress on stderr, and returns the raw output, which it also writes
// to rawPath as it comes, between the lines of head and those tail
// returns after the last round (the caller renames the file into place
// once it is complete and on disk).
func runBenchmarks(c config, rawPath string, head []string, tail func() []string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "sift-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bench.test")
	fmt.Fprintln(os.Stderr, "building the benchmark binary ...")
	build := exec.Command("go", "test", "-c", "-o", bin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("go test -c: %w", err)
	}
	list, err := exec.Command(bin, append([]string{"-sift.list"}, c.testFlags()...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("listing cases: %w", err)
	}
	cases := strings.Fields(string(list))
	weights := map[string]float64{}
	total := 0.0
	for _, name := range cases {
		w := caseWeight(name)
		weights[name] = w
		total += w * float64(c.count)
	}
	fmt.Fprintf(os.Stderr, "%d cases x %d repetitions, -benchtime %s, n = %s, fpp = %s\n",
		len(cases), c.count, c.benchtime, c.sizes, c.fpps)

	// The repetitions run as rounds: every case once per round, one test
	// binary invocation each, so a change in the machine's load during the
	// run shifts all cases alike instead of the few that ran then (with
	// -test.count=N go test repeats each case N times back to back, and
	// the ratios between filters drifted by up to 30% between reports).
	args := append([]string{
		"-test.run=^$", "-test.bench=.", "-test.benchmem",
		"-test.count=1", "-test.benchtime=" + c.benchtime,
		"-test.timeout=0",
	}, c.testFlags()...)
	rawFile, err := os.Create(rawPath)
	if err != nil {
		return nil, err
	}
	defer rawFile.Close()
	var werr error // the first failed write to rawFile (a full disk)
	writeRaw := func(line string) {
		if _, err := fmt.Fprintln(rawFile, line); err != nil && werr == nil {
			werr = err
		}
	}
	var all strings.Builder
	for _, line := range head {
		writeRaw(line)
		all.WriteString(line + "\n")
	}
	start := time.Now()
	done, doneW, runs := 0, 0.0, len(cases)*c.count
	for round := 1; round <= c.count; round++ {
		cmd := exec.Command(bin, args...)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			all.WriteString(line + "\n")
			writeRaw(line)
			// Progress counts the listed cases only: benchmarks that
			// -sift.list does not plan (BenchmarkInlineProbe, whose sizes
			// are its own) still go into the raw output.
			if r, ok := parseLine(line); ok && weights[r.Name] > 0 {
				done++
				doneW += weights[r.Name]
				el := time.Since(start)
				eta := "?"
				if doneW > 0 {
					eta = fmtDur(time.Duration(float64(el) / doneW * math.Max(total-doneW, 0)))
				}
				fmt.Fprintf(os.Stderr, "[%4d/%d %3.0f%% round %d/%d] %-80s %9.3g ns/key (cpu %.3g)  elapsed %s  ETA ~%s\n",
					done, runs, 100*doneW/total, round, c.count, strings.TrimPrefix(r.Name, "Benchmark"), r.Metrics["ns/key"], r.Metrics["cpu-ns/key"], fmtDur(el), eta)
			} else if strings.HasPrefix(line, "--- FAIL") || strings.HasPrefix(line, "--- SKIP") || strings.Contains(line, "panic") {
				fmt.Fprintln(os.Stderr, line)
			}
		}
		if err := sc.Err(); err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, fmt.Errorf("reading the benchmarks' output in round %d (output so far in %s): %w", round, rawPath, err)
		}
		if err := cmd.Wait(); err != nil {
			return nil, fmt.Errorf("benchmarks failed in round %d (output so far in %s): %w", round, rawPath, err)
		}
		// A full disk stops the run at the end of the round, not of
		// the whole run: the rounds after it could not be saved either.
		if werr != nil {
			return nil, fmt.Errorf("writing %s in round %d: %w", rawPath, round, werr)
		}
	}
	for _, line := range tail() {
		writeRaw(line)
		all.WriteString(line + "\n")
	}
	// The run is not complete if its output did not reach the disk.
	if werr != nil {
		return nil, fmt.Errorf("writing %s: %w", rawPath, werr)
	}
	if err := rawFile.Sync(); err != nil {
		return nil, err
	}
	if err := rawFile.Close(); err != nil {
		return nil, err
	}
	return []byte(all.String()), nil
}

var plainArg = regexp.MustCompile(`^[A-Za-z0-9._/=,:+-]+$`)

// shellJoin joins args as a shell would need them typed.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if plainArg.MatchString(a) {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// writeFileAtomic writes path with write through internal/mem.WriteAtomic
// (a temporary file beside path, synced, renamed over it), so a failed or
// interrupted write leaves the previous file whole. The file gets mode
// 0644 whatever the umask, as the committed results have.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	_, err := mem.WriteAtomic(path, func(w io.Writer) (int64, error) {
		return 0, write(w)
	}, mem.AtomicOptions{Mode: 0o644})
	return err
}

// caseWeight estimates a case's share of the run time, for the ETA: setup
// (building filters, inserting n keys) grows with n.
func caseWeight(name string) float64 {
	k := parseName(name)
	n := parseCount(k.Params["n"])
	switch k.Func {
	case "Insert":
		return 1 + n/1e6
	case "Contains":
		return 1 + n/1e7
	case "Memory":
		return 1 + n/1e8
	}
	return 1
}

func parseCount(s string) float64 {
	var f float64
	if _, err := fmt.Sscanf(s, "%g", &f); err != nil {
		return 0
	}
	return f
}

func fmtDur(d time.Duration) string {
	d = d.Round(time.Second)
	if d >= time.Minute {
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%ds", int(d.Seconds()))
}
