package cuckoo

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/sift-go/sift/internal/format"
)

// sampleFilters returns filters covering both widths, empty, partly full and
// full with the victim in use.
func sampleFilters(t *testing.T) map[string]*Filter {
	m := map[string]*Filter{}
	for _, fb := range []int{8, 16} {
		for _, c := range []uint64{1, 3, 1000} {
			empty := mustNew(t, c, WithFingerprintBits(fb), WithSeed(c))
			m[name("empty", fb, c)] = empty
			half := mustNew(t, c, WithFingerprintBits(fb), WithSeed(c), WithMaxKicks(100))
			for i := range c / 2 {
				_ = half.AddUint64(i)
			}
			m[name("half", fb, c)] = half
			full := mustNew(t, c, WithFingerprintBits(fb))
			fillUntilFull(t, full, rand.New(rand.NewPCG(c, uint64(fb))))
			m[name("full", fb, c)] = full
		}
	}
	return m
}

func name(what string, fb int, c uint64) string {
	return what + "/f=" + string(rune('0'+fb/8)) + "/c=" + string(rune('0'+c%10))
}

// encoded is what Filter and View have in common for same.
type encoded interface {
	MarshalBinary() ([]byte, error)
	Count() uint64
	VictimInUse() bool
	Seed() uint64
	MaxKicks() int
	FingerprintBits() int
}

func same(t *testing.T, what string, a, b encoded) {
	t.Helper()
	x, _ := a.MarshalBinary()
	y, _ := b.MarshalBinary()
	if !bytes.Equal(x, y) || a.Count() != b.Count() || a.VictimInUse() != b.VictimInUse() ||
		a.Seed() != b.Seed() || a.MaxKicks() != b.MaxKicks() || a.FingerprintBits() != b.FingerprintBits() {
		t.Fatalf("%s: filters differ", what)
	}
}

func TestRoundTrip(t *testing.T) {
	for nm, f := range sampleFilters(t) {
		b, err := f.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var g Filter
		if err := g.UnmarshalBinary(b); err != nil {
			t.Fatalf("%s: %v", nm, err)
		}
		same(t, nm+" unmarshal", f, &g)
		var buf bytes.Buffer
		if n, err := f.WriteTo(&buf); err != nil || n != int64(len(b)) || !bytes.Equal(buf.Bytes(), b) {
			t.Fatalf("%s: WriteTo %d, %v", nm, n, err)
		}
		var r Filter
		if n, err := r.ReadFrom(bytes.NewReader(append(b, 1, 2, 3))); err != nil || n != int64(len(b)) {
			t.Fatalf("%s: ReadFrom %d, %v", nm, n, err)
		}
		same(t, nm+" readfrom", f, &r)
		v, err := FromBytes(b)
		if err != nil {
			t.Fatalf("%s: FromBytes: %v", nm, err)
		}
		same(t, nm+" view", f, v)
		// The decoded filter continues exactly as the original would.
		if !f.VictimInUse() {
			f2, g2 := f.Clone(), g.Clone()
			for i := uint64(1000); i < 1100; i++ {
				e1, e2 := f2.AddUint64(i), g2.AddUint64(i)
				if (e1 == nil) != (e2 == nil) {
					t.Fatalf("%s: decoded filter diverges on add %d", nm, i)
				}
			}
			same(t, nm+" continued", f2, g2)
		}
		var c Concurrent
		if err := c.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		cb, _ := c.MarshalBinary()
		if !bytes.Equal(cb, b) {
			t.Fatalf("%s: Concurrent round trip differs", nm)
		}
	}
}

