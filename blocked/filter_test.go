package blocked

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"
	"weak"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
	"github.com/sift-go/sift/internal/mem"
)

// hashes returns n pseudo-random hashes from a fixed seed.
func hashes(n int, seed uint64) []uint64 {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	hs := make([]uint64, n)
	for i := range hs {
		hs[i] = r.Uint64()
	}
	return hs
}

func mustNew(t testing.TB, n uint64, fpp float64, opts ...Option) *Filter {
	t.Helper()
	f, err := New(n, fpp, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func mustNewSize(t testing.TB, bits uint64, k int, opts ...Option) *Filter {
	t.Helper()
	f, err := NewWithSize(bits, k, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func aligned(words []uint64) bool {
	return uintptr(unsafe.Pointer(unsafe.SliceData(words)))%kernel.BlockBytes == 0
}

func TestAlignment(t *testing.T) {
	sizes := []uint64{512, 513, 100 * 512, mem.HugeThreshold * 8, mem.HugeThreshold*8 + 512}
	for _, bits := range sizes {
		f := mustNewSize(t, bits, 7)
		if !aligned(f.words) {
			t.Fatalf("bits=%d: words not 64-byte aligned", bits)
		}
		if got, want := f.Bits(), (bits+511)/512*512; got != want {
			t.Fatalf("bits=%d: Bits() = %d, want %d", bits, got, want)
		}
		if huge := bits/8 >= mem.HugeThreshold; huge != f.region.Mapped() && isUnix {
			t.Fatalf("bits=%d: mapped = %v", bits, f.region.Mapped())
		}
		c := f.Clone()
		if !aligned(c.words) {
			t.Fatalf("bits=%d: clone not aligned", bits)
		}
		c.Close()
	}
}

func TestConstructorErrors(t *testing.T) {
	for _, fpp := range []float64{0, 1, -0.5, 1.5, math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := New(100, fpp); !errors.Is(err, ErrInvalidFPP) {
			t.Errorf("New(100, %v): %v, want ErrInvalidFPP", fpp, err)
		}
		if _, err := NewConcurrent(100, fpp); !errors.Is(err, ErrInvalidFPP) {
			t.Errorf("NewConcurrent(100, %v): %v", fpp, err)
		}
		if _, err := NewScalable(100, fpp); !errors.Is(err, ErrInvalidFPP) {
			t.Errorf("NewScalable(100, %v): %v", fpp, err)
		}
		if _, _, err := OptimalSize(100, fpp); !errors.Is(err, ErrInvalidFPP) {
			t.Errorf("OptimalSize(100, %v): %v", fpp, err)
		}
	}
	for _, k := range []int{-1, 0, 17, 255} {
		if _, err := NewWithSize(1024, k); !errors.Is(err, ErrInvalidK) {
			t.Errorf("NewWithSize(1024, %d): %v, want ErrInvalidK", k, err)
		}
		if _, err := NewConcurrentWithSize(1024, k); !errors.Is(err, ErrInvalidK) {
			t.Errorf("NewConcurrentWithSize(1024, %d): %v", k, err)
		}
	}
	for _, bits := range []uint64{MaxBits + 1, math.MaxUint64} {
		if _, err := NewWithSize(bits, 4); !errors.Is(err, ErrTooLarge) {
			t.Errorf("NewWithSize(%d): %v, want ErrTooLarge", bits, err)
		}
		if _, err := NewConcurrentWithSize(bits, 4); !errors.Is(err, ErrTooLarge) {
			t.Errorf("NewConcurrentWithSize(%d): %v", bits, err)
		}
	}
	// 2^40 keys at 1e-8 needs far more than MaxBits.
	if _, err := New(1<<40, 1e-8); !errors.Is(err, ErrTooLarge) {
		t.Errorf("New(2^40, 1e-8): %v, want ErrTooLarge", err)
	}
	if _, err := NewScalable(10, 0.01, WithGrowth(1)); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("WithGrowth(1): %v", err)
	}
	for _, r := range []float64{0, 1, -1, math.NaN()} {
		if _, err := NewScalable(10, 0.01, WithTightening(r)); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("WithTightening(%v): %v", r, err)
		}
	}
	// n = 0 is n = 1; bits = 0 is one block.
	f := mustNew(t, 0, 0.01)
	g := mustNew(t, 1, 0.01)
	if f.Bits() != g.Bits() || f.K() != g.K() {
		t.Errorf("New(0) = %d bits k=%d, New(1) = %d bits k=%d", f.Bits(), f.K(), g.Bits(), g.K())
	}
	if h := mustNewSize(t, 0, 3); h.Blocks() != 1 || h.K() != 3 {
		t.Errorf("NewWithSize(0, 3): %d blocks k=%d", h.Blocks(), h.K())
	}
}

func TestAccessors(t *testing.T) {
	f := mustNewSize(t, 1000, 5, WithSeed(42))
	if f.Bits() != 1024 || f.Blocks() != 2 || f.K() != 5 || f.Seed() != 42 {
		t.Fatalf("Bits %d Blocks %d K %d Seed %d", f.Bits(), f.Blocks(), f.K(), f.Seed())
	}
	bits, k, err := OptimalSize(1e6, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	g := mustNew(t, 1e6, 0.01)
	if g.Bits() != bits || g.K() != k || bits%512 != 0 {
		t.Fatalf("New: %d bits k=%d, OptimalSize: %d bits k=%d", g.Bits(), g.K(), bits, k)
	}
}

// TestLayout checks the probe design against the kernel's definition: a key
// sets exactly BlockMask(h, k) in block BlockIndex(h, blocks).
func TestLayout(t *testing.T) {
	for k := 1; k <= MaxK; k++ {
		f := mustNewSize(t, 37*512, k)
		for _, h := range hashes(200, uint64(k)) {
			f.Reset()
			f.AddHash(h)
			idx := kernel.BlockIndex(h, 37)
			want := kernel.BlockMask(h, k)
			for b := range f.t.Blocks {
				var w kernel.Block
				if uint64(b) == idx {
					w = want
				}
				if f.t.Blocks[b] != w {
					t.Fatalf("k=%d h=%#x: block %d = %x, want %x", k, h, b, f.t.Blocks[b], w)
				}
			}
		}
	}
}

func TestNoFalseNegatives(t *testing.T) {
	for k := 1; k <= MaxK; k++ {
		f := mustNewSize(t, 1<<14, k, WithSeed(uint64(k)))
		for i := range 2000 {
			key := binary.LittleEndian.AppendUint64(nil, uint64(i))
			switch i % 4 {
			case 0:
				f.Add(key)
			case 1:
				f.AddString(string(key))
			case 2:
				f.AddUint64(uint64(i))
			case 3:
				f.AddHash(f.Hash(key))
			}
		}
		for i := range 2000 {
			key := binary.LittleEndian.AppendUint64(nil, uint64(i))
			if !f.Contains(key) || !f.ContainsString(string(key)) || !f.ContainsUint64(uint64(i)) ||
				!f.ContainsHash(f.HashString(string(key))) {
				t.Fatalf("k=%d: key %d missing", k, i)
			}
		}
	}
}

// TestHashForms checks that the key forms agree: AddUint64(x) is
// Add(le64(x)), and Hash is hash.Bytes with the filter's seed.
func TestHashForms(t *testing.T) {
	f := mustNewSize(t, 1<<12, 6, WithSeed(0xfeed))
	for _, x := range hashes(100, 3) {
		le := binary.LittleEndian.AppendUint64(nil, x)
		if f.Hash(le) != hash.Bytes(le, 0xfeed) || f.HashString(string(le)) != f.Hash(le) || hash.Uint64(x, 0xfeed) != f.Hash(le) {
			t.Fatalf("hash forms disagree for %#x", x)
		}
	}
}

// TestBatchEquivalence runs for every kernel: the memory image after
// AddHashes equals the one after AddHash, and ContainsHashes agrees with
// ContainsHash, for every batch length 0..300 and around the threshold.
func TestBatchEquivalence(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		for _, k := range []int{1, 3, 7, 8, 9, 12, 16} {
			for _, blocks := range []uint64{1, 3, 1000} {
				one := mustNewSize(t, blocks*512, k)
				batch := mustNewSize(t, blocks*512, k)
				for n := 0; n <= 300; n += 1 + n/16 {
					hs := hashes(n, uint64(n*100+k))
					for _, h := range hs {
						one.AddHash(h)
					}
					batch.AddHashes(hs)
					for i := range one.words {
						if one.words[i] != batch.words[i] {
							t.Fatalf("k=%d blocks=%d n=%d: word %d differs", k, blocks, n, i)
						}
					}
					probe := append(hashes(n, uint64(n)), hs...)
					out := kerneltest.GuardedBools(t, len(probe))
					count := batch.ContainsHashes(probe, out)
					want := 0
					for i, h := range probe {
						if out[i] != one.ContainsHash(h) {
							t.Fatalf("k=%d blocks=%d n=%d: out[%d] wrong", k, blocks, n, i)
						}
						if out[i] {
							want++
						}
					}
					if count != want {
						t.Fatalf("k=%d blocks=%d n=%d: count %d, want %d", k, blocks, n, count, want)
					}
				}
			}
		}
	})
}

func TestContainsHashesContract(t *testing.T) {
	f := mustNewSize(t, 1<<12, 7)
	hs := hashes(40, 1)
	f.AddHashes(hs[:20])
	out := make([]bool, 50)
	for i := range out {
		out[i] = true
	}
	out[45] = false
	if n := f.ContainsHashes(hs, out); n < 20 {
		t.Fatalf("count %d < 20", n)
	}
	for i := 40; i < 50; i++ {
		if out[i] != (i != 45) {
			t.Fatalf("out[%d] beyond len(hs) was written", i)
		}
	}
	for _, n := range []int{3, 40} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("len(hs)=%d, len(out)=%d: no panic", n, n-1)
				}
			}()
			f.ContainsHashes(hs[:n], out[:n-1])
		}()
	}
}

