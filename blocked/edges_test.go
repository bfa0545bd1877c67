package blocked

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sift-go/sift/internal/edgetest"
	"github.com/sift-go/sift/internal/mem"
)

func wantPanic(t *testing.T, what string, sentinel error, f func()) {
	t.Helper()
	edgetest.WantPanic(t, "blocked: ", what, sentinel, f)
}

func wantErr(t *testing.T, what string, err, sentinel error) {
	t.Helper()
	edgetest.WantErr(t, "blocked: ", what, err, sentinel)
}

// TestConstructorMaxSize: every constructor honours WithMaxSize, which
// they all ignored before (only Open and FromBytes read it).
func TestConstructorMaxSize(t *testing.T) {
	const limit = 1 << 20
	over := []struct {
		name string
		make func(...Option) error
	}{
		{"New", func(o ...Option) error { _, err := New(1e6, 0.01, o...); return err }},
		{"NewWithSize", func(o ...Option) error { _, err := NewWithSize(8*limit+512, 8, o...); return err }},
		{"NewConcurrent", func(o ...Option) error { _, err := NewConcurrent(1e6, 0.01, o...); return err }},
		{"NewConcurrentWithSize", func(o ...Option) error { _, err := NewConcurrentWithSize(8*limit+512, 8, o...); return err }},
		{"NewScalable", func(o ...Option) error { _, err := NewScalable(1e6, 0.01, o...); return err }},
	}
	for _, c := range over {
		wantErr(t, c.name+" over WithMaxSize", c.make(WithMaxSize(limit)), ErrTooLarge)
		if err := c.make(WithMaxSize(64 << 20)); err != nil {
			t.Errorf("%s under WithMaxSize: %v", c.name, err)
		}
	}
	f, err := NewWithSize(8*limit, 8, WithMaxSize(limit))
	if err != nil || f.Bits() != 8*limit {
		t.Fatalf("NewWithSize at exactly WithMaxSize: %v", err)
	}
	// A Scalable stops growing where the next stage would pass the limit:
	// its Add fails and adds nothing, and what it holds stays findable.
	s, err := NewScalable(1000, 0.01, WithMaxSize(16<<10))
	if err != nil {
		t.Fatal(err)
	}
	var added uint64
	for ; added < 1e6; added++ {
		if err = s.AddUint64(added); err != nil {
			break
		}
	}
	wantErr(t, "Scalable growing past WithMaxSize", err, ErrTooLarge)
	if !strings.Contains(err.Error(), "of 16384 bytes") { // the limit, not what is left of it
		t.Errorf("the error does not name the limit: %v", err)
	}
	if s.Bits()/8 > 16<<10 || s.Count() > added || s.Stages() < 2 {
		t.Fatalf("%d stages, %d bits, %d keys of %d", s.Stages(), s.Bits(), s.Count(), added)
	}
	for i := range added {
		if !s.ContainsUint64(i) {
			t.Fatalf("key %d lost", i)
		}
	}
}

// TestHugeConstructors runs each constructor, in a child process, on a size
// beyond this machine's memory: each must return an error wrapping
// ErrTooLarge. Before, the mapping's refusal fell back to the Go heap,
// whose refusal ends the process ("fatal error: out of memory"), which
// would have killed this test binary.
func TestHugeConstructors(t *testing.T) {
	// About 250 GiB each.
	edgetest.Huge(t, "TestHugeConstructors", mem.MachineMemory(), []edgetest.Case{
		{Name: "New(2e11, 0.01)", Bytes: 250 << 30, Make: func() error { _, err := New(200e9, 0.01); return err }},
		{Name: "NewWithSize(MaxBits, 8)", Bytes: MaxBits / 8, Make: func() error { _, err := NewWithSize(MaxBits, 8); return err }},
		{Name: "NewConcurrent(2e11, 0.01)", Bytes: 250 << 30, Make: func() error { _, err := NewConcurrent(200e9, 0.01); return err }},
		{Name: "NewConcurrentWithSize(MaxBits, 8)", Bytes: MaxBits / 8, Make: func() error { _, err := NewConcurrentWithSize(MaxBits, 8); return err }},
		{Name: "NewScalable(2e11, 0.01)", Bytes: 250 << 30, Make: func() error { _, err := NewScalable(200e9, 0.01); return err }},
	})
}

