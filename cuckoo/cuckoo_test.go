package cuckoo

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unsafe"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

func mustNew(t testing.TB, capacity uint64, opts ...Option) *Filter {
	t.Helper()
	f, err := New(capacity, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestNewErrors(t *testing.T) {
	cases := []struct {
		capacity uint64
		opts     []Option
	}{
		{0, nil},
		{math.MaxUint64, nil},
		{uint64(MaxBuckets)*4 + 1, nil},
		{10, []Option{WithFingerprintBits(0)}},
		{10, []Option{WithFingerprintBits(12)}},
		{10, []Option{WithFingerprintBits(32)}},
		{10, []Option{WithMaxKicks(-1)}},
		{10, []Option{WithMaxKicks(MaxMaxKicks + 1)}},
	}
	for i, c := range cases {
		if _, err := New(c.capacity, c.opts...); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("case %d: New(%d) error %v, want ErrInvalidArgument", i, c.capacity, err)
		}
	}
	f := mustNew(t, 1, WithFingerprintBits(8), WithMaxKicks(0), WithSeed(9), nil)
	if f.FingerprintBits() != 8 || f.MaxKicks() != 0 || f.Seed() != 9 || f.Buckets() != 1 || f.Capacity() != 4 {
		t.Fatalf("options not applied: %d bits, %d kicks, seed %d, %d buckets", f.FingerprintBits(), f.MaxKicks(), f.Seed(), f.Buckets())
	}
}

// TestBitsPerKey: space, the words the bucket array allocates, is within
// 3% of f/0.95 bits per key at every capacity from 128 on for 16-bit
// fingerprints and from 256 on for 8-bit ones, whose tables with an odd
// bucket count carry half a word of padding (below that, one bucket, or
// two, is more than 3% of the filter).
func TestBitsPerKey(t *testing.T) {
	check := func(c uint64) {
		n := BucketsFor(c)
		if float64(4*n) < float64(c)/TargetLoad {
			t.Fatalf("capacity %d: %d buckets hold fewer than c/0.95 slots", c, n)
		}
		for _, f := range []uint{8, 16} {
			if f == 8 && c < 256 {
				continue
			}
			bpk := 64 * float64(kernel.CuckooWords(n, f)) / float64(c)
			if ideal := float64(f) / TargetLoad; bpk > ideal*1.03 {
				t.Fatalf("capacity %d, f=%v: %.3f bits/key, more than 3%% over %.3f", c, f, bpk, ideal)
			}
		}
	}
	// The sizes New allocates are those counted here.
	for _, c := range []uint64{137, 1000, 4097} {
		for _, f := range []uint{8, 16} {
			flt := mustNew(t, c, WithFingerprintBits(int(f)))
			if want := 8 * kernel.CuckooWords(BucketsFor(c), f); flt.SizeBytes() != want {
				t.Errorf("capacity %d, f=%d: SizeBytes %d, want %d", c, f, flt.SizeBytes(), want)
			}
			flt.Close()
		}
	}
	for c := uint64(128); c <= 200000; c++ {
		check(c)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 100000 {
		check(128 + rng.Uint64N(uint64(MaxBuckets)*3))
	}
	for _, c := range []uint64{1e6, 1e7, 1e8, 1e9, 1e10, 16320875724} {
		check(c)
	}
	// And on a real filter.
	f := mustNew(t, 10000)
	for i := range uint64(10000) {
		if err := f.AddUint64(i); err != nil {
			t.Fatalf("add %d of 10000: %v", i, err)
		}
	}
	if b := f.BitsPerKey(); b > 16/TargetLoad*1.03 {
		t.Fatalf("filled filter: %.3f bits/key", b)
	}
}

func TestAddContains(t *testing.T) {
	for _, fb := range []int{8, 16} {
		f := mustNew(t, 5000, WithFingerprintBits(fb))
		for i := range uint64(4000) {
			if err := f.AddUint64(i); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Add([]byte("bytes")); err != nil {
			t.Fatal(err)
		}
		if err := f.AddString("string"); err != nil {
			t.Fatal(err)
		}
		for i := range uint64(4000) {
			if !f.ContainsUint64(i) {
				t.Fatalf("f=%d: key %d missing", fb, i)
			}
		}
		if !f.Contains([]byte("bytes")) || !f.ContainsString("bytes") || !f.ContainsString("string") {
			t.Fatal("byte/string keys missing")
		}
		if f.Count() != 4002 {
			t.Fatalf("count %d", f.Count())
		}
		// Uint64 keys are the same as their 8 little-endian bytes.
		if f.Hash([]byte{7, 0, 0, 0, 0, 0, 0, 0}) != f.HashUint64(7) || f.HashString("x") != hash.String("x", 0) {
			t.Fatal("hash helpers disagree")
		}
	}
}

// fillUntilFull adds keys until one parks the victim (passing over keys
// refused with ErrNoSlot below 90% load) and returns the added hashes.
func fillUntilFull(t *testing.T, f *Filter, rng *rand.Rand) []uint64 {
	t.Helper()
	var added []uint64
	for !f.VictimInUse() {
		h := rng.Uint64()
		if err := f.AddHash(h); errors.Is(err, ErrNoSlot) && noSlot(f, h) {
			continue // below the parking load: refused, nothing changed
		} else if err != nil {
			t.Fatalf("Add before the victim was used: %v", err)
		}
		added = append(added, h)
	}
	// The victim is in use: from now on Add fails and changes nothing.
	before, _ := f.MarshalBinary()
	for range 3 {
		if err := f.AddHash(rng.Uint64()); !errors.Is(err, ErrFull) {
			t.Fatalf("Add with the victim in use: %v", err)
		}
	}
	if after, _ := f.MarshalBinary(); !bytes.Equal(before, after) {
		t.Fatal("a failed Add changed the filter")
	}
	return added
}

func allPresent(t *testing.T, f *Filter, hs []uint64, what string) {
	t.Helper()
	for i, h := range hs {
		if !f.ContainsHash(h) {
			t.Fatalf("%s: key %d of %d lost", what, i, len(hs))
		}
	}
	out := make([]bool, len(hs))
	if n := f.ContainsHashes(hs, out); n != len(hs) {
		t.Fatalf("%s: ContainsHashes finds %d of %d", what, n, len(hs))
	}
}

// TestFullLosesNothing is the filter's central promise: fill until ErrFull,
// and every key whose Add succeeded is still present; then Remove makes
// room again without losing the rest.
func TestFullLosesNothing(t *testing.T) {
	caps := []uint64{1, 2, 3, 5, 10, 33, 100, 1000, 4099}
	seeds := 6
	if !testing.Short() {
		caps = append(caps, 20011, 100000)
		seeds = 10
	}
	for _, fb := range []int{8, 16} {
		for _, c := range caps {
			for seed := range uint64(seeds) {
				name := fmt.Sprintf("f=%d/cap=%d/seed=%d", fb, c, seed)
				rng := rand.New(rand.NewPCG(seed, c))
				f := mustNew(t, c, WithFingerprintBits(fb), WithSeed(seed))
				added := fillUntilFull(t, f, rng)
				if f.Count() != uint64(len(added)) {
					t.Fatalf("%s: count %d, added %d", name, f.Count(), len(added))
				}
				if c >= 1000 && float64(len(added)) < 0.99*float64(c) {
					t.Fatalf("%s: full after %d keys (%.3f of capacity)", name, len(added), float64(len(added))/float64(c))
				}
				allPresent(t, f, added, name)
				// Remove keys in random order until Add works again; the
				// victim must be re-homed, not dropped.
				rng.Shuffle(len(added), func(i, j int) { added[i], added[j] = added[j], added[i] })
				removed := 0
				for f.VictimInUse() {
					if !f.RemoveHash(added[removed]) {
						t.Fatalf("%s: Remove of added key %d failed", name, removed)
					}
					removed++
				}
				allPresent(t, f, added[removed:], name+" after removes")
				if err := f.AddHash(rng.Uint64()); err != nil && !errors.Is(err, ErrFull) {
					t.Fatal(err)
				}
			}
		}
	}
}

// TestDuplicates: a key added 8 times fills its two buckets; the 9th Add
// of it returns ErrDuplicateLimit and changes nothing, and other keys can
// still be added (before, the 9th copy went to the victim slot and every
// later Add of any key failed with ErrFull). Each copy needs its own
// Remove.
func TestDuplicates(t *testing.T) {
	for _, fb := range []int{8, 16} {
		f := mustNew(t, 1000, WithFingerprintBits(fb))
		for i := range 8 {
			if err := f.AddString("dup"); err != nil {
				t.Fatalf("f=%d: copy %d: %v", fb, i+1, err)
			}
		}
		before, _ := f.MarshalBinary()
		for range 3 {
			if err := f.AddString("dup"); !errors.Is(err, ErrDuplicateLimit) {
				t.Fatalf("f=%d: 9th copy: %v", fb, err)
			}
		}
		if after, _ := f.MarshalBinary(); !bytes.Equal(before, after) || f.VictimInUse() || f.Count() != 8 {
			t.Fatalf("f=%d: the refused copy changed the filter", fb)
		}
		for i := range uint64(500) {
			if err := f.AddUint64(i); err != nil {
				t.Fatalf("f=%d: other key %d after the duplicate limit: %v", fb, i, err)
			}
		}
		for i := range 8 {
			if !f.ContainsString("dup") {
				t.Fatalf("f=%d: missing after %d removes", fb, i)
			}
			if !f.RemoveString("dup") {
				t.Fatalf("f=%d: remove %d failed", fb, i+1)
			}
		}
		if f.RemoveString("dup") || f.Count() != 500 {
			t.Fatalf("f=%d: copies left after removing all 8 (count %d)", fb, f.Count())
		}
		for i := range uint64(500) {
			if !f.ContainsUint64(i) {
				t.Fatalf("f=%d: key %d lost", fb, i)
			}
		}
	}
}

func TestRemove(t *testing.T) {
	for _, fb := range []int{8, 16} {
		f := mustNew(t, 10000, WithFingerprintBits(fb))
		for i := range uint64(9000) {
			if err := f.AddUint64(i); err != nil {
				t.Fatal(err)
			}
		}
		for i := uint64(0); i < 9000; i += 2 {
			if !f.RemoveUint64(i) {
				t.Fatalf("remove %d", i)
			}
		}
		if f.Count() != 4500 {
			t.Fatalf("count %d", f.Count())
		}
		present := 0
		for i := uint64(0); i < 9000; i++ {
			if i%2 == 1 && !f.ContainsUint64(i) {
				t.Fatalf("kept key %d lost", i)
			}
			if i%2 == 0 && f.ContainsUint64(i) {
				present++
			}
		}
		// Removed keys come back only as false positives.
		if limit := 4500 * 3 * f.FPP(); float64(present) > limit+5 {
			t.Fatalf("f=%d: %d removed keys still present (FPP %.2g)", fb, present, f.FPP())
		}
		if !f.Remove([]byte("never")) && f.Count() != 4500 {
			t.Fatal("count changed by a failed remove")
		}
	}
}

func TestAddHashes(t *testing.T) {
	f := mustNew(t, 10)
	hs := make([]uint64, 100)
	for i := range hs {
		hs[i] = f.HashUint64(uint64(i))
	}
	n, err := f.AddHashes(hs)
	if !errors.Is(err, ErrFull) || n == 0 || n >= len(hs) {
		t.Fatalf("AddHashes = %d, %v", n, err)
	}
	allPresent(t, f, hs[:n], "AddHashes")
	g := mustNew(t, 1000)
	if n, err := g.AddHashes(hs); n != len(hs) || err != nil {
		t.Fatalf("AddHashes = %d, %v", n, err)
	}
}

func TestContainsHashesMatchesSingle(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		for _, fb := range []int{8, 16} {
			for _, c := range []uint64{1, 7, 1000, 100003} {
				f := mustNew(t, c, WithFingerprintBits(fb))
				rng := rand.New(rand.NewPCG(c, 3))
				fillUntilFull(t, f, rng)
				hs := make([]uint64, 1000)
				for i := range hs {
					hs[i] = rng.Uint64()
				}
				out := make([]bool, len(hs))
				n := f.ContainsHashes(hs, out)
				want := 0
				for i, h := range hs {
					if out[i] != f.ContainsHash(h) {
						t.Fatalf("f=%d c=%d: key %d: batch %v", fb, c, i, out[i])
					}
					if out[i] {
						want++
					}
				}
				if n != want {
					t.Fatalf("count %d, want %d", n, want)
				}
			}
		}
	})
}

// TestProbeStaysInTable holds the probe's unchecked bucket loads (elem64,
// elem32) to the table: a full filter's bucket array is moved to the end of
// a page followed by a PROT_NONE page, so a read past the array faults, and
// the probe must give the answers it gave on the heap copy, for hashes that
// reach the last bucket and the extremes of the index and fingerprint math.
// A probe after Close must panic (nil arrays), not read freed memory.
func TestProbeStaysInTable(t *testing.T) {
	if !kerneltest.Guarded {
		t.Skip("no guard pages on this platform")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	hs := []uint64{0, 1, ^uint64(0), 1<<32 - 1, 1 << 32, 0xffffffff00000000, 0x00000000ffffffff, 0x8000000080000000}
	for range 4000 {
		hs = append(hs, rng.Uint64())
	}
	for _, fb := range []int{8, 16} {
		for c := uint64(1); c <= 70; c++ {
			f := mustNew(t, c, WithFingerprintBits(fb))
			fillUntilFull(t, f, rng)
			want := make([]bool, len(hs))
			for i, h := range hs {
				want[i] = f.ContainsHash(h)
			}
			g := f.Clone()
			w := kerneltest.GuardedUint64s(t, len(g.t.Words))
			copy(w, g.t.Words)
			g.t.Words = w
			if fb == 8 {
				g.w32 = unsafe.Slice((*uint32)(unsafe.Pointer(&w[0])), 2*len(w))
			}
			for i, h := range hs {
				if got := g.ContainsHash(h); got != want[i] {
					t.Fatalf("f=%d c=%d (%d buckets): hash %#x: %v on the guarded table, %v on the heap", fb, c, g.t.Buckets, h, got, want[i])
				}
			}
		}
	}
	f := mustNew(t, 100)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("ContainsHash after Close did not panic")
		}
	}()
	f.ContainsHash(^uint64(0))
}

