package sift_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/classic"
	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/sbbf"
)

// encoded is one filter of each kind, with what Inspect must report for it,
// taken from the filter's own accessors.
type encoded struct {
	name string
	data []byte
	want sift.Info // the kind-specific fields only
}

func encodings(t *testing.T) []encoded {
	t.Helper()
	must := func(b []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var out []encoded

	bf, err := blocked.New(1000, 0.01, blocked.WithSeed(7))
	if err != nil {
		t.Fatal(err)
	}
	for i := range uint64(500) {
		bf.AddUint64(i)
	}
	out = append(out, encoded{"blocked", must(bf.MarshalBinary()), sift.Info{Kind: sift.KindBlocked, Hash: sift.HashXXH3, Seed: 7, Blocks: bf.Blocks(), K: bf.K()}})

	cf, err := cuckoo.New(1000, cuckoo.WithSeed(8), cuckoo.WithFingerprintBits(8))
	if err != nil {
		t.Fatal(err)
	}
	for i := range uint64(600) {
		if err := cf.AddUint64(i); err != nil {
			t.Fatal(err)
		}
	}
	out = append(out, encoded{"cuckoo", must(cf.MarshalBinary()), sift.Info{Kind: sift.KindCuckoo, Hash: sift.HashXXH3, Seed: 8, Buckets: cf.Buckets(), FingerprintBits: 8, Count: cf.Count()}})

	sf, err := blocked.NewScalable(100, 0.01, blocked.WithSeed(9))
	if err != nil {
		t.Fatal(err)
	}
	for i := range uint64(350) {
		if err := sf.AddUint64(i); err != nil {
			t.Fatal(err)
		}
	}
	out = append(out, encoded{"scalable", must(sf.MarshalBinary()), sift.Info{Kind: sift.KindScalable, Hash: sift.HashXXH3, Seed: 9, Stages: uint64(sf.Stages()), Count: sf.Count()}})

	kf, err := classic.NewCounting(1000, 0.01, classic.WithSeed(10))
	if err != nil {
		t.Fatal(err)
	}
	kf.AddString("x")
	out = append(out, encoded{"counting", must(kf.MarshalBinary()), sift.Info{Kind: sift.KindCounting, Hash: sift.HashXXH3, Seed: 10, Counters: uint64(kf.Counters()), K: kf.NumHashFunctions()}})

	gf, err := classic.New(1000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	gf.PutString("x")
	out = append(out, encoded{"classic", must(gf.MarshalBinary()), sift.Info{Kind: sift.KindClassic, Hash: sift.HashMurmur3, Words: uint64(gf.BitSize() / 64), K: gf.NumHashFunctions()}})

	sb, err := sbbf.NewWithSize(1024)
	if err != nil {
		t.Fatal(err)
	}
	sb.AddString("x")
	out = append(out, encoded{"sbbf", must(sb.MarshalBinary()), sift.Info{Kind: sift.KindSplitBlock, Hash: sift.HashXXH64, Blocks: sb.Blocks(), K: 8}})
	return out
}

// withoutCommon returns the fields of i that encodings compares.
func withoutCommon(i sift.Info) sift.Info {
	return sift.Info{Kind: i.Kind, Hash: i.Hash, Seed: i.Seed, Blocks: i.Blocks, Buckets: i.Buckets, Counters: i.Counters,
		Words: i.Words, Stages: i.Stages, K: i.K, FingerprintBits: i.FingerprintBits, Count: i.Count}
}

// TestInspect checks, for every kind, that Inspect, InspectAt, InspectFile
// and Verify report what the filter itself reports, and the sizes and
// checksums of its encoding.
func TestInspect(t *testing.T) {
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	dir := t.TempDir()
	for _, e := range encodings(t) {
		t.Run(e.name, func(t *testing.T) {
			b := e.data
			path := filepath.Join(dir, e.name+".sift")
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			calls := map[string]func() (sift.Info, error){
				"Inspect":        func() (sift.Info, error) { return sift.Inspect(b) },
				"Inspect header": func() (sift.Info, error) { return sift.Inspect(b[:128]) },
				"InspectAt": func() (sift.Info, error) {
					return sift.InspectAt(bytes.NewReader(append([]byte("0123456789"), b...)), 10)
				},
				"InspectFile": func() (sift.Info, error) { return sift.InspectFile(path) },
				"Verify":      func() (sift.Info, error) { return sift.Verify(b) },
			}
			for name, call := range calls {
				info, err := call()
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if got := withoutCommon(info); got != e.want {
					t.Errorf("%s:\n got %+v\nwant %+v", name, got, e.want)
				}
				if info.Version != 1 || info.Size != uint64(len(b)) || info.PayloadOffset != 128 || info.PayloadSize != uint64(len(b)-128) {
					t.Errorf("%s: version %d, size %d, payload %d at %d; the encoding has %d bytes", name, info.Version, info.Size, info.PayloadSize, info.PayloadOffset, len(b))
				}
				if info.HeaderCRC != crc32.Checksum(b[:124], castagnoli) || info.PayloadCRC != crc32.Checksum(b[128:], castagnoli) {
					t.Errorf("%s: checksums %#x %#x", name, info.HeaderCRC, info.PayloadCRC)
				}
				if info.Kind.String() != e.name {
					t.Errorf("%s: kind %q", name, info.Kind)
				}
			}
		})
	}
}

// TestInspectErrors checks what Inspect and Verify refuse, and with which
// sentinel.
func TestInspectErrors(t *testing.T) {
	good := encodings(t)[0].data
	flip := func(i int) []byte {
		b := bytes.Clone(good)
		b[i] ^= 1
		return b
	}
	cases := []struct {
		name          string
		in            []byte
		inspect, verf error // nil: accepted
	}{
		{"empty", nil, sift.ErrTruncated, sift.ErrTruncated},
		{"short header", good[:100], sift.ErrTruncated, sift.ErrTruncated},
		{"not sift", []byte("GIF89a, no filter here"), sift.ErrMagic, sift.ErrMagic},
		{"header bit", flip(20), sift.ErrChecksum, sift.ErrChecksum},
		{"version", func() []byte { b := bytes.Clone(good); b[8] = 3; return b }(), sift.ErrVersion, sift.ErrVersion},
		{"payload bit", flip(200), nil, sift.ErrChecksum},
		{"payload cut", good[:len(good)-1], nil, sift.ErrTruncated},
		{"header only", good[:128], nil, sift.ErrTruncated},
		{"trailing byte", append(bytes.Clone(good), 0), nil, sift.ErrCorrupt},
		{"non-zero padding", paddedBadly(good), nil, sift.ErrCorrupt},
		{"three bytes of text", []byte("abc"), sift.ErrMagic, sift.ErrMagic},
		{"the magic's first 3 bytes", good[:3], sift.ErrTruncated, sift.ErrTruncated},
		// Kinds 7 and 8, retired window layouts: ErrKind, as documented.
		{"retired kind 7", resealed(good, func(b []byte) { b[10] = 7 }), sift.ErrKind, sift.ErrKind},
		{"retired kind 8", resealed(good, func(b []byte) { b[10] = 8 }), sift.ErrKind, sift.ErrKind},
	}
	for _, c := range cases {
		_, err := sift.Inspect(c.in)
		if c.inspect == nil && err != nil || c.inspect != nil && !errors.Is(err, c.inspect) {
			t.Errorf("%s: Inspect: %v, want %v", c.name, err, c.inspect)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "sift: ") {
			t.Errorf("%s: Inspect: %q lacks the package prefix", c.name, err)
		}
		_, err = sift.InspectAt(bytes.NewReader(c.in), 0)
		if c.inspect == nil && err != nil || c.inspect != nil && !errors.Is(err, c.inspect) {
			t.Errorf("%s: InspectAt: %v, want %v", c.name, err, c.inspect)
		}
		info, err := sift.Verify(c.in)
		if c.verf == nil && err != nil || c.verf != nil && !errors.Is(err, c.verf) {
			t.Errorf("%s: Verify: %v, want %v", c.name, err, c.verf)
		}
		if c.inspect == nil && info.Kind != sift.KindBlocked {
			t.Errorf("%s: Verify gave no Info with its error (%v), although the header is sound: %+v", c.name, err, info)
		}
	}
	if _, err := sift.InspectFile(filepath.Join(t.TempDir(), "absent")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("InspectFile of a missing file: %v", err)
	}
}

// resealed is a copy of the encoding b with edit applied to its header and
// the header's checksum recomputed.
func resealed(b []byte, edit func([]byte)) []byte {
	b = bytes.Clone(b)
	edit(b)
	binary.LittleEndian.PutUint32(b[124:], format.Checksum(b[:124]))
	return b
}

// headerOnly is an io.ReaderAt over b that fails the test on any read
// beyond the header.
type headerOnly struct {
	t *testing.T
	b []byte
}

func (h headerOnly) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > 128 {
		h.t.Errorf("ReadAt(%d bytes at %d) reads past the header", len(p), off)
	}
	if off >= int64(len(h.b)) {
		return 0, io.EOF
	}
	n := copy(p, h.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestInspectReadsOnlyTheHeader checks that InspectAt reads the header's
// 128 bytes and nothing more, and that Inspect allocates nothing: a header
// that declares a terabyte costs no memory.
func TestInspectReadsOnlyTheHeader(t *testing.T) {
	b := encodings(t)[0].data
	if _, err := sift.InspectAt(headerOnly{t, b}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := sift.InspectAt(headerOnly{t, b[:50]}, 0); !errors.Is(err, sift.ErrTruncated) {
		t.Errorf("short input: %v", err)
	}
	if n := testing.AllocsPerRun(100, func() {
		if _, err := sift.Inspect(b); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Inspect allocates %v times", n)
	}
	// A valid header declaring 2^40 payload bytes, with no payload.
	h := format.Header{Kind: format.KindBlocked, Hash: format.HashXXH3}
	hdr := format.AppendHeader(nil, h, nil)
	big := bytes.Clone(hdr)
	copy(big[32:40], []byte{0, 0, 0, 0, 0, 1, 0, 0}) // payload length 2^40
	crc := crc32.Checksum(big[:124], crc32.MakeTable(crc32.Castagnoli))
	big[124], big[125], big[126], big[127] = byte(crc), byte(crc>>8), byte(crc>>16), byte(crc>>24)
	info, err := sift.Inspect(big)
	if err != nil || info.PayloadSize != 1<<40 {
		t.Fatalf("Inspect of a header declaring 1 TiB: %+v, %v", info, err)
	}
	// Verify checks what a decoder would: a 32-bit platform cannot load
	// 1 TiB (ErrTooLarge), a 64-bit one finds the payload missing.
	want := sift.ErrTruncated
	if math.MaxInt < 1<<40 {
		want = sift.ErrTooLarge
	}
	if info, err := sift.Verify(big); !errors.Is(err, want) || info.PayloadSize != 1<<40 {
		t.Errorf("Verify of a header declaring 1 TiB over no payload: %+v, %v, want %v", info, err, want)
	}
}

// TestKindNames checks that Kind and Hash name every value the file format
// defines: a kind added to internal/format needs its constant here.
func TestKindNames(t *testing.T) {
	kinds := []sift.Kind{sift.KindBlocked, sift.KindCuckoo, sift.KindScalable, sift.KindCounting, sift.KindClassic, sift.KindSplitBlock, sift.KindWindow}
	known := 0
	for v := range 256 {
		name := format.Kind(v).String()
		if !strings.HasPrefix(name, "kind(") {
			known++
		}
		if got := sift.Kind(v).String(); got != name {
			t.Errorf("Kind(%d) = %q, the format says %q", v, got, name)
		}
	}
	// Kinds 7 and 8 are retired (unreleased window layouts): named,
	// refused, and without a constant here.
	if known != len(kinds)+2 {
		t.Errorf("the format defines %d kinds, package sift has constants for %d (and kinds 7 and 8 are retired)", known, len(kinds))
	}
	for i, k := range kinds {
		if want := i + 1 + i/6*2; int(k) != want {
			t.Errorf("kind %v = %d, want %d", k, k, want)
		}
	}
	if sift.HashXXH3.String() != "xxh3-64" || sift.HashMurmur3.String() != "murmur3_x64_128" || sift.HashXXH64.String() != "xxh64" {
		t.Errorf("hash names %q %q", sift.HashXXH3, sift.HashMurmur3)
	}
}

// TestReexported checks that every filter package's sentinels are sift's
// values themselves, so errors.Is matches either name.
func TestReexported(t *testing.T) {
	pairs := []struct {
		name      string
		sift, got []error
	}{
		{"blocked", []error{sift.ErrMagic, sift.ErrVersion, sift.ErrKind, sift.ErrTruncated, sift.ErrChecksum, sift.ErrCorrupt, sift.ErrTooLarge, sift.ErrClosed},
			[]error{blocked.ErrMagic, blocked.ErrVersion, blocked.ErrKind, blocked.ErrTruncated, blocked.ErrChecksum, blocked.ErrCorrupt, blocked.ErrTooLarge, blocked.ErrClosed}},
		{"cuckoo", []error{sift.ErrMagic, sift.ErrVersion, sift.ErrKind, sift.ErrTruncated, sift.ErrChecksum, sift.ErrCorrupt, sift.ErrTooLarge, sift.ErrClosed},
			[]error{cuckoo.ErrMagic, cuckoo.ErrVersion, cuckoo.ErrKind, cuckoo.ErrTruncated, cuckoo.ErrChecksum, cuckoo.ErrCorrupt, cuckoo.ErrTooLarge, cuckoo.ErrClosed}},
		{"classic", []error{sift.ErrMagic, sift.ErrVersion, sift.ErrKind, sift.ErrTruncated, sift.ErrChecksum, sift.ErrCorrupt, sift.ErrTooLarge, sift.ErrClosed},
			[]error{classic.ErrMagic, classic.ErrVersion, classic.ErrKind, classic.ErrTruncated, classic.ErrChecksum, classic.ErrCorrupt, classic.ErrTooLarge, classic.ErrClosed}},
	}
	for _, p := range pairs {
		for i := range p.sift {
			if p.got[i] != p.sift[i] {
				t.Errorf("%s: %v is not sift's %v", p.name, p.got[i], p.sift[i])
			}
		}
	}
}

// TestInspectWindowBlocks: Info.Blocks of a window counts its 64-byte
// lines, as Window.Blocks does (it gave the groups, G/4 times fewer above
// G = 4).
func TestInspectWindowBlocks(t *testing.T) {
	for _, g := range []int{2, 4, 8, 64} {
		w, err := blocked.NewWindow(1000, 0.01, time.Hour, blocked.WithGenerations(g))
		if err != nil {
			t.Fatal(err)
		}
		b, err := w.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		info, err := sift.Inspect(b)
		if err != nil || info.Blocks != w.Blocks() || info.K != w.K() {
			t.Errorf("G=%d: Inspect: %d blocks k=%d (%v), the window: %d blocks k=%d", g, info.Blocks, info.K, err, w.Blocks(), w.K())
		}
		w.Close()
	}
}

// paddedBadly returns good (one encoding, payload at 128) with its payload
// moved to offset 192 behind 64 bytes of padding, one of them not zero, and
// the header's offset and CRC-32C updated to match.
func paddedBadly(good []byte) []byte {
	b := append(bytes.Clone(good[:128]), make([]byte, 64)...)
	b = append(b, good[128:]...)
	b[150] = 1
	binary.LittleEndian.PutUint64(b[24:], 192)
	binary.LittleEndian.PutUint32(b[124:], format.Checksum(b[:124]))
	return b
}

// TestInspectFileErrors: InspectFile's errors for a path that is no
// regular file are *sift.Error values, as Open's for the same path (they
// were the bare *fs.PathError), and still wrap it.
func TestInspectFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{filepath.Join(dir, "missing.sift"), dir} {
		_, err := sift.InspectFile(path)
		var se *sift.Error
		var pe *fs.PathError
		if !errors.As(err, &se) || !errors.As(err, &pe) {
			t.Errorf("InspectFile(%s): %v (%T), want a *sift.Error wrapping *fs.PathError", path, err, err)
		}
		if _, oerr := sift.Open(path); err == nil || oerr == nil || err.Error() != oerr.Error() {
			t.Errorf("InspectFile(%s): %v; Open: %v; want the same error", path, err, oerr)
		}
	}
	if _, err := sift.InspectFile(filepath.Join(dir, "missing.sift")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}
