package main

import (
	"strings"
	"testing"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/sift-go/sift/bench
cpu: AMD EPYC
BenchmarkContains/n=1e5/fpp=0.01/filter=sift-blocked/keys=present/mode=loop-2   	  100	  9183 ns/op	  10.10 bits/key	  0.01005 fpr	  2.0 ns/key	  0 B/op	  0 allocs/op
BenchmarkContains/n=1e5/fpp=0.01/filter=sift-blocked/keys=present/mode=loop-2   	  100	  9183 ns/op	  10.10 bits/key	  0.01005 fpr	  4.0 ns/key	  0 B/op	  0 allocs/op
BenchmarkContains/n=1e5/fpp=0.01/filter=sift-blocked/keys=present/mode=loop-2   	  100	  9183 ns/op	  10.10 bits/key	  0.01005 fpr	  3.0 ns/key	  0 B/op	  0 allocs/op
--- SKIP: BenchmarkInsert/n=1e6/fpp=0.01/filter=x
PASS
`

func TestParseAndSummarize(t *testing.T) {
	h, rs, err := parseAll(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if h["cpu"] != "AMD EPYC" || h["goarch"] != "amd64" {
		t.Errorf("header %v", h)
	}
	if len(rs) != 3 {
		t.Fatalf("%d results, want 3", len(rs))
	}
	s := summarize(rs)
	if len(s) != 1 || s[0].Runs != 3 {
		t.Fatalf("summaries %+v", s)
	}
	if got := s[0].Metrics["ns/key"]; got != 3.0 {
		t.Errorf("median ns/key = %g, want 3", got)
	}
	k := s[0].Key
	if k.Func != "Contains" || k.Params["filter"] != "sift-blocked" || k.Params["n"] != "1e5" || k.Params["mode"] != "loop" {
		t.Errorf("key %+v", k)
	}
}

func TestParseLineRejects(t *testing.T) {
	for _, line := range []string{"PASS", "BenchmarkX", "BenchmarkX-2 abc 1 ns/op", "ok  pkg 1.0s"} {
		if _, ok := parseLine(line); ok {
			t.Errorf("parseLine(%q) accepted", line)
		}
	}
}

func TestMedianEven(t *testing.T) {
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median = %g", got)
	}
}

func TestShellJoin(t *testing.T) {
	got := shellJoin([]string{"-n", "1e5,1e6", "-filter", "sift-blocked$|parquet", "it's"})
	want := `-n 1e5,1e6 -filter 'sift-blocked$|parquet' 'it'\''s'`
	if got != want {
		t.Errorf("shellJoin = %s, want %s", got, want)
	}
}

// TestReportColumnsFromTabulatedCases checks that the tables' n and fpp
// columns come from the Contains, Insert and Memory cases only: another
// benchmark of the module that spells its sizes its own way (n=1e+06)
// must not add an empty column.
func TestReportColumnsFromTabulatedCases(t *testing.T) {
	var ss []summary
	for _, name := range []string{
		"Contains/n=1e5/fpp=0.01/filter=sift-blocked/keys=present/mode=loop",
		"Insert/n=1e6/fpp=0.001/filter=sift-blocked/mode=batch",
		"Memory/n=1e7/fpp=0.01/probe=random",
		"InlineProbe/n=1e+06/impl=parquet-go.Check",
	} {
		ss = append(ss, summaryOf(name))
	}
	r := newReport(config{}, machine{}, ss, 0, "")
	if got := strings.Join(r.sizes, ","); got != "1e5,1e6,1e7" {
		t.Errorf("sizes %s, want 1e5,1e6,1e7", got)
	}
	if got := strings.Join(r.fpps, ","); got != "0.01,0.001" {
		t.Errorf("fpps %s, want 0.01,0.001", got)
	}
	// A -n 1e8 report, where BenchmarkInlineProbe still runs its own 1e5
	// and 1e6 (named as the tables name sizes).
	r = newReport(config{}, machine{}, []summary{
		summaryOf("Memory/n=1e8/fpp=0.01/probe=random"),
		summaryOf("InlineProbe/n=1e5/impl=parquet-go.Check"),
	}, 0, "")
	if got := strings.Join(r.sizes, ","); got != "1e8" {
		t.Errorf("sizes %s, want 1e8", got)
	}
}

func summaryOf(name string) summary {
	return summary{Name: "Benchmark" + name, Key: parseName("Benchmark" + name), Runs: 1, Metrics: map[string]float64{"ns/key": 1}}
}
