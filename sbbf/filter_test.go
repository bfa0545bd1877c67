package sbbf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// specModel is the split-block filter written here straight from
// parquet-format's BloomFilter.md, independent of the package: a byte
// slice of little-endian 32-bit words, the salts copied from the text, the
// block_insert/block_check loops over words and bits, and XXH64 (cespare's)
// of the plain encoding as the hash.
type specModel struct {
	bitset []byte
	z      uint64 // blocks
}

var specSalt = [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}

func newSpecModel(numBytes int) *specModel {
	return &specModel{bitset: make([]byte, numBytes), z: uint64(numBytes / 32)}
}

// mask is the specification's mask(x): word i has bit (x*salt[i])>>27 set.
func specMask(x uint32) (m [8]uint32) {
	for i := 0; i < 8; i++ {
		y := x * specSalt[i]
		m[i] |= 1 << (y >> 27)
	}
	return m
}

func (s *specModel) word(block uint64, i int) []byte {
	off := block*32 + uint64(i)*4
	return s.bitset[off : off+4]
}

func (s *specModel) insert(h uint64) {
	i := ((h >> 32) * s.z) >> 32
	m := specMask(uint32(h))
	for w := 0; w < 8; w++ {
		b := s.word(i, w)
		for j := 0; j < 32; j++ {
			if m[w]>>j&1 == 1 {
				binary.LittleEndian.PutUint32(b, binary.LittleEndian.Uint32(b)|1<<j)
			}
		}
	}
}

func (s *specModel) check(h uint64) bool {
	i := ((h >> 32) * s.z) >> 32
	m := specMask(uint32(h))
	for w := 0; w < 8; w++ {
		word := binary.LittleEndian.Uint32(s.word(i, w))
		for j := 0; j < 32; j++ {
			if m[w]>>j&1 == 1 && word>>j&1 == 0 {
				return false
			}
		}
	}
	return true
}

// Plain encodings, as the specification hashes them.
func plainInt32(v int32) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }
func plainInt64(v int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(v)) }
func plainFloat32(v float32) []byte {
	return binary.LittleEndian.AppendUint32(nil, math.Float32bits(v))
}
func plainFloat64(v float64) []byte {
	return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))
}

func mustNew(t testing.TB, numBytes uint64) *Filter {
	t.Helper()
	f, err := NewWithSize(numBytes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestHashes checks the inlined XXH64 of 4- and 8-byte inputs
// against cespare's XXH64 of the bytes, and XXH64 itself against the
// reference implementation's published values.
func TestHashes(t *testing.T) {
	// xxhsum -H64 of "" and "abc" (the xxHash repository's test vectors).
	if got := Hash(nil); got != 0xef46db3751d8e999 {
		t.Errorf("XXH64(\"\") = %#x", got)
	}
	if got := HashString("abc"); got != 0x44bc2cf5ad770999 {
		t.Errorf("XXH64(\"abc\") = %#x", got)
	}
	r := rand.New(rand.NewPCG(1, 2))
	special32 := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), math.MaxFloat32, math.SmallestNonzeroFloat32}
	special64 := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64}
	for i := 0; i < 100000; i++ {
		a, b := int32(r.Uint32()), int64(r.Uint64())
		if i < 64 {
			a, b = int32(1)<<(i%32)-1, int64(1)<<i-1
		}
		fa, fb := math.Float32frombits(r.Uint32()), math.Float64frombits(r.Uint64())
		if i < len(special32) {
			fa, fb = special32[i], special64[i]
		}
		if got, want := HashInt32(a), xxhash.Sum64(plainInt32(a)); got != want {
			t.Fatalf("int32 %d: %#x, want %#x", a, got, want)
		}
		if got, want := HashInt64(b), xxhash.Sum64(plainInt64(b)); got != want {
			t.Fatalf("int64 %d: %#x, want %#x", b, got, want)
		}
		if got, want := HashFloat32(fa), xxhash.Sum64(plainFloat32(fa)); got != want {
			t.Fatalf("float32 %v: %#x, want %#x", fa, got, want)
		}
		if got, want := HashFloat64(fb), xxhash.Sum64(plainFloat64(fb)); got != want {
			t.Fatalf("float64 %v: %#x, want %#x", fb, got, want)
		}
	}
	// Zeros of both signs are different keys, as Parquet writers hash them.
	if HashFloat64(0) == HashFloat64(math.Copysign(0, -1)) {
		t.Error("+0.0 and -0.0 hash alike")
	}
}

