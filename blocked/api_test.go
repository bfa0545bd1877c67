package blocked

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

type appender interface {
	AppendBinary([]byte) ([]byte, error)
	MarshalBinary() ([]byte, error)
}

// TestAppendBinary checks that AppendBinary appends exactly MarshalBinary's
// bytes for every type, and leaves b alone for a closed or zero one.
func TestAppendBinary(t *testing.T) {
	prefix := []byte("prefix")
	f := mustNewSize(t, 5000, 7, WithSeed(3))
	f.AddHashes(hashes(300, 1))
	enc, _ := f.MarshalBinary()
	v, err := FromBytes(enc)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewConcurrentWithSize(5000, 7, WithSeed(3))
	if err != nil {
		t.Fatal(err)
	}
	c.AddHashes(hashes(300, 1))
	s, err := NewScalable(100, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	for i := range uint64(350) {
		_ = s.AddUint64(i)
	}
	for what, a := range map[string]appender{"Filter": f, "View": v, "Concurrent": c, "Scalable": s} {
		want, err := a.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.AppendBinary(bytes.Clone(prefix))
		if err != nil || !bytes.Equal(got, append(bytes.Clone(prefix), want...)) {
			t.Errorf("%s: AppendBinary differs from MarshalBinary (%v)", what, err)
		}
	}
	for what, a := range map[string]appender{"Filter": &Filter{}, "View": &View{}, "Concurrent": &Concurrent{}, "Scalable": &Scalable{}} {
		got, err := a.AppendBinary(prefix)
		if !errors.Is(err, ErrClosed) || !bytes.Equal(got, prefix) {
			t.Errorf("zero %s: %q, %v", what, got, err)
		}
	}
}

// TestMaxSizeDecoders checks the maximum size of the stream and buffer
// decoders: ReadFilter's and ReadScalable's WithMaxSize, and the bound a
// filter made with WithMaxSize keeps for its UnmarshalBinary and ReadFrom.
func TestMaxSizeDecoders(t *testing.T) {
	small := mustNewSize(t, 512*10, 4)
	big := mustNewSize(t, 512*1000, 4)
	small.AddHashes(hashes(20, 2))
	sb, _ := small.MarshalBinary()
	bb, _ := big.MarshalBinary()
	limit := WithMaxSize(small.Blocks() * 64)

	f, err := ReadFilter(bytes.NewReader(sb), limit)
	if err != nil {
		t.Fatal(err)
	}
	sameFilter(t, "ReadFilter", &small.core, &f.core)
	if _, err := ReadFilter(bytes.NewReader(bb), limit); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFilter of a larger filter: %v", err)
	}
	for what, err := range map[string]error{
		"ReadFrom after ReadFilter": func() error { _, err := f.ReadFrom(bytes.NewReader(bb)); return err }(),
		"UnmarshalBinary":           f.UnmarshalBinary(bb),
	} {
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: %v", what, err)
		}
	}
	sameFilter(t, "after refused decodes", &small.core, &f.core)

	g := mustNewSize(t, 512, 1, limit)
	if err := g.UnmarshalBinary(sb); err != nil {
		t.Fatal(err)
	}
	if _, err := g.ReadFrom(bytes.NewReader(bb)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFrom into a decoded bounded filter: %v", err)
	}
	if _, err := g.Clone().ReadFrom(bytes.NewReader(bb)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFrom into a clone of a bounded filter: %v", err)
	}
	c, err := NewConcurrentWithSize(512, 1, limit)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadFrom(bytes.NewReader(bb)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Concurrent.ReadFrom: %v", err)
	}
	if err := c.UnmarshalBinary(bb); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Concurrent.UnmarshalBinary: %v", err)
	}
	if err := c.UnmarshalBinary(sb); err != nil {
		t.Errorf("Concurrent.UnmarshalBinary within the bound: %v", err)
	}
	var z Filter
	if _, err := z.ReadFrom(bytes.NewReader(bb)); err != nil {
		t.Errorf("zero Filter: %v", err)
	}
	bad := bytes.Clone(sb)
	bad[len(bad)-1] ^= 1
	if _, err := ReadFilter(bytes.NewReader(bad)); !errors.Is(err, ErrChecksum) {
		t.Errorf("damaged payload: %v", err)
	}
	if _, err := ReadFilter(bytes.NewReader(bad), WithoutChecksum()); err != nil {
		t.Errorf("damaged payload WithoutChecksum: %v", err)
	}

	// Scalable: the bound is on the stages' memory.
	s, err := NewScalable(100, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	for i := range uint64(1000) {
		_ = s.AddUint64(i)
	}
	enc, _ := s.MarshalBinary()
	stagesBytes := s.Bits() / 8
	if _, err := ReadScalable(bytes.NewReader(enc), WithMaxSize(stagesBytes)); err != nil {
		t.Errorf("ReadScalable at exactly its size: %v", err)
	}
	for _, limit := range []uint64{stagesBytes - 1, stagesBytes / 3} {
		if _, err := ReadScalable(bytes.NewReader(enc), WithMaxSize(limit)); !errors.Is(err, ErrTooLarge) {
			t.Errorf("ReadScalable, limit %d of %d: %v", limit, stagesBytes, err)
		}
		bounded, err := NewScalable(10, 0.01, WithMaxSize(limit))
		if err != nil {
			t.Fatal(err)
		}
		if err := bounded.UnmarshalBinary(enc); !errors.Is(err, ErrTooLarge) {
			t.Errorf("Scalable.UnmarshalBinary, limit %d of %d: %v", limit, stagesBytes, err)
		}
		if _, err := bounded.ReadFrom(bytes.NewReader(enc)); !errors.Is(err, ErrTooLarge) {
			t.Errorf("Scalable.ReadFrom, limit %d of %d: %v", limit, stagesBytes, err)
		}
	}
	// A Scalable read with a bound keeps it for growing.
	r, err := ReadScalable(bytes.NewReader(enc), WithMaxSize(stagesBytes))
	if err != nil {
		t.Fatal(err)
	}
	var grew error
	for i := uint64(1000); grew == nil && i < 100_000; i++ {
		grew = r.AddUint64(i)
	}
	if !errors.Is(grew, ErrTooLarge) || r.Bits()/8 > stagesBytes {
		t.Errorf("a Scalable read with WithMaxSize grew to %d bytes (%v)", r.Bits()/8, grew)
	}
}