// TestMinFPP: rates below MinFPP are refused with ErrFPPTooLow, which
// names the classic filter; before, 1e-9 took 126 bits per key and 1e-12
// reserved 119,209 (15 GB for a million keys).
func TestMinFPP(t *testing.T) {
	for _, fpp := range []float64{9.9e-9, 1e-9, 1e-10, 1e-12, 1e-300} {
		_, _, err := OptimalSize(1e6, fpp)
		wantErr(t, fmt.Sprintf("OptimalSize(1e6, %g)", fpp), err, ErrFPPTooLow)
		if err != nil && !strings.Contains(err.Error(), "package classic") {
			t.Errorf("OptimalSize(1e6, %g): %v does not name the filter that serves it", fpp, err)
		}
	}
	_, err := New(1e6, 1e-9)
	wantErr(t, "New(1e6, 1e-9)", err, ErrFPPTooLow)
	_, err = NewConcurrent(1e6, 1e-9)
	wantErr(t, "NewConcurrent(1e6, 1e-9)", err, ErrFPPTooLow)
	// The first stage of NewScalable(n, 1e-8) is sized for 1e-8*(1-0.85).
	_, err = NewScalable(1000, 1e-8)
	wantErr(t, "NewScalable(1000, 1e-8)", err, ErrFPPTooLow)
	// MinFPP itself is served, within twice the classic optimum.
	bits, _, err := OptimalSize(1e6, MinFPP)
	if err != nil || float64(bits)/1e6 > 2*classicBitsPerKey(MinFPP) {
		t.Fatalf("OptimalSize(1e6, MinFPP): %d bits, %v", bits, err)
	}
	// A Scalable's stages tighten geometrically: the stage that would go
	// below MinFPP is refused (with r = 0.5, stage 6 of a chain for 1e-6,
	// sized for 7.8e-9, after 10+20+...+320 = 630 keys), and what the
	// chain holds stays.
	s, err := NewScalable(10, 1e-6, WithTightening(0.5))
	if err != nil {
		t.Fatal(err)
	}
	var added uint64
	for ; added < 2000; added++ {
		if err = s.AddUint64(added); err != nil {
			break
		}
	}
	wantErr(t, "Scalable past MinFPP", err, ErrFPPTooLow)
	wantErr(t, "Scalable past MinFPP", err, ErrTooLarge)
	if added != 630 || s.Stages() != 6 {
		t.Errorf("the chain stopped after %d keys, %d stages; want 630, 6", added, s.Stages())
	}
	for i := range added {
		if !s.ContainsUint64(i) {
			t.Fatalf("key %d lost", i)
		}
	}
}

// closedOrZero checks what every method of a filter without blocks does:
// error-returning methods return ErrClosed, the others panic with an
// error wrapping it (the single-key probes of Filter and View from the
// kernel's Go fallback, where the assembly sends an empty filter).
func checkFilterUnusable(t *testing.T, name string, f *Filter) {
	hs, out := []uint64{1, 2, 3}, make([]bool, 3)
	_, err := f.MarshalBinary()
	wantErr(t, name+".MarshalBinary", err, ErrClosed)
	_, err = f.WriteTo(&bytes.Buffer{})
	wantErr(t, name+".WriteTo", err, ErrClosed)
	g := mustNew(t, 100, 0.01)
	wantErr(t, name+".Union", f.Union(g), ErrClosed)
	wantErr(t, name+".Intersect", g.Intersect(f), ErrClosed)
	// A nil other is ErrIncompatible, as in every package; a closed f
	// is ErrClosed first.
	wantErr(t, "Union(nil)", g.Union(nil), ErrIncompatible)
	wantErr(t, "Intersect(nil)", g.Intersect(nil), ErrIncompatible)
	wantErr(t, name+".Union(nil)", f.Union(nil), ErrClosed)
	wantErr(t, name+".Intersect(nil)", f.Intersect(nil), ErrClosed)
	wantPanic(t, name+".FPP", ErrClosed, func() { f.FPP() })
	wantPanic(t, name+".EstimatedCount", ErrClosed, func() { f.EstimatedCount() })
	wantPanic(t, name+".AddHashes", ErrClosed, func() { f.AddHashes(hs) })
	wantPanic(t, name+".AddHashes(one)", ErrClosed, func() { f.AddHashes(hs[:1]) })
	wantPanic(t, name+".ContainsHashes", ErrClosed, func() { f.ContainsHashes(hs, out) })
	wantPanic(t, name+".ContainsHashes(one)", ErrClosed, func() { f.ContainsHashes(hs[:1], out) })
	wantPanic(t, name+".AddHashes(nil)", ErrClosed, func() { f.AddHashes(nil) })
	wantPanic(t, name+".ContainsHashes(nil)", ErrClosed, func() { f.ContainsHashes(nil, nil) })
	wantPanic(t, name+".AddNewHashes(nil)", ErrClosed, func() { f.AddNewHashes(nil, nil) })
	wantPanic(t, name+".Reset", ErrClosed, func() { f.Reset() })
	wantPanic(t, name+".Clone", ErrClosed, func() { f.Clone() })
	wantPanic(t, name+".ContainsUint64", ErrClosed, func() { f.ContainsUint64(1) })
	wantPanic(t, name+".AddUint64", ErrClosed, func() { f.AddUint64(1) })
	wantPanic(t, name+".ContainsHash", ErrClosed, func() { f.ContainsHash(1) })
	wantPanic(t, name+".AddHash", ErrClosed, func() { f.AddHash(1) })
	if f.Bits() != 0 || f.Blocks() != 0 {
		t.Errorf("%s: %d bits", name, f.Bits())
	}
	if err := f.Close(); err != nil {
		t.Errorf("%s.Close: %v", name, err)
	}
	// Decoding makes it a filter again.
	g.AddUint64(7)
	enc, _ := g.MarshalBinary()
	if err := f.UnmarshalBinary(enc); err != nil || !f.ContainsUint64(7) {
		t.Errorf("%s.UnmarshalBinary: %v", name, err)
	}
}

