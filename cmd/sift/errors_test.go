package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sift-go/sift/classic"
)

// headerSize is the length of a sift file's header (FORMAT.md).
const headerSize = 128

// smallFilter builds a filter of the given kind holding a few keys and
// returns its path.
func smallFilter(t *testing.T, dir, kind string) string {
	t.Helper()
	f := filepath.Join(dir, kind+".sift")
	mustRun(t, []byte("alpha\nbeta\ngamma\n"), "build", "-kind", kind, "-n", "1000", "-o", f)
	return f
}

// TestCorruptFilter damages filter files in every way an operator meets
// (a flipped payload byte, a flipped header byte, a truncated copy, an
// empty file, not a filter at all) and expects one clear line and exit 2
// from query and info, never a panic.
func TestCorruptFilter(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range testKinds() {
		t.Run("kind="+kind, func(t *testing.T) {
			good := smallFilter(t, dir, kind)
			data, err := os.ReadFile(good)
			if err != nil {
				t.Fatal(err)
			}
			flip := func(i int) []byte {
				b := append([]byte{}, data...)
				b[i] ^= 0x10
				return b
			}
			cases := []struct {
				name string
				data []byte
				want []string
			}{
				{"payload-flip", flip(headerSize + (len(data)-headerSize)/2), []string{"checksum", "damaged"}},
				{"header-flip", flip(20), []string{"checksum"}},
				{"magic-flip", flip(1), []string{"not a sift filter"}},
				{"truncated", data[:len(data)-7], []string{"truncated"}},
				{"header-only", data[:headerSize], []string{"truncated"}},
				{"short-header", data[:50], []string{"truncated"}},
				{"empty", nil, []string{"empty"}},
				{"text", []byte("alpha\nbeta\n"), []string{"not a sift filter"}},
				{"trailing", append(append([]byte{}, data...), 0), []string{"after"}},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					p := writeFile(t, dir, kind+"-"+c.name+".sift", c.data)
					r := runSift(t, []byte("alpha\n"), "query", p)
					wantError(t, r, append([]string{p}, c.want...)...)
					if r.stdout != "" {
						t.Errorf("query of a damaged filter printed %q", r.stdout)
					}
					r2 := runSift(t, nil, "info", p)
					wantError(t, r2, c.want...)
					// A cut file gets one hint: the library's (a file
					// shorter than its header declares) or the CLI's.
					for _, r := range []result{r, r2} {
						if c.want[0] == "truncated" && strings.Contains(r.stderr, "being written") == strings.Contains(r.stderr, "incomplete file") {
							t.Errorf("a truncated filter's error should carry exactly one hint: %s", r.stderr)
						}
					}
				})
			}
			// info still describes a file whose payload is damaged, and
			// says BAD.
			p := writeFile(t, dir, kind+"-bad.sift", flip(len(data)-1))
			r := runSift(t, nil, "info", p)
			if !strings.Contains(r.stdout, "checksum:") || !strings.Contains(r.stdout, "BAD") || !strings.Contains(r.stdout, "kind:") {
				t.Errorf("info of a damaged payload:\n%s", r.stdout)
			}
		})
	}
}

// TestFileErrors covers filter paths that are not filter files.
func TestFileErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.sift")
	wantError(t, runSift(t, nil, "query", missing), "missing.sift", "no such file")
	wantError(t, runSift(t, nil, "info", missing), "no such file")
	wantError(t, runSift(t, nil, "query", dir), "directory")
	f := smallFilter(t, dir, "blocked")
	wantError(t, runSift(t, nil, "query", f, missing), "missing.sift")
	wantError(t, runSift(t, nil, "build", "-o", filepath.Join(dir, "x.sift"), missing), "no such file")
	wantError(t, runSift(t, []byte("a\n"), "build", "-n", "5", "-o", filepath.Join(dir, "no", "such", "dir.sift")), "no such file")
	if _, err := os.Stat(filepath.Join(dir, "x.sift")); err == nil {
		t.Error("a failed build created its output")
	}
}

// TestWrongKind asks for a kind the file does not hold, and queries a kind
// the command does not read.
func TestWrongKind(t *testing.T) {
	dir := t.TempDir()
	f := smallFilter(t, dir, "blocked")
	wantError(t, runSift(t, []byte("alpha\n"), "query", "-kind", "cuckoo", f), "wrong filter kind", "blocked")
	wantError(t, runSift(t, nil, "info", "-kind", "cuckoo", f), "wrong filter kind")
	// A kind build does not make is still rejected by -kind.
	wantError(t, runSift(t, []byte("alpha\n"), "query", "-kind", "counting", f), "wrong filter kind")
	wantError(t, runSift(t, []byte("a\n"), "build", "-kind", "bloom", "-n", "1", "-o", filepath.Join(dir, "b.sift")), "-kind", "bloom")
}