func TestUnionIntersect(t *testing.T) {
	a := mustNew(t, 5000, 0.01)
	b := mustNew(t, 5000, 0.01)
	x, y := hashes(3000, 1), hashes(3000, 2)
	a.AddHashes(x)
	b.AddHashes(y)
	both := mustNew(t, 5000, 0.01)
	both.AddHashes(x)
	both.AddHashes(y)
	u := a.Clone()
	defer u.Close()
	if err := u.Union(b); err != nil {
		t.Fatal(err)
	}
	for i := range u.words {
		if u.words[i] != both.words[i] {
			t.Fatal("union differs from the filter of both sets")
		}
	}
	common := x[:1000]
	a.AddHashes(common)
	b.AddHashes(common)
	if err := a.Intersect(b); err != nil {
		t.Fatal(err)
	}
	for _, h := range common {
		if !a.ContainsHash(h) {
			t.Fatal("intersect lost a common key")
		}
	}
	for _, other := range []*Filter{
		mustNew(t, 6000, 0.01),
		mustNewSize(t, a.Bits(), a.K()+1),
		mustNewSize(t, a.Bits(), a.K(), WithSeed(1)),
	} {
		if err := a.Union(other); !errors.Is(err, ErrIncompatible) {
			t.Errorf("Union: %v, want ErrIncompatible", err)
		}
		if err := a.Intersect(other); !errors.Is(err, ErrIncompatible) {
			t.Errorf("Intersect: %v, want ErrIncompatible", err)
		}
	}
}