func checkConcurrentUnusable(t *testing.T, name string, c *Concurrent) {
	hs, out := []uint64{1, 2, 3}, make([]bool, 3)
	_, err := c.MarshalBinary()
	wantErr(t, name+".MarshalBinary", err, ErrClosed)
	_, err = c.WriteTo(&bytes.Buffer{})
	wantErr(t, name+".WriteTo", err, ErrClosed)
	d, _ := NewConcurrent(100, 0.01)
	wantErr(t, name+".Union", c.Union(d), ErrClosed)
	wantErr(t, name+".Union(closed)", d.Union(c), ErrClosed)
	wantErr(t, "Concurrent.Union(nil)", d.Union(nil), ErrIncompatible)
	wantErr(t, name+".Union(nil)", c.Union(nil), ErrClosed)
	wantPanic(t, name+".FPP", ErrClosed, func() { c.FPP() })
	wantPanic(t, name+".EstimatedCount", ErrClosed, func() { c.EstimatedCount() })
	wantPanic(t, name+".AddUint64", ErrClosed, func() { c.AddUint64(1) })
	wantPanic(t, name+".ContainsUint64", ErrClosed, func() { c.ContainsUint64(1) })
	wantPanic(t, name+".AddHashes", ErrClosed, func() { c.AddHashes(hs) })
	wantPanic(t, name+".ContainsHashes", ErrClosed, func() { c.ContainsHashes(hs, out) })
	wantPanic(t, name+".AddHashes(nil)", ErrClosed, func() { c.AddHashes(nil) })
	wantPanic(t, name+".ContainsHashes(nil)", ErrClosed, func() { c.ContainsHashes(nil, nil) })
	wantPanic(t, name+".AddNewHashes(nil)", ErrClosed, func() { c.AddNewHashes(nil, nil) })
	wantPanic(t, name+".Reset", ErrClosed, func() { c.Reset() })
	wantPanic(t, name+".Clone", ErrClosed, func() { c.Clone() })
	wantPanic(t, name+".Filter", ErrClosed, func() { c.Filter() })
	if err := c.Close(); err != nil {
		t.Errorf("%s.Close: %v", name, err)
	}
}

func checkViewUnusable(t *testing.T, name string, v *View) {
	hs, out := []uint64{1, 2, 3}, make([]bool, 3)
	_, err := v.MarshalBinary()
	wantErr(t, name+".MarshalBinary", err, ErrClosed)
	_, err = v.WriteTo(&bytes.Buffer{})
	wantErr(t, name+".WriteTo", err, ErrClosed)
	wantPanic(t, name+".FPP", ErrClosed, func() { v.FPP() })
	wantPanic(t, name+".EstimatedCount", ErrClosed, func() { v.EstimatedCount() })
	wantPanic(t, name+".ContainsHashes", ErrClosed, func() { v.ContainsHashes(hs, out) })
	wantPanic(t, name+".ContainsHashes(one)", ErrClosed, func() { v.ContainsHashes(hs[:1], out) })
	wantPanic(t, name+".Clone", ErrClosed, func() { v.Clone() })
	wantPanic(t, name+".ContainsUint64", ErrClosed, func() { v.ContainsUint64(1) })
	wantPanic(t, name+".ContainsHash", ErrClosed, func() { v.ContainsHash(1) })
	if err := v.Close(); err != nil {
		t.Errorf("%s.Close: %v", name, err)
	}
}

