package classic

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/nocopy"
)

func TestNewCountingErrors(t *testing.T) {
	for _, c := range []struct {
		n   uint64
		fpp float64
	}{
		{10, 0}, {10, -1}, {10, 1}, {10, 2}, {10, math.NaN()}, {10, math.Inf(1)},
		{10, 1e-78},             // k > 255
		{math.MaxInt64, 1e-10},  // beyond addressable memory
		{math.MaxUint64, 1e-10}, // more so
		{1 << 50, 0.01},         // 2^50 keys: 2^56 counters
	} {
		f, err := NewCounting(c.n, c.fpp)
		if err == nil || f != nil || !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("NewCounting(%d, %v) = %v, %v; want ErrInvalidArgument", c.n, c.fpp, f, err)
		}
	}
}

func TestNewCountingGeometry(t *testing.T) {
	for _, c := range []struct {
		n        uint64
		fpp      float64
		counters uint64
		k        int
	}{
		{0, 0.5, 16, 1},              // n = 0 as 1: 2 counters -> one word
		{1, 0.99, 16, 1},             // fpp near 1: at least one word and one probe
		{1000, 0.01, 9600, 7},        // 9586 counters -> 600 words; k = round(9.586*ln 2) = 7
		{100000, 0.001, 1437760, 10}, // 1437759 counters -> 89860 words
	} {
		f, err := NewCounting(c.n, c.fpp, WithSeed(3))
		if err != nil {
			t.Fatal(err)
		}
		if f.Counters() != c.counters || f.NumHashFunctions() != c.k || f.Seed() != 3 || f.SizeBytes() != c.counters/2 {
			t.Errorf("NewCounting(%d, %v): %v, want %d counters k=%d", c.n, c.fpp, f, c.counters, c.k)
		}
	}
}

// TestCountingNoFalseNegatives interleaves adds and removes (with
// duplicates) and checks every key still present is found and the state
// matches an exact multiset model.
func TestCountingNoFalseNegatives(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 3000
	}
	for _, fpp := range []float64{0.2, 0.01} {
		f, err := NewCounting(uint64(n), fpp, WithSeed(42))
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(11, 12))
		present := map[uint64]int{}
		var keys []uint64
		for step := 0; step < 4*n; step++ {
			if len(keys) == 0 || r.IntN(3) != 0 {
				x := r.Uint64N(uint64(2 * n)) // small universe: many duplicates
				f.AddUint64(x)
				if present[x] == 0 {
					keys = append(keys, x)
				}
				present[x]++
			} else {
				i := r.IntN(len(keys))
				x := keys[i]
				if err := f.RemoveUint64(x); err != nil {
					t.Fatalf("Remove of a present key: %v", err)
				}
				if present[x]--; present[x] == 0 {
					delete(present, x)
					keys[i] = keys[len(keys)-1]
					keys = keys[:len(keys)-1]
				}
			}
			if step%997 == 0 {
				for x := range present {
					if !f.ContainsUint64(x) {
						t.Fatalf("false negative for %d after %d steps", x, step)
					}
				}
			}
		}
		for x := range present {
			if !f.ContainsUint64(x) {
				t.Fatalf("false negative for %d", x)
			}
		}
		if f.nonzero != f.countNonzero() {
			t.Fatalf("nonzero count %d, recount %d", f.nonzero, f.countNonzero())
		}
		// Remove everything: all counters that never saturated return to zero.
		for x, cnt := range present {
			for ; cnt > 0; cnt-- {
				if err := f.RemoveUint64(x); err != nil {
					t.Fatalf("final Remove: %v", err)
				}
			}
		}
		if f.Saturated() == 0 && f.nonzero != 0 {
			t.Fatalf("%d counters non-zero after removing every key", f.nonzero)
		}
	}
}

func TestCountingSaturation(t *testing.T) {
	f, err := NewCounting(100, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		f.AddString("hot")
	}
	if got := f.Saturated(); got == 0 || got > uint64(f.NumHashFunctions()) {
		t.Fatalf("Saturated = %d after 40 adds of one key with k=%d", got, f.NumHashFunctions())
	}
	// Saturated counters are never decremented: however many removes, the
	// key stays (the filter no longer knows its count).
	for i := 0; i < 100; i++ {
		if err := f.RemoveString("hot"); err != nil {
			t.Fatalf("remove #%d: %v", i, err)
		}
	}
	if !f.ContainsString("hot") {
		t.Fatal("a saturated key was lost")
	}
	// A counter at 14 plus one add saturates; the next add leaves it.
	g, _ := NewCounting(100, 0.01)
	for i := 0; i < 14; i++ {
		g.AddUint64(9)
	}
	before := g.Clone()
	g.AddUint64(9)
	g.AddUint64(9)
	if g.Saturated() == 0 || g.Equal(before) {
		t.Fatal("counters did not reach 15")
	}
	h := g.Clone()
	h.AddUint64(9)
	if !h.Equal(g) {
		t.Fatal("adding to saturated counters changed them")
	}
}

