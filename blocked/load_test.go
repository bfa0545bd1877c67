package blocked_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
)

func ExampleLoad() {
	f, _ := blocked.New(10_000, 0.01, blocked.WithSeed(7))
	f.AddString("cached")
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "f.sift")
	out, _ := os.Create(path)
	f.WriteTo(out)
	out.Close()

	// Read the file into memory of our own: whatever happens to the file
	// now cannot reach the lookups.
	v, err := blocked.Load(path)
	if err != nil {
		panic(err)
	}
	defer v.Close()
	os.Truncate(path, 0) // harmless for a loaded View; a fault for a mapped one
	fmt.Println(v.ContainsString("cached"), v.ContainsString("other"), v.Mapped())
	// Output: true false false
}

// TestLoad: Load answers as the filter saved, from a copy that changes to
// the file cannot reach, and refuses what Open refuses.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []uint64{10, 10_000} {
		// A small filter, copied to the heap, and one of 5 MiB, copied to
		// an anonymous mapping (mem.HugeThreshold is 4 MiB).
		f, err := blocked.New(n, 0.01)
		if n > 10 {
			f, err = blocked.NewWithSize(5<<23, 7)
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			f.AddUint64(i)
		}
		b, _ := f.MarshalBinary()
		if n > 10 && len(b) < 4<<20 {
			t.Fatalf("the big filter has %d bytes, not above mem.HugeThreshold", len(b))
		}
		path := filepath.Join(dir, fmt.Sprint(n))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		v, err := blocked.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if v.Mapped() {
			t.Fatal("a loaded View reports Mapped")
		}
		for _, size := range []int64{0, 200, int64(len(b)) / 2} {
			if err := os.Truncate(path, size); err != nil {
				t.Fatal(err)
			}
			for i := range n {
				if !v.ContainsUint64(i) {
					t.Fatalf("n=%d: key %d absent after truncating the file to %d", n, i, size)
				}
			}
		}
		if err := v.Close(); err != nil {
			t.Fatal(err)
		}
		// A damaged or cut file is an error, as for Open.
		if err := os.WriteFile(path, b[:len(b)-1], 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := blocked.Load(path); !errors.Is(err, sift.ErrTruncated) {
			t.Fatalf("truncated file: %v", err)
		}
		b[len(b)-1] ^= 1
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := blocked.Load(path); !errors.Is(err, sift.ErrChecksum) {
			t.Fatalf("damaged file: %v", err)
		}
		if _, err := blocked.Load(path, blocked.WithoutChecksum()); err != nil {
			t.Fatalf("WithoutChecksum: %v", err)
		}
		if _, err := blocked.Load(path, blocked.WithoutChecksum(), blocked.WithMaxSize(8)); !errors.Is(err, sift.ErrTooLarge) {
			t.Fatalf("WithMaxSize: %v", err)
		}
	}
	if _, err := blocked.Load(dir); err == nil {
		t.Fatal("Load of a directory succeeded")
	}
	if _, err := blocked.Load(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}
