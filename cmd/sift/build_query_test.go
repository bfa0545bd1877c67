package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sift-go/sift/cuckoo"
)

// testKinds are the kinds build makes, as registered.
func testKinds() []string { return buildKindNames() }

// TestBuildQueryExact builds a filter from a file of distinct keys (10^6
// lines; 10^5 with -short) and queries present and absent keys: every
// present key must be selected, and every other selected line must be an
// absent key (a false positive), at a rate near the target; -v must select
// exactly the complement, in input order.
func TestBuildQueryExact(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
		if slowBinary() {
			n = 20_000
		}
	}
	dir := t.TempDir()
	var keys bytes.Buffer
	for i := range n {
		fmt.Fprintf(&keys, "user-%d@example.com\n", i)
	}
	keyFile := writeFile(t, dir, "keys.txt", keys.Bytes())
	// The query input interleaves present and absent keys.
	var in bytes.Buffer
	for i := range n {
		fmt.Fprintf(&in, "user-%d@example.com\n", i)
		fmt.Fprintf(&in, "absent-%d@example.org\n", i)
	}
	queryFile := writeFile(t, dir, "query.txt", in.Bytes())
	const fpp = 0.01

	for _, kind := range testKinds() {
		t.Run("kind="+kind, func(t *testing.T) {
			out := filepath.Join(dir, kind+".sift")
			// No -n: sift counts the lines first.
			r := mustRun(t, nil, "build", "-kind", kind, "-fpp", fmt.Sprint(fpp), "-o", out, keyFile)
			if r.stdout != "" {
				t.Errorf("build wrote to stdout: %q", r.stdout)
			}
			if !strings.Contains(r.stderr, fmt.Sprintf("%d keys", n)) {
				t.Errorf("build summary does not say %d keys: %s", n, r.stderr)
			}
			sel := mustRun(t, nil, "query", out, queryFile)
			inv := runSift(t, nil, "query", "-v", out, queryFile)
			if inv.code != 0 {
				t.Fatalf("query -v: exit %d: %s", inv.code, inv.stderr)
			}
			selected, rejected := lines(sel.stdout), lines(inv.stdout)
			if len(selected)+len(rejected) != 2*n {
				t.Fatalf("query selected %d and -v %d lines of %d", len(selected), len(rejected), 2*n)
			}
			// Merge the two outputs back into the input, in order.
			all := lines(in.String())
			fp, i, j := 0, 0, 0
			for _, want := range all {
				present := strings.HasPrefix(want, "user-")
				switch {
				case i < len(selected) && selected[i] == want:
					i++
					if !present {
						fp++
					}
				case j < len(rejected) && rejected[j] == want:
					j++
					if present {
						t.Fatalf("present key %q not selected (a false negative)", want)
					}
				default:
					t.Fatalf("line %q is in neither output, or out of order", want)
				}
			}
			rate := float64(fp) / float64(n)
			// fpp plus 5 standard deviations of the binomial count.
			limit := fpp + 5*math.Sqrt(fpp*(1-fpp)/float64(n))
			t.Logf("%s: %d false positives in %d absent keys (%.4f%%)", kind, fp, n, 100*rate)
			if rate > limit {
				t.Errorf("false-positive rate %.5f above %.5f", rate, limit)
			}
			if fp == 0 {
				t.Errorf("no false positive at all in %d absent keys at fpp %g: suspicious", n, fpp)
			}
			c := mustRun(t, nil, "query", "-c", out, queryFile)
			if want := fmt.Sprintf("%d\n", len(selected)); c.stdout != want {
				t.Errorf("query -c printed %q, want %q", c.stdout, want)
			}
		})
	}
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// TestQueryStdin runs query as a shell pre-filter: keys on a pipe, "-" among
// files, and the exit statuses grep uses.
func TestQueryStdin(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range testKinds() {
		t.Run("kind="+kind, func(t *testing.T) {
			f := filepath.Join(dir, kind+".sift")
			// Keys from a pipe, with -n.
			mustRun(t, []byte("alpha\nbeta\ngamma\n"), "build", "-kind", kind, "-n", "100", "-o", f)
			r := mustRun(t, []byte("beta\nzeta\nalpha\n"), "query", f)
			if r.stdout != "beta\nalpha\n" {
				t.Errorf("query of a pipe printed %q", r.stdout)
			}
			r = mustRun(t, []byte("beta\nzeta\nalpha\n"), "query", "-v", f, "-")
			if r.stdout != "zeta\n" {
				t.Errorf("query -v printed %q", r.stdout)
			}
			// Files and "-" in order; flags after the arguments.
			other := writeFile(t, dir, "other.txt", []byte("gamma\nnope\n"))
			r = mustRun(t, []byte("alpha\n"), "query", f, other, "-", other, "-c")
			if r.stdout != "3\n" {
				t.Errorf("query -c over files and stdin printed %q, want 3", r.stdout)
			}
			// Nothing selected: exit 1, no output, nothing on stderr.
			r = runSift(t, []byte("nope\nnada\n"), "query", f)
			if r.code != exitNoMatch || r.stdout != "" || r.stderr != "" {
				t.Errorf("query with no match: exit %d, stdout %q, stderr %q; want 1 and nothing", r.code, r.stdout, r.stderr)
			}
			// -q prints nothing and says it with the status.
			r = runSift(t, []byte("nope\nalpha\n"), "query", "-q", f)
			if r.code != 0 || r.stdout != "" {
				t.Errorf("query -q: exit %d, stdout %q", r.code, r.stdout)
			}
		})
	}
}