// TestMatchesSpec adds values of every key form to filters of
// several sizes and to the specification model, and compares the bitsets
// byte for byte and every answer, with single-key and batch calls, for
// every kernel set.
func TestMatchesSpec(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(3, 4))
		for _, numBytes := range []int{32, 64, 96, 1024, 32 * 1001, 1 << 16} {
			f := mustNew(t, uint64(numBytes))
			batch := mustNew(t, uint64(numBytes))
			m := newSpecModel(numBytes)
			var hs []uint64
			add := func(h uint64, plain []byte) {
				if want := xxhash.Sum64(plain); h != want {
					t.Fatalf("hash %#x, spec %#x", h, want)
				}
				m.insert(h)
				hs = append(hs, h)
			}
			for i := 0; i < 300; i++ {
				a, b := int32(r.Uint32()), int64(r.Uint64())
				fa, fb := math.Float32frombits(r.Uint32()), math.Float64frombits(r.Uint64())
				s := make([]byte, r.IntN(40))
				for j := range s {
					s[j] = byte(r.Uint32())
				}
				f.AddInt32(a)
				add(HashInt32(a), plainInt32(a))
				f.AddInt64(b)
				add(HashInt64(b), plainInt64(b))
				f.AddFloat32(fa)
				add(HashFloat32(fa), plainFloat32(fa))
				f.AddFloat64(fb)
				add(HashFloat64(fb), plainFloat64(fb))
				f.Add(s)
				add(Hash(s), s)
				f.AddString(string(s) + "!")
				add(HashString(string(s)+"!"), append(s, '!'))
				h := r.Uint64()
				f.AddHash(h)
				m.insert(h)
				hs = append(hs, h)
			}
			batch.AddHashes(hs)
			if got := f.AppendBitset(nil); !bytes.Equal(got, m.bitset) {
				t.Fatalf("%d bytes: single-key bitset differs from the specification's", numBytes)
			}
			if got := batch.AppendBitset(nil); !bytes.Equal(got, m.bitset) {
				t.Fatalf("%d bytes: batch bitset differs from the specification's", numBytes)
			}
			probes := slices.Clone(hs)
			for i := range probes {
				if i%2 == 1 {
					probes[i] = r.Uint64()
				}
			}
			out := make([]bool, len(probes))
			n := f.ContainsHashes(probes, out)
			count := 0
			for i, h := range probes {
				want := m.check(h)
				if out[i] != want || f.ContainsHash(h) != want {
					t.Fatalf("%d bytes: probe %d (%#x): batch %v, single %v, spec %v", numBytes, i, h, out[i], f.ContainsHash(h), want)
				}
				if want {
					count++
				}
			}
			if n != count {
				t.Fatalf("%d bytes: count %d, spec %d", numBytes, n, count)
			}
			if got := f.ContainsHashes(hs, make([]bool, len(hs))); got != len(hs) {
				t.Fatalf("%d bytes: %d of %d added keys found", numBytes, got, len(hs))
			}
		}
	})
}

// TestKeyForms: every typed form equals its hash form, for
// adds and lookups.
func TestKeyForms(t *testing.T) {
	f := mustNew(t, 1<<12)
	f.AddInt32(-7)
	f.AddInt64(1 << 40)
	f.AddFloat32(1.5)
	f.AddFloat64(-2.25)
	f.Add([]byte("bytes"))
	f.AddString("string")
	for name, ok := range map[string]bool{
		"int32":   f.ContainsInt32(-7) && f.ContainsHash(HashInt32(-7)),
		"int64":   f.ContainsInt64(1<<40) && f.ContainsHash(HashInt64(1<<40)),
		"float32": f.ContainsFloat32(1.5) && f.ContainsHash(HashFloat32(1.5)),
		"float64": f.ContainsFloat64(-2.25) && f.ContainsHash(HashFloat64(-2.25)),
		"bytes":   f.Contains([]byte("bytes")) && f.ContainsString("bytes"),
		"string":  f.ContainsString("string") && f.Contains([]byte("string")),
	} {
		if !ok {
			t.Errorf("%s: added value not found", name)
		}
	}
	g := mustNew(t, 1<<12)
	for _, h := range []uint64{HashInt32(-7), HashInt64(1 << 40), HashFloat32(1.5),
		HashFloat64(-2.25), Hash([]byte("bytes")), HashString("string")} {
		g.AddHash(h)
	}
	if !bytes.Equal(f.AppendBitset(nil), g.AppendBitset(nil)) {
		t.Error("typed adds and hash adds give different bitsets")
	}
}

