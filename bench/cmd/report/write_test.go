package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFileAtomic: the file gets what write wrote, and a write that
// fails leaves the previous file whole; neither leaves a temporary file.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.md")
	put := func(text string) func(io.Writer) error {
		return func(w io.Writer) error {
			_, err := io.WriteString(w, text)
			return err
		}
	}
	if err := writeFileAtomic(path, put("first")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := writeFileAtomic(path, func(w io.Writer) error {
		io.WriteString(w, "half of the sec")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("failed write: %v, want %v", err, boom)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "first" {
		t.Fatalf("after a failed write: %q, %v; want the first file", b, err)
	}
	if err := writeFileAtomic(path, put("second")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "second" {
		t.Fatalf("got %q, want second", b)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, %v; want 0644", fi.Mode(), err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("%d files in the directory, want only r.md: %v", len(ents), ents)
	}
}
