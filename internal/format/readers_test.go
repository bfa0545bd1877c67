package format

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sift-go/sift/internal/errs"
)

// TestReaders: a package names its own calls bare and another's
// qualified, joined as a sentence; a kind no package reads has none.
func TestReaders(t *testing.T) {
	for _, c := range []struct {
		k    Kind
		pkg  string
		want string
	}{
		{KindWindow, "blocked", "ReadWindow or ReadConcurrentWindow"},
		{KindWindow, "cuckoo", "blocked.ReadWindow or blocked.ReadConcurrentWindow"},
		{KindBlocked, "sbbf", "blocked.ReadFilter, blocked.ReadConcurrent or blocked.Open"},
		{KindCounting, "sift", "classic.ReadCounting"},
		{KindClassic, "classic", "ReadFilter"},
		{0, "blocked", ""},
		{MaxKind + 1, "blocked", ""},
		{255, "sift", ""},
	} {
		if got := Readers(c.k, c.pkg); got != c.want {
			t.Errorf("Readers(%d, %q) = %q, want %q", c.k, c.pkg, got, c.want)
		}
	}
}

// TestErr: Err and LoadFile give a package's decoding errors its prefix,
// keep what they match, and name the calls that read a file of another
// kind.
func TestErr(t *testing.T) {
	window := Encode(Header{Kind: KindWindow, Hash: HashXXH3}, nil)
	h, _, _, err := Decode(window, KindCuckoo, Options{})
	got := Err("cuckoo", err, h)
	if !errors.Is(got, errs.Kind) || !strings.HasPrefix(got.Error(), "cuckoo: ") || !strings.HasSuffix(got.Error(), ": read it with blocked.ReadWindow or blocked.ReadConcurrentWindow") {
		t.Errorf("a window file decoded as cuckoo: %v", got)
	}
	h, _, _, err = Decode(window[:HeaderSize-1], KindCuckoo, Options{})
	got = Err("cuckoo", err, h)
	if !errors.Is(got, errs.Truncated) || !strings.HasPrefix(got.Error(), "cuckoo: ") || strings.Contains(got.Error(), "read it with") {
		t.Errorf("a truncated header: %v", got)
	}
	path := filepath.Join(t.TempDir(), "w.sift")
	if err := os.WriteFile(path, window, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadFile("sbbf", path, KindSplitBlock, 0); !errors.Is(err, errs.Kind) || !strings.HasPrefix(err.Error(), "sbbf: ") || !strings.HasSuffix(err.Error(), ": read it with blocked.ReadWindow or blocked.ReadConcurrentWindow") {
		t.Errorf("LoadFile of a window file as sbbf: %v", err)
	}
	data, region, err := LoadFile("blocked", path, KindWindow, 0)
	if err != nil || len(data) != len(window) {
		t.Errorf("LoadFile of a window file as a window: %d bytes, %v", len(data), err)
	}
	_ = region.Free()
}
