package sift_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/internal/mem"
)

// TestWriteFileFaults: an error from write, fsync or rename (injected)
// fails WriteFile with an error naming the step and wrapping the cause;
// the old file stays and no temporary file is left. A leftover of a writer
// that died is removed by the next WriteFile.
func TestWriteFileFaults(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	f, _ := blocked.New(1000, 0.01)
	f.AddString("alice")
	if err := sift.WriteFile(path, f, 1); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(path)
	for _, c := range []struct {
		op    string
		cause error
	}{{"write", syscall.ENOSPC}, {"fsync", syscall.EIO}, {"close", syscall.EDQUOT}, {"rename", syscall.EXDEV}} {
		restore := mem.SetWriteFault(func(op string) error {
			if op == c.op {
				return c.cause
			}
			return nil
		})
		err := sift.WriteFile(path, f, 2)
		restore()
		if !errors.Is(err, c.cause) || !strings.Contains(err.Error(), c.op) || !strings.Contains(err.Error(), path) || !strings.HasPrefix(err.Error(), "sift: ") {
			t.Fatalf("%s failing: %v", c.op, err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, old) {
			t.Fatalf("%s failing: the old file changed", c.op)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Fatalf("%s failing: %d files left in the directory", c.op, len(ents))
		}
	}
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		return // no kill(2): only leftovers older than a day are removed
	}
	// A dead writer's leftover (pid 2^22+1 is above Linux's largest
	// pid_max, and so never running).
	left := filepath.Join(dir, mem.TempPrefix(path)+"4194305-1")
	if err := os.WriteFile(left, []byte("half a filter"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := sift.WriteFile(path, f, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a dead writer's temporary file was kept: %v", err)
	}
}
