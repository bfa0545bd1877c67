package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reportOf parses raw go test output into a report, as -from does, with
// machine m standing for the host that redraws it.
func reportOf(t *testing.T, raw string, m machine) *report {
	t.Helper()
	hdr, rs, err := parseAll(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	m.restore(hdr)
	return newReport(config{from: "x.txt"}, m, summarize(rs), 0, "x.txt")
}

func lineWith(text, sub string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, sub) {
			return line
		}
	}
	return ""
}

// -from describes the machine the raw output recorded, not the host that
// redraws it; raw output without the sift-cpu lines says the machine was
// not recorded and names the host only as the one that redrew it.
func TestFromMachine(t *testing.T) {
	host := machine{CPU: "Intel Xeon", Cores: 16, Caches: "L3 99M", Memory: "1 TB", Kernel: "linux 7", GoVersion: "go9", THP: "never"}
	ran := machine{CPU: "AMD EPYC", Cores: 2, Caches: "L1 48K, L3 32768K", Memory: "24 GB", Kernel: "linux 6.18", GoVersion: "go1.26.8 linux/amd64", THP: "[madvise]",
		Peers: map[string]string{"github.com/parquet-go/parquet-go/bloom": "github.com/parquet-go/parquet-go@v0.32.0"}}
	body := "BenchmarkContains/n=1e5/fpp=0.01/filter=sift-blocked/keys=present/mode=loop-2 100 1 ns/op 10 bits/key 0.01 fpr 2 cpu-ns/key\n"
	raw := "sift-date: 2026-01-01\n" + strings.Join(ran.headerLines(), "\n") + "\ncpu: AMD EPYC\n" + body
	r := reportOf(t, raw, host)
	var b strings.Builder
	r.writeMachine(&b)
	if got := b.String(); !strings.Contains(got, "AMD EPYC (2 logical cores)") || strings.Contains(got, "Intel") || !strings.Contains(got, "L1 48K, L3 32768K") || !strings.Contains(got, "[madvise]") {
		t.Errorf("recorded machine:\n%s", got)
	}
	if r.m.Peers["github.com/parquet-go/parquet-go/bloom"] != "github.com/parquet-go/parquet-go@v0.32.0" || r.m.Date != "2026-01-01" {
		t.Errorf("restored %+v", r.m)
	}
	r = reportOf(t, "goos: linux\ngoarch: amd64\ncpu: AMD EPYC\n"+body, host)
	b.Reset()
	r.writeMachine(&b)
	got := b.String()
	if !strings.Contains(got, "| CPU | AMD EPYC (go test's") || !strings.Contains(got, "not recorded in the raw output") || !strings.Contains(got, "redrawn on: Intel Xeon (16 logical cores)") {
		t.Errorf("machine not recorded:\n%s", got)
	}
	if strings.Contains(lineWith(got, "| CPU |"), "Intel") || strings.Contains(got, "16-core machine") {
		t.Errorf("the redrawing host is presented as the machine:\n%s", got)
	}
}

// report -from raw output with no Contains, Insert or Memory case (go test
// -bench Hash) is an error, not a panic.
func TestFromNothingTabulated(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "hash.txt")
	if err := os.WriteFile(raw, []byte("goos: linux\ngoarch: amd64\ncpu: X\nBenchmarkHash/hash=xxh3-2 100 1 ns/op 2.26 cpu-ns/key 2.26 ns/key\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir("../..") // run wants the bench module's directory
	err := run(config{from: raw, outDir: filepath.Join(dir, "out")})
	if err == nil || !strings.Contains(err.Error(), "nothing to tabulate") {
		t.Fatalf("run = %v, want the nothing-to-tabulate error", err)
	}
}