func TestOpen(t *testing.T) {
	f := mustNew(t, 50000)
	for i := range uint64(40000) {
		_ = f.AddUint64(i)
	}
	path := filepath.Join(t.TempDir(), "f.sift")
	file, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteTo(file); err != nil {
		t.Fatal(err)
	}
	file.Close()
	for _, skip := range []bool{false, true} {
		var opts []Option
		if skip {
			opts = append(opts, WithoutChecksum())
		}
		g, err := Open(path, opts...)
		if err != nil {
			t.Fatal(err)
		}
		same(t, "open", f, g)
		for i := range uint64(40000) {
			if !g.ContainsUint64(i) {
				t.Fatalf("opened filter lost key %d", i)
			}
		}
		if runtime.GOOS == "linux" && g.Mapped() != (w32Flip == 0) {
			t.Fatalf("Mapped() = %v", g.Mapped())
		}
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// A damaged payload is caught by the checksum, or accepted unverified.
	b, _ := os.ReadFile(path)
	b[len(b)-3] ^= 0x10
	os.WriteFile(path, b, 0o644)
	if _, err := Open(path); !errors.Is(err, ErrChecksum) {
		t.Fatalf("Open of a damaged file: %v", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("Open of a missing file succeeded")
	}
	if _, err := Open(path, WithMaxSize(100)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("MaxBytes: %v", err)
	}
}

func TestFromBytesUnaligned(t *testing.T) {
	f := mustNew(t, 1000)
	_ = f.AddString("k")
	b, _ := f.MarshalBinary()
	buf := make([]byte, len(b)+1)
	copy(buf[1:], b)
	g, err := FromBytes(buf[1:])
	if err != nil {
		t.Fatal(err)
	}
	if !g.ContainsString("k") || g.Mapped() {
		t.Fatal("unaligned view")
	}
}

func TestEveryTruncation(t *testing.T) {
	f := mustNew(t, 60)
	fillUntilFull(t, f, rand.New(rand.NewPCG(1, 1)))
	b, _ := f.MarshalBinary()
	for i := 0; i < len(b); i++ {
		var g Filter
		if err := g.UnmarshalBinary(b[:i]); !errors.Is(err, ErrTruncated) {
			t.Fatalf("UnmarshalBinary of %d/%d bytes: %v", i, len(b), err)
		}
		if _, err := g.ReadFrom(bytes.NewReader(b[:i])); !errors.Is(err, ErrTruncated) {
			t.Fatalf("ReadFrom of %d/%d bytes: %v", i, len(b), err)
		}
		if _, err := FromBytes(b[:i]); !errors.Is(err, ErrTruncated) {
			t.Fatalf("FromBytes of %d/%d bytes: %v", i, len(b), err)
		}
	}
	var g Filter
	if err := g.UnmarshalBinary(nil); !errors.Is(err, ErrTruncated) {
		t.Fatalf("empty input: %v", err)
	}
	if err := g.UnmarshalBinary(append(b, 0)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("trailing byte: %v", err)
	}
}

func TestEveryHeaderBitFlip(t *testing.T) {
	f := mustNew(t, 60, WithFingerprintBits(8))
	fillUntilFull(t, f, rand.New(rand.NewPCG(2, 2)))
	b, _ := f.MarshalBinary()
	for bit := 0; bit < 8*format.HeaderSize; bit++ {
		c := bytes.Clone(b)
		c[bit/8] ^= 1 << (bit % 8)
		var g Filter
		err := g.UnmarshalBinary(c)
		if err == nil {
			t.Fatalf("bit %d flipped: accepted", bit)
		}
		if !errors.Is(err, ErrChecksum) && !errors.Is(err, ErrMagic) && !errors.Is(err, ErrVersion) {
			t.Fatalf("bit %d flipped: %v", bit, err)
		}
		if g.t.Words != nil {
			t.Fatal("a failed decode changed the filter")
		}
	}
	c := bytes.Clone(b)
	c[len(c)-1] ^= 0x80
	var g Filter
	if err := g.UnmarshalBinary(c); !errors.Is(err, ErrChecksum) {
		t.Fatalf("payload flip: %v", err)
	}
}

// reencode decodes b's header, lets edit change it (and the payload), and
// encodes it again with valid checksums, so the field checks are reached.
func reencode(t *testing.T, b []byte, edit func(h *format.Header, p []byte) []byte) []byte {
	t.Helper()
	h, p, _, err := format.Decode(b, 0, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p = edit(&h, bytes.Clone(p))
	return format.Encode(h, p)
}

func TestCorruptFields(t *testing.T) {
	f := mustNew(t, 100)
	fillUntilFull(t, f, rand.New(rand.NewPCG(3, 3)))
	full, _ := f.MarshalBinary()
	g := mustNew(t, 100)
	_ = g.AddString("x")
	part, _ := g.MarshalBinary()
	o := mustNew(t, 5, WithFingerprintBits(8)) // 2 buckets: no padding
	odd := mustNew(t, 1, WithFingerprintBits(8))
	oddb, _ := odd.MarshalBinary()
	_ = o
	cases := map[string]struct {
		src  []byte
		edit func(h *format.Header, p []byte) []byte
		want error
	}{
		"kind":          {part, func(h *format.Header, p []byte) []byte { h.Kind = format.KindBlocked; return p }, ErrKind},
		"hash":          {part, func(h *format.Header, p []byte) []byte { h.Hash = format.HashMurmur3; return p }, ErrCorrupt},
		"fpbits 0":      {part, func(h *format.Header, p []byte) []byte { h.Params[paramFPBits] = 0; return p }, ErrCorrupt},
		"fpbits 12":     {part, func(h *format.Header, p []byte) []byte { h.Params[paramFPBits] = 12; return p }, ErrCorrupt},
		"fpbits 8":      {part, func(h *format.Header, p []byte) []byte { h.Params[paramFPBits] = 8; return p }, ErrCorrupt},
		"buckets 0":     {part, func(h *format.Header, p []byte) []byte { h.Params[paramBuckets] = 0; return p }, ErrCorrupt},
		"buckets +1":    {part, func(h *format.Header, p []byte) []byte { h.Params[paramBuckets]++; return p }, ErrCorrupt},
		"buckets 2^40":  {part, func(h *format.Header, p []byte) []byte { h.Params[paramBuckets] = 1 << 40; return p }, ErrCorrupt},
		"buckets 2^63":  {part, func(h *format.Header, p []byte) []byte { h.Params[paramBuckets] = 1 << 63; return p }, ErrCorrupt},
		"count > slots": {part, func(h *format.Header, p []byte) []byte { h.Params[paramCount] = 4*h.Params[paramBuckets] + 1; return p }, ErrCorrupt},
		"count wrong":   {part, func(h *format.Header, p []byte) []byte { h.Params[paramCount] = 2; return p }, ErrCorrupt},
		"victim flag 2": {full, func(h *format.Header, p []byte) []byte { h.Params[paramVictimUsed] = 2; return p }, ErrCorrupt},
		"victim unused": {full, func(h *format.Header, p []byte) []byte { h.Params[paramVictimUsed] = 0; return p }, ErrCorrupt},
		"victim fp 0":   {full, func(h *format.Header, p []byte) []byte { h.Params[paramVictimFP] = 0; return p }, ErrCorrupt},
		"victim fp big": {full, func(h *format.Header, p []byte) []byte { h.Params[paramVictimFP] = 1 << 16; return p }, ErrCorrupt},
		"victim bucket": {full, func(h *format.Header, p []byte) []byte {
			h.Params[paramVictimBucket] = h.Params[paramBuckets]
			return p
		}, ErrCorrupt},
		"victim ghost":  {part, func(h *format.Header, p []byte) []byte { h.Params[paramVictimFP] = 3; return p }, ErrCorrupt},
		"kicks":         {part, func(h *format.Header, p []byte) []byte { h.Params[paramMaxKicks] = MaxMaxKicks + 1; return p }, ErrCorrupt},
		"rng 0":         {part, func(h *format.Header, p []byte) []byte { h.Params[paramRNG] = 0; return p }, ErrCorrupt},
		"short payload": {part, func(h *format.Header, p []byte) []byte { return p[:len(p)-8] }, ErrCorrupt},
		"long payload":  {part, func(h *format.Header, p []byte) []byte { return append(p, make([]byte, 8)...) }, ErrCorrupt},
		"padding":       {oddb, func(h *format.Header, p []byte) []byte { p[7] = 1; h.Params[paramCount] = 1; return p }, ErrCorrupt},
	}
	for nm, c := range cases {
		b := reencode(t, c.src, c.edit)
		var g Filter
		err := g.UnmarshalBinary(b)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", nm, err, c.want)
		}
		_, err2 := FromBytes(b)
		if nm == "count wrong" {
			// Views skip the count scan (a second pass); the count
			// only feeds the statistics.
			if err2 != nil {
				t.Errorf("%s: FromBytes %v", nm, err2)
			}
		} else if !errors.Is(err2, c.want) {
			t.Errorf("%s: FromBytes %v", nm, err2)
		}
		if err != nil && err.Error()[:8] != "cuckoo: " {
			t.Errorf("%s: message %q lacks the package prefix", nm, err)
		}
	}
	// A declared payload of 2^40 or 2^63 bytes over a short input.
	for _, size := range []uint64{1 << 40, 1 << 63} {
		b := bytes.Clone(part)
		binary.LittleEndian.PutUint64(b[32:], size)
		binary.LittleEndian.PutUint32(b[124:], format.Checksum(b[:124]))
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		var g Filter
		err := g.UnmarshalBinary(b)
		_, err2 := g.ReadFrom(bytes.NewReader(b))
		runtime.ReadMemStats(&ms)
		if err == nil || err2 == nil {
			t.Fatalf("size %d accepted", size)
		}
		if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("size %d: %v", size, err)
		}
		if grew := ms.TotalAlloc - before; grew > 4<<20 {
			t.Fatalf("size %d: decoding allocated %d bytes", size, grew)
		}
	}
}

// TestGolden locks the layout: a filter built from fixed keys has these
// exact bytes on every architecture and with every kernel.
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		fb   int
		want string
	}{
		{8, "e6e2b1b031202b50fb3cc66d71b11f697e5271f9b2686cc389ca96ca89aaab04"},
		{16, "ac51f5e4196532abeef9f8656e5fd9ab01d8937897b47528b83f3d80d8254c16"},
	} {
		f := mustNew(t, 1000, WithFingerprintBits(c.fb), WithSeed(7))
		for i := range uint64(1100) {
			if f.AddUint64(i) != nil {
				break
			}
		}
		b, _ := f.MarshalBinary()
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != c.want {
			t.Errorf("f=%d: SHA-256 %s, want %s", c.fb, got, c.want)
		}
	}
}

