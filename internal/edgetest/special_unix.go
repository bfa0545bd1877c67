//go:build unix

package edgetest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SpecialFiles checks that open, an Open of some filter package, refuses a
// FIFO that has no writer and os.DevNull at once, with an error that wraps
// an *fs.PathError and reads prefix + "open PATH: not a regular file". A
// plain open(2) of such a FIFO waits for a writer, forever if none comes:
// after 5 s the check opens one itself, so the call returns, and fails.
func SpecialFiles(t *testing.T, prefix string, open func(path string) error) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	for _, path := range []string{fifo, os.DevNull} {
		done := make(chan error, 1)
		go func() { done <- open(path) }()
		select {
		case err := <-done:
			var pe *fs.PathError
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), prefix+"open "+path+": not a regular file") {
				t.Errorf("open(%s): %v", path, err)
			}
		case <-time.After(5 * time.Second):
			if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
			<-done
			t.Errorf("open(%s) blocked", path)
		}
	}
}
