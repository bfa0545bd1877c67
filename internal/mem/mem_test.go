package mem

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/sift-go/sift/internal/errs"
)

func TestAligned(t *testing.T) {
	for n := 0; n < 300; n++ {
		b := AlignedBytes(n)
		w := AlignedWords(n)
		if len(b) != n || len(w) != n || cap(b) != n || cap(w) != n {
			t.Fatalf("n=%d: len/cap %d/%d %d/%d", n, len(b), cap(b), len(w), cap(w))
		}
		if n > 0 && (uintptr(unsafe.Pointer(&b[0]))%Align != 0 || uintptr(unsafe.Pointer(&w[0]))%Align != 0) {
			t.Fatalf("n=%d: not 64-byte aligned", n)
		}
	}
}

func TestAlloc(t *testing.T) {
	for _, n := range []int{0, 1, 1000, HugeThreshold / 8, HugeThreshold/8 + 3} {
		w, r, err := Alloc(n)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if len(w) != n || n > 0 && uintptr(unsafe.Pointer(&w[0]))%Align != 0 {
			t.Fatalf("n=%d: len %d, misaligned", n, len(w))
		}
		if big := n*8 >= HugeThreshold; big != r.Mapped() && canMap {
			t.Errorf("n=%d: mapped %v", n, r.Mapped())
		}
		for i := range w {
			if w[i] != 0 {
				t.Fatalf("n=%d: word %d not zero", n, i)
			}
			w[i] = uint64(i)
		}
		if n > 0 && w[n-1] != uint64(n-1) {
			t.Fatal("write lost")
		}
		if err := r.Free(); err != nil {
			t.Fatal(err)
		}
		if err := r.Free(); err != nil {
			t.Fatal("second Free:", err)
		}
	}
}

// TestAllocTooLarge asks for sizes no machine or address space has: each
// is an error wrapping sift.ErrTooLarge, with no package prefix, never a
// crash (before, a refused mapping fell back to the Go heap, whose
// refusal ends the process).
func TestAllocTooLarge(t *testing.T) {
	sizes := []int{-1, math.MaxInt, math.MaxInt/8 + 1}
	if m := MachineMemory(); m != 0 && m/8+1 < math.MaxInt/8 {
		sizes = append(sizes, int(m/8+1)) // more than RAM and swap
	}
	for _, n := range sizes {
		w, r, err := Alloc(n)
		if err == nil {
			r.Free()
			t.Errorf("Alloc(%d): %d words, no error", n, len(w))
			continue
		}
		if !errors.Is(err, errs.TooLarge) || strings.HasPrefix(err.Error(), "sift: ") {
			t.Errorf("Alloc(%d): %v", n, err)
		}
	}
}

func TestMapFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	want := []byte("hello, mapped world")
	if err := os.WriteFile(p, want, 0o644); err != nil {
		t.Fatal(err)
	}
	b, r, err := MapFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(want) {
		t.Fatalf("got %q", b)
	}
	if err := r.Free(); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	if b, r, err := MapFile(empty); err != nil || len(b) != 0 || r.Mapped() {
		t.Fatalf("empty file: %v %d %v", err, len(b), r.Mapped())
	}
	if _, _, err := MapFile(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	_, _, err = MapFile(dir)
	var pe *fs.PathError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "not a regular file (a directory)") {
		t.Fatalf("directory: %v", err)
	}
	if runtime.GOOS != "windows" {
		if _, _, err := MapFile(os.DevNull); !errors.As(err, &pe) || !strings.Contains(err.Error(), "not a regular file (a device)") {
			t.Fatalf("%s: %v", os.DevNull, err)
		}
	}
}

// TestAllocWordsPanics: AllocWords, for benchmarks, panics with Alloc's
// error instead of returning it.
func TestAllocWordsPanics(t *testing.T) {
	w, r := AllocWords(HugeThreshold/8 + 1)
	if len(w) != HugeThreshold/8+1 {
		t.Fatal(len(w))
	}
	r.Free()
	defer func() {
		if err, ok := recover().(error); !ok || !errors.Is(err, errs.TooLarge) {
			t.Fatalf("recovered %v", err)
		}
	}()
	AllocWords(-1)
}

// TestSameVersionSize: a rewrite to another size that keeps the
// modification time (rsync -t, touch -r, a coarse-mtime file system) is
// another version.
func TestSameVersionSize(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, make([]byte, 200), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, a.ModTime(), a.ModTime()); err != nil {
		t.Fatal(err)
	}
	b, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if SameVersion(a, b) {
		t.Fatal("SameVersion: sizes 100 and 200 with one modification time reported as one version")
	}
	if !SameVersion(b, b) {
		t.Fatal("SameVersion: a file's own fstat is another version")
	}
}
