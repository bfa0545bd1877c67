package cuckoo

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sift-go/sift/internal/kernel"
)

// TestUnion merges filters of every load, both widths, and checks that
// every key of both is present afterwards (or, when the merge fails, that
// f is byte for byte what it was and holds its keys), and that the counts
// add up.
func TestUnion(t *testing.T) {
	const capacity = 2000
	for _, fpBits := range []int{8, 16} {
		rng := rand.New(rand.NewPCG(uint64(fpBits), 17))
		ok, failed := 0, 0
		for _, loads := range [][2]float64{{0, 0.5}, {0.3, 0.3}, {0.45, 0.45}, {0.5, 0.49}, {0.6, 0.5}, {0.9, 0.2}, {1.2, 0}, {0.2, 1.2}, {1.2, 0.3}} {
			for round := range 4 {
				f := mustNew(t, capacity, WithFingerprintBits(fpBits), WithSeed(3))
				g := mustNew(t, capacity, WithFingerprintBits(fpBits), WithSeed(3))
				fk := addUpTo(f, rng, int(loads[0]*capacity))
				gk := addUpTo(g, rng, int(loads[1]*capacity))
				if round == 1 {
					// The same keys in both: each is held twice.
					gk = append(gk, fk...)
					for _, h := range fk {
						if err := g.AddHash(h); err != nil {
							gk = gk[:len(gk)-len(fk)]
							break
						}
					}
				}
				before, _ := f.MarshalBinary()
				otherBefore, _ := g.MarshalBinary()
				fc, gc := f.Count(), g.Count()
				err := f.Union(g)
				if after, _ := g.MarshalBinary(); !bytes.Equal(after, otherBefore) {
					t.Fatal("Union changed its argument")
				}
				if err != nil {
					failed++
					if !errors.Is(err, ErrFull) && !errors.Is(err, ErrDuplicateLimit) {
						t.Fatalf("loads %v: %v", loads, err)
					}
					if after, _ := f.MarshalBinary(); !bytes.Equal(after, before) {
						t.Fatalf("loads %v: a failed Union changed the filter (%v)", loads, err)
					}
					allPresent(t, f, fk, "after a failed Union")
					continue
				}
				ok++
				if f.Count() != fc+gc {
					t.Errorf("loads %v: Count %d after Union, want %d + %d", loads, f.Count(), fc, gc)
				}
				if occ := f.occupied(); f.count != occ+uint64(btoi(f.VictimInUse())) {
					t.Errorf("loads %v: count %d, %d slots occupied", loads, f.count, occ)
				}
				allPresent(t, f, fk, "f's keys after Union")
				allPresent(t, f, gk, "other's keys after Union")
				// The merged filter is an ordinary filter: every key can
				// be removed, and the encoding round-trips.
				var h Filter
				b, err := f.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				if err := h.UnmarshalBinary(b); err != nil {
					t.Fatalf("the merged filter does not decode: %v", err)
				}
				for _, k := range append(fk, gk...) {
					if !f.RemoveHash(k) {
						t.Fatalf("loads %v: a merged key cannot be removed", loads)
					}
				}
				if f.Count() != 0 || f.VictimInUse() {
					t.Errorf("loads %v: Count %d after removing every key", loads, f.Count())
				}
			}
		}
		if ok == 0 || failed == 0 {
			t.Errorf("%d-bit: %d merges succeeded and %d failed; the loads should give both", fpBits, ok, failed)
		}
	}
}

