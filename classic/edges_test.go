package classic

import (
	"bytes"
	"testing"

	"github.com/sift-go/sift/internal/edgetest"
	"github.com/sift-go/sift/internal/mem"
)

func wantPanic(t *testing.T, what string, f func()) {
	t.Helper()
	edgetest.WantPanic(t, "classic: ", what, ErrClosed, f)
}

func wantErr(t *testing.T, what string, err, sentinel error) {
	t.Helper()
	edgetest.WantErr(t, "classic: ", what, err, sentinel)
}

// TestConstructorMaxSize: New and NewCounting take WithMaxSize (neither had
// a size option), and New refuses a seed (Guava hashes with seed 0).
func TestConstructorMaxSize(t *testing.T) {
	_, err := New(1e6, 0.01, WithMaxSize(1<<20))
	wantErr(t, "New over WithMaxSize", err, ErrTooLarge)
	_, err = NewCounting(1e6, 0.01, WithMaxSize(1<<20))
	wantErr(t, "NewCounting over WithMaxSize", err, ErrTooLarge)
	if f, err := New(1e5, 0.01, WithMaxSize(1<<20)); err != nil || f.BitSize() > 8<<20 {
		t.Fatalf("New under WithMaxSize: %v", err)
	}
	if c, err := NewCounting(1e5, 0.01, WithMaxSize(1<<20), WithSeed(3)); err != nil || c.SizeBytes() > 1<<20 || c.Seed() != 3 {
		t.Fatalf("NewCounting under WithMaxSize: %v", err)
	}
	_, err = New(100, 0.01, WithSeed(1))
	wantErr(t, "New with a seed", err, ErrInvalidArgument)
	// Guava's own limit, 2^31-1 words: also ErrTooLarge.
	_, err = New(1<<40, 0.01)
	wantErr(t, "New beyond MaxWords", err, ErrInvalidArgument)
	wantErr(t, "New beyond MaxWords", err, ErrTooLarge)
	// A big filter lives in a mapping and works.
	f, err := New(1e7, 0.01)
	if err != nil || (f.region.Mapped() != (8*len(f.words) >= mem.HugeThreshold)) && isUnix {
		t.Fatalf("New(1e7): %v, mapped %v", err, f.region.Mapped())
	}
	f.PutString("x")
	g := f.Clone()
	if !f.MightContainString("x") || !g.MightContainString("x") || g.region.Mapped() != f.region.Mapped() {
		t.Fatal("lost a key, or the clone's memory is not the original's kind")
	}
	// Close frees the mapping at once and leaves a filter that fails
	// loudly, which a decoder makes a filter again.
	enc, _ := g.MarshalBinary()
	region := f.region
	if err := f.Close(); err != nil || region.Mapped() || f.words != nil {
		t.Fatalf("Close: %v, still mapped %v", err, region.Mapped())
	}
	wantPanic(t, "closed Filter.MightContainString", func() { f.MightContainString("x") })
	if err := f.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := f.UnmarshalBinary(enc); err != nil || !f.MightContainString("x") {
		t.Fatalf("UnmarshalBinary after Close: %v", err)
	}
	c, err := NewCounting(1e6, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	c.AddString("y")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	wantPanic(t, "closed Counting.ContainsString", func() { c.ContainsString("y") })
	wantErr(t, "closed Counting.Remove", c.RemoveString("y"), ErrClosed)
}

// TestHugeConstructors runs the constructors, in a child process, on sizes
// beyond this machine: each must return an error wrapping
// ErrTooLarge. Before, NewCounting(2^40, 0.01) asked the Go heap for
// 5 TB and the process died ("fatal error: out of memory"). New's largest
// filter, Guava's 16 GiB, is beyond only a machine with less memory.
func TestHugeConstructors(t *testing.T) {
	edgetest.Huge(t, "TestHugeConstructors", mem.MachineMemory(), []edgetest.Case{
		{Name: "NewCounting(2^40, 0.01)", Bytes: 5 << 40, Make: func() error { _, err := NewCounting(1<<40, 0.01); return err }},
		{Name: "NewCounting(4e9, 0.001)", Bytes: 29e9, Make: func() error { _, err := NewCounting(4e9, 0.001); return err }},
		{Name: "New(9e9, 0.001)", Bytes: 16e9, Make: func() error { _, err := New(9e9, 0.001); return err }},
	})
}

// TestZeroValues: the zero Filter and Counting fail loudly. Before, both
// answered true for every key, a zero Counting's Remove succeeded, and
// MarshalBinary returned a record no decoder accepts.
func TestZeroValues(t *testing.T) {
	var f Filter
	wantPanic(t, "Filter{}.MightContain", func() { f.MightContain([]byte("x")) })
	wantPanic(t, "Filter{}.MightContainString", func() { f.MightContainString("x") })
	wantPanic(t, "Filter{}.MightContainInt64", func() { f.MightContainInt64(1) })
	wantPanic(t, "Filter{}.Put", func() { f.Put([]byte("x")) })
	wantPanic(t, "Filter{}.PutInt32", func() { f.PutInt32(1) })
	wantPanic(t, "Filter{}.ExpectedFpp", func() { f.ExpectedFpp() })
	wantPanic(t, "Filter{}.ApproximateElementCount", func() { f.ApproximateElementCount() })
	wantPanic(t, "Filter{}.StrictExpectedFpp", func() { f.StrictExpectedFpp() })
	wantPanic(t, "Filter{}.Reset", func() { f.Reset() })
	wantPanic(t, "Filter{}.Clone", func() { f.Clone() })
	prefix := []byte("prefix")
	b, err := f.AppendGuava(prefix)
	wantErr(t, "Filter{}.AppendGuava", err, ErrClosed)
	if string(b) != "prefix" {
		t.Errorf("Filter{}.AppendGuava changed b: %q", b)
	}
	b, err = f.AppendBinary(prefix)
	wantErr(t, "Filter{}.AppendBinary", err, ErrClosed)
	if string(b) != "prefix" {
		t.Errorf("Filter{}.AppendBinary changed b: %q", b)
	}
	_, err = f.MarshalBinary()
	wantErr(t, "Filter{}.MarshalBinary", err, ErrClosed)
	_, err = f.WriteTo(&bytes.Buffer{})
	wantErr(t, "Filter{}.WriteTo", err, ErrClosed)
	_, err = f.WriteGuava(&bytes.Buffer{})
	wantErr(t, "Filter{}.WriteGuava", err, ErrClosed)
	if n := f.GuavaSize(); n != 0 {
		t.Errorf("Filter{}.GuavaSize = %d, want 0 (no Guava form)", n)
	}
	g, _ := New(100, 0.01)
	wantErr(t, "PutAll(Filter{})", g.PutAll(&f), ErrClosed)
	wantErr(t, "Filter{}.PutAll", f.PutAll(g), ErrClosed)
	g.PutString("k")
	enc, _ := g.MarshalBinary()
	if err := f.UnmarshalBinary(enc); err != nil || !f.MightContainString("k") {
		t.Fatalf("Filter{}.UnmarshalBinary: %v", err)
	}

	var c Counting
	wantPanic(t, "Counting{}.Contains", func() { c.Contains([]byte("x")) })
	wantPanic(t, "Counting{}.ContainsUint64", func() { c.ContainsUint64(1) })
	wantPanic(t, "Counting{}.Add", func() { c.Add([]byte("x")) })
	wantPanic(t, "Counting{}.ExpectedFpp", func() { c.ExpectedFpp() })
	wantPanic(t, "Counting{}.EstimatedCount", func() { c.EstimatedCount() })
	wantPanic(t, "Counting{}.Reset", func() { c.Reset() })
	wantPanic(t, "Counting{}.Clone", func() { c.Clone() })
	_, err = c.AppendBinary(nil)
	wantErr(t, "Counting{}.AppendBinary", err, ErrClosed)
	wantErr(t, "Counting{}.Remove", c.Remove([]byte("x")), ErrClosed)
	_, err = c.MarshalBinary()
	wantErr(t, "Counting{}.MarshalBinary", err, ErrClosed)
	_, err = c.WriteTo(&bytes.Buffer{})
	wantErr(t, "Counting{}.WriteTo", err, ErrClosed)
	d, _ := NewCounting(100, 0.01)
	wantErr(t, "Union(Counting{})", d.Union(&c), ErrClosed)
	d.AddString("k")
	enc, _ = d.MarshalBinary()
	if err := c.UnmarshalBinary(enc); err != nil || !c.ContainsString("k") {
		t.Fatalf("Counting{}.UnmarshalBinary: %v", err)
	}
}

// TestErrorPrefixes: decoding errors read "classic: ..." once (they read
// "classic: sift: truncated input..." before) and wrap the sentinel.
func TestErrorPrefixes(t *testing.T) {
	f, _ := New(100, 0.01)
	enc, _ := f.MarshalBinary()
	var g Filter
	wantErr(t, "UnmarshalBinary of a cut filter", g.UnmarshalBinary(enc[:len(enc)-1]), ErrTruncated)
	_, err := ReadFilter(bytes.NewReader(enc[:100]))
	wantErr(t, "ReadFilter of a cut header", err, ErrTruncated)
	_, err = ReadFilter(bytes.NewReader(enc), WithMaxSize(8))
	wantErr(t, "ReadFilter over its limit", err, ErrTooLarge)
	c, _ := NewCounting(100, 0.01)
	enc, _ = c.MarshalBinary()
	_, err = ReadCounting(bytes.NewReader(enc[:len(enc)-3]))
	wantErr(t, "ReadCounting of a cut filter", err, ErrTruncated)
	var d Counting
	wantErr(t, "Counting.UnmarshalBinary of a Filter", d.UnmarshalBinary(func() []byte { b, _ := f.MarshalBinary(); return b }()), ErrKind)
	_, err = NewCounting(1, 1.5)
	wantErr(t, "NewCounting(1, 1.5)", err, ErrInvalidArgument)
}