func TestEstimatedCountAndFPP(t *testing.T) {
	for _, k := range []int{4, 8, 12, 16} {
		f := mustNewSize(t, 10_000*12, k)
		if f.EstimatedCount() != 0 || f.FPP() != 0 {
			t.Fatalf("empty: count %d fpp %v", f.EstimatedCount(), f.FPP())
		}
		for _, n := range []int{100, 1000, 10_000, 20_000} {
			f.Reset()
			f.AddHashes(hashes(n, uint64(n)))
			est := float64(f.EstimatedCount())
			if math.Abs(est-float64(n)) > 0.03*float64(n)+5 {
				t.Errorf("k=%d n=%d: EstimatedCount %v", k, n, est)
			}
			pred := FalsePositiveRate(f.Bits(), k, uint64(n))
			// At a tiny rate a handful of blocks decide the real value.
			if fpp := f.FPP(); pred > 1e-6 && math.Abs(fpp-pred) > 0.1*pred {
				t.Errorf("k=%d n=%d: FPP %v, predicted %v", k, n, fpp, pred)
			}
		}
	}
	f := mustNewSize(t, 512, 3)
	for i := range f.words {
		f.words[i] = math.MaxUint64
	}
	if f.EstimatedCount() != math.MaxUint64 || f.FPP() != 1 {
		t.Fatalf("full: count %d fpp %v", f.EstimatedCount(), f.FPP())
	}
}

func TestResetClone(t *testing.T) {
	f := mustNew(t, 1000, 0.01, WithSeed(9))
	hs := hashes(1000, 4)
	f.AddHashes(hs)
	c := f.Clone()
	defer c.Close()
	f.Reset()
	for _, w := range f.words {
		if w != 0 {
			t.Fatal("Reset left bits")
		}
	}
	if c.Seed() != 9 || c.K() != f.K() || c.Bits() != f.Bits() {
		t.Fatal("clone geometry differs")
	}
	for _, h := range hs {
		if !c.ContainsHash(h) {
			t.Fatal("clone lost a key or shares memory")
		}
	}
}

