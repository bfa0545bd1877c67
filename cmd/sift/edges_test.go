package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/classic"
	"github.com/sift-go/sift/cuckoo"
)

// TestLineLimitTerminator: the line limit counts the key, not its
// terminator. A line of exactly maxLineLen bytes was accepted without "\n"
// and rejected with one.
func TestLineLimitTerminator(t *testing.T) {
	defer func(old int) { maxLineLen = old }(maxLineLen)
	maxLineLen = 300 << 10 // more than the reader's buffer
	line := bytes.Repeat([]byte("k"), maxLineLen)
	for _, term := range []string{"", "\n", "\r\n"} {
		in := append(append([]byte{}, line...), term...)
		if term != "" {
			in = append(in, "next\n"...)
		}
		lr := newLineReader(bytes.NewReader(in), "in")
		_, key, ok := lr.next()
		if !ok || len(key) != maxLineLen {
			t.Errorf("a %d-byte line ending %q: ok %v, key %d bytes, err %v", maxLineLen, term, ok, len(key), lr.err)
			continue
		}
		if _, key, ok := lr.next(); term != "" && (!ok || string(key) != "next") {
			t.Errorf("ending %q: the next line is %q, %v", term, key, lr.err)
		}
	}
	for _, term := range []string{"", "\n", "\r\n"} {
		in := append(append([]byte{}, line...), 'x')
		in = append(in, term...)
		lr := newLineReader(bytes.NewReader(in), "in")
		if _, _, ok := lr.next(); ok || lr.err == nil || !strings.Contains(lr.err.Error(), "longer than") {
			t.Errorf("a %d-byte line ending %q: ok %v, err %v", maxLineLen+1, term, ok, lr.err)
		}
	}
}

// TestFieldZero: -f 0 is an error like -f -1 (it silently meant the whole
// line).
func TestFieldZero(t *testing.T) {
	dir := t.TempDir()
	f := smallFilter(t, dir, "blocked")
	for _, args := range [][]string{{"query", "-f", "0", f}, {"build", "-f", "0", "-n", "10", "-o", filepath.Join(dir, "x.sift")}} {
		wantError(t, runSift(t, []byte("alpha\n"), args...), "-f 0", "numbered from 1")
	}
	if _, err := fieldFlags(fieldValue{n: 0, set: true}, ""); err == nil {
		t.Error("fieldFlags accepts an explicit -f 0")
	}
}

// TestQueryCountQuiet: with -q, -c prints nothing (it printed the count);
// the exit status tells.
func TestQueryCountQuiet(t *testing.T) {
	dir := t.TempDir()
	f := smallFilter(t, dir, "blocked")
	r := runSift(t, []byte("alpha\nzzz\n"), "query", "-c", "-q", f)
	if r.code != 0 || r.stdout != "" {
		t.Errorf("query -c -q with a match: exit %d, stdout %q", r.code, r.stdout)
	}
	r = runSift(t, []byte("zzz-absent\n"), "query", "-q", "-c", f)
	if r.code != 1 || r.stdout != "" {
		t.Errorf("query -c -q without a match: exit %d, stdout %q", r.code, r.stdout)
	}
}