func TestResetClone(t *testing.T) {
	f := mustNew(t, 100, WithSeed(5))
	rng := rand.New(rand.NewPCG(1, 2))
	added := fillUntilFull(t, f, rng)
	g := f.Clone()
	defer g.Close()
	allPresent(t, g, added, "clone")
	a, _ := f.MarshalBinary()
	b, _ := g.MarshalBinary()
	if !bytes.Equal(a, b) {
		t.Fatal("clone encodes differently")
	}
	f.Reset()
	if f.Count() != 0 || f.VictimInUse() || f.LoadFactor() != 0 {
		t.Fatal("reset left state")
	}
	for _, h := range added {
		if err := f.AddHash(h); err != nil {
			t.Fatal(err)
		}
	}
	// g was not affected by f's reset and refill.
	allPresent(t, g, added, "clone after reset")
}

func TestAllocs(t *testing.T) {
	f := mustNew(t, 100000)
	c, err := NewConcurrent(100000)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	key := []byte("some key")
	hs := make([]uint64, 64)
	for i := range hs {
		hs[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	out := make([]bool, 64)
	var sink bool
	// The calls that pass stack buffers to a kernel.
	stackBuffers := map[string]bool{"AddHashes": true, "AddNewHashes": true, "Concurrent.ContainsHashes": true, "Concurrent.AddHashes": true, "Concurrent.AddNewHashes": true}
	for name, fn := range map[string]func(){
		"ContainsHash":   func() { sink = f.ContainsHash(12345) },
		"Contains":       func() { sink = f.Contains(key) },
		"ContainsString": func() { sink = f.ContainsString("some key") },
		"ContainsUint64": func() { sink = f.ContainsUint64(1) },
		"ContainsHashes": func() { f.ContainsHashes(hs, out) },
		"AddRemove":      func() { _ = f.AddUint64(7); f.RemoveUint64(7) },
		"AddHashes": func() {
			f.Reset()
			_, _ = f.AddHashes(hs)
		},
		"AddNewHash":   func() { sink, _ = f.AddNewUint64(7); f.RemoveUint64(7) },
		"AddNewString": func() { sink, _ = f.AddNewString("some key"); f.RemoveString("some key") },
		"AddNewHashes": func() {
			f.Reset()
			_, _ = f.AddNewHashes(hs, out)
			_, _ = f.AddNewHashes(hs, out)
		},
		"Concurrent.AddNewHash": func() { sink, _ = c.AddNewUint64(7); c.RemoveUint64(7) },
		"Concurrent.AddNewHashes": func() {
			c.Reset()
			_, _ = c.AddNewHashes(hs, out)
		},
		"Concurrent.ContainsHashes": func() { c.ContainsHashes(hs, out) },
		"Concurrent.AddHashes": func() {
			c.Reset()
			_, _ = c.AddHashes(hs)
		},
	} {
		if raceEnabled && stackBuffers[name] {
			continue // see raceEnabled
		}
		if a := testing.AllocsPerRun(200, fn); a != 0 {
			t.Errorf("%s: %v allocs", name, a)
		}
	}
	_ = sink
}

// TestInlining checks that a lookup is one call with no calls inside:
// ContainsHash and ContainsUint64 inline into their callers, and probe,
// the function they call, is a frameless leaf (the hash, index, fingerprint,
// alternate-bucket and victim helpers all inline into it). (probe itself,
// at about 400 units of the compiler's inlining cost against a budget of
// 80, cannot inline: see the package doc.) Small accessors must inline.
func TestInlining(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the compiler")
	}
	out, err := exec.Command("go", "build", "-gcflags=-m=2", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	text := string(out)
	for _, fn := range []string{"kernel.CuckooIndex", "kernel.CuckooFingerprint", "kernel.CuckooAlt", "kernel.CuckooTag", "kernel.CuckooVictimHit", "hash.Uint64"} {
		if !regexp.MustCompile(`lookup\.go:\d+:\d+: inlining call to ` + regexp.QuoteMeta(fn)).MatchString(text) {
			t.Errorf("%s is not inlined into the filter", fn)
		}
	}
	for _, fn := range []string{"(*Filter).ContainsHash", "(*Filter).ContainsUint64", "(*View).ContainsHash", "(*View).ContainsUint64", "(*Filter).Count", "(*Filter).Capacity", "(*Filter).Hash", "(*Filter).locate", "(*Filter).bucket", "(*Filter).emptyLanes"} {
		if !strings.Contains(text, "can inline "+fn+" ") {
			t.Errorf("%s does not inline", fn)
		}
	}
	if m := regexp.MustCompile(`cannot inline \(\*Filter\)\.probe: function too complex: cost (\d+)`).FindStringSubmatch(text); m != nil {
		t.Logf("probe inlining cost %s (budget 80)", m[1])
	}
	// No call survives inside probe, not even a bounds-check panic (its
	// bucket loads are unchecked), so it is a leaf with no stack frame:
	// read its machine code.
	asm, err := exec.Command("go", "build", "-gcflags=-S", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, asm)
	}
	in, lines, texts := false, 0, 0
	for _, line := range strings.Split(string(asm), "\n") {
		if strings.Contains(line, " STEXT") {
			in = strings.Contains(line, "(*Filter).probe STEXT")
			continue
		}
		if !in {
			continue
		}
		lines++
		if strings.Contains(line, "\tTEXT\t") {
			texts++
			if !strings.Contains(line, "NOFRAME") {
				t.Errorf("probe has a stack frame: %s", line)
			}
		}
		if strings.Contains(line, "\tCALL\t") {
			t.Errorf("call left in probe: %s", line)
		}
	}
	if lines < 20 || texts != 1 {
		t.Errorf("%d lines and %d TEXT lines of probe found in the -S output (the checks would pass vacuously)", lines, texts)
	}
}

func TestFPP(t *testing.T) {
	if got, want := fppAt(0.95, 16), 8*0.95/65535; math.Abs(got-want)/want > 1e-3 {
		t.Fatalf("fpp(16) = %g, want about %g", got, want)
	}
	f := mustNew(t, 100)
	if f.FPP() != 0 {
		t.Fatal("empty filter has FPP > 0")
	}
}

// TestMeasuredFPR: the measured false positive rate of a full filter is
// within 10% of FPP (seeded, so deterministic).
func TestMeasuredFPR(t *testing.T) {
	type tc struct {
		fb       int
		capacity uint64
		probes   int
	}
	cases := []tc{{8, 100000, 2000000}}
	if !testing.Short() {
		cases = append(cases, tc{16, 1000000, 40000000})
	}
	for _, c := range cases {
		f := mustNew(t, c.capacity, WithFingerprintBits(c.fb), WithSeed(42))
		for i := uint64(0); f.AddUint64(i) == nil; i++ {
		}
		fp := 0
		hs := make([]uint64, 4096)
		out := make([]bool, len(hs))
		for done := 0; done < c.probes; done += len(hs) {
			for i := range hs {
				// Keys 2^40 + i were never added.
				hs[i] = f.HashUint64(1<<40 + uint64(done+i))
			}
			fp += f.ContainsHashes(hs, out)
		}
		measured := float64(fp) / float64(c.probes)
		pred := f.FPP()
		t.Logf("f=%d capacity=%d load=%.4f: measured FPR %.4g, FPP %.4g, %.2f bits/key", c.fb, c.capacity, f.LoadFactor(), measured, pred, f.BitsPerKey())
		if math.Abs(measured-pred)/pred > 0.10 {
			t.Errorf("f=%d: measured FPR %.4g not within 10%% of FPP %.4g", c.fb, measured, pred)
		}
	}
}

// TestView: FromBytes and Open return a View, which has no method that
// changes the filter (before, they returned a *Filter whose Remove reported
// false and whose Reset silently did nothing); Clone makes a writable copy.
func TestView(t *testing.T) {
	for _, m := range []string{"Add", "AddString", "AddUint64", "AddHash", "AddHashes", "Remove", "RemoveString", "RemoveUint64", "RemoveHash", "Reset", "UnmarshalBinary", "ReadFrom"} {
		if _, ok := reflect.TypeOf(&View{}).MethodByName(m); ok {
			t.Errorf("View has method %s", m)
		}
	}
	f := mustNew(t, 100)
	_ = f.AddString("a")
	b, _ := f.MarshalBinary()
	g, err := FromBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	if !g.ContainsString("a") || g.Count() != 1 || g.Capacity() != f.Capacity() {
		t.Fatal("view lost the key")
	}
	h := g.Clone()
	defer h.Close()
	if h.AddString("b") != nil || !h.ContainsString("a") || !h.RemoveString("a") {
		t.Fatal("clone of a view not writable")
	}
	if !g.ContainsString("a") {
		t.Fatal("changing the clone changed the view")
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
}

// The constant the kernels use must match the documented one.
func TestAltMul(t *testing.T) {
	if kernel.CuckooAltMul != 0x9e3779b1 {
		t.Fatal("CuckooAltMul changed: it is part of the file format")
	}
}

// TestAddHashesEqualsAddHashLoop: locating and prefetching (or loading)
// buckets ahead changes nothing:
// AddHashes leaves exactly the filter (bytes, count, PRNG state) and the
// error that AddHash in a loop does, through kicks and ErrFull.
func TestAddHashesEqualsAddHashLoop(t *testing.T) {
	// Every kernel: the assembly ones prefetch, the generic one loads.
	kerneltest.Run(t, func(t *testing.T, impl string) { addHashesEqualsLoop(t) })
}

func addHashesEqualsLoop(t *testing.T) {
	for _, fb := range []int{8, 16} {
		for _, c := range []uint64{1, 5, 17, 1000, 40001} {
			a := mustNew(t, c, WithFingerprintBits(fb))
			b := mustNew(t, c, WithFingerprintBits(fb))
			rng := rand.New(rand.NewPCG(c, uint64(fb)))
			hs := make([]uint64, c+c/8+40)
			for i := range hs {
				hs[i] = rng.Uint64()
			}
			n, err := a.AddHashes(hs)
			m := 0
			var errLoop error
			for _, h := range hs {
				if errLoop = b.AddHash(h); errLoop != nil {
					break
				}
				m++
			}
			if n != m || !errors.Is(err, ErrFull) || !errors.Is(errLoop, ErrFull) {
				t.Fatalf("f=%d c=%d: AddHashes = %d, %v; loop = %d, %v", fb, c, n, err, m, errLoop)
			}
			ab, _ := a.MarshalBinary()
			bb, _ := b.MarshalBinary()
			if !bytes.Equal(ab, bb) {
				t.Fatalf("f=%d c=%d: AddHashes and the AddHash loop built different filters", fb, c)
			}
			allPresent(t, a, hs[:n], "AddHashes")
		}
	}
}

// TestViewCloneRecounts: a View takes the saved count unchecked (it only
// skews Count, LoadFactor and FPP there; WithCountCheck refuses it), but
// its Clone is a writable filter, whose count must be the slots in use.
// With the saved count set to 0 (the header's CRC made valid again), the
// clone counted 0, a Remove took it to 2^64-1, and every encoding it made
// was refused by the decoders.
func TestViewCloneRecounts(t *testing.T) {
	for _, bits := range []int{8, 16} {
		f := mustNew(t, 100, WithFingerprintBits(bits))
		for i := range uint64(17) {
			if err := f.AddUint64(i); err != nil {
				t.Fatal(err)
			}
		}
		sound, err := f.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		b := reencode(t, sound, func(h *format.Header, p []byte) []byte {
			h.Params[paramCount] = 0
			return p
		})
		v, err := FromBytes(b)
		if err != nil {
			t.Fatalf("%d bits: FromBytes: %v", bits, err)
		}
		if _, err := FromBytes(b, WithCountCheck()); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%d bits: FromBytes with WithCountCheck of a wrong count: %v, want ErrCorrupt", bits, err)
		}
		if w, err := FromBytes(sound, WithCountCheck()); err != nil {
			t.Errorf("%d bits: FromBytes with WithCountCheck of a sound file: %v", bits, err)
		} else {
			w.Close()
		}
		g := v.Clone()
		if g.Count() != 17 {
			t.Errorf("%d bits: clone counts %d keys, want 17 (the view says %d)", bits, g.Count(), v.Count())
		}
		if !g.RemoveUint64(1) || g.Count() != 16 {
			t.Errorf("%d bits: after a Remove the clone counts %d, want 16", bits, g.Count())
		}
		enc, err := g.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var h Filter
		if err := h.UnmarshalBinary(enc); err != nil {
			t.Errorf("%d bits: the clone's encoding does not decode: %v", bits, err)
		}
		g.Close()
		v.Close()
	}
}