// TestLinesAndTerminators checks CRLF input, a last line without a newline,
// empty lines, and keys longer than the reader's buffer.
func TestLinesAndTerminators(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 300<<10) + "-long"
	input := "one\r\ntwo\n\n\r\n" + long + "\r\nthree" // no final newline
	keyFile := writeFile(t, dir, "keys.txt", []byte(input))
	for _, kind := range testKinds() {
		t.Run("kind="+kind, func(t *testing.T) {
			f := filepath.Join(dir, kind+".sift")
			r := mustRun(t, nil, "build", "-kind", kind, "-o", f, keyFile)
			if !strings.Contains(r.stderr, " 4 keys") {
				t.Errorf("build counted wrongly (want 4 keys: empty lines skipped): %s", r.stderr)
			}
			q := "three\n" + long + "\n" + "one\ntwo\r\n\n"
			r = mustRun(t, []byte(q), "query", f)
			if want := "three\n" + long + "\none\ntwo\r\n"; r.stdout != want {
				t.Errorf("query printed %d bytes, want %d (CRLF kept as read, empty line not selected)", len(r.stdout), len(want))
			}
			// The last line is printed with a newline added, like grep.
			r = mustRun(t, []byte("two"), "query", f)
			if r.stdout != "two\n" {
				t.Errorf("query of an unterminated line printed %q", r.stdout)
			}
			// An empty line is selected by -v.
			r = mustRun(t, []byte("\n"), "query", "-v", f)
			if r.stdout != "\n" {
				t.Errorf("query -v of an empty line printed %q", r.stdout)
			}
		})
	}
}

// TestEmptyInput builds from empty inputs: a valid filter that holds
// nothing.
func TestEmptyInput(t *testing.T) {
	dir := t.TempDir()
	empty := writeFile(t, dir, "empty.txt", nil)
	blank := writeFile(t, dir, "blank.txt", []byte("\n\r\n\n"))
	for _, kind := range testKinds() {
		for _, in := range []string{empty, blank} {
			t.Run("kind="+kind+"/"+filepath.Base(in), func(t *testing.T) {
				f := filepath.Join(dir, kind+".sift")
				r := mustRun(t, nil, "build", "-kind", kind, "-o", f, in)
				if !strings.Contains(r.stderr, " 0 keys") {
					t.Errorf("summary: %s", r.stderr)
				}
				info := mustRun(t, nil, "info", f)
				if !strings.Contains(info.stdout, "checksum:") || !strings.Contains(info.stdout, "ok") {
					t.Errorf("info of an empty filter:\n%s", info.stdout)
				}
				r = runSift(t, []byte("a\nb\nc\n"), "query", f)
				if r.code != exitNoMatch || r.stdout != "" {
					t.Errorf("query of an empty filter: exit %d, %q", r.code, r.stdout)
				}
				r = runSift(t, []byte{}, "query", f)
				if r.code != exitNoMatch || r.stdout != "" {
					t.Errorf("query with empty input: exit %d, %q", r.code, r.stdout)
				}
			})
		}
	}
	// Empty standard input with -n.
	f := filepath.Join(dir, "stdin.sift")
	mustRun(t, []byte{}, "build", "-n", "10", "-o", f)
}

