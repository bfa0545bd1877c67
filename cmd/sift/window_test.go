package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
)

// TestWindowFiles: info describes a windowed filter's file (without a key
// count or a predicted rate, which a window's ageing keys do not have), and
// query answers from it with no false negatives for keys inside the window.
func TestWindowFiles(t *testing.T) {
	dir := t.TempDir()
	w, err := blocked.NewWindow(1000, 0.01, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	var in strings.Builder
	for i := range 500 {
		key := fmt.Sprint("key-", i)
		w.AddString(key)
		in.WriteString(key + "\n")
	}
	path := filepath.Join(dir, "w.sift")
	if err := sift.WriteFile(path, w, 0); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, nil, "info", path)
	for _, want := range []string{"kind:", "window", "4 generations", "window 1h0m0s", "checksum:  ok"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("info lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, bad := range []string{"keys:", "predicted FPR", " -1"} {
		if strings.Contains(r.stdout, bad) {
			t.Errorf("info has %q:\n%s", bad, r.stdout)
		}
	}
	q := mustRun(t, []byte(in.String()), "query", path)
	if q.stdout != in.String() {
		t.Errorf("query printed %d bytes, want every one of the %d keys' lines", len(q.stdout), 500)
	}
}

// countWindowFile writes, in dir, a window that advances every sliceKeys
// adds (made with the Go API: the CLI makes only time windows) holding
// key, and returns its path.
func countWindowFile(t *testing.T, dir string, sliceKeys uint64, key string) string {
	t.Helper()
	w, err := blocked.NewWindow(1000, 0.01, 0, blocked.WithSliceKeys(sliceKeys))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.AddString(key)
	path := filepath.Join(dir, "cw.sift")
	if err := sift.WriteFile(path, w, 1); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCountWindowFile: info describes a window that advances by count,
// its span in adds (it divided by the slice time such a window does not
// have, and exited with "internal error: integer divide by zero"), and
// query answers from it.
func TestCountWindowFile(t *testing.T) {
	path := countWindowFile(t, t.TempDir(), 100, "alice")
	r := mustRun(t, nil, "info", path)
	for _, want := range []string{"4 generations", "window of 300 adds (a slice of 100 keys)", "checksum:    ok"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("info lacks %q:\n%s", want, r.stdout)
		}
	}
	if q := mustRun(t, []byte("alice\n"), "query", path); q.stdout != "alice\n" {
		t.Errorf("query printed %q, want alice", q.stdout)
	}
}

// TestQueryWindowAsOf: a window kept by dedup -time-field from past data
// has its keys outside the window by now; query -as-of latest (the
// window's own time, which info shows) or a time inside the window finds
// every one, a time past the window none, and -as-of is refused for other
// kinds, with -kind other than window, for a time it cannot read, and
// with a time for a window that advances by count.
func TestQueryWindowAsOf(t *testing.T) {
	dir := t.TempDir()
	var lines, keys strings.Builder
	for i := range 300 {
		fmt.Fprintf(&lines, "2025-11-25T10:%02d:%02dZ key-%d\n", i/60, i%60, i)
		fmt.Fprintf(&keys, "key-%d\n", i)
	}
	state := filepath.Join(dir, "w.sift")
	mustRun(t, []byte(lines.String()), "dedup", "-n", "10000", "-window", "1h", "-f", "2", "-time-field", "1", "-state", state)
	r := mustRun(t, nil, "info", state)
	if !strings.Contains(r.stdout, "the latest from 2025-11-25T10:00:00Z") {
		t.Errorf("info does not show the window's time:\n%s", r.stdout)
	}
	for _, c := range []struct {
		asOf  string
		count string
	}{
		{"", "0"}, {"now", "0"}, {"latest", "300"}, {"2025-11-25T10:30:00Z", "300"},
		{"2025-11-25T09:00:00Z", "300"}, // before the latest slice: as of it
		// RFC 3339's lowercase letters and leap second, as -time-field.
		{"2025-11-25t10:30:00z", "300"}, {"2025-11-25T10:59:60Z", "300"}, {"2025-11-25t13:00:00z", "0"},
		{"2025-11-25T13:00:00Z", "0"},
		// Beyond int64 Unix nanoseconds (1678-2262): before is as of the
		// latest slice, after is past every slice.
		{"1600-01-01T00:00:00Z", "300"}, {"2300-01-01T00:00:00Z", "0"}, {"9999-12-31T23:59:59Z", "0"},
	} {
		args := []string{"query", "-c"}
		if c.asOf != "" {
			args = append(args, "-as-of", c.asOf)
		}
		r := runSift(t, []byte(keys.String()), append(args, state)...)
		if strings.TrimSpace(r.stdout) != c.count {
			t.Errorf("query -as-of %q: %q selected, want %s (stderr %q)", c.asOf, strings.TrimSpace(r.stdout), c.count, r.stderr)
		}
	}
	blockedFile := filepath.Join(dir, "b.sift")
	mustRun(t, []byte("a\n"), "build", "-n", "10", "-o", blockedFile)
	wantError(t, runSift(t, nil, "query", "-as-of", "latest", blockedFile), "-as-of is for window files")
	// "now" is the default, for any kind (it refused a blocked file).
	if r := runSift(t, []byte("x\n"), "query", "-c", "-as-of", "now", blockedFile); r.code == exitError {
		t.Errorf("query -as-of now of a blocked file: %s", r.stderr)
	}
	wantError(t, runSift(t, nil, "query", "-as-of", "latest", "-kind", "blocked", state), "cannot be combined with -kind blocked")
	wantError(t, runSift(t, nil, "query", "-as-of", "yesterday", state), "RFC 3339")
	wantError(t, runSift(t, nil, "query", "-as-of", "latest", "-guava", state), "-as-of is for window files")
	// A window that advances by count (made with the Go API) has no time
	// to answer as of; "latest" and "now" are its only time anyway.
	countState := countWindowFile(t, dir, 10, "k")
	wantError(t, runSift(t, nil, "query", "-as-of", "2025-11-25T10:30:00Z", countState), "advances every 10 adds, not by time")
	for _, at := range []string{"latest", "now"} {
		if r := runSift(t, []byte("k\n"), "query", "-c", "-as-of", at, countState); strings.TrimSpace(r.stdout) != "1" {
			t.Errorf("query -as-of %s of a count window: %q (stderr %q), want 1", at, r.stdout, r.stderr)
		}
	}
	// A -time-field window that has seen no line starts at the start of time.
	empty := filepath.Join(dir, "empty.sift")
	if r := runSift(t, nil, "dedup", "-n", "10", "-window", "1h", "-time-field", "1", "-state", empty); r.code != 1 {
		t.Fatalf("dedup of no lines: exit %d (want 1: nothing printed), stderr %q", r.code, r.stderr)
	}
	if r := mustRun(t, nil, "info", empty); !strings.Contains(r.stdout, "the start of time (no line yet)") {
		t.Errorf("info of a window with no line:\n%s", r.stdout)
	}
}

// TestWindowInfoSpan: info shows a window's span as the shortest -window
// that gives its slices, rounded only where the rounding keeps them (1h
// in 7 slices is 2 ns over 1h), and dedup takes the shown value back for
// the same state file.
func TestWindowInfoSpan(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		window, gens, want string
	}{
		{"1h", "8", "window 1h0m0s (a slice of 8m34.285714286s"},
		{"3ns", "4", "window 3ns (a slice of 1ns"},
		{"1500us", "4", "window 1.5ms (a slice of 500µs"},
		{"1500us", "8", "window 1.5ms (a slice of 214.286µs"},
		{"9223372036854775743ns", "2", "window 2562047h47m16.854775743s (a slice of 2562047h47m16.854775743s"},
	} {
		state := filepath.Join(dir, c.window+"-"+c.gens+".sift")
		mustRun(t, []byte("a\n"), "dedup", "-n", "10", "-window", c.window, "-generations", c.gens, "-state", state)
		info := mustRun(t, nil, "info", state)
		i := strings.Index(info.stdout, ", window ") + 2
		if i < 2 || !strings.Contains(info.stdout, c.want) {
			t.Errorf("-window %s -generations %s: info shows\n%s\nwant %q", c.window, c.gens, info.stdout, c.want)
			continue
		}
		shown := strings.Fields(info.stdout[i:])[1]
		// Accepted for the state (a refusal fails mustRun; a tiny
		// window's "a" may have expired since, so only "b" is asked for).
		if r := mustRun(t, []byte("b\n"), "dedup", "-window", shown, "-state", state); r.stdout != "b\n" {
			t.Errorf("-window %s (as info shows it) with the state: printed %q", shown, r.stdout)
		}
	}
}