// scalableKeys makes a Scalable with n random keys (returned).
func scalableKeys(t *testing.T, n int, rng *rand.Rand, opts ...Option) (*Scalable, []uint64) {
	t.Helper()
	s, err := NewScalable(100, 0.01, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = rng.Uint64()
		if err := s.AddHash(keys[i]); err != nil {
			t.Fatal(err)
		}
	}
	return s, keys
}

// TestScalableUnion merges chains of different lengths both ways and
// checks that every key of both is present, that the counts follow the
// rule, and that the result encodes, decodes and grows.
func TestScalableUnion(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sizes := range [][2]int{{0, 0}, {50, 0}, {0, 50}, {50, 70}, {30, 1000}, {1000, 30}, {700, 700}, {2000, 150}} {
		a, ak := scalableKeys(t, sizes[0], rng, WithSeed(1))
		b, bk := scalableKeys(t, sizes[1], rng, WithSeed(1))
		bEnc, _ := b.MarshalBinary()
		stages := max(a.Stages(), b.Stages())
		ac, bc := a.Count(), b.Count() // Add does not count keys already reported present
		if err := a.Union(b); err != nil {
			t.Fatalf("%v: %v", sizes, err)
		}
		if again, _ := b.MarshalBinary(); !bytes.Equal(again, bEnc) {
			t.Fatalf("%v: Union changed its argument", sizes)
		}
		for _, k := range append(ak, bk...) {
			if !a.ContainsHash(k) {
				t.Fatalf("%v: a key is lost", sizes)
			}
		}
		if a.Stages() != stages {
			t.Errorf("%v: %d stages after Union, want %d", sizes, a.Stages(), stages)
		}
		var sum uint64
		for i := range a.counts {
			if a.counts[i] > a.caps[i] || i+1 < len(a.counts) && a.counts[i] != a.caps[i] {
				t.Errorf("%v: stage %d holds %d of %d", sizes, i, a.counts[i], a.caps[i])
			}
			sum += a.counts[i]
		}
		if a.Count() != sum || sum > ac+bc || sum < max(ac, bc) {
			t.Errorf("%v: Count %d, stage counts sum to %d, counts before %d + %d", sizes, a.Count(), sum, ac, bc)
		}
		enc, err := a.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var d Scalable
		if err := d.UnmarshalBinary(enc); err != nil {
			t.Fatalf("%v: the merged chain does not decode: %v", sizes, err)
		}
		for i := range uint64(3000) {
			if err := d.AddUint64(i); err != nil {
				t.Fatalf("%v: the merged chain does not grow: %v", sizes, err)
			}
		}
	}
}

