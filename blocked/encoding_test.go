package blocked

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/mem"
)

func sameFilter(t *testing.T, what string, a, b *core) {
	t.Helper()
	if len(a.words) != len(b.words) || a.t.K != b.t.K || a.seed != b.seed {
		t.Fatalf("%s: geometry %d/%d/%#x vs %d/%d/%#x", what, len(a.words), a.t.K, a.seed, len(b.words), b.t.K, b.seed)
	}
	for i := range a.words {
		if a.words[i] != b.words[i] {
			t.Fatalf("%s: word %d differs", what, i)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		bits uint64
		k    int
		keys int
	}{{512, 1, 0}, {512, 16, 3}, {5000, 7, 0}, {5000, 7, 400}, {1 << 20, 9, 50_000}, {1 << 16, 8, 1 << 20}, {8 * mem.HugeThreshold, 8, 10_000}} {
		f := mustNewSize(t, tc.bits, tc.k, WithSeed(uint64(tc.keys)))
		f.AddHashes(hashes(tc.keys, 1))
		enc, err := f.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if len(enc) != format.HeaderSize+int(f.Blocks())*64 {
			t.Fatalf("encoding has %d bytes", len(enc))
		}
		var buf bytes.Buffer
		if n, err := f.WriteTo(&buf); err != nil || n != int64(len(enc)) || !bytes.Equal(buf.Bytes(), enc) {
			t.Fatalf("WriteTo differs from MarshalBinary (%d, %v)", n, err)
		}
		g := &Filter{}
		if err := g.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		sameFilter(t, "UnmarshalBinary", &f.core, &g.core)
		h := mustNewSize(t, 512, 2) // ReadFrom replaces an existing filter
		buf.WriteString("trailing")
		if n, err := h.ReadFrom(&buf); err != nil || n != int64(len(enc)) {
			t.Fatalf("ReadFrom: %d, %v", n, err)
		}
		if buf.String() != "trailing" {
			t.Fatal("ReadFrom read past the filter")
		}
		sameFilter(t, "ReadFrom", &f.core, &h.core)
		if !aligned(g.words) || !aligned(h.words) {
			t.Fatal("decoded words not aligned")
		}
		v, err := FromBytes(enc)
		if err != nil {
			t.Fatal(err)
		}
		sameFilter(t, "FromBytes", &f.core, &v.core)
		c := &Concurrent{}
		if err := c.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		sameFilter(t, "Concurrent", &f.core, &c.core)
		cenc, _ := c.MarshalBinary()
		if !bytes.Equal(cenc, enc) {
			t.Fatal("Concurrent encodes differently")
		}
		g.Close()
		h.Close()
		v.Close()
		c.Close()
	}
}

// TestGolden locks the file layout and the probe design: the SHA-256 of a
// filter built from fixed keys. Any change to the hash, the block or bit
// selection, the salts or the format changes it.
func TestGolden(t *testing.T) {
	f := mustNewSize(t, 64*512, 7, WithSeed(0x5eed))
	for i := range 1000 {
		f.Add([]byte("key-" + string(rune('a'+i%26)) + string(binary.LittleEndian.AppendUint32(nil, uint32(i)))))
		f.AddUint64(uint64(i) * 0x9e3779b97f4a7c15)
	}
	enc, _ := f.MarshalBinary()
	sum := sha256.Sum256(enc)
	const want = "c34f7cc8825ee47e5da22dd43db5d6d0c8bbfd82069fa35011a4c1e6860a508e"
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("layout changed: SHA-256 %s, want %s", got, want)
	}
	// The header fields, spelled out.
	if binary.LittleEndian.Uint64(enc[48:]) != 64 || binary.LittleEndian.Uint64(enc[56:]) != 7 ||
		binary.LittleEndian.Uint64(enc[16:]) != 0x5eed || enc[10] != byte(format.KindBlocked) || enc[11] != byte(format.HashXXH3) {
		t.Fatal("header fields moved")
	}
}

// craft returns a blocked encoding with the given params and payload,
// with valid checksums, so that only the params are wrong.
func craft(params [format.NumParams]uint64, payload []byte) []byte {
	return format.Encode(format.Header{Kind: format.KindBlocked, Hash: format.HashXXH3, Params: params}, payload)
}

