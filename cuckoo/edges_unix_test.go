//go:build unix

package cuckoo

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

// TestOpenFIFO: Open of a FIFO (or a device) returns at once with an
// error; before, it waited forever in open(2) for a writer.
func TestOpenFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	for _, path := range []string{p, os.DevNull} {
		done := make(chan error, 1)
		go func() {
			v, err := Open(path, LoadOptions{})
			if err == nil {
				v.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			var pe *fs.PathError
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "cuckoo: open "+path+": not a regular file") {
				t.Errorf("Open(%s): %v", path, err)
			}
		case <-time.After(5 * time.Second):
			if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
			<-done
			t.Errorf("Open(%s) blocked", path)
		}
	}
}
