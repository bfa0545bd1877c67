package main

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
)

// TestLineReader checks keys and raw lines against a simple split, over
// random inputs made of the bytes that matter, read in small pieces.
func TestLineReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("ab\r\n")
	iters := 1000
	if testing.Short() {
		iters = 200
	}
	p := filepath.Join(t.TempDir(), "in.txt")
	for iter := range iters {
		n := rng.IntN(40)
		if iter%100 == 0 {
			n = 300 << 10 // longer than the reader's buffer
		}
		in := make([]byte, n)
		for i := range in {
			in[i] = alphabet[rng.IntN(len(alphabet))]
		}
		var wantKeys, gotKeys []string
		var wantRaw []byte
		rest := in
		for len(rest) > 0 {
			i := bytes.IndexByte(rest, '\n')
			line := rest
			if i >= 0 {
				line = rest[:i+1]
			}
			rest = rest[len(line):]
			key := strings.TrimSuffix(string(line), "\n")
			if len(key) < len(line) {
				key = strings.TrimSuffix(key, "\r")
			}
			wantKeys = append(wantKeys, key)
			wantRaw = append(wantRaw, line...)
		}
		lr := newLineReader(iotest.HalfReader(bytes.NewReader(in)), "test")
		var gotRaw []byte
		for {
			raw, key, ok := lr.next()
			if !ok {
				break
			}
			gotKeys = append(gotKeys, string(key))
			gotRaw = append(gotRaw, raw...)
		}
		if lr.err != nil {
			t.Fatal(lr.err)
		}
		if !bytes.Equal(gotRaw, in) || !bytes.Equal(wantRaw, in) {
			t.Fatalf("input %q: raw lines do not rebuild the input", in)
		}
		if fmt.Sprint(gotKeys) != fmt.Sprint(wantKeys) {
			t.Fatalf("input %q: keys %q, want %q", in, gotKeys, wantKeys)
		}
		if lr.line != int64(len(wantKeys)) || lr.bytes != int64(len(in)) {
			t.Fatalf("input %q: counted %d lines %d bytes", in, lr.line, lr.bytes)
		}
		// countLines must agree with the keys build would add.
		nonEmpty := 0
		for _, k := range wantKeys {
			if k != "" {
				nonEmpty++
			}
		}
		if err := os.WriteFile(p, in, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := countLines(p, nil)
		if err != nil || c != int64(nonEmpty) {
			t.Fatalf("input %q: countLines = %d, %v; want %d", in, c, err, nonEmpty)
		}
	}
}

func TestLineTooLong(t *testing.T) {
	defer func(old int) { maxLineLen = old }(maxLineLen)
	maxLineLen = 300 << 10 // more than the reader's buffer
	in := bytes.Repeat([]byte("z"), maxLineLen+1)
	lr := newLineReader(bytes.NewReader(in), "big.txt")
	if _, _, ok := lr.next(); ok || lr.err == nil || !strings.Contains(lr.err.Error(), "big.txt: line 1 is longer") {
		t.Fatalf("over-long line: ok %v, err %v", ok, lr.err)
	}
}

