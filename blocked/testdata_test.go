package blocked

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The files in testdata were written on amd64 by goldenFilter and
// goldenScalable (regenerate with SIFT_UPDATE_TESTDATA=1). Every
// architecture must read them and find the keys: this is the cross-platform
// check that the golden hash complements (it runs under qemu for arm64 and
// big-endian s390x).

func goldenKey(i int) []byte {
	return binary.LittleEndian.AppendUint32([]byte("key-"), uint32(i))
}

func goldenFilter() *Filter {
	f, _ := NewWithSize(64*512, 7, WithSeed(0x5eed))
	for i := range 1000 {
		f.Add(goldenKey(i))
	}
	return f
}

func goldenScalable() *Scalable {
	s, _ := NewScalable(100, 0.01, WithSeed(0x5eed), WithGrowth(3))
	for i := range 1000 {
		s.Add(goldenKey(i))
	}
	return s
}

func TestTestdata(t *testing.T) {
	f := goldenFilter()
	defer f.Close()
	s := goldenScalable()
	defer s.Close()
	fb, _ := f.MarshalBinary()
	sb, _ := s.MarshalBinary()
	fpath := filepath.Join("testdata", "blocked-v1.sift")
	spath := filepath.Join("testdata", "scalable-v1.sift")
	if os.Getenv("SIFT_UPDATE_TESTDATA") != "" {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(fpath, fb, 0o644)
		os.WriteFile(spath, sb, 0o644)
	}
	fdata, err := os.ReadFile(fpath)
	if err != nil {
		t.Fatal(err)
	}
	sdata, err := os.ReadFile(spath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fdata, fb) || !bytes.Equal(sdata, sb) {
		t.Fatal("this platform encodes the golden filters differently from the testdata")
	}
	var g Filter
	if err := g.UnmarshalBinary(fdata); err != nil {
		t.Fatal(err)
	}
	v, err := Open(fpath)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var d Scalable
	if err := d.UnmarshalBinary(sdata); err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		k := goldenKey(i)
		if !g.Contains(k) || !v.Contains(k) || !d.Contains(k) {
			t.Fatalf("key %d missing from a decoded testdata filter", i)
		}
	}
	if d.Stages() != s.Stages() || d.Count() != s.Count() {
		t.Fatal("scalable testdata geometry differs")
	}
}

// TestTestdataOtherKind: Open refuses a sift file of another kind (package
// sbbf's golden split-block filter) with ErrKind.
func TestTestdataOtherKind(t *testing.T) {
	if _, err := Open(filepath.Join("..", "sbbf", "testdata", "sbbf-v1.sift")); !errors.Is(err, ErrKind) {
		t.Fatalf("Open of a split-block file: %v, want ErrKind", err)
	}
}