// setPayloadLen rewrites the declared payload length and fixes the header CRC.
func setPayloadLen(enc []byte, n uint64) []byte {
	enc = bytes.Clone(enc)
	binary.LittleEndian.PutUint64(enc[32:], n)
	binary.LittleEndian.PutUint32(enc[124:], format.Checksum(enc[:124]))
	return enc
}

// tooLargeOn32 is want on 64-bit platforms; on 32-bit ones a 2^40-byte
// payload cannot be addressed at all, which is ErrTooLarge.
func tooLargeOn32(want error) error {
	if math.MaxInt < 1<<40 {
		return ErrTooLarge
	}
	return want
}

type decoder struct {
	name   string
	decode func([]byte) error
}

func decoders() []decoder {
	return []decoder{
		{"UnmarshalBinary", func(b []byte) error { return (&Filter{}).UnmarshalBinary(b) }},
		{"Concurrent.UnmarshalBinary", func(b []byte) error { return (&Concurrent{}).UnmarshalBinary(b) }},
		{"ReadFrom", func(b []byte) error { _, err := (&Filter{}).ReadFrom(bytes.NewReader(b)); return err }},
		{"FromBytes", func(b []byte) error {
			v, err := FromBytes(b)
			if err == nil {
				v.Close()
			}
			return err
		}},
	}
}

func TestDecodeErrors(t *testing.T) {
	f := mustNewSize(t, 4*512, 5, WithSeed(3))
	f.AddHashes(hashes(100, 1))
	valid, _ := f.MarshalBinary()
	payload := valid[format.HeaderSize:]
	other := format.Encode(format.Header{Kind: format.KindCuckoo, Hash: format.HashXXH3, Params: [8]uint64{4, 5}}, payload)
	murmur := format.Encode(format.Header{Kind: format.KindBlocked, Hash: format.HashMurmur3, Params: [8]uint64{4, 5}}, payload)
	future := bytes.Clone(valid)
	binary.LittleEndian.PutUint16(future[8:], 3)
	binary.LittleEndian.PutUint32(future[124:], format.Checksum(future[:124]))
	flipped := bytes.Clone(valid)
	flipped[len(flipped)-10] ^= 0x10
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"zero length", []byte{}, ErrTruncated},
		{"bad magic", append([]byte("NOTSIFT!"), valid[8:]...), ErrMagic},
		{"future version", future, ErrVersion},
		{"cuckoo kind", other, ErrKind},
		{"murmur hash", murmur, ErrCorrupt},
		{"payload bit flip", flipped, ErrChecksum},
		{"k=0", craft([8]uint64{4, 0}, payload), ErrCorrupt},
		{"k=17", craft([8]uint64{4, 17}, payload), ErrCorrupt},
		{"k=255", craft([8]uint64{4, 255}, payload), ErrCorrupt},
		{"blocks=0", craft([8]uint64{0, 5}, nil), ErrCorrupt},
		{"blocks=0 with payload", craft([8]uint64{0, 5}, payload), ErrCorrupt},
		{"blocks*64 > payload", craft([8]uint64{5, 5}, payload), ErrCorrupt},
		{"blocks*64 < payload", craft([8]uint64{3, 5}, payload), ErrCorrupt},
		{"payload not whole blocks", craft([8]uint64{4, 5}, append(bytes.Clone(payload), 0)), ErrCorrupt},
		{"blocks=2^40", craft([8]uint64{1 << 40, 5}, payload), ErrCorrupt},
		{"blocks=2^63", craft([8]uint64{1 << 63, 5}, payload), ErrCorrupt},
		{"blocks=2^32+1", craft([8]uint64{1<<32 + 1, 5}, payload), ErrCorrupt},
		{"payload length 2^40", setPayloadLen(valid, 1<<40), tooLargeOn32(ErrTruncated)},
		{"payload length 2^63", setPayloadLen(valid, 1<<63), ErrTooLarge},
		{"payload length 2^64-1", setPayloadLen(valid, 1<<64-1), ErrTooLarge},
		{"unknown param", craft([8]uint64{4, 5, 0, 0, 1}, payload), ErrCorrupt},
		{"count without capacity", craft([8]uint64{4, 5, 3, 0}, payload), ErrCorrupt},
		{"trailing bytes", append(bytes.Clone(valid), 0), ErrCorrupt},
	}
	for _, d := range decoders() {
		for _, tc := range cases {
			in := tc.in
			want := tc.want
			if d.name == "ReadFrom" && tc.name == "trailing bytes" {
				continue // a stream reader stops at the filter's end by design
			}
			if m := mem.MachineMemory(); d.name == "ReadFrom" && tc.name == "payload length 2^40" && m != 0 && m < 1<<40 {
				want = ErrTooLarge // more than this machine's memory: refused before reading
			}
			err := d.decode(in)
			if !errors.Is(err, want) {
				t.Errorf("%s(%s): %v, want %v", d.name, tc.name, err, want)
			} else if err.Error()[:8] != "blocked:" {
				t.Errorf("%s(%s): message %q lacks the package prefix", d.name, tc.name, err)
			}
		}
		if err := d.decode(valid); err != nil {
			t.Errorf("%s(valid): %v", d.name, err)
		}
	}
}

