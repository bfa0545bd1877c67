package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
)

// runInProcess runs one sift command line in this process (so that -race
// sees it) with stdin as standard input, and returns its result.
func runInProcess(stdin string, args ...string) result {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// dedupReference is awk '!seen[key]++' over the concatenated inputs, written
// without the command's line reader or field selector: the lines are split
// at "\n", the key is the line without "\n" or "\r\n", field selects as
// awk (runs of spaces and tabs) or, with delim, as cut -d; a printed line
// without a terminator gets one.
func dedupReference(inputs []string, field int, delim string) string {
	seen := map[string]bool{}
	var out strings.Builder
	for _, in := range inputs {
		for len(in) > 0 {
			line := in
			if i := strings.IndexByte(in, '\n'); i >= 0 {
				line = in[:i+1]
			}
			in = in[len(line):]
			key := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
			if !strings.HasSuffix(line, "\n") {
				key = line // the last line: nothing to strip
			}
			if field > 0 {
				var fields []string
				if delim == "" {
					fields = strings.FieldsFunc(key, func(r rune) bool { return r == ' ' || r == '\t' })
				} else {
					fields = strings.Split(key, delim)
				}
				key = ""
				if field <= len(fields) {
					key = fields[field-1]
				}
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			out.WriteString(line)
			if !strings.HasSuffix(line, "\n") {
				out.WriteByte('\n')
			}
		}
	}
	return out.String()
}

// randomLog returns lines URL-like lines with about distinct different
// ones, with space- and comma-separated fields that repeat more often
// than whole lines.
func randomLog(rng *rand.Rand, lines, distinct int) string {
	var b strings.Builder
	for range lines {
		i := rng.IntN(distinct)
		fmt.Fprintf(&b, "host%d.example %d,GET,/p/%d https://h%d.example/a/%d\n", i%37, i%5, i%101, i%13, i)
	}
	return b.String()
}

// TestDedupMatchesReference compares sift dedup with an awk-like map on
// inputs with duplicates, fields, delimiters, CRLF, empty lines, a last line
// without a terminator and empty input, from standard input and from files
// (keys are shared across files). The filters are sized far above the
// keys, so no false positive is expected: the outputs must be equal.
func TestDedupMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	big := randomLog(rng, 5000, 2000)
	// Lines longer than the reader's buffer, and batches cut by their
	// bytes (maxBatchText) rather than their count.
	var long strings.Builder
	for i := range 30 {
		long.WriteString(strings.Repeat(string(rune('a'+i%4)), 300<<10+i%3))
		long.WriteString("\n")
	}
	cases := []struct {
		name   string
		inputs []string
		flags  []string
		field  int
		delim  string
	}{
		{"empty", []string{""}, nil, 0, ""},
		{"one line no newline", []string{"a"}, nil, 0, ""},
		{"duplicates", []string{"a\nb\na\nc\nb\na\n"}, nil, 0, ""},
		{"last line without newline repeats", []string{"a\nb\na"}, nil, 0, ""},
		{"last line without newline is new", []string{"a\nb\nc"}, nil, 0, ""},
		{"crlf and lf are one key", []string{"a\r\nb\na\nb\r\nc\r\n"}, nil, 0, ""},
		{"lone cr is part of the key", []string{"a\r\na\r\r\na\rb\n"}, nil, 0, ""},
		{"empty lines", []string{"\n\na\n\r\n\nb\n"}, nil, 0, ""},
		{"blank fields", []string{"x 1\n  y\t1\nz  2\n\t\n w 3 \n"}, []string{"-f", "2"}, 2, ""},
		{"first blank field", []string{" a 1\na 2\n\tb\nb\n"}, []string{"-f", "1"}, 1, ""},
		{"delimiter", []string{"a,1\nb,1\nc,,2\nd,2\ne\nf,\n"}, []string{"-f", "2", "-d", ","}, 2, ","},
		{"tab delimiter", []string{"a\t1\nb\t1\nc 1\td\n"}, []string{"-f", "2", "-d", `\t`}, 2, "\t"},
		{"log lines", []string{big}, nil, 0, ""},
		{"log field", []string{big}, []string{"-f", "3"}, 3, ""},
		{"log csv field", []string{big}, []string{"-f", "2", "-d", ","}, 2, ","},
		{"long lines", []string{long.String()}, nil, 0, ""},
		{"files share keys", []string{"a\nb", "b\nc\na\n", "", "c\nd"}, nil, 0, ""},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := dedupReference(c.inputs, c.field, c.delim)
			wantCode := exitOK
			if want == "" {
				wantCode = exitNoMatch
			}
			args := append([]string{"dedup", "-n", "1e5"}, c.flags...)
			if len(c.inputs) == 1 {
				r := runInProcess(c.inputs[0], args...)
				if r.code != wantCode || r.stdout != want {
					t.Errorf("stdin: exit %d (want %d), stderr %q\ngot  %q\nwant %q", r.code, wantCode, r.stderr, clip(r.stdout), clip(want))
				}
			}
			var files []string
			for i, in := range c.inputs {
				files = append(files, writeFile(t, dir, fmt.Sprintf("%s-%d.txt", strings.ReplaceAll(c.name, " ", "-"), i), []byte(in)))
			}
			r := runInProcess("", append(args, files...)...)
			if r.code != wantCode || r.stdout != want {
				t.Errorf("files: exit %d (want %d), stderr %q\ngot  %q\nwant %q", r.code, wantCode, r.stderr, clip(r.stdout), clip(want))
			}
		})
	}
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// TestDedupBinaryStdin runs the built command on standard input and with
// "-" among files, checking output and exit statuses.
func TestDedupBinaryStdin(t *testing.T) {
	r := mustRun(t, []byte("b\na\nb\r\nc"), "dedup", "-n", "100")
	if r.stdout != "b\na\nc\n" || r.stderr != "" {
		t.Errorf("stdout %q stderr %q", r.stdout, r.stderr)
	}
	dir := t.TempDir()
	f := writeFile(t, dir, "in.txt", []byte("c\nd\n"))
	r = mustRun(t, []byte("a\nc\n"), "dedup", "-n", "100", "-", f)
	if r.stdout != "a\nc\nd\n" {
		t.Errorf("stdin then file: stdout %q", r.stdout)
	}
	if r := runSift(t, nil, "dedup", "-n", "100"); r.code != exitNoMatch || r.stdout != "" {
		t.Errorf("empty input: exit %d stdout %q, want 1 and nothing", r.code, r.stdout)
	}
}

