package sbbf

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/mem"
)

// goldenFilter is the split-block filter of the testdata files: the
// INT64 values 0..999 and the strings key-0..key-999 in 64 blocks.
func goldenFilter() *Filter {
	f, _ := NewWithSize(64 * 32)
	for i := range 1000 {
		f.AddInt64(int64(i))
		f.AddString("key-" + itoa(uint64(i)))
	}
	return f
}

func sameBits(t *testing.T, what string, a, b interface{ AppendBitset([]byte) []byte }) {
	t.Helper()
	if !bytes.Equal(a.AppendBitset(nil), b.AppendBitset(nil)) {
		t.Fatalf("%s: bitsets differ", what)
	}
}

// TestGolden locks the file layout (sift's format and the
// Parquet bytes) with a hash, and checks the testdata files, written on
// amd64, on every architecture (arm64 and big-endian s390x under qemu in
// CI). Regenerate with SIFT_UPDATE_TESTDATA=1.
func TestGolden(t *testing.T) {
	f := goldenFilter()
	defer f.Close()
	enc, _ := f.MarshalBinary()
	pq, _ := f.MarshalParquet()
	sum := sha256.Sum256(append(bytes.Clone(enc), pq...))
	const want = "b8737ec59abc40f4739705283e906763184b452e1ecf123c98c8fd2682ac4d85"
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("layout changed: SHA-256 %s, want %s", got, want)
	}
	if enc[10] != byte(format.KindSplitBlock) || enc[11] != byte(format.HashXXH64) || binary.LittleEndian.Uint64(enc[48:]) != 64 ||
		!bytes.Equal(enc[format.HeaderSize:], pq[len(pq)-64*32:]) {
		t.Fatal("header fields or payload moved")
	}
	spath := filepath.Join("testdata", "sbbf-v1.sift")
	ppath := filepath.Join("testdata", "sbbf.bloom")
	if os.Getenv("SIFT_UPDATE_TESTDATA") != "" {
		os.WriteFile(spath, enc, 0o644)
		os.WriteFile(ppath, pq, 0o644)
	}
	sdata, err := os.ReadFile(spath)
	if err != nil {
		t.Fatal(err)
	}
	pdata, err := os.ReadFile(ppath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sdata, enc) || !bytes.Equal(pdata, pq) {
		t.Fatal("this platform encodes the golden filter differently from the testdata")
	}
	v, err := Open(spath)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	p, _, err := ParseParquet(pdata)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		s := "key-" + itoa(uint64(i))
		if !v.ContainsInt64(int64(i)) || !v.ContainsString(s) || !p.ContainsInt64(int64(i)) || !p.ContainsString(s) {
			t.Fatalf("value %d missing from a decoded testdata filter", i)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, numBytes := range []uint64{32, 3 * 32, 1 << 16, 8 << 20} {
		f := mustNew(t, numBytes)
		hs := hashes(int(numBytes/16), numBytes)
		f.AddHashes(hs)
		enc, _ := f.MarshalBinary()
		var buf bytes.Buffer
		if n, err := f.WriteTo(&buf); err != nil || n != int64(len(enc)) || !bytes.Equal(buf.Bytes(), enc) {
			t.Fatalf("WriteTo differs from MarshalBinary: %v", err)
		}
		var u Filter
		if err := u.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		sameBits(t, "UnmarshalBinary", f, &u)
		var r Filter
		tail := append(bytes.Clone(enc), 1, 2, 3)
		if n, err := r.ReadFrom(bytes.NewReader(tail)); err != nil || n != int64(len(enc)) {
			t.Fatalf("ReadFrom: %d, %v", n, err)
		}
		sameBits(t, "ReadFrom", f, &r)
		if err := u.UnmarshalBinary(tail); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("UnmarshalBinary with trailing bytes: %v", err)
		}
		path := filepath.Join(dir, "f.sift")
		writeFile(t, path, f)
		v, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if isUnix && littleEndian() && !v.Mapped() {
			t.Fatal("Open did not map the file")
		}
		sameBits(t, "Open", f, v)
		out := make([]bool, len(hs))
		if n := v.ContainsHashes(hs, out); n != len(hs) {
			t.Fatalf("View lost keys: %d of %d", n, len(hs))
		}
		for _, h := range hashes(500, 7) {
			if v.ContainsHash(h) != f.ContainsHash(h) {
				t.Fatal("View answers differently")
			}
		}
		if v.EstimatedCount() != f.EstimatedCount() || v.FPP() != f.FPP() || v.Blocks() != f.Blocks() || v.NumBytes() != f.NumBytes() {
			t.Fatal("View statistics differ")
		}
		venc, _ := v.MarshalBinary()
		var vbuf bytes.Buffer
		v.WriteTo(&vbuf)
		if !bytes.Equal(venc, enc) || !bytes.Equal(vbuf.Bytes(), enc) {
			t.Fatal("View re-encodes differently")
		}
		c := v.Clone()
		c.AddString("new")
		if !c.ContainsString("new") {
			t.Fatal("clone of a View is not writable")
		}
		for _, x := range []interface{ Close() error }{c, v, &u, &r} {
			if err := x.Close(); err != nil {
				t.Fatal(err)
			}
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Fatal("View query after Close did not panic")
				}
			}()
			v.ContainsHash(1)
		}()
	}
}