// TestQueryMissingInput: like grep, query reports an input it cannot read,
// goes on with the others, and exits 2 at the end (it stopped before
// reading any). With -q a selected line still means exit 0.
func TestQueryMissingInput(t *testing.T) {
	dir := t.TempDir()
	f := smallFilter(t, dir, "blocked")
	a := writeFile(t, dir, "a.txt", []byte("alpha\nnot-here\n"))
	b := writeFile(t, dir, "b.txt", []byte("gamma\n"))
	missing := filepath.Join(dir, "missing.txt")
	r := runSift(t, nil, "query", f, a, missing, b)
	wantError(t, r, "missing.txt", "no such file")
	if !strings.Contains(r.stdout, "alpha\n") || !strings.Contains(r.stdout, "gamma\n") {
		t.Errorf("query went no further than the missing input: stdout %q", r.stdout)
	}
	r = runSift(t, nil, "query", "-c", f, missing, a, dir, b)
	if r.code != exitError || !strings.HasPrefix(r.stdout, "2") || strings.Count(r.stderr, "sift query: ") != 2 {
		t.Errorf("query -c with two bad inputs: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runSift(t, nil, "query", "-q", f, missing, a); r.code != 0 || r.stdout != "" {
		t.Errorf("query -q with a missing input and a match: exit %d, stdout %q", r.code, r.stdout)
	}
	// build does not write a filter that lacks an input's keys: it fails
	// before reading anything, naming every input it cannot read.
	out := filepath.Join(dir, "x.sift")
	r = runSift(t, nil, "build", "-o", out, a, missing, filepath.Join(dir, "missing2.txt"))
	wantError(t, r, "missing.txt", "missing2.txt")
	if _, err := os.Stat(out); err == nil {
		t.Error("build wrote a filter with an input missing")
	}
}

// TestBuildMemoryEstimate: the memory check's estimate is the size the
// filter will have (the old formula overstated it about twice: 19 bits a
// key at 1% for a blocked filter of 10.1).
func TestBuildMemoryEstimate(t *testing.T) {
	const n = 1_000_000
	for _, fpp := range []float64{0.1, 0.01, 0.001, 1e-5} {
		bits, _, _ := blocked.OptimalSize(n, fpp)
		c8, _ := cuckoo.New(n, cuckoo.WithFingerprintBits(8))
		c16, _ := cuckoo.New(n, cuckoo.WithFingerprintBits(16))
		g, _ := classic.New(n, fpp)
		for _, c := range []struct {
			spec buildSpec
			size float64
		}{
			{buildSpec{kind: "blocked", n: n, fpp: fpp}, float64(bits / 8)},
			{buildSpec{kind: "cuckoo", n: n, fpp: fpp, fingerprintBits: 8}, float64(c8.SizeBytes())},
			{buildSpec{kind: "cuckoo", n: n, fpp: fpp, fingerprintBits: 16}, float64(c16.SizeBytes())},
			{buildSpec{kind: "classic", n: n, fpp: fpp}, float64(g.BitSize() / 8)},
		} {
			if got := buildMemory(c.spec); got < c.size || got > 1.1*c.size {
				t.Errorf("%s (f=%d) at %g: estimate %.0f bytes, the filter takes %.0f", c.spec.kind, c.spec.fingerprintBits, fpp, got, c.size)
			}
		}
	}
}

// TestBuildProgressAndRate: -progress on a pipe shows each phase's final
// state however short the build (a pipe got a line every 5 s only, so a
// short build showed nothing), and the summary's rate covers the
// line-counting pass, which it names.
func TestBuildProgressAndRate(t *testing.T) {
	dir := t.TempDir()
	var keys bytes.Buffer
	for i := range 1000 {
		fmt.Fprintf(&keys, "k%d\n", i)
	}
	in := writeFile(t, dir, "keys.txt", keys.Bytes())
	r := mustRun(t, nil, "build", "-progress", "-o", filepath.Join(dir, "p.sift"), in)
	for _, want := range []string{"counting lines", "adding keys", "1000 keys", "keys/s"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("-progress: stderr does not mention %q:\n%s", want, r.stderr)
		}
	}
	if !strings.Contains(r.stderr, " keys/s; counting lines took ") {
		t.Errorf("summary does not account for the counting pass:\n%s", r.stderr)
	}
	r = mustRun(t, keys.Bytes(), "build", "-n", "1000", "-o", filepath.Join(dir, "q.sift"))
	if strings.Contains(r.stderr, "counting") {
		t.Errorf("a build without a counting pass mentions one:\n%s", r.stderr)
	}
}

// TestFieldSelectorBlanks: the blank splitter (rewritten as one pass over
// the line, without bytes.TrimLeft and bytes.IndexAny) picks the same
// field as the awk-like definition on every line of a varied corpus.
func TestFieldSelectorBlanks(t *testing.T) {
	ref := func(line []byte, field int) []byte {
		f := strings.FieldsFunc(string(line), func(r rune) bool { return r == ' ' || r == '\t' })
		if field > len(f) {
			return nil
		}
		return []byte(f[field-1])
	}
	parts := []string{"", " ", "\t", "  ", "a", "bc", "d\te", "x y", "\x00", "é", "\r"}
	var lines [][]byte
	for _, p := range parts {
		for _, q := range parts {
			for _, r := range parts {
				lines = append(lines, []byte(p+q+r+q+p))
			}
		}
	}
	for _, line := range lines {
		for field := 1; field <= 6; field++ {
			if got, want := (fieldSelector{field: field}).key(line), ref(line, field); !bytes.Equal(got, want) {
				t.Fatalf("field %d of %q = %q, want %q", field, line, got, want)
			}
		}
	}
}

// BenchmarkFieldSelector compares field 7 split on blanks with the same
// field split on -d ' ' (the blank splitter was 4x slower).
func BenchmarkFieldSelector(b *testing.B) {
	line := []byte(`203.0.113.7 - - [10/Oct/2024:13:55:36 +0000] "GET /index.html HTTP/1.1" 200 2326 "-" "Mozilla/5.0 (X11; Linux x86_64)"`)
	for _, c := range []struct {
		name string
		sel  fieldSelector
	}{{"blanks", fieldSelector{field: 7}}, {"delim", fieldSelector{field: 7, delim: ' '}}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for range b.N {
				if len(c.sel.key(line)) == 0 {
					b.Fatal("empty field")
				}
			}
		})
	}
}
