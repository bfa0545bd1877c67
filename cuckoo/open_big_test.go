package cuckoo

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestOpenLarge times Open of a 1 GiB filter file: with the checksum it
// costs one CRC-32C pass; WithoutChecksum, nothing proportional to the
// size. It needs 1 GiB of disk and memory, so it runs only when
// SIFT_BIG_TESTS is set.
func TestOpenLarge(t *testing.T) {
	if os.Getenv("SIFT_BIG_TESTS") == "" {
		t.Skip("set SIFT_BIG_TESTS=1 to time Open of a 1 GiB filter")
	}
	f, err := New(1 << 27 * 38 / 10) // 2^27 buckets of 8 bytes: 1 GiB
	if err != nil {
		t.Fatal(err)
	}
	for i := range uint64(1000000) {
		_ = f.AddUint64(i)
	}
	path := filepath.Join(t.TempDir(), "big.sift")
	file, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteTo(file); err != nil {
		t.Fatal(err)
	}
	file.Close()
	t.Logf("file: %d MiB", f.SizeBytes()>>20)
	f.Close()
	for _, skip := range []bool{false, true, false} {
		var opts []Option
		if skip {
			opts = append(opts, WithoutChecksum())
		}
		start := time.Now()
		g, err := Open(path, opts...)
		if err != nil {
			t.Fatal(err)
		}
		d := time.Since(start)
		if !g.ContainsUint64(7) {
			t.Fatal("key lost")
		}
		t.Logf("Open(WithoutChecksum: %v): %v", skip, d)
		g.Close()
	}
}
