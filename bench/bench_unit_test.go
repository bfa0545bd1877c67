package bench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/greatroar/blobloom"
	"github.com/zeebo/xxh3"
)

func TestKeysDeterministicAndDisjoint(t *testing.T) {
	a, b := MakeKeys(1000, Present), MakeKeys(1000, Present)
	if !bytes.Equal(a.Raw, b.Raw) {
		t.Fatal("MakeKeys is not deterministic")
	}
	seen := map[uint64]bool{}
	for i := range a.Len() {
		seen[binary.LittleEndian.Uint64(a.Key(i))] = true
		if a.Hashes[i] != xxh3.Hash(a.Key(i)) {
			t.Fatalf("key %d: hash %#x, want XXH3 %#x", i, a.Hashes[i], xxh3.Hash(a.Key(i)))
		}
	}
	if len(seen) != a.Len() {
		t.Fatalf("%d distinct keys of %d", len(seen), a.Len())
	}
	abs := MakeKeys(1000, Absent)
	for i := range abs.Len() {
		if seen[binary.LittleEndian.Uint64(abs.Key(i))] {
			t.Fatalf("absent key %d is also present", i)
		}
	}
}

// bench/boost/boostcmp.cpp reproduces the keys and their XXH3 hashes in
// C++ and checks itself against these values: change them together.
func TestKeysKnownAnswers(t *testing.T) {
	p, a := MakeKeys(1000001, Present), MakeKeys(3, Absent)
	for _, c := range []struct {
		k    *Keys
		i    int
		want uint64
	}{
		{p, 0, 0x587c24548af65815}, {p, 1, 0x179483f50ce42133}, {p, 2, 0x7cd9a6e3c5d9268a},
		{p, 1000000, 0xd719b32bc2db5e5b}, {a, 0, 0xec3461980a01bc11}, {a, 1, 0xae842e93b7a05b24},
		{a, 2, 0xb75ec1307d2fec99},
	} {
		if got := c.k.Hashes[c.i]; got != c.want {
			t.Errorf("hash of key %d: %#016x, want %#016x", c.i, got, c.want)
		}
	}
}

// Every adapter must hold what it was given (no false negatives), answer
// absent keys near its design rate, and report a plausible size.
func TestAdapters(t *testing.T) {
	const n = 20000
	present, absent := MakeKeys(n, Present), MakeKeys(100000, Absent)
	for _, fpp := range []float64{0.01, 0.001} {
		for _, s := range Specs() {
			f, err := s.New(n, fpp)
			if err == ErrUnsupported {
				continue
			}
			if err != nil {
				t.Fatalf("%s fpp=%g: New: %v", s.Name, fpp, err)
			}
			if err := f.Insert(present); err != nil {
				t.Fatalf("%s fpp=%g: Insert: %v", s.Name, fpp, err)
			}
			if got := f.CountContains(present, 0, n); got != n {
				t.Errorf("%s fpp=%g: %d of %d present keys found", s.Name, fpp, got, n)
			}
			if b, ok := f.(Batcher); ok {
				out := make([]bool, n)
				if got := b.CountContainsBatch(present.Hashes, out); got != n {
					t.Errorf("%s fpp=%g: batch found %d of %d present keys", s.Name, fpp, got, n)
				}
				loop := f.CountContains(absent, 0, absent.Len())
				out = make([]bool, absent.Len())
				if batch := b.CountContainsBatch(absent.Hashes, out); batch != loop {
					t.Errorf("%s fpp=%g: batch says %d absent keys present, loop %d", s.Name, fpp, batch, loop)
				}
			}
			if bi, ok := f.(BatchInserter); ok {
				g, err := s.New(n, fpp)
				if err != nil {
					t.Fatal(err)
				}
				if err := g.(BatchInserter).InsertBatch(present); err != nil {
					t.Fatalf("%s fpp=%g: InsertBatch: %v", s.Name, fpp, err)
				}
				if got := g.CountContains(present, 0, n); got != n {
					t.Errorf("%s fpp=%g: after InsertBatch %d of %d present keys found", s.Name, fpp, got, n)
				}
				if a, b := g.CountContains(absent, 0, absent.Len()), f.CountContains(absent, 0, absent.Len()); a != b {
					t.Errorf("%s fpp=%g: batch-built filter says %d absent keys present, loop-built %d", s.Name, fpp, a, b)
				}
				closeFilter(g)
				_ = bi
			}
			// Fixed-fingerprint filters sit in the group nearest their rate:
			// allow up to 5x the group's target (8-bit cuckoo: ~3%).
			if fpr := MeasureFPR(f, absent); fpr > 5*fpp {
				t.Errorf("%s fpp=%g: measured FPR %g", s.Name, fpp, fpr)
			}
			if bpk := BitsPerKey(f, n); bpk < 4 || bpk > 64 {
				t.Errorf("%s fpp=%g: %.2f bits/key", s.Name, fpp, bpk)
			}
			closeFilter(f)
		}
	}
}