func TestConstructors(t *testing.T) {
	for _, fpp := range []float64{0, 1, -0.5, 1.5, math.NaN(), math.Inf(1)} {
		if _, err := New(100, fpp); !errors.Is(err, ErrInvalidFPP) || !errors.Is(err, ErrInvalidArgument) || !strings.HasPrefix(err.Error(), "sbbf: ") {
			t.Errorf("New(100, %v): %v, want sbbf's ErrInvalidFPP and ErrInvalidArgument", fpp, err)
		}
		if _, err := ParquetSize(100, fpp); !errors.Is(err, ErrInvalidFPP) {
			t.Errorf("ParquetSize(100, %v): %v", fpp, err)
		}
		if _, err := OptimalSize(100, fpp); !errors.Is(err, ErrInvalidFPP) {
			t.Errorf("OptimalSize(100, %v): %v", fpp, err)
		}
	}
	if _, err := New(1<<62, 1e-9); !errors.Is(err, ErrTooLarge) {
		t.Errorf("New(2^62, 1e-9): %v, want ErrTooLarge", err)
	}
	if _, err := NewWithSize(1 << 50); !errors.Is(err, ErrTooLarge) {
		t.Errorf("NewWithSize(2^50): %v, want ErrTooLarge", err)
	}
	if _, err := NewWithSize(1<<20, WithMaxSize(1<<20-1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("NewWithSize(1 MiB, WithMaxSize(1 MiB - 1)): %v, want ErrTooLarge", err)
	}
	if f, err := NewWithSize(1<<20, WithMaxSize(1<<20)); err != nil {
		t.Errorf("NewWithSize(1 MiB, WithMaxSize(1 MiB)): %v", err)
	} else {
		f.Close()
	}
	if _, err := New(1e6, 0.01, WithMaxSize(1<<20)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("New(1e6, 0.01, WithMaxSize(1 MiB)): %v, want ErrTooLarge", err)
	}
	for numBytes, blocks := range map[uint64]uint64{0: 1, 1: 1, 32: 1, 33: 2, 64: 2, 1000: 32} {
		f := mustNew(t, numBytes)
		if f.Blocks() != blocks || f.NumBytes() != 32*blocks {
			t.Errorf("NewWithSize(%d): %d blocks, %d bytes; want %d blocks", numBytes, f.Blocks(), f.NumBytes(), blocks)
		}
	}
	f, err := New(0, 0.01)
	if err != nil || f.Blocks() != 1 {
		t.Fatalf("New(0, 0.01): %v, %d blocks", err, f.Blocks())
	}
}

func TestUnion(t *testing.T) {
	a, b, both := mustNew(t, 4096), mustNew(t, 4096), mustNew(t, 4096)
	ha, hb := hashes(500, 1), hashes(500, 2)
	a.AddHashes(ha)
	b.AddHashes(hb)
	both.AddHashes(ha)
	both.AddHashes(hb)
	if err := a.Union(b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.AppendBitset(nil), both.AppendBitset(nil)) {
		t.Fatal("Union differs from a filter built from both sets")
	}
	if err := a.Union(nil); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("Union(nil) = %v, want ErrIncompatible", err)
	}
	if err := a.Union(mustNew(t, 8192)); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("Union of different sizes: %v", err)
	}
}

// TestFold: a filter folded k times is, byte for byte, the filter
// built from the same keys at 1/2^k the size, and keeps every key.
func TestFold(t *testing.T) {
	for _, blocks := range []uint64{1 << 10, 3 << 8, 1 << 12} {
		keys := hashes(int(blocks*2), blocks)
		for times := 0; (blocks>>times)%2 == 0 || times == 0; times++ {
			big := mustNew(t, blocks*32)
			big.AddHashes(keys)
			if err := big.FoldN(times); err != nil {
				t.Fatal(err)
			}
			small := mustNew(t, (blocks>>times)*32)
			small.AddHashes(keys)
			if !bytes.Equal(big.AppendBitset(nil), small.AppendBitset(nil)) {
				t.Fatalf("%d blocks folded %d times differ from %d blocks built directly", blocks, times, blocks>>times)
			}
			out := make([]bool, len(keys))
			if n := big.ContainsHashes(keys, out); n != len(keys) {
				t.Fatalf("%d blocks folded %d times: %d of %d keys found", blocks, times, n, len(keys))
			}
			if times > 12 {
				break
			}
		}
	}
	f := mustNew(t, 3*32)
	if err := f.FoldN(1); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("FoldN(1) of 3 blocks: %v", err)
	}
	if err := f.FoldN(-1); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("FoldN(-1): %v", err)
	}
	for _, p := range []float64{0, 1, math.NaN()} {
		if _, err := f.Fold(p); !errors.Is(err, ErrInvalidFPP) {
			t.Fatalf("Fold(%v): %v", p, err)
		}
	}
}