// TestBadFlags: every usage error is one line on stderr and exit 2.
func TestBadFlags(t *testing.T) {
	dir := t.TempDir()
	f := smallFilter(t, dir, "blocked")
	out := filepath.Join(dir, "o.sift")
	in := writeFile(t, dir, "in.txt", []byte("a\n"))
	cases := []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"build", "-x", in}, "-x"},
		{[]string{"build", "-o", out, "-fpp", "2", in}, "-fpp"},
		{[]string{"build", "-o", out, "-fpp", "0", in}, "-fpp"},
		{[]string{"build", "-o", out, "-fpp", "abc", in}, "-fpp"},
		{[]string{"build", "-o", out, "-n", "-5", in}, "-n"},
		{[]string{"build", "-o", out, "-n", "lots", in}, "-n"},
		{[]string{"build", "-o", out, "-seed", "x", in}, "-seed"},
		{[]string{"build", "-o", out, "-bits", "16", in}, "-bits"},
		{[]string{"build", in}, "-o"},
		{[]string{"build", "-kind", "cuckoo", "-o", out}, "-n is required"},
		// A rate a cuckoo filter cannot reach names the kind that can.
		{[]string{"build", "-kind", "cuckoo", "-n", "10", "-fpp", "1e-6", "-o", out, in}, "above -fpp 1e-06: use -kind blocked"},
		{[]string{"build", "-kind", "cuckoo", "-n", "10", "-fpp", "1e-9", "-o", out, in}, "above -fpp 1e-09: use -kind classic"},
		{[]string{"build", "-o", out, "-", "-"}, "more than once"},
		{[]string{"build", "-o"}, "-o"},
		{[]string{"build", "-o", in, in}, "also an input"},
		{[]string{"build", "-o", out, "-f", "-2", in}, "-f"},
		{[]string{"query", "-d", ",", f}, "-d needs -f"},
		{[]string{"query", "-f", "2", "-d", "", f}, "the delimiter must be one byte (leave out -d"},
		{[]string{"build", "-o", out, "-f", "2", "-d", "", in}, "the delimiter must be one byte (leave out -d"},
		{[]string{"query"}, "missing filter"},
		{[]string{"query", ""}, `"" (an empty file name): no such file`},
		{[]string{"info", ""}, `"" (an empty file name): no such file`},
		{[]string{"query", "-z", f}, "-z"},
		{[]string{"query", "-kind", "nope", f}, "-kind"},
		{[]string{"info"}, "missing filter"},
		{[]string{"bench", "-n", "0"}, "-n"},
		{[]string{"bench", "-kind", "bogus"}, "-kind"},
		{[]string{"bench", "extra"}, "unexpected argument"},
		// The package's prefix names the kind once ("blocked: blocked:").
		{[]string{"bench", "-n", "1000", "-kind", "blocked", "-fpp", "1e-9"}, "sift bench: blocked: false-positive rate 1e-09"},
		{[]string{"help", "nope"}, "unknown command"},
	}
	for _, c := range cases {
		r := runSift(t, []byte{}, c.args...)
		if r.code != exitError {
			t.Errorf("sift %s: exit %d, want 2", strings.Join(c.args, " "), r.code)
		}
		if !strings.Contains(r.stderr, c.want) {
			t.Errorf("sift %s: stderr %q does not mention %q", strings.Join(c.args, " "), r.stderr, c.want)
		}
		if r.stdout != "" {
			t.Errorf("sift %s: stdout %q on a usage error", strings.Join(c.args, " "), r.stdout)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed build created its output")
	}
}

// TestHelp: help goes to stdout with exit 0.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"help", "build"}, {"build", "-h"}, {"merge", "-h"}, {"help", "merge"}, {"query", "-help"}, {"info", "-h"}, {"bench", "-h"}} {
		r := mustRun(t, nil, args...)
		if !strings.Contains(r.stdout, "usage: sift") {
			t.Errorf("sift %s: no usage on stdout:\n%s", strings.Join(args, " "), r.stdout)
		}
	}
	r := mustRun(t, nil, "version")
	if !strings.Contains(r.stdout, "kernel") {
		t.Errorf("version: %q", r.stdout)
	}
}

