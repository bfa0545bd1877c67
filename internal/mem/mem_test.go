package mem

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"
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

func TestAllocWords(t *testing.T) {
	for _, n := range []int{1, 1000, HugeThreshold / 8, HugeThreshold/8 + 3} {
		w, r := AllocWords(n)
		if len(w) != n || uintptr(unsafe.Pointer(&w[0]))%Align != 0 {
			t.Fatalf("n=%d: len %d, misaligned", n, len(w))
		}
		for i := range w {
			if w[i] != 0 {
				t.Fatalf("n=%d: word %d not zero", n, i)
			}
			w[i] = uint64(i)
		}
		if w[n-1] != uint64(n-1) {
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
	if _, _, err := MapFile(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("missing file: no error")
	}
	if _, _, err := MapFile(dir); err == nil {
		t.Fatal("directory: no error")
	}
}
