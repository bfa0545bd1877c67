package mem

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/sift-go/sift/internal/errs"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 63, 64, 4095, 4096, 100_000, HugeThreshold + 8} {
		if testing.Short() && size > 1<<20 {
			continue
		}
		want := make([]byte, size)
		for i := range want {
			want[i] = byte(i*7 + i>>8)
		}
		path := filepath.Join(dir, fmt.Sprint(size))
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		b, r, st, err := ReadFile(path)
		if err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		if !bytes.Equal(b, want) {
			t.Fatalf("%d bytes: read other bytes", size)
		}
		if st.Size() != int64(size) {
			t.Fatalf("%d bytes: stat says %d", size, st.Size())
		}
		if size > 0 && uintptr(unsafe.Pointer(&b[0]))%Align != 0 {
			t.Fatalf("%d bytes: not %d-byte aligned", size, Align)
		}
		// The copy is the process's own: changing the file does not reach it.
		if size > 0 {
			if err := os.Truncate(path, 0); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, want) {
				t.Fatalf("%d bytes: the bytes changed with the file", size)
			}
		}
		if err := r.Free(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, _, _, err := ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if _, _, _, err := ReadFile(dir); err == nil || !strings.Contains(err.Error(), "a directory") {
		t.Fatalf("directory: %v", err)
	}
}

// TestReadChanged: a file that grows, shrinks or is modified between the
// fstat that sized the read and the end of the read is an error wrapping
// ErrChanged (and ErrTruncated when it shrank), never a mix returned as
// good. ReadOpen is given the stale stat, as if the change came after it.
func TestReadChanged(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name      string
		change    func(path string) error
		truncated bool
	}{
		{"grew", func(path string) error {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.Write([]byte("more"))
			return err
		}, false},
		{"shrank", func(path string) error { return os.Truncate(path, 100) }, true},
		{"emptied", func(path string) error { return os.Truncate(path, 0) }, true},
		{"rewritten", func(path string) error {
			return os.Chtimes(path, time.Time{}, time.Now().Add(time.Hour))
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name)
			if err := os.WriteFile(path, make([]byte, 1000), 0o644); err != nil {
				t.Fatal(err)
			}
			f, st, err := OpenRegular(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := c.change(path); err != nil {
				t.Fatal(err)
			}
			_, _, err = ReadOpen(f, st)
			if !errors.Is(err, ErrChanged) {
				t.Fatalf("got %v, want ErrChanged", err)
			}
			if errors.Is(err, errs.Truncated) != c.truncated {
				t.Fatalf("got %v: wraps ErrTruncated %v, want %v", err, !c.truncated, c.truncated)
			}
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("%q does not name the file", err)
			}
		})
	}
}

// deadPID returns the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run a child process: %v", err)
	}
	return cmd.Process.Pid
}

func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".sift-tmp-") {
			names = append(names, e.Name())
		}
	}
	return names
}

func writeBytes(b []byte) func(io.Writer) (int64, error) {
	return func(w io.Writer) (int64, error) {
		n, err := w.Write(b)
		return int64(n), err
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	if _, err := WriteAtomic(path, writeBytes([]byte("old")), AtomicOptions{}); err != nil {
		t.Fatal(err)
	}
	// Leftovers: a dead writer's (removed), one named for this process
	// that it did not make (removed where writers lock their files: an
	// earlier process with this id left it, TestRemoveStaleOwnPID; kept
	// elsewhere), a live one's (kept: not a minute old), another file's
	// and names that only look alike (kept).
	dead := TempPrefix(path) + strconv.Itoa(deadPID(t)) + "-123"
	mine := TempPrefix(path) + strconv.Itoa(os.Getpid()) + "-456"
	live := TempPrefix(path) + strconv.Itoa(os.Getppid()) + "-789"
	other := TempPrefix(filepath.Join(dir, "g.sift")) + "1-1"
	odd := TempPrefix(path) + "notapid-1"
	odd2 := TempPrefix(path) + strconv.Itoa(deadPID(t)) + "-12x"
	for _, n := range []string{dead, mine, live, other, odd, odd2} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var seen string
	n, err := WriteAtomic(path, writeBytes([]byte("new!")), AtomicOptions{OnTemp: func(name string) func() {
		seen = name
		return func() {}
	}})
	if err != nil || n != 4 {
		t.Fatalf("WriteAtomic = %d, %v", n, err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new!" {
		t.Fatalf("target holds %q", got)
	}
	if !strings.HasPrefix(filepath.Base(seen), TempPrefix(path)+strconv.Itoa(os.Getpid())+"-") {
		t.Fatalf("temporary file %q is not named for its writer", seen)
	}
	got := strings.Join(tempFiles(t, dir), " ")
	kept, gone := []string{live, other, odd, odd2}, []string{dead}
	if tempLocks {
		gone = append(gone, mine)
	} else {
		kept = append(kept, mine)
	}
	for _, n := range kept {
		if !strings.Contains(got, n) {
			t.Errorf("%s was removed (left: %s)", n, got)
		}
	}
	for _, n := range gone {
		if strings.Contains(got, n) {
			t.Errorf("the leftover %s was kept", n)
		}
	}
	// Older than StaleAge: removed whoever wrote it.
	old := time.Now().Add(-StaleAge - time.Hour)
	if err := os.Chtimes(filepath.Join(dir, live), old, old); err != nil {
		t.Fatal(err)
	}
	if RemoveStale(path) != 1 {
		t.Errorf("the stale file of a live pid was not removed")
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("target: %v, %v", st, err)
	}
}

// TestWriteAtomicFaults: a failure at each step before the rename leaves
// the old target intact and no temporary file, and the error names the
// step and the cause; after the rename, an fsync of the directory that
// fails is reported though the new file is in place.
func TestWriteAtomicFaults(t *testing.T) {
	for _, op := range []string{"write", "chmod", "fsync", "close", "rename", "fsync-dir"} {
		t.Run(op, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.sift")
			if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			restore := SetWriteFault(func(o string) error {
				if o == op {
					return syscall.EIO
				}
				return nil
			})
			defer restore()
			_, err := WriteAtomic(path, writeBytes([]byte("new")), AtomicOptions{})
			if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), path) {
				t.Fatalf("got %v, want an error naming %s and wrapping EIO", err, path)
			}
			if op != "fsync-dir" && !strings.Contains(err.Error(), op+" ") {
				t.Fatalf("%q does not name the step %s", err, op)
			}
			want := "old"
			if op == "fsync-dir" {
				want = "new"
			}
			if got, _ := os.ReadFile(path); string(got) != want {
				t.Fatalf("target holds %q, want %q", got, want)
			}
			if left := tempFiles(t, dir); len(left) != 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
	// A writer's own error.
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	boom := errors.New("boom")
	_, err := WriteAtomic(path, func(io.Writer) (int64, error) { return 0, boom }, AtomicOptions{})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	if _, serr := os.Stat(path); !errors.Is(serr, os.ErrNotExist) || len(tempFiles(t, dir)) != 0 {
		t.Fatalf("after a failed write: %v, %v", serr, tempFiles(t, dir))
	}
	// A target that is not a regular file.
	if _, err := WriteAtomic(dir, writeBytes(nil), AtomicOptions{}); err == nil || !strings.Contains(err.Error(), "a directory") {
		t.Fatalf("directory target: %v", err)
	}
}
