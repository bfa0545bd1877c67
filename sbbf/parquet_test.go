package sbbf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// A test-side Thrift compact writer, to build the encodings other writers
// could produce.
type tw struct{ b []byte }

func (w *tw) raw(b ...byte) *tw { w.b = append(w.b, b...); return w }

// field writes a short-form field header (delta 1..15).
func (w *tw) field(delta, typ byte) *tw { return w.raw(delta<<4 | typ) }

// long writes a long-form field header: the type, then the zigzag id.
func (w *tw) long(typ byte, id int16) *tw {
	w.raw(typ)
	return w.zigzag(int64(id))
}

func (w *tw) zigzag(v int64) *tw {
	w.b = binary.AppendUvarint(w.b, uint64(v<<1)^uint64(v>>63))
	return w
}

func (w *tw) uvarint(v uint64) *tw { w.b = binary.AppendUvarint(w.b, v); return w }

// union writes a union holding member id, an empty struct, as the value of
// a struct field.
func (w *tw) union(id byte) *tw { return w.field(id, tcStruct).raw(tcStop, tcStop) }

// specHeader is the header of the specification's filter, written field by
// field.
func specHeader(numBytes int64) []byte {
	w := &tw{}
	w.field(1, tcI32).zigzag(numBytes)
	for range 3 {
		w.field(1, tcStruct).union(1)
	}
	return w.raw(tcStop).b
}

func TestParquetHeaderBytes(t *testing.T) {
	want := []byte{0x15, 0x80, 0x10, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}
	if got := AppendParquetHeader(nil, 1024); !bytes.Equal(got, want) {
		t.Fatalf("header of 1024 bytes: % x, want % x", got, want)
	}
	for _, n := range []int32{32, 64, 1 << 20, 1<<31 - 32} {
		if got := AppendParquetHeader(nil, n); !bytes.Equal(got, specHeader(int64(n))) {
			t.Fatalf("header of %d bytes: % x, want % x", n, got, specHeader(int64(n)))
		}
		size, hl, err := DecodeParquetHeader(AppendParquetHeader(nil, n))
		if err != nil || size != uint64(n) || hl != len(AppendParquetHeader(nil, n)) {
			t.Fatalf("decode header of %d bytes: %d, %d, %v", n, size, hl, err)
		}
	}
}

func TestParquetRoundTrip(t *testing.T) {
	for _, numBytes := range []uint64{32, 96, 1 << 12, 8 << 20} {
		f := mustNew(t, numBytes)
		f.AddHashes(hashes(int(numBytes/8), numBytes))
		enc, err := f.MarshalParquet()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if n, err := f.WriteParquet(&buf); err != nil || n != int64(len(enc)) || !bytes.Equal(buf.Bytes(), enc) {
			t.Fatalf("WriteParquet differs from MarshalParquet: %v", err)
		}
		bitset := f.AppendBitset(nil)
		check := func(what string, g interface{ AppendBitset([]byte) []byte }) {
			t.Helper()
			if !bytes.Equal(g.AppendBitset(nil), bitset) {
				t.Fatalf("%d bytes: %s: bitset differs", numBytes, what)
			}
		}
		trailing := append(bytes.Clone(enc), "PAR1 and more"...)
		g, n, err := ParseParquet(trailing)
		if err != nil || n != len(enc) {
			t.Fatalf("ParseParquet: %d, %v", n, err)
		}
		check("ParseParquet", g)
		r := bytes.NewReader(trailing)
		h, m, err := ReadParquet(iotest.OneByteReader(r))
		if err != nil || m != int64(len(enc)) || r.Len() != len(trailing)-len(enc) {
			t.Fatalf("ReadParquet: %d, %v, left %d", m, err, r.Len())
		}
		check("ReadParquet", h)
		h2, _, err := ReadParquet(bytes.NewReader(enc)) // an io.ByteReader
		if err != nil {
			t.Fatal(err)
		}
		check("ReadParquet (ByteReader)", h2)
		v, n, err := ViewParquet(trailing)
		if err != nil || n != len(enc) {
			t.Fatal(err)
		}
		check("ViewParquet", v)
		var u Filter
		if err := u.UnmarshalParquet(enc); err != nil {
			t.Fatal(err)
		}
		check("UnmarshalParquet", &u)
		if err := u.UnmarshalParquet(trailing); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("UnmarshalParquet with trailing bytes: %v", err)
		}
		check("UnmarshalParquet after a failed call", &u)
		venc, _ := v.MarshalParquet()
		if !bytes.Equal(venc, enc) {
			t.Fatal("View.MarshalParquet differs")
		}
		for _, c := range []interface{ Close() error }{g, h, h2, v, &u} {
			c.Close()
		}
	}
}