func checkScalableUnusable(t *testing.T, name string, s *Scalable) {
	hs, out := []uint64{1, 2, 3}, make([]bool, 3)
	_, err := s.MarshalBinary()
	wantErr(t, name+".MarshalBinary", err, ErrClosed)
	_, err = s.WriteTo(&bytes.Buffer{})
	wantErr(t, name+".WriteTo", err, ErrClosed)
	wantErr(t, name+".AddUint64", s.AddUint64(1), ErrClosed)
	wantErr(t, name+".AddHashes", s.AddHashes(hs), ErrClosed)
	wantErr(t, name+".AddHashes(nil)", s.AddHashes(nil), ErrClosed)
	wantPanic(t, name+".ContainsHashes(nil)", ErrClosed, func() { s.ContainsHashes(nil, nil) })
	wantPanic(t, name+".ContainsUint64", ErrClosed, func() { s.ContainsUint64(1) })
	wantPanic(t, name+".ContainsHashes", ErrClosed, func() { s.ContainsHashes(hs, out) })
	wantPanic(t, name+".FPP", ErrClosed, func() { s.FPP() })
	wantPanic(t, name+".Reset", ErrClosed, func() { s.Reset() })
	wantPanic(t, name+".Clone", ErrClosed, func() { s.Clone() })
	if s.Count() != 0 || s.Stages() != 0 || s.Bits() != 0 {
		t.Errorf("%s: count %d, %d stages, %d bits", name, s.Count(), s.Stages(), s.Bits())
	}
	if err := s.Close(); err != nil {
		t.Errorf("%s.Close: %v", name, err)
	}
	g, _ := NewScalable(10, 0.01)
	g.AddUint64(7)
	enc, _ := g.MarshalBinary()
	if err := s.UnmarshalBinary(enc); err != nil || !s.ContainsUint64(7) {
		t.Errorf("%s.UnmarshalBinary: %v", name, err)
	}
}

// TestUseAfterClose: a closed filter of every type fails loudly, with
// ErrClosed where it can. Before, MarshalBinary returned a 128-byte record
// no decoder accepts with a nil error, FPP returned 0, and a closed
// Scalable answered false.
func TestUseAfterClose(t *testing.T) {
	for _, bits := range []uint64{4096, 8 * mem.HugeThreshold} {
		f := mustNewSize(t, bits, 8)
		f.AddUint64(1)
		f.Close()
		checkFilterUnusable(t, fmt.Sprintf("closed Filter(%d bits)", bits), f)

		c, err := NewConcurrentWithSize(bits, 8)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		checkConcurrentUnusable(t, "closed Concurrent", c)

		g := mustNewSize(t, bits, 8)
		enc, _ := g.MarshalBinary()
		v, err := FromBytes(enc)
		if err != nil {
			t.Fatal(err)
		}
		v.Close()
		checkViewUnusable(t, "closed View", v)
		path := filepath.Join(t.TempDir(), "f.sift")
		os.WriteFile(path, enc, 0o644)
		if v, err = Open(path); err != nil {
			t.Fatal(err)
		}
		v.Close()
		checkViewUnusable(t, "closed View from Open", v)
	}
	s, _ := NewScalable(10, 0.01)
	for i := range uint64(100) {
		s.AddUint64(i)
	}
	s.Close()
	checkScalableUnusable(t, "closed Scalable", s)
}

// TestZeroValues: the zero value of every type is a filter without blocks
// (or stages), good only for UnmarshalBinary and ReadFrom, and fails
// loudly like a closed one. Before, the zero Scalable answered false to
// every lookup.
func TestZeroValues(t *testing.T) {
	checkFilterUnusable(t, "zero Filter", &Filter{})
	checkConcurrentUnusable(t, "zero Concurrent", &Concurrent{})
	checkViewUnusable(t, "zero View", &View{})
	checkScalableUnusable(t, "zero Scalable", &Scalable{})
}

// TestOpenErrors: Open's errors carry one "blocked: " prefix and the file
// system's error (errors.Is(err, fs.ErrNotExist) for a missing file, an
// *fs.PathError naming the path for one that is not a regular file).
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(filepath.Join(dir, "missing"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "blocked: open ") {
		t.Errorf("missing file: %v", err)
	}
	var pe *fs.PathError
	_, err = Open(dir)
	if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "blocked: open "+dir+": not a regular file") {
		t.Errorf("directory: %v", err)
	}
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("\x89SIFT\r\n\x1a"), 0o644)
	_, err = Open(short)
	if !errors.Is(err, ErrTruncated) || strings.Count(err.Error(), ": ") < 1 || strings.Contains(err.Error(), "sift: ") {
		t.Errorf("truncated file: %v", err)
	}
}