func TestParseCount(t *testing.T) {
	good := map[string]int64{"0": 0, "1000": 1000, "1_000_000": 1e6, "1e6": 1e6, "2.5e3": 2500, "10k": 10_000, "1M": 1e6, "1.5m": 1_500_000, "2G": 2e9}
	for s, want := range good {
		if got, err := parseCount(s); err != nil || got != want {
			t.Errorf("parseCount(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "-1", "1.5", "abc", "1e30", "NaN", "Inf", "1x", "-2k"} {
		if got, err := parseCount(s); err == nil {
			t.Errorf("parseCount(%q) = %d, want an error", s, got)
		}
	}
}

func TestFlagValues(t *testing.T) {
	var p fppValue
	for s, want := range map[string]float64{"0.01": 0.01, "1e-3": 1e-3, "1%": 0.01, "0.5%": 0.005} {
		if err := p.Set(s); err != nil || p.p != want {
			t.Errorf("fpp %q = %v, %v; want %v", s, p.p, err, want)
		}
	}
	for _, s := range []string{"0", "1", "-0.1", "100%", "x", "NaN"} {
		if err := p.Set(s); err == nil {
			t.Errorf("fpp %q accepted", s)
		}
	}
	var sd seedValue
	for s, want := range map[string]uint64{"0": 0, "42": 42, "0xff": 255, "18446744073709551615": 1<<64 - 1} {
		if err := sd.Set(s); err != nil || sd.seed != want {
			t.Errorf("seed %q = %v, %v; want %v", s, sd.seed, err, want)
		}
	}
	if err := sd.Set("random"); err != nil {
		t.Error(err)
	}
	if err := sd.Set("-1"); err == nil {
		t.Error("seed -1 accepted")
	}
	// Decimal or 0x-hex, as the usages say: a leading zero is a digit, not
	// strconv's octal prefix (017 was 15, and 09 an error).
	for s, want := range map[string]uint64{"017": 17, "09": 9, "0x11": 17, "0X11": 17, "1_000": 1000, " 8 ": 8} {
		var u uintValue
		if err := u.Set(s); err != nil || u.n != want {
			t.Errorf("count %q = %v, %v; want %v", s, u.n, err, want)
		}
		if err := sd.Set(s); err != nil || sd.seed != want {
			t.Errorf("seed %q = %v, %v; want %v", s, sd.seed, err, want)
		}
	}
	for _, s := range []string{"0", "0o17", "0b11", "0x", "1e3", "", "+5"} {
		var u uintValue
		if err := u.Set(s); err == nil {
			t.Errorf("count %q accepted as %d", s, u.n)
		}
	}
}

func TestParseFlagsInterleaved(t *testing.T) {
	fs := newFlagSet("test")
	v := fs.Bool("v", false, "")
	o := fs.String("o", "", "")
	args, err := parseFlags(fs, []string{"a", "-v", "b", "-o", "x", "-", "--", "-c"})
	if err != nil || !*v || *o != "x" || fmt.Sprint(args) != "[a b - -c]" {
		t.Fatalf("got %q, v=%v o=%q, %v", args, *v, *o, err)
	}
	if _, err := parseFlags(newFlagSet("test"), []string{"-h"}); err != errHelp {
		t.Fatalf("-h: %v", err)
	}
}

// TestRunInProcess checks the dispatcher and the single-line errors
// without a subprocess, including the panic guard.
func TestRunInProcess(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"help"}, nil, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "commands:") {
		t.Errorf("help: %d %q", code, stdout.String())
	}
	stdout.Reset()
	commands = append(commands, &command{name: "boom", run: func(*env) (int, error) { panic("kaboom") }})
	defer func() { commands = commands[:len(commands)-1] }()
	if code := run([]string{"boom"}, nil, &stdout, &stderr); code != exitError || !strings.Contains(stderr.String(), "internal error: kaboom") || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("panic: exit %d, stderr %q", code, stderr.String())
	}
}

// fullWriter fails every write as a full disk does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestStdoutWriteErrors: a command whose output cannot be written (stdout
// on a full disk) exits 2 with the error on stderr, never 0: info,
// version and the help texts included.
func TestStdoutWriteErrors(t *testing.T) {
	dir := t.TempDir()
	keys := writeFile(t, dir, "keys.txt", []byte("a\nb\n"))
	filter := filepath.Join(dir, "f.sift")
	var stderr bytes.Buffer
	if code := run([]string{"build", "-q", "-o", filter, keys}, nil, io.Discard, &stderr); code != 0 {
		t.Fatalf("build: %d %s", code, stderr.String())
	}
	for _, args := range [][]string{
		{"info", filter}, {"version"}, {"help"}, {"help", "build"}, {"build", "-h"}, {"dedup", "-h"}, {"dedup", "-h", "-n", "1e6"}, {"query", filter},
	} {
		stderr.Reset()
		code := run(args, strings.NewReader("a\n"), fullWriter{}, &stderr)
		if code != exitError || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("sift %s > full disk: exit %d, stderr %q", strings.Join(args, " "), code, stderr.String())
		}
	}
}

// TestBuildOutputIsStdin: build refuses an -o that is the file its
// standard input reads ("-" or no input named), as it refuses a named
// input: the filter would have replaced the keys (`sift build -o
// keys.txt < keys.txt` exited 0 and did).
func TestBuildOutputIsStdin(t *testing.T) {
	dir := t.TempDir()
	keys := writeFile(t, dir, "keys.txt", []byte("a\nb\n"))
	for _, args := range [][]string{{"build", "-q", "-o", keys}, {"build", "-q", "-o", keys, "-"}} {
		in, err := os.Open(keys)
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		code := run(args, in, io.Discard, &stderr)
		in.Close()
		if code != exitError || !strings.Contains(stderr.String(), "is also standard input") {
			t.Errorf("sift %s < keys.txt: exit %d, stderr %q", strings.Join(args, " "), code, stderr.String())
		}
		if data, err := os.ReadFile(keys); err != nil || string(data) != "a\nb\n" {
			t.Fatalf("sift %s < keys.txt: the keys file now holds %q (%v)", strings.Join(args, " "), data, err)
		}
	}
	// Standard input that is another file still builds.
	other := writeFile(t, dir, "other.txt", []byte("c\n"))
	in, err := os.Open(other)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var stderr bytes.Buffer
	if code := run([]string{"build", "-q", "-o", keys}, in, io.Discard, &stderr); code != 0 {
		t.Errorf("sift build -o keys.txt < other.txt: exit %d, stderr %q", code, stderr.String())
	}
}