// TestParquetHeaderVariants: encodings another compact writer may produce
// (long-form field headers, any field order, unknown fields of every type
// at every level) decode to the same filter.
func TestParquetHeaderVariants(t *testing.T) {
	const numBytes = 64
	// A UUID (compact type 13, Thrift 0.17 and later) is 16 raw bytes;
	// these would read as a stop, fields and varints if taken for
	// anything else.
	uuid := []byte{0, 0x15, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x1c, 0xff, 0, 0, 0}
	// unknown appends a field of every Thrift type with ids from first.
	unknown := func(w *tw, first int16) *tw {
		id := first
		next := func(typ byte) *tw { id++; return w.long(typ, id) }
		next(tcTrue)
		next(tcFalse)
		next(tcByte).raw(0x7f)
		next(tcI16).zigzag(-300)
		next(tcI32).zigzag(1 << 30)
		next(tcI64).zigzag(-1 << 60)
		next(tcDouble).raw(1, 2, 3, 4, 5, 6, 7, 8)
		next(tcBinary).uvarint(5).raw([]byte("hello")...)
		next(tcList).raw(3<<4 | tcI32).zigzag(1).zigzag(2).zigzag(3)
		next(tcList).raw(0xf0 | tcBinary).uvarint(16)
		for range 16 {
			w.uvarint(1).raw('x')
		}
		next(tcSet).raw(2<<4|tcTrue).raw(1, 2)
		next(tcMap).uvarint(2).raw(tcBinary<<4 | tcStruct)
		for range 2 {
			w.uvarint(1).raw('k').field(1, tcI32).zigzag(7).raw(tcStop)
		}
		next(tcMap).uvarint(0)
		next(tcStruct).field(1, tcStruct).field(2, tcList).raw(1<<4|tcStruct, tcStop).raw(tcStop).raw(tcStop)
		next(tcUUID).raw(uuid...)
		next(tcList).raw(2<<4 | tcUUID).raw(uuid...).raw(uuid...)
		next(tcSet).raw(0xf0 | tcUUID).uvarint(15)
		for range 15 {
			w.raw(uuid...)
		}
		next(tcMap).uvarint(1).raw(tcUUID<<4 | tcUUID).raw(uuid...).raw(uuid...)
		return w
	}
	variants := map[string][]byte{
		"spec": specHeader(numBytes),
		"long form": (&tw{}).long(tcI32, 1).zigzag(numBytes).
			long(tcStruct, 2).long(tcStruct, 1).raw(tcStop, tcStop).
			long(tcStruct, 3).long(tcStruct, 1).raw(tcStop, tcStop).
			long(tcStruct, 4).long(tcStruct, 1).raw(tcStop, tcStop).raw(tcStop).b,
		"reversed": (&tw{}).long(tcStruct, 4).union(1).long(tcStruct, 3).union(1).
			long(tcStruct, 2).union(1).long(tcI32, 1).zigzag(numBytes).raw(tcStop).b,
		"unknown fields": func() []byte {
			w := unknown(&tw{}, 100)
			w.long(tcI32, 1).zigzag(numBytes)
			w.field(1, tcStruct).field(1, tcStruct)
			unknown(w, 10).raw(tcStop).raw(tcStop) // inside SplitBlockAlgorithm
			w.field(1, tcStruct).union(1)
			w.field(1, tcStruct).union(1)
			return unknown(w, 200).raw(tcStop).b
		}(),
		"negative field ids": (&tw{}).long(tcI32, -5).zigzag(3).long(tcI32, 1).zigzag(numBytes).
			field(1, tcStruct).union(1).field(1, tcStruct).union(1).field(1, tcStruct).union(1).raw(tcStop).b,
		"extended union": func() []byte {
			// A union member 1 whose struct carries fields of a newer writer.
			w := (&tw{}).field(1, tcI32).zigzag(numBytes).field(1, tcStruct).field(1, tcStruct)
			w.field(3, tcI64).zigzag(99).field(1, tcBinary).uvarint(2).raw('h', 'i').raw(tcStop).raw(tcStop)
			return w.field(1, tcStruct).union(1).field(1, tcStruct).union(1).raw(tcStop).b
		}(),
	}
	bitset := bytes.Repeat([]byte{0xa5, 0x5a, 0x00, 0xff}, numBytes/4)
	for name, hdr := range variants {
		data := append(bytes.Clone(hdr), bitset...)
		f, n, err := ParseParquet(data)
		if err != nil || n != len(data) {
			t.Errorf("%s: ParseParquet: %d of %d bytes, %v", name, n, len(data), err)
			continue
		}
		if !bytes.Equal(f.AppendBitset(nil), bitset) {
			t.Errorf("%s: bitset differs", name)
		}
		g, m, err := ReadParquet(iotest.OneByteReader(bytes.NewReader(data)))
		if err != nil || m != int64(len(data)) || !bytes.Equal(g.AppendBitset(nil), bitset) {
			t.Errorf("%s: ReadParquet: %d, %v", name, m, err)
		}
	}
}