func TestReaderErrors(t *testing.T) {
	f := mustNew(t, 10)
	b, _ := f.MarshalBinary()
	var g Filter
	if _, err := g.ReadFrom(iotestErr{}); err == nil || errors.Is(err, ErrTruncated) {
		t.Fatalf("reader error: %v", err)
	}
	if err := g.UnmarshalBinary(append([]byte("not a filter at all"), b...)); !errors.Is(err, ErrMagic) {
		t.Fatalf("bad magic: %v", err)
	}
	c := bytes.Clone(b)
	binary.LittleEndian.PutUint16(c[8:], 3)
	if err := g.UnmarshalBinary(c); !errors.Is(err, ErrVersion) {
		t.Fatalf("future version: %v", err)
	}
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, io.ErrClosedPipe }

func FuzzUnmarshal(f *testing.F) {
	for _, fb := range []int{8, 16} {
		g, _ := New(20, WithFingerprintBits(fb))
		for i := uint64(0); g.AddUint64(i) == nil; i++ {
		}
		b, _ := g.MarshalBinary()
		f.Add(b)
		h, _ := New(3, WithFingerprintBits(fb))
		b, _ = h.MarshalBinary()
		f.Add(b)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Filter
		_, errRead := r.ReadFrom(bytes.NewReader(data))
		_, errView := FromBytes(data, WithoutChecksum())
		var g Filter
		if err := g.UnmarshalBinary(data); err != nil {
			return
		}
		if errRead != nil || errView != nil {
			t.Fatalf("UnmarshalBinary accepts what ReadFrom (%v) or FromBytes (%v) rejects", errRead, errView)
		}
		// Whatever decodes is a working filter that re-encodes identically.
		b, _ := g.MarshalBinary()
		if !bytes.Equal(b, data) {
			t.Fatal("re-encoding differs")
		}
		g.ContainsUint64(1)
		out := make([]bool, 20)
		g.ContainsHashes(make([]uint64, 20), out)
		if g.Count() < g.occupied() {
			t.Fatal("count below occupied slots")
		}
		if _, err := FromBytes(data); err != nil {
			t.Fatalf("FromBytes rejects what UnmarshalBinary accepts: %v", err)
		}
		for i := uint64(0); i < 50 && g.AddUint64(i) == nil; i++ {
		}
		_ = g.RemoveUint64(3)
	})
}

