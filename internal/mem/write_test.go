package mem

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
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