// TestClassicFiles queries and describes the classic filters' native files,
// made with the library: the Guava-compatible Filter and the counting one.
func TestClassicFiles(t *testing.T) {
	dir := t.TempDir()
	g, err := classic.New(1000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	c, err := classic.NewCounting(1000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"alpha", "beta", "gamma"} {
		g.PutString(k)
		c.AddString(k)
	}
	gb, _ := g.MarshalBinary()
	cb, _ := c.MarshalBinary()
	for name, data := range map[string][]byte{"classic": gb, "counting": cb} {
		p := writeFile(t, dir, name+".sift", data)
		r := mustRun(t, []byte("alpha\nzeta\ngamma\n"), "query", "-kind", name, p)
		if r.stdout != "alpha\ngamma\n" {
			t.Errorf("%s: query printed %q", name, r.stdout)
		}
		info := mustRun(t, nil, "info", p)
		for _, want := range []string{"kind:           " + name, "keys:           3", "checksum:       ok"} {
			if !strings.Contains(info.stdout, want) {
				t.Errorf("%s: info lacks %q:\n%s", name, want, info.stdout)
			}
		}
		bad := append([]byte{}, data...)
		bad[len(bad)-1] ^= 1
		wantError(t, runSift(t, []byte("alpha\n"), "query", writeFile(t, dir, name+"-bad.sift", bad)), "checksum")
	}
}

// TestGuava builds a filter in Guava's stream format, checks the bytes are
// the library's (which its golden tests tie to real Guava), and reads it
// back with query -guava and info -guava.
func TestGuava(t *testing.T) {
	dir := t.TempDir()
	keys := "alpha\nbeta\ngamma\n"
	f := filepath.Join(dir, "f.guava")
	mustRun(t, []byte(keys), "build", "-guava", "-n", "1000", "-fpp", "0.01", "-o", f)
	want, err := classic.New(1000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range strings.Fields(keys) {
		want.PutString(k)
	}
	got, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	wantBytes, err := want.AppendGuava(nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(wantBytes) {
		t.Errorf("build -guava wrote %d bytes that differ from classic.Filter.WriteGuava's %d", len(got), want.GuavaSize())
	}
	r := mustRun(t, []byte("alpha\nzeta\ngamma\n"), "query", "-guava", f)
	if r.stdout != "alpha\ngamma\n" {
		t.Errorf("query -guava printed %q", r.stdout)
	}
	info := mustRun(t, nil, "info", "-guava", f)
	if !strings.Contains(info.stdout, "Guava") || !strings.Contains(info.stdout, "keys:           3") {
		t.Errorf("info -guava:\n%s", info.stdout)
	}
	wantError(t, runSift(t, []byte("alpha\n"), "query", f), "not a sift filter", "-guava")
	wantError(t, runSift(t, []byte("alpha\n"), "query", "-guava", f[:len(f)-6]+"missing"), "no such file")
	wantError(t, runSift(t, []byte("alpha\n"), "query", "-guava", writeFile(t, dir, "short.guava", got[:len(got)-3])), "incomplete file")
	wantError(t, runSift(t, []byte("a\n"), "build", "-guava", "-kind", "cuckoo", "-n", "9", "-o", f), "-guava")
	wantError(t, runSift(t, []byte("a\n"), "build", "-kind", "classic", "-seed", "7", "-n", "9", "-o", f), "-seed")
	// A native classic build is described with its checksum.
	nf := filepath.Join(dir, "f.sift")
	mustRun(t, []byte(keys), "build", "-kind", "classic", "-n", "1000", "-o", nf)
	wantError(t, runSift(t, []byte("alpha\n"), "query", "-guava", nf), "a sift file (a classic filter), not Guava's stream format: leave out -guava")
	if info := mustRun(t, nil, "info", nf); !strings.Contains(info.stdout, "checksum:       ok") {
		t.Errorf("info of a native classic filter:\n%s", info.stdout)
	}
}

// TestTooBig: sizes beyond the machine's memory are one clear error, not
// the runtime's out-of-memory crash.
func TestTooBig(t *testing.T) {
	m := totalMemory()
	if m == 0 || m > 500<<30 {
		t.Skip("memory size unknown or huge")
	}
	out := filepath.Join(t.TempDir(), "x.sift")
	// Beyond what a blocked filter addresses (256 GiB).
	wantError(t, runSift(t, []byte{}, "build", "-n", "1e11", "-fpp", "1e-6", "-o", out), "need more than")
	// Within that, but 1.5 times this machine (a blocked filter takes
	// 10.13 bits a key at 1%).
	if n := float64(m) * 1.5 / (10.13 / 8); n*10.13/8 < 250<<30 {
		wantError(t, runSift(t, []byte{}, "build", "-n", fmt.Sprintf("%.0f", n), "-o", out), "more than this machine's")
	}
	wantError(t, runSift(t, nil, "bench", "-n", "2e9"), "more than this machine's")
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused build wrote its output")
	}
}