// TestAppendBinary checks that AppendBinary appends exactly MarshalBinary's
// bytes, for Filter, Concurrent and View, and leaves b alone on a closed
// filter.
func TestAppendBinary(t *testing.T) {
	prefix := []byte("prefix")
	for nm, f := range sampleFilters(t) {
		want, err := f.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		v, err := FromBytes(want)
		if err != nil {
			t.Fatal(err)
		}
		c := NewConcurrentFrom(f)
		for what, a := range map[string]interface {
			AppendBinary([]byte) ([]byte, error)
		}{"Filter": f, "Concurrent": c, "View": v} {
			got, err := a.AppendBinary(bytes.Clone(prefix))
			if err != nil || !bytes.Equal(got, append(bytes.Clone(prefix), want...)) {
				t.Fatalf("%s %s: AppendBinary differs from MarshalBinary (%v)", nm, what, err)
			}
		}
	}
	var zero Filter
	var zc Concurrent
	var zv View
	for what, a := range map[string]interface {
		AppendBinary([]byte) ([]byte, error)
	}{"Filter": &zero, "Concurrent": &zc, "View": &zv} {
		got, err := a.AppendBinary(prefix)
		if !errors.Is(err, ErrClosed) || !bytes.Equal(got, prefix) {
			t.Errorf("zero %s: %q, %v", what, got, err)
		}
	}
}

