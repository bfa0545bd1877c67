package classic

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/sift-go/sift/internal/mem"
)

func sampleFilter(t testing.TB, n int64, fpp float64, s Strategy) *Filter {
	t.Helper()
	f, err := New(n, fpp, WithStrategy(s))
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < n; i++ {
		f.PutInt64(i * 7919)
	}
	return f
}

func guavaStream(strategy, k byte, words int32, payload []uint64) []byte {
	b := []byte{strategy, k}
	b = binary.BigEndian.AppendUint32(b, uint32(words))
	for _, w := range payload {
		b = binary.BigEndian.AppendUint64(b, w)
	}
	return b
}

func checkDecodeErr(t *testing.T, err error, sentinel error, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	if !errors.Is(err, sentinel) {
		t.Fatalf("%s: %v, want %v", what, err, sentinel)
	}
	if !strings.HasPrefix(err.Error(), "classic: ") {
		t.Fatalf("%s: error %q lacks the package prefix", what, err)
	}
}

func TestGuavaRoundTrip(t *testing.T) {
	for _, s := range []Strategy{Murmur128Mitz32, Murmur128Mitz64} {
		for _, f := range []*Filter{
			sampleFilter(t, 0, 0.5, s),
			sampleFilter(t, 1000, 0.01, s),
			sampleFilter(t, 20000, 1e-5, s), // several write chunks
			newFilter([]uint64{^uint64(0), 0, 1}, 255, s),
		} {
			var buf bytes.Buffer
			n, err := f.WriteGuava(&buf)
			if err != nil || n != f.GuavaSize() || int64(buf.Len()) != n {
				t.Fatalf("WriteGuava = %d, %v; GuavaSize %d, wrote %d", n, err, f.GuavaSize(), buf.Len())
			}
			prefix := []byte("prefix")
			if app, err := f.AppendGuava(bytes.Clone(prefix)); err != nil || !bytes.Equal(app, append(prefix, buf.Bytes()...)) {
				t.Fatalf("WriteGuava and AppendGuava disagree (%v)", err)
			}
			g, err := ReadGuava(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("ReadGuava: %v", err)
			}
			if !g.Equal(f) || g.BitCount() != f.BitCount() || g.ExpectedFpp() != f.ExpectedFpp() {
				t.Fatal("round trip changed the filter")
			}
			// Guava's bytes are not sift's: each reader refuses the other.
			if _, err := ReadFilter(bytes.NewReader(buf.Bytes())); !errors.Is(err, ErrMagic) && !errors.Is(err, ErrTruncated) {
				t.Fatalf("ReadFilter of Guava's bytes: %v", err)
			}
			var native bytes.Buffer
			if _, err := f.WriteTo(&native); err != nil {
				t.Fatal(err)
			}
			if h, err := ReadGuava(bytes.NewReader(native.Bytes())); err == nil && h.Equal(f) {
				t.Fatal("WriteTo wrote Guava's format")
			}
			// One byte at a time, and through a reader that returns data with EOF.
			for _, r := range []io.Reader{
				iotest.OneByteReader(bytes.NewReader(buf.Bytes())),
				iotest.DataErrReader(bytes.NewReader(buf.Bytes())),
				iotest.HalfReader(bytes.NewReader(buf.Bytes())),
			} {
				h, err := ReadGuava(r)
				if err != nil || !h.Equal(f) {
					t.Fatalf("ReadGuava through a slow reader: %v", err)
				}
			}
		}
	}
}

