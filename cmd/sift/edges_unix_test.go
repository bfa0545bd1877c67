//go:build unix

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runSiftTimeout is runSift that kills the command after d, and reports
// whether it had to.
func runSiftTimeout(t *testing.T, d time.Duration, stdin []byte, args ...string) (result, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	r, _ := execSift(t, ctx, stdin, args...)
	return r, ctx.Err() != nil
}

// TestSpecialFilterFiles: info and query refuse a filter FILE that is a
// FIFO or a device at once (they waited forever for a FIFO's writer).
func TestSpecialFilterFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	for _, path := range []string{fifo, os.DevNull} {
		for _, args := range [][]string{
			{"info", path}, {"info", "-guava", path}, {"query", path}, {"query", "-guava", path}, {"query", "-kind", "scalable", path},
		} {
			r, killed := runSiftTimeout(t, 10*time.Second, []byte("alpha\n"), args...)
			if killed {
				t.Errorf("sift %s: still running after 10 s", strings.Join(args, " "))
				continue
			}
			if r.code != exitError || !strings.Contains(r.stderr, "not a regular file") {
				t.Errorf("sift %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.stderr)
			}
			if n := strings.Count(r.stderr, path); n != 1 {
				t.Errorf("sift %s: stderr names the file %d times: %q", strings.Join(args, " "), n, r.stderr)
			}
		}
	}
}

// TestQueryFIFOInput: an input that is a FIFO is read, once, as grep reads
// it (the input check opened and closed it first, which let the writer
// finish writing into nothing and left the real read waiting forever).
func TestQueryFIFOInput(t *testing.T) {
	dir := t.TempDir()
	f := smallFilter(t, dir, "blocked")
	fifo := filepath.Join(dir, "in")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			_, err = w.Write([]byte("alpha\nnope\ngamma\n"))
			w.Close()
		}
		done <- err
	}()
	r, killed := runSiftTimeout(t, 10*time.Second, nil, "query", f, fifo)
	if killed {
		// Let the writer go.
		if rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			rd.Close()
		}
		t.Fatal("query of a FIFO input hung")
	}
	if werr := <-done; werr != nil || r.code != 0 || r.stdout != "alpha\ngamma\n" {
		t.Errorf("query of a FIFO input: exit %d, stdout %q, stderr %q, writer %v", r.code, r.stdout, r.stderr, werr)
	}
}
