package sbbf_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sift-go/sift/sbbf"
)

// TestLoad: a loaded View is a copy that answers for every key after its
// file is truncated or rewritten in place (a mapping would fault or change),
// and Load reports what Open reports for a damaged or missing file.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	const n = 5000
	f, err := sbbf.New(n, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	for i := range int64(n) {
		f.AddInt64(i)
	}
	b, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "f.sift")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := sbbf.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.Mapped() {
		t.Fatal("a loaded View reports Mapped")
	}
	for _, size := range []int64{0, 100, int64(len(b)) / 2} {
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
		for i := range int64(n) {
			if !v.ContainsInt64(i) {
				t.Fatalf("key %d absent after truncating the file to %d bytes", i, size)
			}
		}
	}
	// A cut file is an error wrapping ErrTruncated, as Open's.
	if err := os.WriteFile(path, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sbbf.Load(path); !errors.Is(err, sbbf.ErrTruncated) {
		t.Errorf("Load of a truncated file: %v, want ErrTruncated", err)
	}
	if _, err := sbbf.Load(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v, want ErrNotExist", err)
	}
	if _, err := sbbf.Load(dir); err == nil {
		t.Error("Load of a directory: no error")
	}
}
