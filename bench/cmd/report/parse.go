package main

import (
	"bufio"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// result is one benchmark line of go test output.
type result struct {
	Name    string             // without the -GOMAXPROCS suffix
	Metrics map[string]float64 // unit -> value (ns/op, ns/key, fpr, ...)
}

var procsSuffix = regexp.MustCompile(`-\d+$`)

// parseLine parses a "BenchmarkX/a=b-2  N  v unit  v unit ..." line; ok is
// false for any other line.
func parseLine(line string) (result, bool) {
	if !strings.HasPrefix(line, "Benchmark") {
		return result{}, false
	}
	fields := strings.Fields(line)
	if len(fields) < 4 || len(fields)%2 != 0 {
		return result{}, false
	}
	if _, err := strconv.ParseInt(fields[1], 10, 64); err != nil {
		return result{}, false
	}
	r := result{Name: procsSuffix.ReplaceAllString(fields[0], ""), Metrics: map[string]float64{}}
	for i := 2; i+1 < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return result{}, false
		}
		r.Metrics[fields[i+1]] = v
	}
	return r, true
}

// header holds the go test preamble lines (goos, goarch, pkg, cpu).
type header map[string]string

// parseAll reads go test -bench output: the preamble and every result.
func parseAll(r io.Reader) (header, []result, error) {
	h := header{}
	var out []result
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if res, ok := parseLine(line); ok {
			out = append(out, res)
			continue
		}
		if k, v, ok := strings.Cut(line, ": "); ok && !strings.Contains(k, " ") {
			h[k] = strings.TrimSpace(v)
		}
	}
	return h, out, sc.Err()
}

// caseKey is the parsed key=value path of a benchmark name.
type caseKey struct {
	Func   string // Contains, Insert, Memory, Hash
	Params map[string]string
}

func parseName(name string) caseKey {
	parts := strings.Split(name, "/")
	k := caseKey{Func: strings.TrimPrefix(parts[0], "Benchmark"), Params: map[string]string{}}
	for _, p := range parts[1:] {
		if key, v, ok := strings.Cut(p, "="); ok {
			k.Params[key] = v
		}
	}
	return k
}

// summary is the median of every metric over a case's repetitions.
type summary struct {
	Name    string
	Key     caseKey
	Runs    int
	Metrics map[string]float64
	// Values holds every repetition's value of each metric, in the order
	// of the output: the report's rounds run every case once each, so
	// Values[u][i] of two cases come from the same round i (see
	// report.ratio).
	Values map[string][]float64
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// summarize groups results by name and takes medians, keeping first-seen
// order.
func summarize(rs []result) []summary {
	idx := map[string]int{}
	var order []string
	vals := map[string]map[string][]float64{}
	for _, r := range rs {
		if _, ok := idx[r.Name]; !ok {
			idx[r.Name] = len(order)
			order = append(order, r.Name)
			vals[r.Name] = map[string][]float64{}
		}
		for u, v := range r.Metrics {
			vals[r.Name][u] = append(vals[r.Name][u], v)
		}
	}
	out := make([]summary, 0, len(order))
	for _, name := range order {
		s := summary{Name: name, Key: parseName(name), Metrics: map[string]float64{}, Values: vals[name]}
		for u, v := range vals[name] {
			s.Metrics[u] = median(v)
			s.Runs = max(s.Runs, len(v))
		}
		out = append(out, s)
	}
	return out
}