func TestEveryTruncation(t *testing.T) {
	f := mustNewSize(t, 3*512, 9)
	f.AddHashes(hashes(30, 2))
	valid, _ := f.MarshalBinary()
	for _, d := range decoders() {
		for i := 0; i < len(valid); i++ {
			if err := d.decode(valid[:i]); !errors.Is(err, ErrTruncated) {
				t.Fatalf("%s of %d/%d bytes: %v, want ErrTruncated", d.name, i, len(valid), err)
			}
		}
	}
}

// TestEveryHeaderBitFlip flips each of the header's 1024 bits: the magic
// gives ErrMagic, the version ErrVersion, everything else the header's
// checksum.
func TestEveryHeaderBitFlip(t *testing.T) {
	f := mustNewSize(t, 2*512, 4)
	f.AddHashes(hashes(10, 3))
	valid, _ := f.MarshalBinary()
	for _, d := range decoders() {
		for bit := 0; bit < format.HeaderSize*8; bit++ {
			in := bytes.Clone(valid)
			in[bit/8] ^= 1 << (bit % 8)
			want := ErrChecksum
			switch {
			case bit < 64:
				want = ErrMagic
			case bit < 80:
				want = ErrVersion
			}
			if err := d.decode(in); !errors.Is(err, want) {
				t.Fatalf("%s with header bit %d flipped: %v, want %v", d.name, bit, err, want)
			}
		}
	}
}

