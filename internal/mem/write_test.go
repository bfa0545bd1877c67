package mem

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sift-go/sift/internal/errs"
)

// TestRenameDurable: the file is renamed over the target, and a failed
// sync of the directory is reported (the rename has happened; it may not
// survive a crash).
func TestRenameDurable(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "a.partial"), filepath.Join(dir, "a")
	for _, f := range []string{from, to} {
		if err := os.WriteFile(f, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := RenameDurable(from, to); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(to); err != nil || string(b) != from {
		t.Fatalf("after the rename the target holds %q (%v)", b, err)
	}
	if _, err := os.Stat(from); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the renamed file is still there: %v", err)
	}
	if err := RenameDurable(from, to); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("renaming a missing file: %v", err)
	}
	boom := errors.New("boom")
	defer SetWriteFault(func(op string) error {
		if op == "fsync-dir" {
			return boom
		}
		return nil
	})()
	if err := os.WriteFile(from, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := RenameDurable(from, to); !errors.Is(err, boom) {
		t.Fatalf("a failed directory sync: %v", err)
	}
}

// TestWriteAtomicErrorPrefix: a writer's error from this module appears in
// WriteAtomic's error without its package prefix, which the caller adds
// once (it read "writing P: write T: sift: not a sift filter (bad magic)",
// and package sift's WriteFile put "sift: " in front), and errors.Is still
// finds it and its sentinels; the system's errors keep their whole text.
func TestWriteAtomicErrorPrefix(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	inner := errs.Annotatef("blocked", []error{errs.Closed}, "cannot encode a closed or zero filter")
	_, err := WriteAtomic(path, func(io.Writer) (int64, error) { return 0, inner }, AtomicOptions{})
	msg := fmt.Sprint(err)
	if !errors.Is(err, inner) || !errors.Is(err, errs.Closed) || !strings.HasPrefix(msg, "writing "+path+": write ") ||
		!strings.HasSuffix(msg, ": filter is closed or was never made: cannot encode a closed or zero filter") || strings.Contains(msg, ": blocked: ") {
		t.Errorf("a module error: %v", err)
	}
	if msg := fmt.Sprint(errs.Wrap("sift", err)); strings.Contains(msg, ": sift: ") || !strings.HasPrefix(msg, "sift: writing ") {
		t.Errorf("under sift's prefix: %s", msg)
	}
	_, err = WriteAtomic(path, func(io.Writer) (int64, error) { return 0, syscall.ENOSPC }, AtomicOptions{})
	if !errors.Is(err, syscall.ENOSPC) || !strings.HasSuffix(fmt.Sprint(err), ": "+syscall.ENOSPC.Error()) {
		t.Errorf("a system error: %v", err)
	}
}