// TestMaxSizeDecoders checks the maximum size of every decoder: the
// loaders' WithMaxSize, and the bound a filter made with WithMaxSize keeps
// for its own UnmarshalBinary and ReadFrom; and that ReadFilter reads with
// the options.
func TestMaxSizeDecoders(t *testing.T) {
	small := mustNew(t, 100)
	big := mustNew(t, 10000)
	for i := range uint64(50) {
		_ = small.AddUint64(i)
		_ = big.AddUint64(i)
	}
	sb, _ := small.MarshalBinary()
	bb, _ := big.MarshalBinary()
	limit := WithMaxSize(small.SizeBytes())

	f, err := ReadFilter(bytes.NewReader(sb), limit)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "ReadFilter", small, f)
	if _, err := ReadFilter(bytes.NewReader(bb), limit); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFilter of a larger filter: %v", err)
	}
	// The bound stays with the filter ReadFilter made.
	before, _ := f.MarshalBinary()
	if _, err := f.ReadFrom(bytes.NewReader(bb)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFrom into a bounded filter: %v", err)
	}
	if err := f.UnmarshalBinary(bb); !errors.Is(err, ErrTooLarge) {
		t.Errorf("UnmarshalBinary into a bounded filter: %v", err)
	}
	if after, _ := f.MarshalBinary(); !bytes.Equal(before, after) {
		t.Error("a refused decode changed the filter")
	}
	// New's bound too, for Filter and Concurrent, and it survives a decode.
	g, err := New(100, limit)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.UnmarshalBinary(sb); err != nil {
		t.Fatal(err)
	}
	if _, err := g.ReadFrom(bytes.NewReader(bb)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFrom into a decoded bounded filter: %v", err)
	}
	c, err := NewConcurrent(100, limit)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadFrom(bytes.NewReader(bb)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Concurrent.ReadFrom: %v", err)
	}
	if err := c.UnmarshalBinary(bb); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Concurrent.UnmarshalBinary: %v", err)
	}
	if err := c.UnmarshalBinary(sb); err != nil || c.Count() != small.Count() {
		t.Errorf("Concurrent.UnmarshalBinary within the bound: %v", err)
	}
	// A clone keeps the bound.
	if _, err := g.Clone().ReadFrom(bytes.NewReader(bb)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFrom into a clone of a bounded filter: %v", err)
	}
	// A zero receiver has no bound but the defaults.
	var z Filter
	if _, err := z.ReadFrom(bytes.NewReader(bb)); err != nil {
		t.Errorf("zero Filter: %v", err)
	}
	// WithoutChecksum: a damaged payload reads.
	bad := bytes.Clone(sb)
	bad[len(bad)-1] ^= 0x40
	if _, err := ReadFilter(bytes.NewReader(bad)); !errors.Is(err, ErrChecksum) {
		t.Errorf("damaged payload: %v", err)
	}
	if _, err := ReadFilter(bytes.NewReader(bad), WithoutChecksum()); err != nil && !errors.Is(err, ErrCorrupt) {
		t.Errorf("damaged payload WithoutChecksum: %v", err)
	}
}

// TestConcurrentDecodeFreesOld checks that a Concurrent's decoders release
// the memory of the filter they replace at once, as Filter's do, instead
// of leaving a mapping to the finalizer.
func TestConcurrentDecodeFreesOld(t *testing.T) {
	small := mustNew(t, 100)
	enc, _ := small.MarshalBinary()
	for _, decode := range []func(c *Concurrent) error{
		func(c *Concurrent) error { return c.UnmarshalBinary(enc) },
		func(c *Concurrent) error { _, err := c.ReadFrom(bytes.NewReader(enc)); return err },
	} {
		c, err := NewConcurrent(2 << 20) // a mapped bucket array where mappings exist
		if err != nil {
			t.Fatal(err)
		}
		old := c.f
		if err := decode(c); err != nil {
			t.Fatal(err)
		}
		if old.t.Words != nil || old.region != nil {
			t.Error("the replaced filter's memory was not released")
		}
		c.Close()
	}
}