// TestBoundedMemory hands the readers headers that declare huge payloads
// over short inputs: they must fail without allocating anything near the
// declared size.
func TestBoundedMemory(t *testing.T) {
	f := mustNewSize(t, 2*512, 4)
	valid, _ := f.MarshalBinary()
	sc, _ := NewScalable(10, 0.1)
	scalable, _ := sc.MarshalBinary()
	all := append(decoders(),
		decoder{"Scalable.UnmarshalBinary", func(b []byte) error { return (&Scalable{}).UnmarshalBinary(b) }},
		decoder{"Scalable.ReadFrom", func(b []byte) error { _, err := (&Scalable{}).ReadFrom(bytes.NewReader(b)); return err }})
	for _, declared := range []uint64{1 << 30, 1 << 40, 1 << 62} {
		enc := setPayloadLen(valid, declared)
		senc := setPayloadLen(scalable, declared)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for _, d := range all {
			in := enc
			if d.name[:8] == "Scalable" {
				in = senc
			}
			if err := d.decode(in); err == nil {
				t.Fatalf("%s accepted a payload length of %d", d.name, declared)
			}
		}
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
			t.Fatalf("declared %d bytes: decoders allocated %d bytes", declared, grew)
		}
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	f := mustNew(t, 100_000, 0.01, WithSeed(77))
	hs := hashes(100_000, 5)
	f.AddHashes(hs)
	path := filepath.Join(dir, "f.sift")
	writeFile(t, path, f)
	v, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if isUnix && littleEndian() && !v.Mapped() {
		t.Fatal("Open did not map the file")
	}
	sameFilter(t, "Open", &f.core, &v.core)
	if v.Bits() != f.Bits() || v.K() != f.K() || v.Seed() != 77 || v.Blocks() != f.Blocks() {
		t.Fatal("View accessors differ")
	}
	out := make([]bool, len(hs))
	if n := v.ContainsHashes(hs, out); n != len(hs) {
		t.Fatalf("View lost keys: %d of %d", n, len(hs))
	}
	probe := hashes(1000, 6)
	for _, h := range probe {
		if v.ContainsHash(h) != f.ContainsHash(h) {
			t.Fatal("View answers differently")
		}
	}
	if v.EstimatedCount() != f.EstimatedCount() || v.FPP() != f.FPP() {
		t.Fatal("View statistics differ")
	}
	c := v.Clone()
	c.AddUint64(12345)
	if !c.ContainsUint64(12345) {
		t.Fatal("clone of a View is not writable")
	}
	c.Close()
	enc, _ := v.MarshalBinary()
	orig, _ := f.MarshalBinary()
	if !bytes.Equal(enc, orig) {
		t.Fatal("View re-encodes differently")
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("query after Close did not panic")
			}
		}()
		v.ContainsHash(1)
	}()

	// Damage: the payload checksum catches it unless told not to look.
	data, _ := os.ReadFile(path)
	data[len(data)-1] ^= 1
	bad := filepath.Join(dir, "bad.sift")
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bad); !errors.Is(err, ErrChecksum) {
		t.Fatalf("Open of a damaged file: %v", err)
	}
	if v, err := Open(bad, WithoutChecksum()); err != nil {
		t.Fatalf("Open without checksum: %v", err)
	} else {
		v.Close()
	}
	if _, err := Open(path, WithMaxSize(1000)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Open with a small limit: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open of a missing file: %v", err)
	}
	if _, err := Open(filepath.Join("testdata", "scalable-v1.sift")); !errors.Is(err, ErrKind) {
		t.Fatalf("Open of a scalable file: %v", err)
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	if _, err := Open(empty); !errors.Is(err, ErrTruncated) {
		t.Fatalf("Open of an empty file: %v", err)
	}
}

func writeFile(t testing.TB, path string, w io.WriterTo) {
	t.Helper()
	file, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteTo(file); err != nil {
		t.Fatal(err)
	}
	if err := file.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestFromBytesAlignment: an aligned buffer is used in place, an unaligned
// one is copied into aligned memory.
func TestFromBytesAlignment(t *testing.T) {
	f := mustNewSize(t, 10*512, 6)
	f.AddHashes(hashes(50, 1))
	enc, _ := f.MarshalBinary()
	buf := mem.AlignedBytes(len(enc) + 8)
	for _, off := range []int{0, 1, 8} {
		in := buf[off : off+len(enc)]
		copy(in, enc)
		v, err := FromBytes(in)
		if err != nil {
			t.Fatal(err)
		}
		inPlace := unsafe.Pointer(unsafe.SliceData(v.words)) == unsafe.Pointer(&in[format.HeaderSize])
		if inPlace != (off == 0 && littleEndian()) {
			t.Fatalf("offset %d: in place = %v", off, inPlace)
		}
		if !aligned(v.words) {
			t.Fatalf("offset %d: view words not aligned", off)
		}
		sameFilter(t, "FromBytes", &f.core, &v.core)
		v.Close()
	}
}

func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// TestOpenLarge opens a 256 MiB filter and reports the time, with and
// without the checksum pass.
func TestOpenLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 256 MiB file")
	}
	f := mustNewSize(t, 256<<20*8, 8)
	f.AddHashes(hashes(1<<20, 1))
	path := filepath.Join(t.TempDir(), "big.sift")
	writeFile(t, path, f)
	for _, opts := range [][]Option{nil, {WithoutChecksum()}} {
		start := time.Now()
		v, err := Open(path, opts...)
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if len(opts) == 0 {
			t.Logf("Open of a 256 MiB filter with the checksum pass: %v (%.1f GB/s)", took, 256*(1<<20)/took.Seconds()/1e9)
		} else {
			t.Logf("Open of a 256 MiB filter without the checksum pass: %v", took)
		}
		if !v.ContainsHash(hashes(1, 1)[0]) {
			t.Fatal("key missing")
		}
		v.Close()
	}
}