// blockedTestdata is a blocked filter's file, package blocked's golden
// testdata: another kind of filter for the decoders to refuse.
var blockedTestdata = filepath.Join("..", "blocked", "testdata", "blocked-v1.sift")

func TestDecodeErrors(t *testing.T) {
	f := mustNew(t, 4*32)
	f.AddHashes(hashes(20, 1))
	valid, _ := f.MarshalBinary()
	payload := valid[format.HeaderSize:]
	craftSplit := func(edit func(h *format.Header)) []byte {
		h := fileHeader(4)
		edit(&h)
		return format.Encode(h, payload)
	}
	blockedFile, err := os.ReadFile(blockedTestdata)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"blocked filter", blockedFile, ErrKind},
		{"xxh3 hash", craftSplit(func(h *format.Header) { h.Hash = format.HashXXH3 }), ErrCorrupt},
		{"seed", craftSplit(func(h *format.Header) { h.Seed = 1 }), ErrCorrupt},
		{"0 blocks", craftSplit(func(h *format.Header) { h.Params[0] = 0 }), ErrCorrupt},
		{"5 blocks", craftSplit(func(h *format.Header) { h.Params[0] = 5 }), ErrCorrupt},
		{"2^31 blocks", craftSplit(func(h *format.Header) { h.Params[0] = 1 << 31 }), ErrCorrupt},
		{"param 1", craftSplit(func(h *format.Header) { h.Params[1] = 1 }), ErrCorrupt},
		{"param 7", craftSplit(func(h *format.Header) { h.Params[7] = 8 }), ErrCorrupt},
		{"truncated", valid[:len(valid)-1], ErrTruncated},
		{"payload flip", func() []byte { b := bytes.Clone(valid); b[len(b)-1] ^= 1; return b }(), ErrChecksum},
		{"trailing", append(bytes.Clone(valid), 0), ErrCorrupt},
	}
	for _, c := range cases {
		if err := (&Filter{}).UnmarshalBinary(c.data); !errors.Is(err, c.want) {
			t.Errorf("%s: UnmarshalBinary: %v, want %v", c.name, err, c.want)
		}
		if _, err := FromBytes(c.data); !errors.Is(err, c.want) {
			t.Errorf("%s: FromBytes: %v, want %v", c.name, err, c.want)
		}
		if c.name == "trailing" {
			continue // ReadFrom reads one filter and stops
		}
		if _, err := (&Filter{}).ReadFrom(bytes.NewReader(c.data)); !errors.Is(err, c.want) {
			t.Errorf("%s: ReadFrom: %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := FromBytes(valid, WithMaxSize(64)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("WithMaxSize: %v", err)
	}
	bad := bytes.Clone(valid)
	bad[len(bad)-1] ^= 1
	if v, err := FromBytes(bad, WithoutChecksum()); err != nil {
		t.Errorf("WithoutChecksum: %v", err)
	} else {
		v.Close()
	}
	if _, err := Open(blockedTestdata); !errors.Is(err, ErrKind) {
		t.Errorf("Open of a blocked file: %v", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open of a missing file: %v", err)
	}
}

// TestFromBytesAlignment: a 32-byte-aligned payload is used in
// place on little-endian machines, anything else copied.
func TestFromBytesAlignment(t *testing.T) {
	f := mustNew(t, 10*32)
	f.AddHashes(hashes(50, 1))
	enc, _ := f.MarshalBinary()
	buf := mem.AlignedBytes(len(enc) + 64)
	for _, off := range []int{0, 1, 4, 32} {
		in := buf[off : off+len(enc)]
		copy(in, enc)
		v, err := FromBytes(in)
		if err != nil {
			t.Fatal(err)
		}
		inPlace := unsafe.Pointer(unsafe.SliceData(v.blocks)) == unsafe.Pointer(&in[format.HeaderSize])
		if inPlace != (off%32 == 0 && littleEndian()) {
			t.Fatalf("offset %d: in place = %v", off, inPlace)
		}
		sameBits(t, "FromBytes", f, v)
		v.Close()
	}
}

// TestAppendBinary checks that AppendBinary appends exactly MarshalBinary's
// bytes for Filter and View, and leaves b alone for a closed or zero one.
// (Moved from package blocked's TestAppendBinary.)
func TestAppendBinary(t *testing.T) {
	prefix := []byte("prefix")
	f := mustNew(t, 4096)
	f.AddString("x")
	enc, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	v, err := FromBytes(enc)
	if err != nil {
		t.Fatal(err)
	}
	type appender interface {
		AppendBinary([]byte) ([]byte, error)
		MarshalBinary() ([]byte, error)
	}
	for what, a := range map[string]appender{"Filter": f, "View": v} {
		want, err := a.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.AppendBinary(bytes.Clone(prefix))
		if err != nil || !bytes.Equal(got, append(bytes.Clone(prefix), want...)) {
			t.Errorf("%s: AppendBinary differs from MarshalBinary (%v)", what, err)
		}
	}
	for what, a := range map[string]appender{"Filter": &Filter{}, "View": &View{}} {
		got, err := a.AppendBinary(prefix)
		if !errors.Is(err, ErrClosed) || !bytes.Equal(got, prefix) {
			t.Errorf("zero %s: %q, %v", what, got, err)
		}
	}
}

// TestFromBitsetRefusesSiftFile: a whole sift file passed as a raw Parquet
// bitset is refused (its header would have been read as filter bits), and
// FromBytes reads it.
func TestFromBitsetRefusesSiftFile(t *testing.T) {
	f, err := NewWithSize(32 * 64)
	if err != nil {
		t.Fatal(err)
	}
	f.AddString("x")
	enc, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FromBitset(enc); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "sift file") {
		t.Errorf("FromBitset of a sift file: %v, want ErrCorrupt naming a sift file", err)
	}
	v, err := FromBytes(enc)
	if err != nil || !v.ContainsString("x") {
		t.Errorf("FromBytes: %v", err)
	}
}

// TestDecodeIntoKeepsMaxSize: a Filter made with WithMaxSize applies the
// bound to what UnmarshalBinary, ReadFrom and UnmarshalParquet decode into
// it, and ReadFilter takes it as an option, as the other kinds' decoders
// do; the filter is unchanged by a refusal. (The receivers decoded any
// size the machine could hold: a caller streaming untrusted sift-format
// files had no way to bound them.)
func TestDecodeIntoKeepsMaxSize(t *testing.T) {
	big, err := NewWithSize(8192)
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := big.MarshalBinary()
	pq, _ := big.MarshalParquet()
	small, _ := NewWithSize(1024)
	smallEnc, _ := small.MarshalBinary()
	for name, decode := range map[string]func(f *Filter, b []byte, p []byte) error{
		"UnmarshalBinary":  func(f *Filter, b, _ []byte) error { return f.UnmarshalBinary(b) },
		"ReadFrom":         func(f *Filter, b, _ []byte) error { _, err := f.ReadFrom(bytes.NewReader(b)); return err },
		"UnmarshalParquet": func(f *Filter, _, p []byte) error { return f.UnmarshalParquet(p) },
	} {
		f, err := NewWithSize(64, WithMaxSize(4096))
		if err != nil {
			t.Fatal(err)
		}
		f.AddString("kept")
		if err := decode(f, enc, pq); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s of 8 KiB into a filter bounded at 4 KiB: %v, want ErrTooLarge", name, err)
		}
		if !f.ContainsString("kept") || f.NumBytes() != 64 {
			t.Errorf("%s: the refused decode changed the filter", name)
		}
		if name != "UnmarshalParquet" {
			if err := decode(f, smallEnc, nil); err != nil {
				t.Errorf("%s of 1 KiB: %v", name, err)
			}
			if err := decode(f, enc, pq); !errors.Is(err, ErrTooLarge) {
				t.Errorf("%s after a decode: %v, want the bound kept", name, err)
			}
		}
		if c := f.Clone(); !errors.Is(decode(c, enc, pq), ErrTooLarge) {
			t.Errorf("%s into a clone: the bound was not kept", name)
		}
	}
	if _, err := ReadFilter(bytes.NewReader(enc), WithMaxSize(4096)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFilter with WithMaxSize(4096) of 8 KiB: %v, want ErrTooLarge", err)
	}
	g, err := ReadFilter(bytes.NewReader(enc))
	if err != nil || g.NumBytes() != 8192 {
		t.Fatalf("ReadFilter without a bound: %v", err)
	}
	if err := g.UnmarshalBinary(enc); err != nil {
		t.Errorf("a filter read without a bound refused a decode: %v", err)
	}
}