// TestGuavaReadsExactly checks that a reader stops at the filter's end, so
// streams holding several filters or other data after one work.
func TestGuavaReadsExactly(t *testing.T) {
	a := sampleFilter(t, 100, 0.01, Murmur128Mitz64)
	b := sampleFilter(t, 300, 0.001, Murmur128Mitz32)
	stream := append(mustGuava(a), mustGuava(b)...)
	stream = append(stream, "tail"...)
	r := bytes.NewReader(stream)
	ga, err := ReadGuava(r)
	if err != nil || !ga.Equal(a) {
		t.Fatalf("first filter: %v", err)
	}
	gb, err := ReadGuava(r)
	if err != nil || !gb.Equal(b) {
		t.Fatalf("second filter: %v", err)
	}
	rest, _ := io.ReadAll(r)
	if string(rest) != "tail" {
		t.Fatalf("reader consumed past the filters: rest %q", rest)
	}
}

func TestGuavaDecodeErrors(t *testing.T) {
	valid := mustGuava(sampleFilter(t, 50, 0.01, Murmur128Mitz64))
	// Every truncation of a valid stream.
	for n := 0; n < len(valid); n++ {
		f, err := ReadGuava(bytes.NewReader(valid[:n]))
		if f != nil {
			t.Fatalf("truncated at %d: got a filter", n)
		}
		checkDecodeErr(t, err, ErrTruncated, "truncated stream")
	}
	for _, c := range []struct {
		name     string
		in       []byte
		sentinel error
	}{
		{"strategy 2", guavaStream(2, 3, 1, []uint64{1}), ErrCorrupt},
		{"strategy 0x7f", guavaStream(0x7f, 3, 1, []uint64{1}), ErrCorrupt},
		{"strategy -1", guavaStream(0xff, 3, 1, []uint64{1}), ErrCorrupt},
		{"strategy -128", guavaStream(0x80, 3, 1, []uint64{1}), ErrCorrupt},
		{"k = 0", guavaStream(1, 0, 1, []uint64{1}), ErrCorrupt},
		{"0 words", guavaStream(1, 3, 0, nil), ErrCorrupt},
		{"-1 words", guavaStream(1, 3, -1, []uint64{1}), ErrCorrupt},
		{"MinInt32 words", guavaStream(1, 3, -1<<31, []uint64{1}), ErrCorrupt},
		{"2 words, 1 given", guavaStream(1, 3, 2, []uint64{1}), ErrTruncated},
		{"2^31-1 words, 1 given", guavaStream(1, 3, 1<<31-1, []uint64{1}), hugeErr(8 << 31)},
		{"2^31-1 words, 3.5 given", append(guavaStream(0, 3, 1<<31-1, []uint64{1, 2, 3}), 1, 2, 3, 4), hugeErr(8 << 31)},
		{"empty", nil, ErrTruncated},
		{"header only", guavaStream(1, 3, 5, nil), ErrTruncated},
	} {
		f, err := ReadGuava(bytes.NewReader(c.in))
		if f != nil {
			t.Errorf("%s: got a filter", c.name)
		}
		checkDecodeErr(t, err, c.sentinel, c.name)
	}
	// k = 255 is legal (an unsigned byte), as in Guava.
	if f, err := ReadGuava(bytes.NewReader(guavaStream(1, 255, 1, []uint64{1}))); err != nil || f.NumHashFunctions() != 255 {
		t.Fatalf("k = 255: %v", err)
	}
}

func TestGuavaMaxBytes(t *testing.T) {
	f := sampleFilter(t, 50, 0.01, Murmur128Mitz64)
	valid := mustGuava(f)
	words := uint64(f.BitSize() / 8)
	g, err := ReadGuava(bytes.NewReader(valid), WithMaxSize(words))
	if err != nil {
		t.Fatalf("limit equal to the size: %v", err)
	}
	_, err = ReadGuava(bytes.NewReader(valid), WithMaxSize(words-1))
	checkDecodeErr(t, err, ErrTooLarge, "limit one byte short")
	// The filter keeps its bound for the decoders of sift's format.
	big, _ := sampleFilter(t, 5000, 0.01, Murmur128Mitz64).MarshalBinary()
	err = g.UnmarshalBinary(big)
	checkDecodeErr(t, err, ErrTooLarge, "UnmarshalBinary of a larger filter into a bounded one")
	_, err = g.ReadFrom(bytes.NewReader(big))
	checkDecodeErr(t, err, ErrTooLarge, "ReadFrom of a larger filter into a bounded one")
	if !g.Equal(f) {
		t.Fatal("a refused decode changed the filter")
	}
	_, err = ReadGuava(bytes.NewReader(guavaStream(1, 3, 1<<31-1, nil)), WithMaxSize(1<<20))
	checkDecodeErr(t, err, ErrTooLarge, "2^31-1 words over a 1 MiB limit")
}