// TestFoldTarget: Fold stops at the last size whose rate is
// within the target, and the folded filter's fill-based rate agrees with
// the predictor for its size.
func TestFoldTarget(t *testing.T) {
	const n = 20000
	size, _ := ParquetSize(1<<20, 0.01) // sized for 50 times the keys
	f := mustNew(t, size)
	f.AddHashes(hashes(n, 9))
	times, err := f.Fold(0.01)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.FPP(); got > 0.01 {
		t.Fatalf("folded %d times: FPP %v > 0.01", times, got)
	}
	g := f.Clone()
	defer g.Close()
	if err := g.FoldN(1); err == nil && g.FPP() <= 0.01 {
		t.Fatalf("Fold stopped at %d blocks though one more halving keeps FPP %v <= 0.01", f.Blocks(), g.FPP())
	}
	pred := FalsePositiveRate(f.NumBytes(), n)
	if d := math.Abs(f.FPP()-pred) / pred; d > 0.1 {
		t.Fatalf("after folding to %d blocks: FPP %v, predicted %v", f.Blocks(), f.FPP(), pred)
	}
	t.Logf("%d keys: %d bytes folded %d times to %d bytes, FPP %.5f (predicted %.5f)", n, size, times, f.NumBytes(), f.FPP(), pred)
}

func TestEstimates(t *testing.T) {
	f := mustNew(t, 1<<16)
	if f.EstimatedCount() != 0 || f.FPP() != 0 {
		t.Fatalf("empty filter: count %d, FPP %v", f.EstimatedCount(), f.FPP())
	}
	for _, c := range []struct {
		n   int
		tol float64
	}{{1000, 0.3}, {10000, 0.1}, {100000, 0.05}} {
		g := mustNew(t, uint64(c.n)*10/8) // about 1%
		g.AddHashes(hashes(c.n, uint64(c.n)))
		if got := g.EstimatedCount(); math.Abs(float64(got)-float64(c.n)) > 0.03*float64(c.n) {
			t.Errorf("%d keys: EstimatedCount %d", c.n, got)
		}
		pred := FalsePositiveRate(g.NumBytes(), uint64(c.n))
		if got := g.FPP(); math.Abs(got-pred) > c.tol*pred {
			t.Errorf("%d keys: FPP %v, predicted %v", c.n, got, pred)
		}
	}
	full := mustNew(t, 64)
	for i := range full.blocks {
		for w := range full.blocks[i] {
			full.blocks[i][w] = math.MaxUint32
		}
	}
	if full.EstimatedCount() != math.MaxUint64 || full.FPP() != 1 {
		t.Fatalf("full filter: count %d, FPP %v", full.EstimatedCount(), full.FPP())
	}
}