func TestCountingRemoveAbsent(t *testing.T) {
	f, _ := NewCounting(1000, 0.01, WithSeed(7))
	for i := 0; i < 1000; i++ {
		f.AddString("k" + strconv.Itoa(i))
	}
	refused := 0
	for i := 0; i < 1000; i++ {
		key := "absent" + strconv.Itoa(i)
		before := f.Clone()
		err := f.RemoveString(key)
		if err != nil {
			refused++
			if !errors.Is(err, ErrNotPresent) {
				t.Fatalf("Remove(absent) = %v, want ErrNotPresent", err)
			}
			if !f.Equal(before) || f.nonzero != before.nonzero {
				t.Fatal("a refused Remove changed the filter")
			}
		} else {
			// A false positive: Remove cannot tell it from a real key.
			nocopy.Move(f, before)
		}
	}
	if refused < 950 {
		t.Fatalf("only %d of 1000 absent keys refused at 1%% fpp", refused)
	}
}

// TestCountingRemoveRollback builds the case where two probes of a key that
// was never added share a counter holding 1: Remove must refuse and undo.
func TestCountingRemoveRollback(t *testing.T) {
	f, _ := NewCounting(1, 0.5) // 16 counters
	f.k = 40                    // many probes over 16 counters: repeats are certain
	for h := uint64(0); h < 1000; h++ {
		// Set each counter this key probes to exactly one, even repeated ones.
		f.Reset()
		g, step := counterProbes(h)
		seen := map[uint64]bool{}
		repeated := false
		for i := 0; i < f.k; i++ {
			wi, shift := f.slot(g)
			slot := wi*16 + uint64(shift/4)
			if seen[slot] {
				repeated = true
			} else {
				seen[slot] = true
				f.words[wi] += 1 << shift
				f.nonzero++
			}
			g += step
		}
		if !repeated {
			continue
		}
		before := f.Clone()
		if err := f.RemoveHash(h); !errors.Is(err, ErrNotPresent) {
			t.Fatalf("h=%d: Remove with a shared counter at 1 = %v", h, err)
		}
		if !f.Equal(before) || f.nonzero != before.nonzero {
			t.Fatalf("h=%d: the refused Remove was not undone", h)
		}
		return
	}
	t.Fatal("no key with repeated probes found")
}

func TestCountingKeyForms(t *testing.T) {
	f, _ := NewCounting(100, 0.01, WithSeed(99))
	f.AddString("abc")
	if !f.Contains([]byte("abc")) || !f.ContainsHash(hash.String("abc", 99)) {
		t.Fatal("AddString, Contains and ContainsHash disagree")
	}
	f.AddUint64(12345)
	if !f.Contains([]byte{0x39, 0x30, 0, 0, 0, 0, 0, 0}) {
		t.Fatal("AddUint64 is not Add of the little-endian bytes")
	}
	if err := f.Remove([]byte("abc")); err != nil || f.ContainsString("abc") && f.ExpectedFpp() < 1e-6 {
		t.Fatalf("Remove: %v", err)
	}
	other, _ := NewCounting(100, 0.01, WithSeed(100))
	other.AddString("abc")
	if other.Equal(f) {
		t.Fatal("filters with different seeds are equal")
	}
}

func TestCountingFPR(t *testing.T) {
	n, probes := 50000, 200000
	if testing.Short() {
		n, probes = 5000, 40000
	}
	for _, fpp := range []float64{0.05, 0.01, 0.001} {
		f, _ := NewCounting(uint64(n), fpp, WithSeed(1))
		for i := 0; i < n; i++ {
			f.AddUint64(uint64(i))
		}
		fp := 0
		for i := 0; i < probes; i++ {
			if f.ContainsUint64(uint64(n + i)) {
				fp++
			}
		}
		got, want := float64(fp)/float64(probes), f.ExpectedFpp()
		sigma := math.Sqrt(want * (1 - want) / float64(probes))
		if math.Abs(got-want) > 5*sigma+1e-9 {
			t.Errorf("fpp %v: measured %.5f, ExpectedFpp %.5f", fpp, got, want)
		}
		if want > 1.15*fpp {
			t.Errorf("fpp %v: ExpectedFpp %.5f after n keys", fpp, want)
		}
		if est := f.EstimatedCount(); math.Abs(float64(est)-float64(n)) > 0.03*float64(n) {
			t.Errorf("EstimatedCount %d for %d keys", est, n)
		}
	}
}