func TestClose(t *testing.T) {
	for _, bits := range []uint64{4096, 8 * mem.HugeThreshold} {
		f, err := NewWithSize(bits, 8)
		if err != nil {
			t.Fatal(err)
		}
		f.AddUint64(1)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal("second Close:", err)
		}
		for name, use := range map[string]func(){
			"ContainsHash":   func() { f.ContainsHash(1) },
			"AddHash":        func() { f.AddHash(1) },
			"AddHashes":      func() { f.AddHashes(make([]uint64, 100)) },
			"ContainsHashes": func() { f.ContainsHashes(make([]uint64, 100), make([]bool, 100)) },
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("bits=%d: %s after Close did not panic", bits, name)
					}
				}()
				use()
			}()
		}
	}
}

func TestAllocs(t *testing.T) {
	f := mustNew(t, 1e4, 0.01)
	c, err := NewConcurrent(1e4, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := NewScalable(1e4, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	key, str := []byte("key"), "string key"
	hs := hashes(1000, 1)
	out := make([]bool, len(hs))
	for name, fn := range map[string]func(){
		"Filter.Add":                func() { f.Add(key) },
		"Filter.AddString":          func() { f.AddString(str) },
		"Filter.AddUint64":          func() { f.AddUint64(7) },
		"Filter.AddHash":            func() { f.AddHash(7) },
		"Filter.Contains":           func() { f.Contains(key) },
		"Filter.ContainsString":     func() { f.ContainsString(str) },
		"Filter.ContainsUint64":     func() { f.ContainsUint64(7) },
		"Filter.ContainsHash":       func() { f.ContainsHash(7) },
		"Filter.AddHashes":          func() { f.AddHashes(hs) },
		"Filter.ContainsHashes":     func() { f.ContainsHashes(hs, out) },
		"Filter.ContainsHashes/8":   func() { f.ContainsHashes(hs[:8], out) },
		"Concurrent.Add":            func() { c.Add(key) },
		"Concurrent.AddString":      func() { c.AddString(str) },
		"Concurrent.AddUint64":      func() { c.AddUint64(7) },
		"Concurrent.AddHash":        func() { c.AddHash(7) },
		"Concurrent.Contains":       func() { c.Contains(key) },
		"Concurrent.ContainsString": func() { c.ContainsString(str) },
		"Concurrent.ContainsUint64": func() { c.ContainsUint64(7) },
		"Concurrent.ContainsHash":   func() { c.ContainsHash(7) },
		"Concurrent.AddHashes":      func() { c.AddHashes(hs) },
		"Concurrent.ContainsHashes": func() { c.ContainsHashes(hs, out) },
		"Scalable.AddHash":          func() { s.AddHash(7) },
		"Scalable.ContainsHash":     func() { s.ContainsHash(7) },
		"Scalable.ContainsUint64":   func() { s.ContainsUint64(7) },
		"Scalable.ContainsHashes":   func() { s.ContainsHashes(hs, out) },
	} {
		if a := testing.AllocsPerRun(50, fn); a != 0 {
			t.Errorf("%s: %v allocs per call", name, a)
		}
	}
}

// TestEmbeddedAndFinalizer: a Filter embedded by value in another struct
// works with big (mapped) memory, and dropping a big filter without Close
// unmaps its memory once the collector runs.
func TestEmbeddedAndFinalizer(t *testing.T) {
	big := mustNewSize(t, 8*mem.HugeThreshold, 8)
	big.AddUint64(5)
	enc, _ := big.MarshalBinary()
	type holder struct {
		name string
		f    Filter
		c    Concurrent
	}
	h := &holder{name: "x"}
	if err := h.f.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	if err := h.c.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	if !h.f.ContainsUint64(5) || !h.c.ContainsUint64(5) {
		t.Fatal("embedded filter lost the key")
	}
	h.f.Close()
	h.c.Close()
	if !isUnix {
		return
	}
	var region weak.Pointer[mem.Region]
	func() {
		f, err := NewWithSize(8*mem.HugeThreshold, 8)
		if err != nil {
			t.Fatal(err)
		}
		if !f.region.Mapped() {
			t.Skip("not mapped")
		}
		f.AddUint64(1)
		region = weak.Make(f.region)
	}()
	for range 10 {
		runtime.GC()
		if region.Value() == nil {
			return // unreachable: its finalizer (Free) is queued
		}
	}
	t.Fatal("the Region of an unreachable filter stayed reachable")
}