func TestParquetDecodeErrors(t *testing.T) {
	bitset := make([]byte, 1<<10)
	with := func(hdr []byte) []byte { return append(hdr, bitset...) }
	hdr := func(build func(w *tw)) []byte {
		w := &tw{}
		build(w)
		return with(w.b)
	}
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"header only", AppendParquetHeader(nil, 1024), ErrTruncated},
		{"short bitset", with(AppendParquetHeader(nil, 2048)), ErrTruncated},
		{"numBytes 0", with(AppendParquetHeader(nil, 0)), ErrCorrupt},
		{"numBytes negative", with(AppendParquetHeader(nil, -32)), ErrCorrupt},
		{"numBytes 100", with(AppendParquetHeader(nil, 100)), ErrCorrupt},
		{"numBytes 2^40", hdr(func(w *tw) { w.field(1, tcI32).zigzag(1 << 40).raw(specHeader(32)[2:]...) }), ErrCorrupt},
		{"no numBytes", hdr(func(w *tw) {
			w.field(2, tcStruct).union(1).field(1, tcStruct).union(1).field(1, tcStruct).union(1).raw(tcStop)
		}), ErrCorrupt},
		{"no compression", hdr(func(w *tw) {
			w.field(1, tcI32).zigzag(32).field(1, tcStruct).union(1).field(1, tcStruct).union(1).raw(tcStop)
		}), ErrCorrupt},
		{"numBytes twice", hdr(func(w *tw) { w.field(1, tcI32).zigzag(32).long(tcI32, 1).zigzag(64).raw(specHeader(32)[2:]...) }), ErrCorrupt},
		{"numBytes as i64", hdr(func(w *tw) { w.field(1, tcI64).zigzag(32).raw(specHeader(32)[2:]...) }), ErrCorrupt},
		{"algorithm as i32", hdr(func(w *tw) { w.field(1, tcI32).zigzag(32).field(1, tcI32).zigzag(1).raw(specHeader(32)[7:]...) }), ErrCorrupt},
		{"empty union", hdr(func(w *tw) { w.field(1, tcI32).zigzag(32).field(1, tcStruct).raw(tcStop).raw(specHeader(32)[6:]...) }), ErrCorrupt},
		{"two members", hdr(func(w *tw) {
			w.field(1, tcI32).zigzag(32).field(1, tcStruct).field(1, tcStruct).raw(tcStop).field(1, tcStruct).raw(tcStop, tcStop).raw(specHeader(32)[6:]...)
		}), ErrCorrupt},
		{"member 1 not a struct", hdr(func(w *tw) {
			w.field(1, tcI32).zigzag(32).field(1, tcStruct).field(1, tcI32).zigzag(0).raw(tcStop).raw(specHeader(32)[6:]...)
		}), ErrCorrupt},
		{"other algorithm", hdr(func(w *tw) { w.field(1, tcI32).zigzag(32).field(1, tcStruct).union(2).raw(specHeader(32)[6:]...) }), ErrUnsupported},
		{"other hash", hdr(func(w *tw) {
			w.field(1, tcI32).zigzag(32).field(1, tcStruct).union(1).field(1, tcStruct).union(7).field(1, tcStruct).union(1).raw(tcStop)
		}), ErrUnsupported},
		// Member 0 (long form; parquet-go reads it as an unknown member)
		// was once taken for member 1.
		{"algorithm member 0", hdr(func(w *tw) {
			w.field(1, tcI32).zigzag(32).field(1, tcStruct).long(tcFalse, 0).raw(tcStop).raw(specHeader(32)[6:]...)
		}), ErrUnsupported},
		{"hash member 0", hdr(func(w *tw) {
			w.field(1, tcI32).zigzag(32).field(1, tcStruct).union(1).field(1, tcStruct).long(tcStruct, 0).raw(tcStop, tcStop).field(1, tcStruct).union(1).raw(tcStop)
		}), ErrUnsupported},
		{"compression member -1", hdr(func(w *tw) {
			w.field(1, tcI32).zigzag(32).field(1, tcStruct).union(1).field(1, tcStruct).union(1).field(1, tcStruct).long(tcTrue, -1).raw(tcStop).raw(tcStop)
		}), ErrUnsupported},
		{"gzip", hdr(func(w *tw) {
			w.field(1, tcI32).zigzag(32).field(1, tcStruct).union(1).field(1, tcStruct).union(1).field(1, tcStruct).union(2).raw(tcStop)
		}), ErrUnsupported},
		{"type 14", hdr(func(w *tw) { w.field(5, 14).raw(specHeader(32)...) }), ErrCorrupt},
		{"type 15", hdr(func(w *tw) { w.long(15, 5).raw(specHeader(32)...) }), ErrCorrupt},
		{"list of type 14", hdr(func(w *tw) { w.field(5, tcList).raw(1<<4 | 14) }), ErrCorrupt},
		{"overlong varint", hdr(func(w *tw) { w.field(1, tcI32).raw(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f) }), ErrCorrupt},
		{"field id 40000", hdr(func(w *tw) { w.raw(tcI32).zigzag(40000).zigzag(1).raw(specHeader(32)...) }), ErrCorrupt},
		{"huge binary", hdr(func(w *tw) { w.field(5, tcBinary).uvarint(1 << 40) }), ErrCorrupt},
		{"huge list", hdr(func(w *tw) { w.field(5, tcList).raw(0xf0 | tcI32).uvarint(1 << 40) }), ErrCorrupt},
		{"list of stops", hdr(func(w *tw) { w.field(5, tcList).raw(1<<4|tcStop, 0) }), ErrCorrupt},
		{"map of type 14", hdr(func(w *tw) { w.field(5, tcMap).uvarint(1).raw(14<<4 | tcI32) }), ErrCorrupt},
		{"deep nesting", hdr(func(w *tw) {
			for range 100 {
				w.field(1, tcStruct)
			}
		}), ErrCorrupt},
		{"deep lists", hdr(func(w *tw) {
			w.field(5, tcList)
			for range 100 {
				w.raw(1<<4 | tcList)
			}
		}), ErrCorrupt},
		{"header over 64 KiB", hdr(func(w *tw) {
			for range 70000 {
				w.field(5, tcTrue)
			}
		}), ErrCorrupt},
	}
	for _, c := range cases {
		_, _, err := ParseParquet(c.data)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: ParseParquet: %v, want %v", c.name, err, c.want)
		}
		_, _, rerr := ReadParquet(bytes.NewReader(c.data))
		if !errors.Is(rerr, c.want) {
			t.Errorf("%s: ReadParquet: %v, want %v", c.name, rerr, c.want)
		}
		_, _, verr := ViewParquet(c.data)
		if !errors.Is(verr, c.want) {
			t.Errorf("%s: ViewParquet: %v, want %v", c.name, verr, c.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "sbbf: ") {
			t.Errorf("%s: error %q lacks the package prefix", c.name, err)
		}
	}
	// WithMaxSize bounds the bitset.
	ok := with(AppendParquetHeader(nil, 1024))
	if _, _, err := ParseParquet(ok, WithMaxSize(512)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("WithMaxSize(512): %v", err)
	}
	if _, _, err := ReadParquet(bytes.NewReader(ok), WithMaxSize(512)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadParquet WithMaxSize(512): %v", err)
	}
	if _, _, err := ParseParquet(ok, WithMaxSize(1024)); err != nil {
		t.Errorf("WithMaxSize(1024): %v", err)
	}
	// I/O errors are passed on, not called truncation.
	if _, _, err := ReadParquet(iotest.ErrReader(io.ErrClosedPipe)); !errors.Is(err, io.ErrClosedPipe) || errors.Is(err, ErrTruncated) {
		t.Errorf("I/O error: %v", err)
	}
	r := io.MultiReader(bytes.NewReader(AppendParquetHeader(nil, 1024)), iotest.ErrReader(io.ErrClosedPipe))
	if _, _, err := ReadParquet(r); !errors.Is(err, io.ErrClosedPipe) || errors.Is(err, ErrTruncated) {
		t.Errorf("I/O error in the bitset: %v", err)
	}
}