// TestScalableUnionRefused checks what Union refuses, and that a refusal
// changes nothing.
func TestScalableUnionRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	a, _ := scalableKeys(t, 500, rng)
	before, _ := a.MarshalBinary()
	other := func(n uint64, fpp float64, opts ...Option) *Scalable {
		s, err := NewScalable(n, fpp, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for name, b := range map[string]*Scalable{
		"self":       a,
		"seed":       other(100, 0.01, WithSeed(2)),
		"first":      other(101, 0.01),
		"bound":      other(100, 0.011),
		"growth":     other(100, 0.01, WithGrowth(3)),
		"tightening": other(100, 0.01, WithTightening(0.8)),
	} {
		if err := a.Union(b); !errors.Is(err, ErrIncompatible) {
			t.Errorf("%s: %v", name, err)
		}
	}
	big, _ := scalableKeys(t, 5000, rng)
	bounded, _ := scalableKeys(t, 10, rng, WithMaxSize(a.Bits()/8))
	bBefore, _ := bounded.MarshalBinary()
	if err := bounded.Union(big); !errors.Is(err, ErrTooLarge) {
		t.Errorf("beyond WithMaxSize: %v", err)
	}
	if after, _ := bounded.MarshalBinary(); !bytes.Equal(after, bBefore) {
		t.Error("a refused Union changed the bounded chain")
	}
	var zero Scalable
	for name, err := range map[string]error{"zero other": a.Union(&zero), "zero s": zero.Union(a), "zero s, nil other": zero.Union(nil)} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := a.Union(nil); !errors.Is(err, ErrIncompatible) { // as in every package
		t.Errorf("nil other: %v", err)
	}
	if after, _ := a.MarshalBinary(); !bytes.Equal(after, before) {
		t.Error("a refused Union changed the chain")
	}
}

// TestHashUint64 checks that every type's HashUint64 is the hash AddUint64
// and ContainsUint64 use.
func TestHashUint64(t *testing.T) {
	f := mustNewSize(t, 512*4, 5, WithSeed(11))
	c, _ := NewConcurrentWithSize(512*4, 5, WithSeed(11))
	s, _ := NewScalable(10, 0.01, WithSeed(11))
	enc, _ := f.MarshalBinary()
	v, _ := FromBytes(enc)
	type hasher interface{ HashUint64(uint64) uint64 }
	for i := range uint64(100) {
		want := f.Hash([]byte{byte(i), byte(i >> 8), 0, 0, 0, 0, 0, 0})
		for what, h := range map[string]hasher{"Filter": f, "Concurrent": c, "View": v, "Scalable": s} {
			if got := h.HashUint64(i); got != want {
				t.Fatalf("%s.HashUint64(%d) = %#x, Hash of its bytes %#x", what, i, got, want)
			}
		}
	}
}

// TestInvalidArgument checks that every argument error matches
// ErrInvalidArgument as well as its own sentinel.
func TestInvalidArgument(t *testing.T) {
	_, e1 := New(10, 2)
	_, e2 := New(10, 1e-12)
	_, e3 := NewWithSize(512, 17)
	_, e4 := NewScalable(10, 0.01, WithGrowth(1))
	for i, c := range []struct{ err, sentinel error }{{e1, ErrInvalidFPP}, {e2, ErrFPPTooLow}, {e3, ErrInvalidK}, {e4, ErrInvalidOption}} {
		if !errors.Is(c.err, c.sentinel) || !errors.Is(c.err, ErrInvalidArgument) {
			t.Errorf("case %d: %v", i, c.err)
		}
	}
	if _, err := New(10, 0.01, WithMaxSize(10)); errors.Is(err, ErrInvalidArgument) {
		t.Errorf("ErrTooLarge matches ErrInvalidArgument: %v", err)
	}
}

// TestSizeBytes checks every type's SizeBytes against its geometry.
func TestSizeBytes(t *testing.T) {
	f := mustNewSize(t, 512*7, 3)
	c, _ := NewConcurrentWithSize(512*7, 3)
	enc, _ := f.MarshalBinary()
	v, _ := FromBytes(enc)
	for what, got := range map[string]uint64{"Filter": f.SizeBytes(), "Concurrent": c.SizeBytes(), "View": v.SizeBytes()} {
		if got != 7*64 {
			t.Errorf("%s.SizeBytes = %d, want %d", what, got, 7*64)
		}
	}
	s, _ := NewScalable(100, 0.01)
	for i := range uint64(500) {
		_ = s.AddUint64(i)
	}
	var want uint64
	for _, st := range s.stages {
		want += st.Blocks() * 64
	}
	if s.SizeBytes() != want || s.Stages() < 2 {
		t.Errorf("Scalable.SizeBytes = %d over %d stages, want %d", s.SizeBytes(), s.Stages(), want)
	}
	f.Close()
	if f.SizeBytes() != 0 {
		t.Errorf("closed Filter.SizeBytes = %d", f.SizeBytes())
	}
}

// TestNoSplitBlockNames: Parquet's split-block filter lives in package sbbf;
// nothing this package declares at top level may name it (go doc ./blocked
// lists none).
func TestNoSplitBlockNames(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				names = append(names, d.Name.Name)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						names = append(names, spec.Name.Name)
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
		for _, name := range names {
			if ast.IsExported(name) && (strings.Contains(name, "Split") || strings.Contains(name, "Parquet")) {
				t.Errorf("%s: %s belongs in package sbbf", file, name)
			}
		}
	}
}
