package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sift-go/sift/blocked"
)

// writeBlocked writes a blocked filter of bits bits holding keys k-0..k-n-1
// to path.
func writeBlocked(t *testing.T, path string, bits uint64, n int) {
	t.Helper()
	f, err := blocked.NewWithSize(bits, 7)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		f.AddString(fmt.Sprintf("k-%d", i))
	}
	enc, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, enc, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestInfoFileReplacedBetweenReads: sift info reads a file by path more than
// once (a copy for the checksums, then the kind's reader for the geometry).
// A file renamed over the path, or rewritten in place, between those reads
// is reported as changed (exit 2), not described with one file's checksum
// and the other's geometry, as it was.
func TestInfoFileReplacedBetweenReads(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	other := filepath.Join(dir, "other.sift")
	for _, c := range []struct {
		name    string
		replace func(t *testing.T)
		broken  bool // the new file is not a complete filter
	}{
		{"renamed over", func(t *testing.T) {
			writeBlocked(t, other, 1<<16, 100)
			if err := os.Rename(other, path); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"rewritten in place", func(t *testing.T) { writeBlocked(t, path, 1<<17, 100) }, false},
		// Caught half-written: the kind's reader fails, and its error is
		// the new file's, not the one described.
		{"truncated in place", func(t *testing.T) {
			if err := os.Truncate(path, 1<<16); err != nil {
				t.Fatal(err)
			}
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			writeBlocked(t, path, 1<<20, 1000)
			if r := runInProcess("", "info", path); r.code != exitOK {
				t.Fatalf("info of an unchanged file: exit %d: %s", r.code, r.stderr)
			}
			calls := 0
			beforeOpen = func(string) { calls++; c.replace(t) }
			defer func() { beforeOpen = func(string) {} }()
			r := runInProcess("", "info", path)
			beforeOpen = func(string) {}
			if calls != 1 {
				t.Fatalf("beforeOpen ran %d times, want 1", calls)
			}
			if r.code != exitError || !strings.Contains(r.stderr, "changed while it was read") || !strings.Contains(r.stderr, path) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d naming %s and saying it changed", r.code, r.stdout, r.stderr, exitError, path)
			}
			if r.stdout != "" {
				t.Errorf("a changed file was described:\n%s", r.stdout)
			}
			// Run again: it describes the new file, or says what is wrong
			// with it.
			if r := runInProcess("", "info", path); (r.code == exitOK) == c.broken {
				t.Errorf("info of the new file: exit %d: %s", r.code, r.stderr)
			}
		})
	}
}