// TestParquetHeaderUUID: an unknown field of Thrift's UUID type (compact
// type 13, 16 bytes, which Apache Thrift 0.17 and later read and skip),
// alone, in a list, a set and as a map's key and value, and inside a union
// member, decodes with every decoder to the same filter, and every strict
// prefix of it is ErrTruncated.
func TestParquetHeaderUUID(t *testing.T) {
	const numBytes = 64
	uuid := bytes.Repeat([]byte{tcStruct}, 16) // structs, were they read as types
	headers := map[string][]byte{
		// Field id 5 in long form, then field 1 in long form (a short
		// delta would make it field 6).
		"field": (&tw{}).long(tcUUID, 5).raw(uuid...).long(tcI32, 1).zigzag(numBytes).
			field(1, tcStruct).union(1).field(1, tcStruct).union(1).field(1, tcStruct).union(1).raw(tcStop).b,
		"list": (&tw{}).field(1, tcI32).zigzag(numBytes).field(4, tcList).raw(3<<4|tcUUID).
			raw(uuid...).raw(uuid...).raw(uuid...).long(tcStruct, 2).union(1).
			field(1, tcStruct).union(1).field(1, tcStruct).union(1).raw(tcStop).b,
		"long list": func() []byte {
			w := (&tw{}).field(1, tcI32).zigzag(numBytes).field(4, tcList).raw(0xf0 | tcUUID).uvarint(20)
			for range 20 {
				w.raw(uuid...)
			}
			return w.long(tcStruct, 2).union(1).field(1, tcStruct).union(1).field(1, tcStruct).union(1).raw(tcStop).b
		}(),
		"set and map": (&tw{}).field(1, tcI32).zigzag(numBytes).
			field(4, tcSet).raw(1<<4|tcUUID).raw(uuid...).
			field(1, tcMap).uvarint(2).raw(tcUUID<<4|tcUUID).raw(uuid...).raw(uuid...).raw(uuid...).raw(uuid...).
			long(tcStruct, 2).union(1).field(1, tcStruct).union(1).field(1, tcStruct).union(1).raw(tcStop).b,
		"in a union member": (&tw{}).field(1, tcI32).zigzag(numBytes).
			field(1, tcStruct).field(1, tcStruct).field(3, tcUUID).raw(uuid...).raw(tcStop).raw(tcStop).
			field(1, tcStruct).union(1).field(1, tcStruct).union(1).raw(tcStop).b,
	}
	bitset := bytes.Repeat([]byte{0x0f, 0xf0, 0x3c, 0xc3}, numBytes/4)
	for name, hdr := range headers {
		data := append(bytes.Clone(hdr), bitset...)
		if nb, n, err := DecodeParquetHeader(data); err != nil || nb != numBytes || n != len(hdr) {
			t.Errorf("%s: DecodeParquetHeader: %d bytes, header %d of %d, %v", name, nb, n, len(hdr), err)
			continue
		}
		f, n, err := ParseParquet(data)
		if err != nil || n != len(data) || !bytes.Equal(f.AppendBitset(nil), bitset) {
			t.Errorf("%s: ParseParquet: %d of %d bytes, %v", name, n, len(data), err)
			continue
		}
		g, m, err := ReadParquet(iotest.OneByteReader(bytes.NewReader(data)))
		if err != nil || m != int64(len(data)) || !bytes.Equal(g.AppendBitset(nil), bitset) {
			t.Errorf("%s: ReadParquet: %d, %v", name, m, err)
		}
		v, n, err := ViewParquet(data)
		if err != nil || n != len(data) || v.NumBytes() != numBytes {
			t.Errorf("%s: ViewParquet: %d, %v", name, n, err)
		}
		var u Filter
		if err := u.UnmarshalParquet(data); err != nil || !bytes.Equal(u.AppendBitset(nil), bitset) {
			t.Errorf("%s: UnmarshalParquet: %v", name, err)
		}
		for i := range len(data) {
			if _, _, err := ParseParquet(data[:i]); !errors.Is(err, ErrTruncated) {
				t.Fatalf("%s: ParseParquet of %d/%d bytes: %v", name, i, len(data), err)
			}
			if _, _, err := ReadParquet(bytes.NewReader(data[:i])); !errors.Is(err, ErrTruncated) {
				t.Fatalf("%s: ReadParquet of %d/%d bytes: %v", name, i, len(data), err)
			}
		}
	}
	// A UUID cut short at the end of the input.
	for _, short := range [][]byte{
		(&tw{}).long(tcUUID, 5).raw(uuid[:10]...).b,
		(&tw{}).field(5, tcList).raw(2<<4 | tcUUID).raw(uuid...).raw(uuid[:15]...).b,
	} {
		if _, _, err := DecodeParquetHeader(short); !errors.Is(err, ErrTruncated) {
			t.Errorf("% x: DecodeParquetHeader: %v, want ErrTruncated", short, err)
		}
		if _, _, err := ReadParquet(bytes.NewReader(short)); !errors.Is(err, ErrTruncated) {
			t.Errorf("% x: ReadParquet: %v, want ErrTruncated", short, err)
		}
	}
}