func TestCountingUnion(t *testing.T) {
	a, _ := NewCounting(1000, 0.01)
	b, _ := NewCounting(1000, 0.01)
	for i := 0; i < 300; i++ {
		a.AddUint64(uint64(i))
		b.AddUint64(uint64(i + 1000))
	}
	for i := 0; i < 20; i++ {
		a.AddUint64(5000)
		b.AddUint64(5000)
	}
	u := a.Clone()
	if err := u.Union(b); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		if !u.ContainsUint64(uint64(i)) || !u.ContainsUint64(uint64(i+1000)) {
			t.Fatal("union lost a key")
		}
	}
	if u.nonzero != u.countNonzero() {
		t.Fatal("nonzero count")
	}
	for _, o := range []*Counting{nil, u} {
		if !errors.Is(u.Union(o), ErrIncompatible) {
			t.Fatal("Union with nil or itself")
		}
	}
	c, _ := NewCounting(1000, 0.01, WithSeed(1))
	d, _ := NewCounting(2000, 0.01)
	for _, o := range []*Counting{c, d} {
		before := u.Clone()
		if !errors.Is(u.Union(o), ErrIncompatible) || !u.Equal(before) {
			t.Fatal("incompatible Union")
		}
	}
}

func TestAddNibblesSaturating(t *testing.T) {
	for a := uint64(0); a < 16; a++ {
		for b := uint64(0); b < 16; b++ {
			want := min(a+b, 15)
			for lane := uint(0); lane < 64; lane += 4 {
				// Neighbouring lanes hold 15 and 1 to catch carries across lanes.
				x := a<<lane | 0xf<<((lane+4)%64)
				y := b<<lane | 0x1<<((lane+4)%64)
				got := addNibblesSaturating(x, y)
				if (got>>lane)&15 != want || (got>>((lane+4)%64))&15 != 15 {
					t.Fatalf("lanes %d+%d at %d: got %#x", a, b, lane, got)
				}
			}
		}
	}
	if nonzeroNibbles(0x0f00_0001_0000_8000) != 3 || nonzeroNibbles(^uint64(0)) != 16 || nonzeroNibbles(0) != 0 {
		t.Fatal("nonzeroNibbles")
	}
}

func TestCountingZeroAllocs(t *testing.T) {
	f, _ := NewCounting(10000, 0.01)
	key := []byte("some key")
	f.Add(key)
	absent := []byte("absent key, never added")
	for name, fn := range map[string]func(){
		"Add":            func() { f.Add(key) },
		"AddString":      func() { f.AddString("s") },
		"AddUint64":      func() { f.AddUint64(1) },
		"Contains":       func() { f.Contains(key) },
		"ContainsString": func() { f.ContainsString("s") },
		"ContainsUint64": func() { f.ContainsUint64(1) },
		"Remove+Add":     func() { _ = f.Remove(key); f.Add(key) },
		"RemoveAbsent":   func() { _ = f.Remove(absent) },
	} {
		if a := testing.AllocsPerRun(100, fn); a != 0 {
			t.Errorf("%s: %v allocations", name, a)
		}
	}
}

func TestCountingReset(t *testing.T) {
	f, err := NewCounting(1000, 0.01, WithSeed(7))
	if err != nil {
		t.Fatal(err)
	}
	empty, _ := NewCounting(1000, 0.01, WithSeed(7))
	for i := uint64(0); i < 1000; i++ {
		f.AddUint64(i)
		f.AddUint64(i) // some counters reach 2 and more
	}
	f.Reset()
	if !f.Equal(empty) || f.EstimatedCount() != 0 || f.ExpectedFpp() != 0 || f.Saturated() != 0 {
		t.Fatalf("after Reset: %v, want %v", f, empty)
	}
	if f.Counters() != empty.Counters() || f.NumHashFunctions() != empty.NumHashFunctions() || f.Seed() != 7 {
		t.Fatal("Reset changed the geometry or the seed")
	}
	for i := uint64(0); i < 1000; i++ {
		if f.ContainsUint64(i) {
			t.Fatalf("%d still found after Reset", i)
		}
	}
	if err := f.RemoveUint64(1); !errors.Is(err, ErrNotPresent) {
		t.Fatalf("Remove after Reset = %v, want ErrNotPresent", err)
	}
	f.AddUint64(1)
	if !f.ContainsUint64(1) || f.EstimatedCount() != 1 || f.RemoveUint64(1) != nil {
		t.Fatal("Add/Remove after Reset")
	}
}
