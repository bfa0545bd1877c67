package main

import (
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/internal/format"
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

// TestBloomFillScalable: a scalable filter's fill counts its stages' bits,
// not the stage headers and padding in its payload (info read 13.7% for a
// filter whose stages had 17.9% of their bits set).
func TestBloomFillScalable(t *testing.T) {
	var payload []byte
	var ones, total int
	for i, size := range []uint64{512, 1024, 4096} {
		f, err := blocked.NewWithSize(size, 7)
		if err != nil {
			t.Fatal(err)
		}
		for j := range 20 * (i + 1) {
			f.AddString(fmt.Sprintf("k-%d-%d", i, j))
		}
		rec, err := f.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range rec[128:] {
			ones += bits.OnesCount8(b)
		}
		total += 8 * len(rec[128:])
		payload = append(payload, rec...)
		for len(payload)%64 != 0 {
			payload = append(payload, 0)
		}
	}
	want := float64(ones) / float64(total)
	if got := bloomFill(sift.KindScalable, payload); got != want {
		t.Errorf("scalable fill %v, want %v (the whole payload counts %v)", got, want, bitFill(payload))
	}
	if got := bloomFill(sift.KindBlocked, payload[128:]); got != bitFill(payload[128:]) {
		t.Errorf("blocked fill %v, want the whole payload's %v", got, bitFill(payload[128:]))
	}
}

// TestCuckooWrongCount: a cuckoo file whose stored count disagrees with its
// slots (its header CRC made valid again, as a faulty writer would) is
// refused by info and query, as by merge and every writable decoder; info
// printed "keys: 0" and "checksum: ok" for it.
func TestCuckooWrongCount(t *testing.T) {
	f, err := cuckoo.New(1000)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 500 {
		if err := f.AddString(fmt.Sprint("k-", i)); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	h, payload, _, err := format.Decode(enc, format.KindCuckoo, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h.Params[2] = 0 // the count (FORMAT.md, kind 2)
	enc = format.Encode(h, payload)
	path := filepath.Join(t.TempDir(), "c.sift")
	if err := os.WriteFile(path, enc, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"info", path}, {"query", "-c", path}} {
		r := runInProcess("k-1\n", args...)
		if r.code != exitError || !strings.Contains(r.stderr, "count 0, but 500 slots are occupied") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and the count's error", args, r.code, r.stdout, r.stderr, exitError)
		}
	}
}

// TestInfoSaturated: info on a Bloom filter with every bit set says it is
// saturated instead of printing the estimate's cap (4611686018427387904
// keys, 0.00 bits a key).
func TestInfoSaturated(t *testing.T) {
	dir := t.TempDir()
	keys := writeFile(t, dir, "keys.txt", keyLines("k", 20000))
	for _, kind := range []string{"blocked", "sbbf", "classic", "guava"} {
		f := filepath.Join(dir, kind+".sift")
		build, info := []string{"build", "-q", "-kind", kind, "-n", "100", "-o", f, keys}, []string{"info", f}
		if kind == "guava" {
			build, info = []string{"build", "-q", "-guava", "-n", "100", "-o", f, keys}, []string{"info", "-guava", f}
		}
		mustRun(t, nil, build...)
		r := mustRun(t, nil, info...)
		if !strings.Contains(r.stdout, "saturated") || strings.Contains(r.stdout, "bits/key") || strings.Contains(r.stdout, "4611686018427387904") || strings.Contains(r.stdout, "9223372036854775807") {
			t.Errorf("info of a saturated %s filter:\n%s", kind, r.stdout)
		}
	}
}