func TestParquetEveryTruncation(t *testing.T) {
	f := mustNew(t, 256)
	f.AddHashes(hashes(50, 3))
	enc, _ := f.MarshalParquet()
	for i := 0; i < len(enc); i++ {
		if _, _, err := ParseParquet(enc[:i]); !errors.Is(err, ErrTruncated) {
			t.Fatalf("ParseParquet of %d/%d bytes: %v", i, len(enc), err)
		}
		if _, _, err := ReadParquet(bytes.NewReader(enc[:i])); !errors.Is(err, ErrTruncated) {
			t.Fatalf("ReadParquet of %d/%d bytes: %v", i, len(enc), err)
		}
	}
}

// TestParquetBoundedMemory: a header declaring the largest bitset over a
// short stream allocates little.
func TestParquetBoundedMemory(t *testing.T) {
	data := append(AppendParquetHeader(nil, math.MaxInt32&^31), make([]byte, 100)...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _, err := ReadParquet(bytes.NewReader(data))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTruncated) {
		t.Fatal(err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 256<<10 {
		t.Fatalf("ReadParquet allocated %d bytes for a %d-byte input", d, len(data))
	}
}

func TestFromBitset(t *testing.T) {
	for _, n := range []int{0, 31, 33, 100} {
		if _, err := FromBitset(make([]byte, n)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
	b := bytes.Repeat([]byte{1, 2, 3, 4}, 16)
	f, err := FromBitset(b)
	if err != nil || !bytes.Equal(f.AppendBitset(nil), b) || f.blocks[0][0] != 0x04030201 {
		t.Fatalf("FromBitset: %v", err)
	}
}

// TestParquetBitsetLikeASiftFile: behind a Parquet header any bytes are a
// bitset, even a sift record's: every Parquet decoder takes them. (FromBitset
// alone refuses a bitset that begins with a valid sift header, since a
// caller handing it a whole file meant FromBytes; ParseParquet and
// UnmarshalParquet went through it and refused what ReadParquet and
// ViewParquet took.)
func TestParquetBitsetLikeASiftFile(t *testing.T) {
	f, err := NewWithSize(256)
	if err != nil {
		t.Fatal(err)
	}
	f.AddString("k")
	rec, _ := f.MarshalBinary()
	if len(rec)%BlockBytes != 0 {
		t.Fatalf("a %d-byte record: the test wants whole blocks", len(rec))
	}
	pq := append(AppendParquetHeader(nil, int32(len(rec))), rec...)
	want := pq
	check := func(name string, g interface{ MarshalParquet() ([]byte, error) }, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		got, err := g.MarshalParquet()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: the filter's Parquet form differs from the input (err %v)", name, err)
		}
	}
	g, _, err := ParseParquet(pq)
	check("ParseParquet", g, err)
	g, _, err = ReadParquet(bytes.NewReader(pq))
	check("ReadParquet", g, err)
	var u Filter
	check("UnmarshalParquet", &u, u.UnmarshalParquet(pq))
	if v, _, err := ViewParquet(pq); err != nil {
		t.Errorf("ViewParquet: %v", err)
	} else {
		v.Close()
	}
	if _, err := FromBitset(rec); !errors.Is(err, ErrCorrupt) {
		t.Errorf("FromBitset of a sift record: %v, want ErrCorrupt", err)
	}
}

// TestParquetSiftFileHint: a sift file handed to the Parquet decoders is
// named as one (its magic parsed as Thrift fields, and the error was
// "lacks its required field numBytes").
func TestParquetSiftFileHint(t *testing.T) {
	f, err := New(100, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := f.MarshalBinary()
	_, _, err1 := ParseParquet(b)
	_, _, err2 := ReadParquet(bytes.NewReader(b))
	_, _, err3 := DecodeParquetHeader(b)
	_, _, err4 := ViewParquet(b)
	_, _, err5 := ReadParquet(iotest.OneByteReader(bytes.NewReader(b)))
	for i, err := range []error{err1, err2, err3, err4, err5} {
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(fmt.Sprint(err), "is a sift file") {
			t.Errorf("decoder %d: %v, want ErrCorrupt saying the input is a sift file", i+1, err)
		}
	}
}