func TestResetCloneClose(t *testing.T) {
	f := mustNew(t, 1<<10)
	f.AddString("x")
	c := f.Clone()
	f.Reset()
	if f.ContainsString("x") || !c.ContainsString("x") {
		t.Fatal("Reset or Clone wrong")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	var zero Filter
	for _, g := range []*Filter{c, &zero} {
		for name, fn := range map[string]func(){
			"ContainsHash":   func() { g.ContainsHash(1) },
			"ContainsInt64":  func() { g.ContainsInt64(1) },
			"AddHash":        func() { g.AddHash(1) },
			"AddString":      func() { g.AddString("x") },
			"AddHashes":      func() { g.AddHashes([]uint64{1, 2}) },
			"ContainsHashes": func() { g.ContainsHashes([]uint64{1, 2}, make([]bool, 2)) },
			// Empty batches fail as loudly.
			"AddHashes(nil)":      func() { g.AddHashes(nil) },
			"ContainsHashes(nil)": func() { g.ContainsHashes(nil, nil) },
			"EstimatedCount":      func() { g.EstimatedCount() },
			"FPP":                 func() { g.FPP() },
			"Clone":               func() { g.Clone() },
			"Reset":               func() { g.Reset() },
			"AppendBitset":        func() { g.AppendBitset(nil) },
		} {
			func() {
				defer func() {
					if err, _ := recover().(error); !errors.Is(err, ErrClosed) || !strings.HasPrefix(err.Error(), "sbbf: ") {
						t.Errorf("%s after Close: panic %v, want sbbf's ErrClosed", name, err)
					}
				}()
				fn()
			}()
		}
		for name, fn := range map[string]func() error{
			"Fold":           func() error { _, err := g.Fold(0.5); return err },
			"FoldN":          func() error { return g.FoldN(1) },
			"Union":          func() error { return f.Union(g) },
			"MarshalParquet": func() error { _, err := g.MarshalParquet(); return err },
			"WriteParquet":   func() error { _, err := g.WriteParquet(io.Discard); return err },
			"MarshalBinary":  func() error { _, err := g.MarshalBinary(); return err },
			"WriteTo":        func() error { _, err := g.WriteTo(io.Discard); return err },
		} {
			if err := fn(); !errors.Is(err, ErrClosed) {
				t.Errorf("%s after Close: %v, want ErrClosed", name, err)
			}
		}
	}
	// Big filters live in mapped memory and still work.
	big := mustNew(t, 8<<20)
	big.AddInt64(42)
	if !big.ContainsInt64(42) || (isUnix && !big.region.Mapped()) {
		t.Fatal("big filter")
	}
}

func TestAllocs(t *testing.T) {
	f := mustNew(t, 1<<14)
	key, str := []byte("key"), "string key"
	hs := hashes(1000, 1)
	out := make([]bool, len(hs))
	for name, fn := range map[string]func(){
		"Add":             func() { f.Add(key) },
		"AddString":       func() { f.AddString(str) },
		"AddInt32":        func() { f.AddInt32(7) },
		"AddInt64":        func() { f.AddInt64(7) },
		"AddFloat32":      func() { f.AddFloat32(7) },
		"AddFloat64":      func() { f.AddFloat64(7) },
		"AddHash":         func() { f.AddHash(7) },
		"Contains":        func() { f.Contains(key) },
		"ContainsString":  func() { f.ContainsString(str) },
		"ContainsInt32":   func() { f.ContainsInt32(7) },
		"ContainsInt64":   func() { f.ContainsInt64(7) },
		"ContainsFloat32": func() { f.ContainsFloat32(7) },
		"ContainsFloat64": func() { f.ContainsFloat64(7) },
		"ContainsHash":    func() { f.ContainsHash(7) },
		"AddHashes":       func() { f.AddHashes(hs) },
		"ContainsHashes":  func() { f.ContainsHashes(hs, out) },
		"Union":           func() { f.Union(f) },
	} {
		if a := testing.AllocsPerRun(50, fn); a != 0 {
			t.Errorf("%s: %v allocs per call", name, a)
		}
	}
}

func TestContainsHashesContract(t *testing.T) {
	f := mustNew(t, 1<<10)
	defer func() {
		if recover() == nil {
			t.Fatal("len(out) < len(hs) did not panic")
		}
	}()
	f.ContainsHashes(make([]uint64, 3), make([]bool, 2))
}

// TestInlining: ContainsHash and AddHash inline, each with the
// kernel call inside, so a lookup costs one call.
func TestInlining(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the compiler")
	}
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-gcflags=-m", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, fn := range []string{"(*Filter).ContainsHash", "(*Filter).AddHash", "(*View).ContainsHash", "xxh64Uint64", "xxh64Uint32"} {
		if !regexp.MustCompile(`(?m)can inline ` + regexp.QuoteMeta(fn) + `( |$)`).MatchString(string(out)) {
			t.Errorf("%s is no longer inlinable", fn)
		}
	}
	line := methodLine(t, "filter.go", "func (f *Filter) ContainsInt64(")
	if !regexp.MustCompile(`filter\.go:` + line + `:\d+: inlining call to kernel\.SBBFContains1`).Match(out) {
		t.Error("ContainsInt64 does not inline the kernel call")
	}
}