// TestBuildFailureKeepsOldFile checks the atomic write: a failed build
// leaves the previous file as it was and no temporary file behind.
func TestBuildFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "out.sift")
	mustRun(t, []byte("old\n"), "build", "-n", "1", "-o", f)
	before, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if !testing.Short() {
		// An error mid-way through the input: a line over the limit.
		long := writeFile(t, dir, "long.txt", append(bytes.Repeat([]byte("y"), maxLineLen+10), '\n'))
		r := runSift(t, nil, "build", "-n", "10", "-o", f, long)
		wantError(t, r, "longer than")
		after, err := os.ReadFile(f)
		if err != nil || !bytes.Equal(before, after) {
			t.Errorf("failed build changed %s (err %v)", f, err)
		}
		os.Remove(long)
	}
	if kindByName("cuckoo") != nil {
		var many bytes.Buffer
		for i := range 2000 {
			fmt.Fprintf(&many, "k%d\n", i)
		}
		r := runSift(t, many.Bytes(), "build", "-kind", "cuckoo", "-n", "100", "-o", f)
		wantError(t, r, "full", "larger -n")
		if after, _ := os.ReadFile(f); !bytes.Equal(before, after) {
			t.Errorf("failed cuckoo build changed %s", f)
		}
		// Each line three times: the bound on distinct keys counts the
		// keys held, not the lines read.
		var thrice bytes.Buffer
		for i := range 2000 {
			fmt.Fprintf(&thrice, "k%d\nk%d\nk%d\n", i, i, i)
		}
		r = runSift(t, thrice.Bytes(), "build", "-kind", "cuckoo", "-n", "100", "-o", f)
		var read, held int
		i, j := strings.Index(r.stderr, "full after"), strings.Index(r.stderr, "more than")
		if i < 0 || j < 0 {
			t.Fatalf("no key counts in %q", r.stderr)
		}
		if _, err := fmt.Sscanf(r.stderr[i:], "full after %d keys", &read); err != nil {
			t.Fatalf("no key count in %q", r.stderr)
		}
		if _, err := fmt.Sscanf(r.stderr[j:], "more than %d;", &held); err != nil {
			t.Fatalf("no distinct-key bound in %q", r.stderr)
		}
		if held <= 0 || 3*held > read+2 {
			t.Errorf("full after %d lines of thrice-repeated keys: bound of %d distinct keys, want about a third", read, held)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".sift-tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestBuildMoreKeysThanN feeds a generated stream through a pipe, to exercise
// the streaming path with -n and a blocked filter told fewer keys than it
// gets (a warning, not an error).
func TestBuildMoreKeysThanN(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	for i := range 5000 {
		fmt.Fprintf(w, "%d\n", i)
	}
	w.Flush()
	f := filepath.Join(dir, "f.sift")
	r := mustRun(t, b.Bytes(), "build", "-n", "1000", "-o", f)
	if !strings.Contains(r.stderr, "warning") || !strings.Contains(r.stderr, "more than -n 1000") {
		t.Errorf("no warning for 5000 keys into -n 1000: %s", r.stderr)
	}
	r = mustRun(t, b.Bytes(), "query", "-c", f)
	if r.stdout != "5000\n" {
		t.Errorf("query -c = %q, want 5000", r.stdout)
	}
}

// TestBuildScalableFromPipe builds from a pipe without -n: a scalable
// blocked filter that grows past its first stage, then queries it exactly.
func TestBuildScalableFromPipe(t *testing.T) {
	n := 600_000 // three stages
	if testing.Short() {
		n = scalableInitial + 10_000 // two
		if slowBinary() {
			n = 50_000 // one
		}
	}
	dir := t.TempDir()
	var keys, query bytes.Buffer
	for i := range n {
		fmt.Fprintf(&keys, "k%d\n", i)
		fmt.Fprintf(&query, "k%d\nq%d\n", i, i)
	}
	f := filepath.Join(dir, "s.sift")
	r := mustRun(t, keys.Bytes(), "build", "-fpp", "0.01", "-o", f)
	if !strings.Contains(r.stderr, "scalable") {
		t.Errorf("build from a pipe without -n: %s", r.stderr)
	}
	info := mustRun(t, nil, "info", f)
	if !strings.Contains(info.stdout, "scalable") || !strings.Contains(info.stdout, "checksum:       ok") {
		t.Errorf("info:\n%s", info.stdout)
	}
	sel := lines(mustRun(t, query.Bytes(), "query", f).stdout)
	fp, i := 0, 0
	for _, line := range sel {
		if line == fmt.Sprintf("k%d", i) {
			i++
			continue
		}
		if !strings.HasPrefix(line, "q") {
			t.Fatalf("unexpected line %q", line)
		}
		fp++
	}
	if i != n {
		t.Fatalf("only %d of %d present keys selected, in order", i, n)
	}
	if rate := float64(fp) / float64(n); rate > 0.01+5*math.Sqrt(0.01/float64(n)) {
		t.Errorf("false-positive rate %.5f over the bound 0.01", rate)
	}
}

// TestQueryField selects whole log lines by one field, the shell
// pre-filter use: keys built from a field of one file, looked up by a field
// of another.
func TestQueryField(t *testing.T) {
	dir := t.TempDir()
	list := writeFile(t, dir, "list.csv", []byte("id,host\n1,evil.example\n2,spam.example\n3\n"))
	f := filepath.Join(dir, "f.sift")
	r := mustRun(t, nil, "build", "-f", "2", "-d", ",", "-n", "100", "-o", f, list)
	if !strings.Contains(r.stderr, " 3 keys") { // host, evil, spam; "3" has no field 2
		t.Errorf("build -f 2 -d ,: %s", r.stderr)
	}
	log := "10.0.0.1  GET evil.example /a\n10.0.0.2\tGET good.example /b\n10.0.0.3 GET spam.example\n10.0.0.4\n"
	r = mustRun(t, []byte(log), "query", "-f", "3", f)
	if want := "10.0.0.1  GET evil.example /a\n10.0.0.3 GET spam.example\n"; r.stdout != want {
		t.Errorf("query -f 3 printed %q, want %q", r.stdout, want)
	}
	r = mustRun(t, []byte(log), "query", "-v", "-f", "3", f)
	if want := "10.0.0.2\tGET good.example /b\n10.0.0.4\n"; r.stdout != want {
		t.Errorf("query -v -f 3 printed %q, want %q", r.stdout, want)
	}
}

// TestBuildCuckooCopies: a cuckoo filter built with -copies holds every
// line's key, so keys can be removed from it in Go and every other key is
// still found; built without it, keys that were false positives are not
// stored, and removing them removes other keys' fingerprints (188 of the
// 12,500 kept read absent: the default seed makes the build the same on
// every run and kernel set). -copies is refused for other
// kinds, and a key on more lines than its buckets hold fails the build.
func TestBuildCuckooCopies(t *testing.T) {
	dir := t.TempDir()
	const n = 25000
	keys := writeFile(t, dir, "keys.txt", keyLines("u", n))
	for _, copies := range []bool{false, true} {
		out := filepath.Join(dir, fmt.Sprintf("c-%v.sift", copies))
		args := []string{"build", "-q", "-kind", "cuckoo", "-bits", "8", "-n", fmt.Sprint(n), "-o", out, keys}
		if copies {
			args = append(args[:1], append([]string{"-copies"}, args[1:]...)...)
		}
		if r := runInProcess("", args...); r.code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		f, err := cuckoo.ReadFilter(bytes.NewReader(mustRead(t, out)))
		if err != nil {
			t.Fatal(err)
		}
		if copies && f.Count() != n {
			t.Errorf("-copies: %d keys stored, want %d", f.Count(), n)
		}
		for i := range n / 2 {
			f.RemoveString(fmt.Sprintf("u-%d", i))
		}
		missing := 0
		for i := n / 2; i < n; i++ {
			if !f.ContainsString(fmt.Sprintf("u-%d", i)) {
				missing++
			}
		}
		switch {
		case copies && missing != 0:
			t.Errorf("-copies: %d keys never removed read absent", missing)
		case !copies && missing == 0:
			t.Errorf("without -copies no key was lost: the test no longer shows what -copies is for")
		}
		f.Close()
	}
	if r := runInProcess("", "build", "-copies", "-n", "10", "-o", filepath.Join(dir, "b.sift"), keys); r.code != exitError || !strings.Contains(r.stderr, "-copies applies to -kind cuckoo only") {
		t.Errorf("-copies with -kind blocked: exit %d, stderr %q", r.code, r.stderr)
	}
	r := runInProcess(strings.Repeat("dup\n", 9), "build", "-kind", "cuckoo", "-copies", "-n", "100", "-o", filepath.Join(dir, "d.sift"))
	if r.code != exitError || !strings.Contains(r.stderr, "-copies: a key is on more lines") {
		t.Errorf("nine copies of one key: exit %d, stderr %q", r.code, r.stderr)
	}
	// Eight copies of one key wall in a key whose buckets are the same
	// pair: the build stops at it, saying why, rather than drop it.
	eight := filepath.Join(dir, "eight.sift")
	if r := runInProcess(strings.Repeat("dup\n", 8), "build", "-q", "-kind", "cuckoo", "-copies", "-n", "100", "-o", eight); r.code != exitOK {
		t.Fatalf("eight copies: exit %d: %s", r.code, r.stderr)
	}
	f, err := cuckoo.ReadFilter(bytes.NewReader(mustRead(t, eight)))
	if err != nil {
		t.Fatal(err)
	}
	walled := ""
	for i := 0; walled == "" && i < 1e6; i++ {
		g := f.Clone()
		if k := fmt.Sprintf("w-%d", i); g.AddString(k) == cuckoo.ErrNoSlot {
			walled = k
		}
		g.Close()
	}
	f.Close()
	if walled == "" {
		t.Fatal("no key walled in by the eight copies")
	}
	r = runInProcess(strings.Repeat("dup\n", 8)+walled+"\n", "build", "-kind", "cuckoo", "-copies", "-n", "100", "-o", filepath.Join(dir, "w.sift"))
	if r.code != exitError || !strings.Contains(r.stderr, "-copies: a key found no free slot") {
		t.Errorf("a walled-in key: exit %d, stderr %q", r.code, r.stderr)
	}
	// The same two in separate shards: merge says why, not "more -buckets"
	// alone.
	wshard := filepath.Join(dir, "wshard.sift")
	if r := runInProcess(walled+"\n", "build", "-q", "-kind", "cuckoo", "-n", "100", "-o", wshard); r.code != exitOK {
		t.Fatalf("the walled-in key's shard: exit %d: %s", r.code, r.stderr)
	}
	r = runInProcess("", "merge", "-o", filepath.Join(dir, "m.sift"), eight, wshard)
	if r.code != exitError || !strings.Contains(r.stderr, "no free slot around its buckets") {
		t.Errorf("merging a walled-in key: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestQuerySkipsInputFailingPartWay: an input whose reading fails part way
// (a line over the limit) is reported and skipped after the lines before
// it, and the other inputs are read, as one that cannot be opened: -c
// counts every line read, and the exit status is 2. The first error ended
// the run, and -c printed no count.
func TestQuerySkipsInputFailingPartWay(t *testing.T) {
	dir := t.TempDir()
	keys := writeFile(t, dir, "keys.txt", []byte("a\nb\nc\n"))
	f := filepath.Join(dir, "f.sift")
	if r := runInProcess("", "build", "-q", "-o", f, keys); r.code != 0 {
		t.Fatalf("build: exit %d %s", r.code, r.stderr)
	}
	defer func(old int) { maxLineLen = old }(maxLineLen)
	maxLineLen = 300 << 10
	long := writeFile(t, dir, "long.txt", []byte("a\n"+strings.Repeat("x", maxLineLen+1)+"\nb\n"))
	for _, c := range []struct {
		args   []string
		code   int
		stdout string
	}{
		{[]string{"query", f, long, keys}, exitError, "a\na\nb\nc\n"},
		{[]string{"query", "-c", f, long, keys}, exitError, "4\n"},
		{[]string{"query", "-q", f, long, keys}, exitOK, ""},
	} {
		r := runInProcess("", c.args...)
		if r.code != c.code || r.stdout != c.stdout {
			t.Errorf("sift %s: exit %d stdout %q, want %d %q (stderr %q)", strings.Join(c.args, " "), r.code, r.stdout, c.code, c.stdout, r.stderr)
		}
		if c.code == exitError && strings.Count(r.stderr, "\n") != 1 || c.code == exitError && !strings.Contains(r.stderr, "long.txt: line 2 is longer than") {
			t.Errorf("sift %s: stderr %q, want one line naming long.txt's line 2", strings.Join(c.args, " "), r.stderr)
		}
	}
}