// addUpTo adds up to n random keys to f, stopping at the first error, and
// returns the keys added.
func addUpTo(f *Filter, rng *rand.Rand, n int) []uint64 {
	var keys []uint64
	for range n {
		h := rng.Uint64()
		if f.AddHash(h) != nil {
			break
		}
		keys = append(keys, h)
	}
	return keys
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestUnionVictim merges a full filter (its victim in use) into an empty
// one, and the reverse.
func TestUnionVictim(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	full := mustNew(t, 500, WithSeed(9))
	keys := fillUntilFull(t, full, rng)

	empty := mustNew(t, 500, WithSeed(9))
	if err := empty.Union(full); err != nil {
		t.Fatalf("a full filter into an empty one: %v", err)
	}
	allPresent(t, empty, keys, "after merging a full filter")
	if empty.Count() != full.Count() {
		t.Errorf("Count %d, want %d", empty.Count(), full.Count())
	}
	// Copied as it is: the victim parked, not walked back into the table.
	if !slices.Equal(empty.t.Words, full.t.Words) || empty.t.Victim != full.t.Victim {
		t.Error("a full filter merged into an empty one is not an exact copy")
	}

	// Into a filter holding a victim nothing more fits.
	other := mustNew(t, 500, WithSeed(9))
	if err := other.AddUint64(1); err != nil {
		t.Fatal(err)
	}
	before, _ := full.MarshalBinary()
	if err := full.Union(other); !errors.Is(err, ErrFull) {
		t.Errorf("into a full filter: %v", err)
	}
	if after, _ := full.MarshalBinary(); !bytes.Equal(before, after) {
		t.Error("a failed Union changed the filter")
	}
	// An empty filter merges into anything, a full one included.
	if err := full.Union(mustNew(t, 500, WithSeed(9))); err != nil {
		t.Errorf("an empty filter into a full one: %v", err)
	}
}

// TestUnionWalledVictim merges a filter whose victim is walled in below
// 90% load (its two buckets held by eight copies of one key, which cannot
// move; Remove leaves a filter so after the victim was parked at full
// load) into an empty one and into a half-full one: the victim, which no
// relocation can place, is parked in the target's victim slot, and into
// the empty filter the table is copied as it is. Both orders of the
// merge succeed.
func TestUnionWalledVictim(t *testing.T) {
	for _, fb := range []int{8, 16} {
		other, walled := walledIn(t, fb, DefaultMaxKicks)
		i1, fp, i2 := other.locate(walled)
		other.t.Victim = kernel.CuckooTag(fp, min(i1, i2))
		other.count++
		if !other.ContainsHash(walled) || other.LoadFactor() > 0.1 {
			t.Fatalf("f=%d: the crafted filter: walled key present %v, load %v", fb, other.ContainsHash(walled), other.LoadFactor())
		}
		seed := WithSeed(other.Seed())
		empty := mustNew(t, 1000, WithFingerprintBits(fb), seed)
		if err := empty.Union(other); err != nil {
			t.Fatalf("f=%d: into an empty filter: %v", fb, err)
		}
		if !slices.Equal(empty.t.Words, other.t.Words) || empty.t.Victim != other.t.Victim || empty.Count() != other.Count() {
			t.Errorf("f=%d: not copied as it is (victim %#x against %#x, count %d against %d)", fb, empty.t.Victim, other.t.Victim, empty.Count(), other.Count())
		}
		if !empty.ContainsHash(walled) {
			t.Errorf("f=%d: the victim's key lost", fb)
		}
		// The reverse order (an empty filter merged into other) and a
		// target holding keys of its own.
		if err := other.Clone().Union(mustNew(t, 1000, WithFingerprintBits(fb), seed)); err != nil {
			t.Errorf("f=%d: an empty filter into it: %v", fb, err)
		}
		half := mustNew(t, 1000, WithFingerprintBits(fb), seed)
		rng := rand.New(rand.NewPCG(uint64(fb), 3))
		var keys []uint64
		for half.LoadFactor() < 0.5 {
			h := rng.Uint64()
			if err := half.AddHash(h); err == nil {
				keys = append(keys, h)
			}
		}
		want := half.Count() + other.Count()
		if err := half.Union(other); err != nil {
			t.Fatalf("f=%d: into a half-full filter: %v", fb, err)
		}
		if !half.ContainsHash(walled) || half.Count() != want {
			t.Errorf("f=%d: into a half-full filter: victim's key present %v, count %d, want %d", fb, half.ContainsHash(walled), half.Count(), want)
		}
		for _, h := range keys {
			if !half.ContainsHash(h) {
				t.Fatalf("f=%d: a key of the target lost", fb)
			}
		}
	}
}

// TestUnionVictimRules: another filter's victim that would be a ninth
// copy of its key is refused (ErrDuplicateLimit, f unchanged), and one
// whose buckets are full in f below 90% load is placed by relocation, not
// parked: f's victim slot stays free for later Adds.
func TestUnionVictimRules(t *testing.T) {
	for _, fb := range []int{8, 16} {
		onlyVictim := func(seed uint64, h uint64) *Filter {
			o := mustNew(t, 1000, WithFingerprintBits(fb), WithSeed(seed))
			i1, fp, i2 := o.locate(h)
			o.t.Victim = kernel.CuckooTag(fp, min(i1, i2))
			o.count = 1
			return o
		}
		// A ninth copy.
		f := mustNew(t, 1000, WithFingerprintBits(fb), WithSeed(5))
		d := f.HashUint64(77)
		for range 8 {
			if err := f.AddHash(d); err != nil {
				t.Fatal(err)
			}
		}
		before := slices.Clone(f.t.Words)
		if err := f.Union(onlyVictim(5, d)); !errors.Is(err, ErrDuplicateLimit) {
			t.Errorf("f=%d: a ninth copy as the other's victim: %v, want ErrDuplicateLimit", fb, err)
		}
		if !slices.Equal(f.t.Words, before) || f.Count() != 8 || f.t.Victim != 0 {
			t.Errorf("f=%d: a refused Union changed the filter", fb)
		}
		// Both buckets full at 70% load: relocated.
		g := mustNew(t, 1000, WithFingerprintBits(fb), WithSeed(5))
		rng := rand.New(rand.NewPCG(uint64(fb), 7))
		for g.LoadFactor() < 0.7 {
			_ = g.AddHash(rng.Uint64())
		}
		var v uint64
		for {
			v = rng.Uint64()
			i1, _, i2 := g.locate(v)
			if g.emptyLanes(g.bucket(i1))|g.emptyLanes(g.bucket(i2)) == 0 && !g.ContainsHash(v) {
				break
			}
		}
		count := g.Count()
		if err := g.Union(onlyVictim(5, v)); err != nil {
			t.Fatalf("f=%d: a victim into a filter at 70%% load: %v", fb, err)
		}
		if g.t.Victim != 0 || !g.ContainsHash(v) || g.Count() != count+1 {
			t.Errorf("f=%d: victim slot in use %v, key present %v, count %d want %d", fb, g.t.Victim != 0, g.ContainsHash(v), g.Count(), count+1)
		}
		if err := g.AddHash(rng.Uint64()); err != nil {
			t.Errorf("f=%d: an Add after the merge: %v", fb, err)
		}
	}
}

// TestUnionIncompatible checks what Union refuses.
func TestUnionIncompatible(t *testing.T) {
	f := mustNew(t, 1000, WithSeed(1))
	if err := f.AddUint64(5); err != nil {
		t.Fatal(err)
	}
	before, _ := f.MarshalBinary()
	cases := map[string]*Filter{
		"self":              f,
		"other capacity":    mustNew(t, 2000, WithSeed(1)),
		"other seed":        mustNew(t, 1000, WithSeed(2)),
		"other fingerprint": mustNew(t, 1000, WithSeed(1), WithFingerprintBits(8)),
	}
	for name, g := range cases {
		if err := f.Union(g); !errors.Is(err, ErrIncompatible) || err.Error()[:8] != "cuckoo: " {
			t.Errorf("%s: %v", name, err)
		}
	}
	closed := mustNew(t, 1000, WithSeed(1))
	closed.Close()
	for name, err := range map[string]error{"closed other": f.Union(closed), "closed f": closed.Union(f), "closed f, nil other": closed.Union(nil)} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := f.Union(nil); !errors.Is(err, ErrIncompatible) { // as in every package
		t.Errorf("nil other: %v", err)
	}
	if after, _ := f.MarshalBinary(); !bytes.Equal(before, after) {
		t.Error("a refused Union changed the filter")
	}
}