// Example shows build and query run in-process, as the command line
// "sift build -o f.sift keys.txt" then "sift query f.sift" does.
func Example() {
	dir, _ := os.MkdirTemp("", "sift-example-")
	defer os.RemoveAll(dir)
	keys := filepath.Join(dir, "blocklist.txt")
	os.WriteFile(keys, []byte("evil.example\nspam.example\n"), 0o644)
	filter := filepath.Join(dir, "blocklist.sift")

	var stderr bytes.Buffer
	run([]string{"build", "-q", "-o", filter, keys}, nil, os.Stdout, &stderr)
	logs := strings.NewReader("good.example\nspam.example\nfine.example\nevil.example\n")
	code := run([]string{"query", filter}, logs, os.Stdout, &stderr)
	fmt.Println("exit status", code)
	// Output:
	// spam.example
	// evil.example
	// exit status 0
}

func TestFieldSelector(t *testing.T) {
	cases := []struct {
		line  string
		field int
		delim byte
		want  string
	}{
		{"a b c", 0, 0, "a b c"},
		{"a b c", 1, 0, "a"},
		{"  a \t b   c ", 2, 0, "b"},
		{"  a \t b   c ", 3, 0, "c"},
		{"a b c", 4, 0, ""},
		{"", 1, 0, ""},
		{"   ", 1, 0, ""},
		{"a,b,,d", 1, ',', "a"},
		{"a,b,,d", 3, ',', ""},
		{"a,b,,d", 4, ',', "d"},
		{"a,b,,d", 5, ',', ""},
		{"abc", 1, ',', "abc"},
		{",x", 2, ',', "x"},
	}
	for _, c := range cases {
		got := string(fieldSelector{field: c.field, delim: c.delim}.key([]byte(c.line)))
		if got != c.want {
			t.Errorf("field %d (delim %q) of %q = %q, want %q", c.field, c.delim, c.line, got, c.want)
		}
	}
	for _, bad := range []struct {
		f int
		d string
	}{{-1, ""}, {0, ","}, {1, "ab"}, {1, "\n"}} {
		if _, err := fieldFlags(fieldValue{n: bad.f, set: bad.f != 0}, bad.d); err == nil {
			t.Errorf("-f %d -d %q accepted", bad.f, bad.d)
		}
	}
	if sel, err := fieldFlags(fieldValue{n: 2, set: true}, `\t`); err != nil || sel.delim != '\t' {
		t.Errorf(`-d \t: %v %v`, sel, err)
	}
}

// TestBuildHugeJobs: -j past maxJobs is lowered to it, and the file is the
// same as with -j 1. -j 100000 made 100000 shards (90 s and 12 GB for
// 100000 keys of a split-block filter).
func TestBuildHugeJobs(t *testing.T) {
	var jobs []int
	defer func(old func(builder, int) (keySink, error)) { buildSink = old }(buildSink)
	buildSink = func(b builder, j int) (keySink, error) {
		jobs = append(jobs, j)
		return newSink(b, j)
	}
	dir := t.TempDir()
	keys := writeFile(t, dir, "keys.txt", keyLines("k", 5000))
	for _, kind := range []string{"sbbf", "blocked", "classic"} {
		one, many := filepath.Join(dir, kind+"1.sift"), filepath.Join(dir, kind+"many.sift")
		for _, c := range []struct{ j, out string }{{"1", one}, {"1000000", many}} {
			var stderr bytes.Buffer
			if code := run([]string{"build", "-q", "-kind", kind, "-j", c.j, "-o", c.out, keys}, nil, io.Discard, &stderr); code != 0 {
				t.Fatalf("build -kind %s -j %s: exit %d %s", kind, c.j, code, stderr.String())
			}
		}
		if a, b := mustRead(t, one), mustRead(t, many); !bytes.Equal(a, b) {
			t.Errorf("-kind %s: -j 1000000 wrote another file than -j 1", kind)
		}
	}
	if len(jobs) != 6 {
		t.Fatalf("builds asked for goroutines %v, want 6 builds", jobs)
	}
	for i, j := range jobs {
		if want := []int{1, maxJobs()}[i%2]; j != want {
			t.Errorf("build %d: %d goroutines, want %d", i, j, want)
		}
	}
}
