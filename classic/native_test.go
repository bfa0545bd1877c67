package classic

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/sift-go/sift/internal/format"
)

var siftErrors = []error{ErrMagic, ErrVersion, ErrKind, ErrTruncated, ErrChecksum, ErrCorrupt, ErrTooLarge}

func isSiftError(err error) bool {
	for _, s := range siftErrors {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

func sampleCounting(t testing.TB, n int, seed uint64) *Counting {
	t.Helper()
	c, err := NewCounting(uint64(n), 0.01, WithSeed(seed))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		c.AddUint64(uint64(i))
	}
	for i := 0; i < 20; i++ {
		c.AddString("saturate")
	}
	return c
}

func TestNativeFilterRoundTrip(t *testing.T) {
	for _, s := range []Strategy{Murmur128Mitz32, Murmur128Mitz64} {
		for _, f := range []*Filter{
			sampleFilter(t, 0, 0.5, s),
			sampleFilter(t, 1000, 0.01, s),
			sampleFilter(t, 3, 1e-70, s),
			newFilter([]uint64{^uint64(0)}, 255, s), // full
		} {
			b, err := f.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var g Filter
			if err := g.UnmarshalBinary(b); err != nil {
				t.Fatalf("UnmarshalBinary: %v", err)
			}
			if !g.Equal(f) || g.BitCount() != f.BitCount() {
				t.Fatal("native round trip changed the filter")
			}
			b[format.HeaderSize] ^= 1 // UnmarshalBinary must have copied
			if !g.Equal(f) {
				t.Fatal("UnmarshalBinary aliases its input")
			}
			b[format.HeaderSize] ^= 1
			var buf bytes.Buffer
			n, err := f.WriteTo(&buf)
			if err != nil || n != int64(len(b)) || !bytes.Equal(buf.Bytes(), b) {
				t.Fatalf("WriteTo = %d, %v", n, err)
			}
			if app, err := f.AppendBinary([]byte("x")); err != nil || !bytes.Equal(app, append([]byte("x"), b...)) {
				t.Fatalf("AppendBinary differs from MarshalBinary (%v)", err)
			}
			var r Filter
			if m, err := r.ReadFrom(bytes.NewReader(buf.Bytes())); err != nil || m != n || !r.Equal(f) || r.BitCount() != f.BitCount() {
				t.Fatalf("ReadFrom = %d, %v", m, err)
			}
			buf.WriteString("next")
			h, err := ReadFilter(&buf)
			if err != nil || !h.Equal(f) {
				t.Fatalf("ReadFilter: %v", err)
			}
			if buf.String() != "next" {
				t.Fatal("ReadFilter read past the filter")
			}
			// Same bits as Guava's stream, other byte order.
			for i, w := range f.words {
				if binary.LittleEndian.Uint64(b[format.HeaderSize+8*i:]) != w {
					t.Fatal("native payload is not the words little-endian")
				}
			}
		}
	}
}

func TestNativeCountingRoundTrip(t *testing.T) {
	for _, c := range []*Counting{sampleCounting(t, 0, 0), sampleCounting(t, 1000, 77), sampleCounting(t, 50000, 1<<63)} {
		b, err := c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var d Counting
		if err := d.UnmarshalBinary(b); err != nil {
			t.Fatalf("UnmarshalBinary: %v", err)
		}
		if !d.Equal(c) || d.nonzero != c.nonzero || d.Saturated() != c.Saturated() || d.Seed() != c.Seed() {
			t.Fatal("round trip changed the filter")
		}
		var buf bytes.Buffer
		n, err := c.WriteTo(&buf)
		if err != nil || n != int64(len(b)) || !bytes.Equal(buf.Bytes(), b) {
			t.Fatalf("WriteTo = %d, %v", n, err)
		}
		var e Counting
		if m, err := e.ReadFrom(bytes.NewReader(b)); err != nil || m != n || !e.Equal(c) {
			t.Fatalf("ReadFrom = %d, %v", m, err)
		}
		if f, err := ReadCounting(bytes.NewReader(b), WithMaxSize(c.SizeBytes())); err != nil || !f.Equal(c) {
			t.Fatalf("ReadCounting: %v", err)
		}
		if app, err := c.AppendBinary([]byte("x")); err != nil || !bytes.Equal(app, append([]byte("x"), b...)) {
			t.Fatalf("AppendBinary differs from MarshalBinary (%v)", err)
		}
		if !e.ContainsString("saturate") || e.RemoveString("saturate") != nil {
			t.Fatal("decoded filter lost a key")
		}
	}
}

// craft returns a native encoding with the given header, payload and an
// optional patch applied to the header before its CRC is recomputed.
func craft(h format.Header, payload []byte, patch func(hdr []byte)) []byte {
	b := format.Encode(h, payload)
	if patch != nil {
		patch(b[:format.HeaderSize])
		binary.LittleEndian.PutUint32(b[124:], format.Checksum(b[:124]))
	}
	return b
}

func classicHeader(strategy, k, words uint64) format.Header {
	h := format.Header{Kind: format.KindClassic, Hash: format.HashMurmur3}
	h.Params[0], h.Params[1], h.Params[2] = strategy, k, words
	return h
}

func countingHeader(m, k uint64) format.Header {
	h := format.Header{Kind: format.KindCounting, Hash: format.HashXXH3}
	h.Params[0], h.Params[1] = m, k
	return h
}

func TestNativeDecodeErrors(t *testing.T) {
	f := sampleFilter(t, 100, 0.01, Murmur128Mitz64)
	fb, _ := f.MarshalBinary()
	c := sampleCounting(t, 100, 5)
	cb, _ := c.MarshalBinary()
	words8 := make([]byte, 8)

	type decoder struct {
		name string
		fn   func([]byte) error
	}
	filterDecoders := []decoder{
		{"Filter.UnmarshalBinary", func(b []byte) error { var g Filter; return g.UnmarshalBinary(b) }},
		{"ReadFilter", func(b []byte) error { _, err := ReadFilter(bytes.NewReader(b)); return err }},
		{"Filter.ReadFrom", func(b []byte) error { var g Filter; _, err := g.ReadFrom(bytes.NewReader(b)); return err }},
	}
	countingDecoders := []decoder{
		{"Counting.UnmarshalBinary", func(b []byte) error { var d Counting; return d.UnmarshalBinary(b) }},
		{"ReadCounting", func(b []byte) error { _, err := ReadCounting(bytes.NewReader(b)); return err }},
		{"Counting.ReadFrom", func(b []byte) error { var d Counting; _, err := d.ReadFrom(bytes.NewReader(b)); return err }},
	}

	check := func(decs []decoder, name string, in []byte, sentinel error) {
		t.Helper()
		for _, d := range decs {
			err := d.fn(in)
			if !errors.Is(err, sentinel) {
				t.Errorf("%s: %s = %v, want %v", d.name, name, err, sentinel)
			} else if !strings.HasPrefix(err.Error(), "classic: ") {
				t.Errorf("%s: %s: %q lacks the package prefix", d.name, name, err)
			}
		}
	}

	for _, v := range []struct {
		decs  []decoder
		valid []byte
	}{{filterDecoders, fb}, {countingDecoders, cb}} {
		for n := 0; n < len(v.valid); n++ {
			check(v.decs, "truncated", v.valid[:n], ErrTruncated)
		}
		// Every single-bit flip in the header is caught.
		for bit := 0; bit < 8*format.HeaderSize; bit++ {
			b := bytes.Clone(v.valid)
			b[bit/8] ^= 1 << (bit % 8)
			for _, d := range v.decs {
				if err := d.fn(b); err == nil || !isSiftError(err) {
					t.Fatalf("%s: header bit %d flipped: %v", d.name, bit, err)
				}
			}
		}
		b := bytes.Clone(v.valid)
		b[len(b)-1] ^= 0x10
		check(v.decs, "payload bit flip", b, ErrChecksum)
		b = bytes.Clone(v.valid)
		b[0] = 'X'
		check(v.decs, "wrong magic", b, ErrMagic)
		check(v.decs, "future version", craft(format.Header{}, nil, func(h []byte) {
			copy(h, v.valid[:format.HeaderSize])
			h[8] = 3
		}), ErrVersion)
	}
	check(filterDecoders, "counting filter", cb, ErrKind)
	check(countingDecoders, "classic filter", fb, ErrKind)
	var g Filter
	if err := g.UnmarshalBinary(append(bytes.Clone(fb), 0)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("trailing byte: %v", err)
	}
	var d Counting
	if err := d.UnmarshalBinary(append(bytes.Clone(cb), 0)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("trailing byte: %v", err)
	}

	for _, c := range []struct {
		name     string
		in       []byte
		sentinel error
	}{
		{"k = 0", craft(classicHeader(1, 0, 1), words8, nil), ErrCorrupt},
		{"k = 256", craft(classicHeader(1, 256, 1), words8, nil), ErrCorrupt},
		{"strategy 2", craft(classicHeader(2, 3, 1), words8, nil), ErrCorrupt},
		{"0 words", craft(classicHeader(1, 3, 0), nil, nil), ErrCorrupt},
		{"2^31 words", craft(classicHeader(1, 3, 1<<31), words8, nil), ErrCorrupt},
		{"2 words, 1 stored", craft(classicHeader(1, 3, 2), words8, nil), ErrCorrupt},
		{"xxh3 hash", craft(func() format.Header { h := classicHeader(1, 3, 1); h.Hash = format.HashXXH3; return h }(), words8, nil), ErrCorrupt},
		{"seed", craft(func() format.Header { h := classicHeader(1, 3, 1); h.Seed = 1; return h }(), words8, nil), ErrCorrupt},
		{"param 5", craft(func() format.Header { h := classicHeader(1, 3, 1); h.Params[5] = 1; return h }(), words8, nil), ErrCorrupt},
		{"payload 2^30", craft(classicHeader(1, 3, 1<<27), words8, func(h []byte) { binary.LittleEndian.PutUint64(h[32:], 1<<30) }), ErrTruncated},
		{"payload 2^63", craft(classicHeader(1, 3, 1), words8, func(h []byte) { binary.LittleEndian.PutUint64(h[32:], 1<<63) }), ErrTooLarge},
		{"empty", nil, ErrTruncated},
	} {
		check(filterDecoders, c.name, c.in, c.sentinel)
	}
	for _, c := range []struct {
		name     string
		in       []byte
		sentinel error
	}{
		{"k = 0", craft(countingHeader(16, 0), words8, nil), ErrCorrupt},
		{"k = 256", craft(countingHeader(16, 256), words8, nil), ErrCorrupt},
		{"k = 255", craft(countingHeader(16, 255), words8, nil), nil},
		{"0 counters", craft(countingHeader(0, 3), nil, nil), ErrCorrupt},
		{"17 counters", craft(countingHeader(17, 3), words8, nil), ErrCorrupt},
		{"32 counters, 16 stored", craft(countingHeader(32, 3), words8, nil), ErrCorrupt},
		{"2^63 counters", craft(countingHeader(1<<63, 3), words8, nil), ErrCorrupt},
		{"murmur hash", craft(func() format.Header { h := countingHeader(16, 3); h.Hash = format.HashMurmur3; return h }(), words8, nil), ErrCorrupt},
		{"param 2", craft(func() format.Header { h := countingHeader(16, 3); h.Params[2] = 1; return h }(), words8, nil), ErrCorrupt},
		{"payload 2^30", craft(countingHeader(1<<31, 3), words8, func(h []byte) { binary.LittleEndian.PutUint64(h[32:], 1<<30) }), ErrTruncated},
		{"payload 2^63", craft(countingHeader(16, 3), words8, func(h []byte) { binary.LittleEndian.PutUint64(h[32:], 1<<63) }), ErrTooLarge},
		{"empty", nil, ErrTruncated},
	} {
		if c.sentinel == nil {
			var d Counting
			if err := d.UnmarshalBinary(c.in); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		check(countingDecoders, c.name, c.in, c.sentinel)
	}
}

func TestNativeMaxBytes(t *testing.T) {
	f := sampleFilter(t, 1000, 0.01, Murmur128Mitz64)
	fb, _ := f.MarshalBinary()
	payload := uint64(len(fb) - format.HeaderSize)
	if _, err := ReadFilter(bytes.NewReader(fb), WithMaxSize(payload)); err != nil {
		t.Fatalf("limit = payload size: %v", err)
	}
	if _, err := ReadFilter(bytes.NewReader(fb), WithMaxSize(payload-1)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("limit below payload size: %v", err)
	}
	c := sampleCounting(t, 1000, 0)
	cb, _ := c.MarshalBinary()
	if _, err := ReadCounting(bytes.NewReader(cb), WithMaxSize(64)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadCounting over the limit: %v", err)
	}
	// A filter made with WithMaxSize keeps the bound for its decoders.
	big, _ := sampleFilter(t, 5000, 0.01, Murmur128Mitz64).MarshalBinary()
	g, err := New(1000, 0.01, WithMaxSize(payload))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.UnmarshalBinary(big); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Filter.UnmarshalBinary over the bound: %v", err)
	}
	if _, err := g.ReadFrom(bytes.NewReader(big)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Filter.ReadFrom over the bound: %v", err)
	}
	if err := g.UnmarshalBinary(fb); err != nil {
		t.Errorf("Filter.UnmarshalBinary within the bound: %v", err)
	}
	if _, err := g.ReadFrom(bytes.NewReader(big)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Filter.ReadFrom over the bound after a decode: %v", err)
	}
	if _, err := g.Clone().ReadFrom(bytes.NewReader(big)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Filter.ReadFrom into a clone of a bounded filter: %v", err)
	}
	bigC, _ := sampleCounting(t, 5000, 0).MarshalBinary()
	d, err := NewCounting(1000, 0.01, WithMaxSize(c.SizeBytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.UnmarshalBinary(bigC); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Counting.UnmarshalBinary over the bound: %v", err)
	}
	if _, err := d.ReadFrom(bytes.NewReader(bigC)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Counting.ReadFrom over the bound: %v", err)
	}
}

// TestNativeDecodeMemory: a header declaring a 1 GiB payload over a short
// stream costs a bounded amount of memory, and one declaring 1 TiB is
// refused on machines with less memory (see hugeErr).
func TestNativeDecodeMemory(t *testing.T) {
	for _, declared := range []uint64{1 << 30, 1 << 40} {
		in := craft(classicHeader(1, 3, 1<<37), make([]byte, 4096), func(h []byte) { binary.LittleEndian.PutUint64(h[32:], declared) })
		alloc := allocatedBytes(func() {
			if _, err := ReadFilter(bytes.NewReader(in)); !errors.Is(err, hugeErr(declared)) {
				t.Errorf("ReadFilter: %v", err)
			}
		})
		if alloc > 4<<20 {
			t.Errorf("declared %d bytes, supplied 4 KiB: allocated %d bytes", declared, alloc)
		}
		inc := craft(countingHeader(1<<41, 3), make([]byte, 4096), func(h []byte) { binary.LittleEndian.PutUint64(h[32:], declared) })
		alloc = allocatedBytes(func() {
			if _, err := ReadCounting(bytes.NewReader(inc)); !errors.Is(err, hugeErr(declared)) {
				t.Errorf("ReadCounting: %v", err)
			}
		})
		if alloc > 4<<20 {
			t.Errorf("counting: declared %d bytes, supplied 4 KiB: allocated %d bytes", declared, alloc)
		}
	}
}

// TestNativeGoldenLayout locks the byte layout: a filter built from fixed
// keys must encode to these exact bytes on every platform and kernel.
func TestNativeGoldenLayout(t *testing.T) {
	f, _ := New(10, 0.1, WithStrategy(Murmur128Mitz64))
	for i := int64(0); i < 10; i++ {
		f.PutInt64(i)
	}
	c, _ := NewCounting(10, 0.1, WithSeed(0x0123456789abcdef))
	for i := uint64(0); i < 10; i++ {
		c.AddUint64(i)
	}
	fb, _ := f.MarshalBinary()
	cb, _ := c.MarshalBinary()
	for _, v := range []struct {
		name string
		b    []byte
		want uint32
	}{
		{"classic", fb, 0x06a5d3c8},
		{"counting", cb, 0xe0d7c8ff},
	} {
		if got := format.Checksum(v.b); got != v.want {
			t.Errorf("%s: CRC-32C of the encoding = %#08x, want %#08x (%d bytes)", v.name, got, v.want, len(v.b))
		}
	}
}