type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

type failingWriter struct{ left int }

var errWrite = errors.New("write failed")

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		n := w.left
		w.left = 0
		return n, errWrite
	}
	w.left -= len(p)
	return len(p), nil
}

func TestGuavaIOErrors(t *testing.T) {
	valid := mustGuava(sampleFilter(t, 5000, 0.01, Murmur128Mitz64))
	errBoom := errors.New("boom")
	for _, cut := range []int{0, 3, 6, 100, len(valid) - 1} {
		_, err := ReadGuava(&failingReader{data: valid[:cut], err: errBoom})
		if !errors.Is(err, errBoom) || !strings.HasPrefix(err.Error(), "classic: ") {
			t.Fatalf("reader error at %d: %v", cut, err)
		}
	}
	f := sampleFilter(t, 5000, 0.01, Murmur128Mitz64)
	for _, left := range []int{0, 5, 100, len(valid) - 1} {
		n, err := f.WriteGuava(&failingWriter{left: left})
		if !errors.Is(err, errWrite) || n != int64(left) {
			t.Fatalf("WriteGuava with a writer failing after %d bytes = %d, %v", left, n, err)
		}
	}
}

// TestGuavaDecodeMemory checks that memory follows the bytes supplied, not
// the word count declared.
func TestGuavaDecodeMemory(t *testing.T) {
	declared := int32(min(1<<31-1, math.MaxInt/8-1)) // the largest this platform accepts
	for _, supplied := range []int{0, 100, 100000} {
		in := guavaStream(1, 3, declared, make([]uint64, supplied))
		alloc := allocatedBytes(func() {
			if _, err := ReadGuava(bytes.NewReader(in)); !errors.Is(err, hugeErr(8*uint64(declared))) {
				t.Errorf("supplied %d words: %v", supplied, err)
			}
		})
		if limit := uint64(64<<10 + 3*8*supplied); alloc > limit {
			t.Errorf("declared %d words, supplied %d: allocated %d bytes (limit %d)", declared, supplied, alloc, limit)
		}
	}
}

// hugeErr is the error of a stream decoder for a truncated input that
// declares size bytes: on platforms that cannot address that much, and on
// machines with less memory, the size itself is refused first.
func hugeErr(size uint64) error {
	if m := mem.MachineMemory(); size > math.MaxInt || m != 0 && size > m {
		return ErrTooLarge
	}
	return ErrTruncated
}

// mustGuava is AppendGuava(nil) for a filter that has a Guava form.
func mustGuava(f *Filter) []byte {
	b, err := f.AppendGuava(nil)
	if err != nil {
		panic(err)
	}
	return b
}

func allocatedBytes(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestGuavaReadOfSiftFile: ReadGuava of a sift file says so and names
// ReadFilter (it said "unknown strategy ordinal -119").
func TestGuavaReadOfSiftFile(t *testing.T) {
	f, err := New(100, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	f.PutString("x")
	enc, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	_, err = ReadGuava(bytes.NewReader(enc))
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "sift file") || !strings.Contains(err.Error(), "ReadFilter") {
		t.Errorf("ReadGuava of a sift file: %v", err)
	}
	if g, err := ReadFilter(bytes.NewReader(enc)); err != nil || !g.MightContainString("x") {
		t.Errorf("ReadFilter: %v", err)
	}
}