// TestDedupState runs sift dedup twice with one -state file: the second run
// prints only the lines whose keys the first did not see, and the state
// then holds both days' keys.
func TestDedupState(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "seen.sift")
	day1 := "a\nb\na\nc\n"
	day2 := "c\nd\nb\ne\nd\n"
	r := runInProcess(day1, "dedup", "-n", "1000", "-state", state)
	if r.code != exitOK || r.stdout != "a\nb\nc\n" {
		t.Fatalf("day 1: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	f1, err := os.ReadFile(state)
	if err != nil {
		t.Fatalf("day 1 wrote no state: %v", err)
	}
	// The size comes from the file: no -n needed; an equal -n is accepted.
	r = runInProcess(day2, "dedup", "-state", state)
	if r.code != exitOK || r.stdout != "d\ne\n" {
		t.Fatalf("day 2: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runInProcess(day1+day2, "dedup", "-state", state, "-n", "1000", "-fpp", "0.01")
	if r.code != exitNoMatch || r.stdout != "" {
		t.Fatalf("day 3 (all seen): exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runInProcess(day1, "dedup", "-state", state, "-fpp", "1%")
	if r.code != exitNoMatch || r.stderr != "" {
		t.Fatalf("-fpp alone matching the file: exit %d stderr %q", r.code, r.stderr)
	}
	f, err := blocked.ReadFilter(bytes.NewReader(mustRead(t, state)))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		if !f.ContainsString(k) {
			t.Errorf("state lacks %q", k)
		}
	}
	if len(f1) != len(mustRead(t, state)) {
		t.Errorf("state changed size: %d then %d bytes", len(f1), len(mustRead(t, state)))
	}
	// No temporary files are left beside the state.
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("dir holds %d entries, want only the state", len(ents))
	}

	// A failed run keeps the old state: the input cannot be read.
	before := mustRead(t, state)
	r = runInProcess("", "dedup", "-state", state, filepath.Join(dir, "missing.txt"))
	if r.code != exitError {
		t.Errorf("missing input: exit %d, want 2", r.code)
	}
	r = runInProcess("zzz\n", "dedup", "-state", state, "-", filepath.Join(dir, "missing.txt"))
	if r.code != exitError || r.stdout != "zzz\n" || !strings.Contains(r.stderr, "missing.txt") {
		t.Errorf("stdin and a missing input: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	// The lines that were read were printed: their keys are kept.
	if bytes.Equal(before, mustRead(t, state)) {
		t.Errorf("the state was not written after a skipped input")
	}

	// An input whose reading fails part way (a line longer than the
	// limit) is skipped after the lines before it, as one that cannot be
	// opened: "new" was printed and its key is kept, the lines after the
	// long one are not read, and the next input is.
	defer func(old int) { maxLineLen = old }(maxLineLen)
	maxLineLen = 300 << 10
	after := writeFile(t, dir, "after.txt", []byte("after\n"))
	before = mustRead(t, state)
	r = runInProcess("new\n"+strings.Repeat("x", maxLineLen+1)+"\nunread\n", "dedup", "-state", state, "-", after)
	if r.code != exitError || !strings.Contains(r.stderr, "standard input: line 2 is longer than") || r.stdout != "new\nafter\n" {
		t.Errorf("over-long line: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if bytes.Equal(before, mustRead(t, state)) {
		t.Errorf("the state was not written after an input skipped part way")
	}
	if r = runInProcess("new\nafter\nunread\n", "dedup", "-state", state); r.code != 0 || r.stdout != "unread\n" {
		t.Errorf("after the skip: exit %d stdout %q stderr %q, want only the unread line", r.code, r.stdout, r.stderr)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDedupBadState checks that a state file of another kind, of another
// size than -n and -fpp ask for, damaged, or not a file is refused with
// one clear line and exit 2, and left as it was.
func TestDedupBadState(t *testing.T) {
	dir := t.TempDir()
	keys := writeFile(t, dir, "keys.txt", []byte("a\nb\n"))
	cuckoo := filepath.Join(dir, "cuckoo.sift")
	mustRun(t, nil, "build", "-q", "-kind", "cuckoo", "-n", "100", "-o", cuckoo, keys)
	good := filepath.Join(dir, "good.sift")
	if r := runInProcess("a\n", "dedup", "-n", "1000", "-state", good); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	data := mustRead(t, good)
	truncated := writeFile(t, dir, "truncated.sift", data[:len(data)-8])
	flipped := append([]byte{}, data...)
	flipped[len(flipped)-1] ^= 1
	damaged := writeFile(t, dir, "damaged.sift", flipped)
	text := writeFile(t, dir, "text.sift", []byte("not a filter at all, just some text that is long enough\n"))
	empty := writeFile(t, dir, "empty.sift", nil)

	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"-state", cuckoo}, []string{"cuckoo", "blocked"}},
		{[]string{"-state", good, "-n", "1e6"}, []string{"-state", "holds a filter of 11264 bits with k = 8", "leave out -n"}},
		// 1e-4 gives 11264 bits with k = 8 too, for n = 411 on; the
		// message names no -n (it named one computed from the file).
		{[]string{"-state", good, "-fpp", "1e-6"}, []string{"-state", "which no number of keys gives at -fpp 1e-06", "leave out -fpp to"}},
		{[]string{"-state", truncated}, []string{"truncated.sift"}},
		{[]string{"-state", damaged}, []string{"damaged.sift", "checksum"}},
		{[]string{"-state", text}, []string{"text.sift", "bad magic", "-state is a filter file sift dedup wrote"}},
		{[]string{"-state", empty}, []string{"empty.sift"}},
		{[]string{"-state", dir}, []string{"-state"}},
		{[]string{"-state", filepath.Join(dir, "new.sift")}, []string{"does not exist", "-n"}},
		{[]string{"-n", "10", "-state", filepath.Join(dir, "nodir", "x.sift")}, []string{"-state", "nodir"}},
		{[]string{"-n", "10", "-state", filepath.Join(keys, "x.sift")}, []string{"-state", "not a directory"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var before []byte
			if st, err := os.Stat(c.args[1]); err == nil && st.Mode().IsRegular() {
				before = mustRead(t, c.args[1])
			}
			r := runSift(t, []byte("a\nq\n"), append([]string{"dedup"}, c.args...)...)
			wantError(t, r, c.want...)
			if r.stdout != "" {
				t.Errorf("printed %q before failing", r.stdout)
			}
			if before != nil && !bytes.Equal(before, mustRead(t, c.args[1])) {
				t.Errorf("the state file was changed")
			}
		})
	}
}

// TestDedupBadFlags checks that bad flags fail with one line and exit 2.
func TestDedupBadFlags(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{nil, "-n is required"},
		{[]string{"-n", "0"}, "-n 0"},
		{[]string{"-n", "-5"}, "negative"},
		{[]string{"-n", "lots"}, "not a count"},
		{[]string{"-n", "1e6", "-fpp", "2"}, "not in (0, 1)"},
		{[]string{"-n", "1e6", "-fpp", "1e-30"}, "-fpp"},
		{[]string{"-n", "1e6", "-f", "0"}, "numbered from 1"},
		{[]string{"-n", "1e6", "-d", ","}, "-d needs -f"},
		{[]string{"-n", "1e6", "-state", ""}, "leave out -state to keep no state"},
		{[]string{"-n", "1e6", "-state", "-"}, "not standard input or output"},
		{[]string{"-n", "1e6", "-f", "2", "-d", "ab"}, "one byte"},
		{[]string{"-n", "1e6", "-x"}, "-x"},
		{[]string{"-n", "1e6", "-", "-"}, "more than once"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := runInProcess("a\n", append([]string{"dedup"}, c.args...)...)
			if r.code != exitError || !strings.Contains(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
				t.Errorf("exit %d stdout %q stderr %q, want 2 and one line with %q", r.code, r.stdout, r.stderr, c.want)
			}
		})
	}
}

// TestDedupHelp checks that -h prints the usage, with the expected false
// drops when -n is given, and that the figures in the usage text are the
// ones expectedFalseDrops computes.
func TestDedupHelp(t *testing.T) {
	r := runInProcess("", "dedup", "-n", "1e6", "-fpp", "0.01", "-h")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "usage: sift dedup") || !strings.Contains(r.stdout, "new lines expected to be dropped") {
		t.Errorf("exit %d stdout %q", r.code, clip(r.stdout))
	}
	if r := runInProcess("", "help", "dedup"); !strings.Contains(r.stdout, "A false positive drops a new line") {
		t.Errorf("help dedup: %q", clip(r.stdout))
	}
	for _, c := range []struct {
		fpp  float64
		text string
	}{{0.01, "0.01, 0.16%"}, {0.001, "0.001, 0.015%"}, {1e-4, "1e-4, 0.001%"}} {
		bits, k, err := blocked.OptimalSize(1e6, c.fpp)
		if err != nil {
			t.Fatal(err)
		}
		pct := 100 * expectedFalseDrops(bits, k, 1e6) / 1e6
		var want string
		fmt.Sscanf(c.text[strings.Index(c.text, " ")+1:], "%s", &want)
		var got float64
		fmt.Sscanf(strings.TrimSuffix(want, "%"), "%g", &got)
		if math.Abs(pct-got) > got*0.35 {
			t.Errorf("-fpp %g: usage says %s of the keys are dropped, computed %.4f%%", c.fpp, want, pct)
		}
		if !strings.Contains(dedupUsage, c.text) {
			t.Errorf("usage lacks %q", c.text)
		}
	}
}

// TestDedupFalseDrops de-duplicates a stream with n distinct keys through a
// filter sized for n at 1%: no key may be printed twice (that would be a
// false negative), every printed line is one of the reference's in order,
// and the lines dropped are about as many as expectedFalseDrops predicts.
func TestDedupFalseDrops(t *testing.T) {
	distinct := 200_000
	if testing.Short() {
		distinct = 30_000
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var in strings.Builder
	for range distinct * 5 / 2 {
		fmt.Fprintf(&in, "https://example.com/item/%d?ref=%d\n", rng.IntN(distinct*2), 7)
	}
	want := lines(dedupReference([]string{in.String()}, 0, ""))
	r := runInProcess(in.String(), "dedup", "-n", fmt.Sprint(len(want)), "-fpp", "0.01")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := lines(r.stdout)
	seen := map[string]bool{}
	j := 0
	for _, l := range got {
		if seen[l] {
			t.Fatalf("%q printed twice", l)
		}
		seen[l] = true
		for j < len(want) && want[j] != l {
			j++
		}
		if j == len(want) {
			t.Fatalf("%q printed out of order or never in the input", l)
		}
		j++
	}
	drops := len(want) - len(got)
	bits, k, _ := blocked.OptimalSize(uint64(len(want)), 0.01)
	predicted := expectedFalseDrops(bits, k, uint64(len(want)))
	// The drops are a sum of nearly independent rare events: about Poisson.
	if slack := 6*math.Sqrt(predicted) + 3; math.Abs(float64(drops)-predicted) > slack {
		t.Errorf("%d false drops among %d distinct keys, predicted %.1f", drops, len(want), predicted)
	}
	t.Logf("%d distinct keys: %d false drops, predicted %.1f", len(want), drops, predicted)
}

// TestDedupLiveStream feeds sift dedup through a pipe and checks that the
// new lines of what was written come out before more input arrives (the
// output is flushed whenever the input would block), as for tail -f.
func TestDedupLiveStream(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := run([]string{"dedup", "-n", "1000"}, inR, outW, &stderr)
		outW.Close()
		done <- code
	}()
	out := bufio.NewReader(outR)
	expect := func(want string) {
		t.Helper()
		got := make([]byte, len(want))
		// A deadlock guard, not a timing: the read blocks until dedup
		// flushes, which it must do before reading on.
		read := make(chan error, 1)
		go func() { _, err := io.ReadFull(out, got); read <- err }()
		select {
		case err := <-read:
			if err != nil || string(got) != want {
				t.Fatalf("read %q (%v), want %q", got, err, want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("no output for %q while the input was waiting: not flushed", want)
		}
	}
	io.WriteString(inW, "a\nb\na\n")
	expect("a\nb\n")
	io.WriteString(inW, "b\nc\n")
	expect("c\n")
	// A complete line followed by the start of the next: the complete one
	// comes out while the rest of the other is awaited.
	io.WriteString(inW, "d\ne")
	expect("d\n")
	io.WriteString(inW, "\nf")
	expect("e\n")
	inW.Close()
	expect("f\n")
	if rest, _ := io.ReadAll(out); len(rest) != 0 {
		t.Errorf("more output at the end: %q", rest)
	}
	if code := <-done; code != exitOK {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
}

// TestDedupProgress checks that -progress reports on stderr, as query's
// does, and stdout holds only the lines.
func TestDedupProgress(t *testing.T) {
	r := runInProcess("a\nb\na\n", "dedup", "-n", "10", "-progress")
	if r.code != exitOK || r.stdout != "a\nb\n" || !strings.Contains(r.stderr, "de-duplicating") || !strings.Contains(r.stderr, "3 keys") {
		t.Errorf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

// stateFiles returns a blocked and a window state file in dir, each holding
// the key "a", made by sift dedup.
func stateFiles(t *testing.T, dir string) (blockedState, windowState string) {
	t.Helper()
	blockedState = filepath.Join(dir, "blocked.sift")
	if r := runInProcess("a\n", "dedup", "-n", "1000", "-state", blockedState); r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	windowState = filepath.Join(dir, "window.sift")
	if r := runInProcess("a\n", "dedup", "-n", "1000", "-window", "1h", "-state", windowState); r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	return blockedState, windowState
}

// TestDedupStateTrailing: a state file with bytes after its filter (here
// the file twice over) is refused before any line is printed, with the
// error sift info gives for it, and left as it was: writing it back would
// drop those bytes.
func TestDedupStateTrailing(t *testing.T) {
	dir := t.TempDir()
	blockedState, windowState := stateFiles(t, dir)
	for _, c := range []struct {
		state string
		args  []string
	}{
		{blockedState, nil},
		{blockedState, []string{"-n", "1000"}},
		{windowState, []string{"-window", "1h"}},
	} {
		one := mustRead(t, c.state)
		twice := writeFile(t, dir, "twice-"+filepath.Base(c.state), append(one, one...))
		info := runInProcess("", "info", twice)
		want := fmt.Sprintf("corrupt filter: %d bytes after the end of the filter", len(one))
		if info.code != exitError || !strings.Contains(info.stderr, want) {
			t.Fatalf("sift info %s: exit %d stderr %q, want %q", twice, info.code, info.stderr, want)
		}
		args := append([]string{"dedup", "-state", twice}, c.args...)
		r := runInProcess("a\nnew\n", args...)
		if r.code != exitError || !strings.Contains(r.stderr, twice+": "+want) || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
			t.Errorf("%s: exit %d stdout %q stderr %q, want 2, nothing printed and one line with %q", strings.Join(args, " "), r.code, r.stdout, r.stderr, want)
		}
		if got := mustRead(t, twice); !bytes.Equal(got, append(one, one...)) {
			t.Errorf("%s: the state file was changed (%d bytes, was %d)", strings.Join(args, " "), len(got), 2*len(one))
		}
	}
}

// TestDedupStateKeepsHeader: the state file written back keeps the seed
// and the generation of the one read (sift merge -generation), for a
// blocked filter and a window.
func TestDedupStateKeepsHeader(t *testing.T) {
	dir := t.TempDir()
	const seed, gen = 7, 42
	f, err := blocked.New(1000, 0.01, blocked.WithSeed(seed))
	if err != nil {
		t.Fatal(err)
	}
	f.AddString("a")
	w, err := blocked.NewWindow(1000, 0.01, time.Hour, blocked.WithSeed(seed))
	if err != nil {
		t.Fatal(err)
	}
	w.AddString("a")
	for _, c := range []struct {
		name string
		set  interface{ MarshalBinary() ([]byte, error) }
		args []string
	}{
		{"blocked.sift", f, nil},
		{"window.sift", w, []string{"-window", "1h"}},
	} {
		data, err := c.set.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if err := sift.SetGeneration(data, gen); err != nil {
			t.Fatal(err)
		}
		state := writeFile(t, dir, c.name, data)
		r := runInProcess("a\nb\n", append([]string{"dedup", "-state", state}, c.args...)...)
		if r.code != exitOK || r.stdout != "b\n" {
			t.Fatalf("%s: exit %d stdout %q stderr %q", c.name, r.code, r.stdout, r.stderr)
		}
		h, err := sift.InspectFile(state)
		if err != nil {
			t.Fatal(err)
		}
		if h.Generation != gen || h.Version != 2 || h.Seed != seed {
			t.Errorf("%s written back: generation %d (format version %d), seed %d; want generation %d (version 2), seed %d", c.name, h.Generation, h.Version, h.Seed, gen, seed)
		}
		// The keys of both runs are there: a third run prints nothing.
		if r := runInProcess("a\nb\n", append([]string{"dedup", "-state", state}, c.args...)...); r.code != exitNoMatch {
			t.Errorf("%s: third run: exit %d stdout %q stderr %q", c.name, r.code, r.stdout, r.stderr)
		}
	}
}

// TestDedupStateModeAndLink: the state file written back keeps its
// permission bits, and a -state that is a symbolic link (or a chain of
// them, relative ones included) stays a link while the file it leads to
// gets the new keys; a link to a file not made yet leads to the file made.
func TestDedupStateModeAndLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("permission bits and symbolic links are Unix's")
	}
	dir := t.TempDir()
	state, _ := stateFiles(t, dir)
	if err := os.Chmod(state, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runInProcess("b\n", "dedup", "-state", state); r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if st, err := os.Stat(state); err != nil || st.Mode() != 0o600 {
		t.Errorf("a state of mode 0600 written back: %v, %v", st.Mode(), err)
	}

	// links/seen.sift -> ../data/link.sift -> data.sift (relative links,
	// one through "..").
	for _, d := range []string{"links", "data"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(dir, "data", "data.sift")
	if err := os.Rename(state, target); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "links", "seen.sift")
	for _, l := range [][2]string{{"data.sift", filepath.Join(dir, "data", "link.sift")}, {"../data/link.sift", link}} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	before := mustRead(t, target)
	if r := runInProcess("a\nc\n", "dedup", "-state", link); r.code != exitOK || r.stdout != "c\n" {
		t.Fatalf("through links: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, l := range []string{link, filepath.Join(dir, "data", "link.sift")} {
		if st, err := os.Lstat(l); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link: %v, %v", l, st.Mode(), err)
		}
	}
	if bytes.Equal(before, mustRead(t, target)) {
		t.Errorf("the link's target was not written")
	}
	if st, err := os.Stat(target); err != nil || st.Mode() != 0o600 {
		t.Errorf("the link's target written back: %v, %v, want mode 0600", st.Mode(), err)
	}
	if r := runInProcess("a\nb\nc\n", "dedup", "-state", link); r.code != exitNoMatch {
		t.Errorf("all seen, through links: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "links")); len(ents) != 1 {
		t.Errorf("links/ holds %d entries, want only the link", len(ents))
	}

	// A link to a file that does not exist yet: the file is made there.
	dangling := filepath.Join(dir, "links", "new.sift")
	if err := os.Symlink("../data/new.sift", dangling); err != nil {
		t.Fatal(err)
	}
	if r := runInProcess("a\n", "dedup", "-n", "100", "-state", dangling); r.code != exitOK {
		t.Fatalf("dangling link: exit %d: %s", r.code, r.stderr)
	}
	if st, err := os.Lstat(dangling); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("%s is no longer a symbolic link: %v, %v", dangling, st.Mode(), err)
	}
	if h, err := sift.InspectFile(filepath.Join(dir, "data", "new.sift")); err != nil || h.Kind != sift.KindBlocked {
		t.Errorf("the dangling link's target: %v, %v", h.Kind, err)
	}
}

// TestDedupHelpRefused: -h with sizes a run refuses prints the usage and a
// line with the error the run gives, and exits 0 as -h does.
func TestDedupHelpRefused(t *testing.T) {
	for _, args := range [][]string{
		{"-n", "1e6", "-fpp", "1e-9"},
		{"-n", "1e12"},
		{"-n", "0"},
		{"-n", "1e6", "-fpp", "2e-8", "-window", "1h"},
		{"-n", "1e15", "-window", "1h"},
		{"-n", "0", "-window", "1h"},
		{"-n", "1e6", "-window", "1h", "-generations", "3"},
		// Flags a run refuses before sizing anything (the figures were
		// printed for these, exit 0, while the run exited 2).
		{"-n", "1e5", "-generations", "4"},
		{"-n", "1e5", "-time-field", "1"},
		{"-n", "1e5", "-time-format", "unix"},
		{"-n", "1e5", "-window", "1h", "-time-field", "0"},
		{"-n", "1e5", "-f", "0"},
		{"-n", "1e5", "-d", ","},
	} {
		run := runInProcess("a\n", append([]string{"dedup"}, args...)...)
		runErr, ok := strings.CutPrefix(strings.TrimSuffix(run.stderr, "\n"), "sift dedup: ")
		if run.code != exitError || !ok {
			t.Fatalf("%s: exit %d stderr %q, want a refusal", strings.Join(args, " "), run.code, run.stderr)
		}
		help := runInProcess("", append(append([]string{"dedup"}, args...), "-h")...)
		if want := "\nNo figures for these sizes, which a run refuses: " + runErr + "\n"; help.code != exitOK || !strings.HasPrefix(help.stdout, "usage: sift dedup") || !strings.HasSuffix(help.stdout, want) {
			t.Errorf("%s -h: exit %d, stdout ends %q, want the usage then %q", strings.Join(args, " "), help.code, help.stdout[max(0, len(help.stdout)-300):], want)
		}
	}
}

// TestDedupStateUnwritable: a -state file that could not be written at the
// end (a directory that takes no new file: /proc, even for root) is an
// error before any line is printed, as build's -o is.
func TestDedupStateUnwritable(t *testing.T) {
	if st, err := os.Stat("/proc/self"); err != nil || !st.IsDir() {
		t.Skip("no /proc")
	}
	r := runSift(t, []byte("a\nb\n"), "dedup", "-n", "10", "-state", "/proc/sift-dedup-state.sift")
	if r.code != exitError || r.stdout != "" || !strings.Contains(r.stderr, "-state: cannot write /proc/sift-dedup-state.sift: no files can be created in /proc") || strings.Contains(r.stderr, "sift-tmp") {
		t.Errorf("dedup -state in /proc: exit %d, stdout %q, stderr %q; want an error and no line", r.code, r.stdout, r.stderr)
	}
}

// TestDedupStateFppAlone: a state file made with -n N -fpp P is taken with
// -fpp P alone, for every N tried. The size P gives is the same for a run
// of N, whose k differs along it; the file was checked against the run's
// last N only, and refused ("ask for 239616 bits with k = 14") at 1e-4 for
// every N up to 20,000 tried, and at small N for every P.
func TestDedupStateFppAlone(t *testing.T) {
	dir := t.TempDir()
	ns := []uint64{1, 2, 3, 7, 20, 21, 50, 99, 100, 101, 200, 1000, 9999, 10000, 20000}
	if testing.Short() {
		ns = []uint64{3, 20, 100, 10000}
	}
	for _, p := range []string{"0.1", "0.01", "0.001", "1e-4", "1e-6"} {
		for _, n := range ns {
			state := filepath.Join(dir, fmt.Sprintf("s-%s-%d.sift", p, n))
			if r := runInProcess("", "dedup", "-n", fmt.Sprint(n), "-fpp", p, "-state", state); r.code != exitNoMatch {
				t.Fatalf("-n %d -fpp %s: exit %d: %s", n, p, r.code, r.stderr)
			}
			if r := runInProcess("a\n", "dedup", "-fpp", p, "-state", state); r.code != exitOK || r.stdout != "a\n" {
				t.Errorf("a state of -n %d -fpp %s, with -fpp %s alone: exit %d, stdout %q, stderr %q", n, p, p, r.code, r.stdout, r.stderr)
			}
		}
	}
}

// TestDedupOverfull: dedup warns once, on stderr, when the filter holds
// more keys than it is sized for and its predicted false drops pass -fpp,
// as build warns (it dropped 96% of the new lines of 1e5 into -n 1000
// without a word); within the size it says nothing.
func TestDedupOverfull(t *testing.T) {
	r := runInProcess(string(keyLines("k", 20000)), "dedup", "-n", "1000")
	if r.code != 0 || strings.Count(r.stderr, "warning: about") != 1 || !strings.Contains(r.stderr, "more than the filter is sized for (-n 1000)") {
		t.Errorf("20000 keys into -n 1000: exit %d stderr %q", r.code, r.stderr)
	}
	if r := runInProcess(string(keyLines("k", 900)), "dedup", "-n", "1000"); r.code != 0 || r.stderr != "" {
		t.Errorf("900 keys into -n 1000: exit %d stderr %q", r.code, r.stderr)
	}
	// A state file's keys count too: 800 now and 1200 more the next run.
	state := filepath.Join(t.TempDir(), "st.sift")
	if r := runInProcess(string(keyLines("a", 800)), "dedup", "-n", "1000", "-state", state); r.code != 0 || r.stderr != "" {
		t.Fatalf("first run: exit %d stderr %q", r.code, r.stderr)
	}
	if r := runInProcess(string(keyLines("b", 1200)), "dedup", "-state", state); r.code != 0 || !strings.Contains(r.stderr, "warning: about") {
		t.Errorf("second run past the size: exit %d stderr %q", r.code, r.stderr)
	}
	// A state past its size warns before any line is read (a tail -f
	// never ends), and once.
	var stderr bytes.Buffer
	in := &probeReader{r: bytes.NewReader(keyLines("b", 10)), probe: func() bool { return strings.Contains(stderr.String(), "warning: about") }}
	code := run([]string{"dedup", "-state", state}, in, io.Discard, &stderr)
	if code != exitNoMatch || !in.seen || strings.Count(stderr.String(), "warning: about") != 1 || !strings.Contains(stderr.String(), "by the -state file's size") {
		t.Errorf("third run, nothing new: exit %d, warned before the first read %v, stderr %q", code, in.seen, stderr.String())
	}
}

// probeReader reads r, and before its first read records probe's answer.
type probeReader struct {
	r          io.Reader
	probe      func() bool
	seen, read bool
}

func (p *probeReader) Read(b []byte) (int, error) {
	if !p.read {
		p.read, p.seen = true, p.probe()
	}
	return p.r.Read(b)
}

// TestOutputIsState: standard output appended to the -state file (sift
// dedup -state s >> s) is refused: the lines written there would be lost
// when the state is written back, with exit 0. Another file, a link to
// the state (followed) and no state are told apart.
func TestOutputIsState(t *testing.T) {
	dir := t.TempDir()
	state, other := filepath.Join(dir, "s.sift"), filepath.Join(dir, "out.txt")
	mustRun(t, []byte("a\n"), "dedup", "-n", "10", "-state", state)
	if err := os.WriteFile(other, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.sift")
	if err := os.Symlink(state, link); err != nil {
		t.Fatal(err)
	}
	out, err := os.OpenFile(state, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	oth, err := os.OpenFile(other, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer oth.Close()
	for _, c := range []struct {
		stdout  *os.File
		state   string
		refused bool
	}{
		{out, state, true},
		{out, link, true},
		{oth, state, false},
		{out, "", false},
		{out, filepath.Join(dir, "new.sift"), false},
	} {
		err := outputIsState(c.stdout, c.state)
		if refused := err != nil && strings.Contains(err.Error(), "is also the output"); refused != c.refused {
			t.Errorf("stdout %s, -state %q: %v, want refused = %v", c.stdout.Name(), c.state, err, c.refused)
		}
	}
}