// Every peer issue 15 asked for is registered, and each reports the size
// its library gives its table, found here another way than SizeBytes does:
// blobloom's Optimize, panmari's Encode (its buckets, serialised), and for
// linvon 4 slots of 8 or 16 bits in the power-of-two bucket count NewFilter
// picks (n/4 = 5000 rounds up to 8192, a load of 61%).
func TestPeerSizes(t *testing.T) {
	const n = 20000
	bb := func(fpp float64) int {
		bits, _ := blobloom.Optimize(blobloom.Config{Capacity: n, FPRate: fpp})
		return int(bits / 8)
	}
	for _, c := range []struct {
		name string
		fpp  float64
		want func(f Filter) int
	}{
		{"blobloom", 0.01, func(Filter) int { return bb(0.01) }},
		{"blobloom", 0.001, func(Filter) int { return bb(0.001) }},
		{"panmari-cuckoo16", 0.001, func(f Filter) int { return len(f.(*panmariFilter).f.Encode()) }},
		{"linvon-cuckoo8", 0.01, func(Filter) int { return 8192 * 4 }},
		{"linvon-cuckoo16", 0.001, func(Filter) int { return 8192 * 4 * 2 }},
	} {
		s, ok := Lookup(c.name)
		if !ok {
			t.Errorf("%s is not registered", c.name)
			continue
		}
		f, err := s.New(n, c.fpp)
		if err != nil {
			t.Fatalf("%s fpp=%g: New: %v", c.name, c.fpp, err)
		}
		if got, want := f.SizeBytes(), c.want(f); got != want {
			t.Errorf("%s fpp=%g: SizeBytes %d, want %d", c.name, c.fpp, got, want)
		}
	}
	// Each fixed-width cuckoo peer belongs to one rate group only.
	for _, c := range []struct {
		name string
		fpp  float64
	}{{"panmari-cuckoo16", 0.01}, {"linvon-cuckoo8", 0.001}, {"linvon-cuckoo16", 0.01}} {
		if s, ok := Lookup(c.name); ok {
			if _, err := s.New(n, c.fpp); err != ErrUnsupported {
				t.Errorf("%s fpp=%g: New returned %v, want ErrUnsupported", c.name, c.fpp, err)
			}
		}
	}
}

func TestProbePrefetchMatchesGo(t *testing.T) {
	for _, size := range []int{64, 4096, 1 << 20, 5 << 20} {
		p := NewProbe(size)
		hs := MakeKeys(300, Absent).Hashes
		for l := 0; l <= len(hs); l++ {
			want := p.ProbeRandom(hs[:l])
			for _, dist := range append([]int{0, 1, 2, 299, 300, 301, 1000}, PrefetchDistances...) {
				if got := p.ProbePrefetch(hs[:l], dist); got != want {
					t.Fatalf("size %d, %d hashes, distance %d: prefetch sum %#x, Go sum %#x", size, l, dist, got, want)
				}
			}
			if got := probePrefetchGeneric(&p.words[0], p.lines, hs[:l]); got != want {
				t.Fatalf("size %d, %d hashes: generic sum %#x, want %#x", size, l, got, want)
			}
		}
		if err := p.Free(); err != nil {
			t.Fatal(err)
		}
	}
}

// The chain must be one cycle through every line.
func TestProbeChainIsOneCycle(t *testing.T) {
	p := NewProbe(64 * 1001)
	defer p.Free()
	seen := make([]bool, p.lines)
	for range p.lines {
		cur := p.ProbeChain(1)
		if seen[cur] {
			t.Fatalf("line %d visited twice before the cycle closed", cur)
		}
		seen[cur] = true
	}
	if p.cursor != 0 {
		t.Fatalf("after %d steps the chain is at %d, want back at 0", p.lines, p.cursor)
	}
}

func TestFormulas(t *testing.T) {
	if got := ClassicBestFPR(9.585); math.Abs(got-0.01)/0.01 > 0.02 {
		t.Errorf("ClassicBestFPR(9.585) = %g, want ~0.01", got)
	}
	// DESIGN.md's reference points for 512-bit blocks, within 5%.
	for _, c := range []struct{ fpp, bits float64 }{{0.01, 9.9}, {0.001, 15.5}, {0.0001, 21.9}} {
		if got := BlockedMinBits(c.fpp); math.Abs(got-c.bits)/c.bits > 0.05 {
			t.Errorf("BlockedMinBits(%g) = %.2f, want ~%.1f", c.fpp, got, c.bits)
		}
	}
	if got := FuseFPR(8); got != 1.0/256 {
		t.Errorf("FuseFPR(8) = %g", got)
	}
	if got := CuckooFPR(8, 0.95); got < 0.025 || got > 0.035 {
		t.Errorf("CuckooFPR(8, 0.95) = %g, want ~0.03", got)
	}
}

func TestFormatN(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{100000, "1e5"}, {1, "1e0"}, {123, "123"}, {100000000, "1e8"}} {
		if got := formatN(c.n); got != c.want {
			t.Errorf("formatN(%d) = %q, want %q", c.n, got, c.want)
		}
		if n, err := parseN(formatN(c.n)); err != nil || n != c.n {
			t.Errorf("parseN(formatN(%d)) = %d, %v", c.n, n, err)
		}
	}
}

func TestPlanMatchesSpecs(t *testing.T) {
	plan := Plan()
	if len(plan) == 0 {
		t.Fatal("empty plan")
	}
	seen := map[string]bool{}
	for _, name := range plan {
		if seen[name] {
			t.Fatalf("case %s listed twice", name)
		}
		seen[name] = true
	}
}

// The report reads the distance from the case name (probe=prefetchD) and
// the legacy probe=prefetch as LegacyPrefetchDistance; the plan names
// every distance.
func TestPlanHasEveryPrefetchDistance(t *testing.T) {
	plan := strings.Join(Plan(), "\n")
	for _, d := range PrefetchDistances {
		if want := fmt.Sprintf("/probe=prefetch%d\n", d); !strings.Contains(plan+"\n", want) {
			t.Errorf("the plan has no %s case", strings.TrimSpace(want))
		}
	}
}
