package cuckoo

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// walledIn returns a filter (16 or 8-bit fingerprints, kick limit kicks)
// holding eight copies of one key, which fill both of its buckets with a
// fingerprint that cannot move (its other bucket is the same pair), and
// the hash of a key with another fingerprint whose two buckets are that
// pair: no relocation can make room for it.
func walledIn(t *testing.T, fb, kicks int) (f *Filter, walled uint64) {
	t.Helper()
	f = mustNew(t, 1000, WithFingerprintBits(fb), WithMaxKicks(kicks))
	var dup uint64
	var p, q, fpDup uint64
	// A key with two buckets and a fingerprint sharing its bucket pair's
	// sum H(fp) (CuckooAlt) with another fingerprint: with 8 bits and more
	// buckets than fingerprints, not every one has such a twin.
	twin := func(fp uint64) bool {
		for o := uint64(1); o <= f.fpMax; o++ {
			if o != fp && kernel.CuckooAlt(0, o, f.t.Buckets) == kernel.CuckooAlt(0, fp, f.t.Buckets) {
				return true
			}
		}
		return false
	}
	for k := uint64(0); ; k++ {
		if dup = f.HashUint64(k); true {
			if p, fpDup, q = f.locate(dup); p != q && twin(fpDup) {
				break
			}
		}
	}
	for range 8 {
		if err := f.AddHash(dup); err != nil {
			t.Fatal(err)
		}
	}
	for k := uint64(1 << 40); k < 1<<40+1<<26; k++ {
		h := f.HashUint64(k)
		if i1, fp, i2 := f.locate(h); fp != fpDup && (i1 == p && i2 == q || i1 == q && i2 == p) {
			return f, h
		}
	}
	t.Fatal("no key found walled in")
	return nil, 0
}

// TestWalledInKey: a key whose buckets are both held by a repeated key's
// copies finds no slot. Below 90% load Add returns ErrNoSlot (which
// matches ErrFull), undoes its relocation walk and parks nothing: the
// filter is unchanged byte for byte (kick PRNG state included) and other
// keys can still be added. Before, the walk parked a homeless fingerprint
// as the victim and every later Add failed, at 0.8% load here. Every add
// form, Filter and Concurrent, single and batch, add-if-new, and Union;
// kick limits 0, the default and one past the walk's stack buffer. From
// 90% load on the same key parks the victim, as before.
func TestWalledInKey(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		for _, fb := range []int{8, 16} {
			// The undo draws its slots again in chunks of undoChunk:
			// limits of one chunk, just over it, and between chunks.
			for _, kicks := range []int{0, DefaultMaxKicks, DefaultMaxKicks + 1, 2 * DefaultMaxKicks, 3*undoChunk - 1} {
				walledInKey(t, fmt.Sprintf("f=%d kicks=%d", fb, kicks), fb, kicks)
			}
		}
	})
}

func walledInKey(t *testing.T, what string, fb, kicks int) {
	f, w := walledIn(t, fb, kicks)
	defer f.Close()
	before, _ := f.MarshalBinary()
	unchanged := func(g interface{ MarshalBinary() ([]byte, error) }, how string) {
		t.Helper()
		if after, _ := g.MarshalBinary(); !bytes.Equal(before, after) {
			t.Fatalf("%s: %s of the walled-in key changed the filter", what, how)
		}
	}
	if err := f.AddHash(w); err != ErrNoSlot || !errors.Is(err, ErrFull) || f.VictimInUse() || f.ContainsHash(w) {
		t.Fatalf("%s: AddHash = %v (victim in use %v, present %v); want ErrNoSlot, matching ErrFull, nothing parked", what, err, f.VictimInUse(), f.ContainsHash(w))
	}
	unchanged(f, "AddHash")
	if isNew, err := f.AddNewHash(w); isNew || err != ErrNoSlot {
		t.Fatalf("%s: AddNewHash = %v, %v; want false, ErrNoSlot", what, isNew, err)
	}
	unchanged(f, "AddNewHash")

	// Batches stop at it, with the keys before it added, as a loop of
	// AddHash does.
	a, b := f.Clone(), f.Clone()
	x, y := f.HashUint64(1<<50), f.HashUint64(1<<50+1)
	if n, err := a.AddHashes([]uint64{x, w, y}); n != 1 || err != ErrNoSlot {
		t.Fatalf("%s: AddHashes = %d, %v; want 1, ErrNoSlot", what, n, err)
	}
	if err := b.AddHash(x); err != nil {
		t.Fatal(err)
	}
	ea, _ := a.MarshalBinary()
	eb, _ := b.MarshalBinary()
	if !bytes.Equal(ea, eb) {
		t.Fatalf("%s: AddHashes and AddHash differ after ErrNoSlot", what)
	}
	out := make([]bool, 3)
	if n, err := a.AddNewHashes([]uint64{x, w, y}, out); n != 1 || err != ErrNoSlot || out[0] {
		t.Fatalf("%s: AddNewHashes = %d, %v, %v; want 1 (x present), ErrNoSlot", what, n, err, out)
	}
	a.Close()
	b.Close()

	// Concurrent: the same walk, with atomic stores, undone.
	c := NewConcurrentFrom(f.Clone())
	if err := c.AddHash(w); err != ErrNoSlot {
		t.Fatalf("%s: Concurrent.AddHash = %v; want ErrNoSlot", what, err)
	}
	if n, err := c.AddHashes([]uint64{w}); n != 0 || err != ErrNoSlot {
		t.Fatalf("%s: Concurrent.AddHashes = %d, %v; want 0, ErrNoSlot", what, n, err)
	}
	if isNew, err := c.AddNewHash(w); isNew || err != ErrNoSlot {
		t.Fatalf("%s: Concurrent.AddNewHash = %v, %v; want false, ErrNoSlot", what, isNew, err)
	}
	unchanged(c, "Concurrent.AddHash")
	c.Close()

	// Union: a filter holding the walled-in key cannot be merged in.
	g := mustNew(t, 1000, WithFingerprintBits(fb), WithMaxKicks(kicks))
	if err := g.AddHash(w); err != nil {
		t.Fatal(err)
	}
	if err := f.Union(g); !errors.Is(err, ErrNoSlot) || !errors.Is(err, ErrFull) {
		t.Fatalf("%s: Union = %v; want ErrNoSlot", what, err)
	}
	g.Close()
	unchanged(f, "Union")

	// Other keys still go in, up to 90% load.
	p, _, q := f.locate(w)
	for k := uint64(0); !f.parks(f.Count()); k++ {
		h := f.HashUint64(1<<62 | k<<20)
		err := f.AddHash(h)
		if i1, _, i2 := f.locate(h); err != nil && !(errors.Is(err, ErrNoSlot) && noSlot(f, h)) {
			t.Fatalf("%s: AddHash of another key at load %.3f (buckets %d, %d; walled pair %d, %d): %v", what, f.LoadFactor(), i1, i2, p, q, err)
		}
		if f.VictimInUse() {
			t.Fatalf("%s: a victim parked at load %.3f", what, f.LoadFactor())
		}
	}
	// From there the walled-in key parks the victim and is found.
	if err := f.AddHash(w); err != nil || !f.VictimInUse() || !f.ContainsHash(w) {
		t.Fatalf("%s: AddHash at load %.3f = %v (victim in use %v); want nil, the victim parked", what, f.LoadFactor(), err, f.VictimInUse())
	}
	if err := f.AddHash(x); err != ErrFull {
		t.Fatalf("%s: AddHash with the victim in use = %v; want ErrFull", what, err)
	}
}

// TestNoSlotNoAllocs: an Add of a walled-in key, whose walk is undone,
// allocates nothing whatever the kick limit (a decoded file's header may
// set MaxMaxKicks): the undo took a heap slice of the limit's slots above
// DefaultMaxKicks, 64 KiB a call at MaxMaxKicks. The filter is unchanged.
func TestNoSlotNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector moves stack buffers to the heap (see raceEnabled)")
	}
	for _, kicks := range []int{DefaultMaxKicks, DefaultMaxKicks + 1, 3*undoChunk - 1, MaxMaxKicks} {
		f, w := walledIn(t, 16, kicks)
		before, _ := f.MarshalBinary()
		c := NewConcurrentFrom(f.Clone())
		for name, add := range map[string]func() error{"Filter": func() error { return f.AddHash(w) }, "Concurrent": func() error { return c.AddHash(w) }} {
			if a := testing.AllocsPerRun(5, func() {
				if err := add(); err != ErrNoSlot {
					t.Fatalf("kicks %d: %s.AddHash = %v, want ErrNoSlot", kicks, name, err)
				}
			}); a != 0 {
				t.Errorf("kicks %d: %s.AddHash of a walled-in key: %v allocs", kicks, name, a)
			}
		}
		for name, g := range map[string]interface{ MarshalBinary() ([]byte, error) }{"Filter": f, "Concurrent": c} {
			if after, _ := g.MarshalBinary(); !bytes.Equal(before, after) {
				t.Errorf("kicks %d: the undone walks changed the %s", kicks, name)
			}
		}
		f.Close()
		c.Close()
	}
}

// TestNoSlotUndoesWalk: with small kick limits, walks through the table
// run out below 90% load; each such Add must return ErrNoSlot with the
// filter unchanged byte for byte (every eviction of its walk undone, the
// kick PRNG restored), Filter and Concurrent alike, and every key added
// must stay present. From 90% load the first failed walk parks the victim.
// (With 30 kicks walks rarely fail below 90%; with 1 and 4 some must.)
func TestNoSlotUndoesWalk(t *testing.T) {
	total := map[int]int{} // keys refused, by kick limit
	for _, fb := range []int{8, 16} {
		for _, kicks := range []int{1, 4, 30} {
			for _, c := range []uint64{1000, 5003} {
				what := fmt.Sprintf("f=%d kicks=%d c=%d", fb, kicks, c)
				f := mustNew(t, c, WithFingerprintBits(fb), WithMaxKicks(kicks), WithSeed(c))
				cc := NewConcurrentFrom(f.Clone())
				rng := rand.New(rand.NewPCG(c, uint64(kicks)))
				var added []uint64
				refused := 0
				for !f.VictimInUse() {
					h := rng.Uint64()
					before, _ := f.MarshalBinary()
					err := f.AddHash(h)
					if e := cc.AddHash(h); e != err {
						t.Fatalf("%s: Filter.AddHash = %v, Concurrent's %v", what, err, e)
					}
					switch {
					case err == nil:
						added = append(added, h)
						continue
					case err != ErrNoSlot:
						t.Fatalf("%s: AddHash at load %.3f: %v", what, f.LoadFactor(), err)
					}
					refused++
					after, _ := f.MarshalBinary()
					if !bytes.Equal(before, after) || !noSlot(f, h) {
						t.Fatalf("%s: ErrNoSlot at load %.3f changed the filter (or is not borne out)", what, f.LoadFactor())
					}
					if ca, _ := cc.MarshalBinary(); !bytes.Equal(ca, after) {
						t.Fatalf("%s: Concurrent differs from Filter after ErrNoSlot", what)
					}
				}
				if f.LoadFactor() < 0.9 {
					t.Fatalf("%s: victim parked at load %.3f", what, f.LoadFactor())
				}
				total[kicks] += refused
				allPresent(t, f, added, what)
				cc.Close()
				f.Close()
			}
		}
	}
	if total[1] == 0 || total[4] == 0 {
		t.Fatalf("keys refused by kick limit: %v: the test misses its path", total)
	}
}

// TestRepeatedKeysFill: batches of 3,000 keys in which one key comes ten
// times (its ninth and tenth copies meet ErrDuplicateLimit and are passed
// over, as are keys refused with ErrNoSlot) fill a filter of 1e6 keys to
// the load at which random keys fill it: 96.5% at both widths, with 14
// (8-bit) and 27 (16-bit) keys refused. When failed walks parked the
// victim at any load, this stream ended the filter at 53% and 30% load.
func TestRepeatedKeysFill(t *testing.T) {
	for _, fb := range []int{8, 16} {
		f := mustNew(t, 1_000_000, WithFingerprintBits(fb))
		rng := rand.New(rand.NewPCG(1, 2))
		refused, dups := 0, 0
		for !f.VictimInUse() {
			hs := make([]uint64, 3000)
			for i := range hs {
				hs[i] = rng.Uint64()
			}
			for i := 1; i < 10; i++ {
				hs[i] = hs[0]
			}
			for len(hs) > 0 {
				n, err := f.AddHashes(hs)
				switch {
				case err == nil:
					hs = nil
					continue
				case errors.Is(err, ErrNoSlot):
					refused++
				case errors.Is(err, ErrDuplicateLimit):
					dups++
				case errors.Is(err, ErrFull):
					hs = nil
					continue
				default:
					t.Fatal(err)
				}
				hs = hs[n+1:]
			}
		}
		if l := f.LoadFactor(); l < 0.95 || dups == 0 {
			t.Fatalf("f=%d: the victim parked at load %.4f (%d keys refused, %d at the duplicate limit); want 0.95 or more", fb, l, refused, dups)
		}
		t.Logf("f=%d: victim parked at load %.4f; %d keys refused with ErrNoSlot, %d with ErrDuplicateLimit", fb, f.LoadFactor(), refused, dups)
		f.Close()
	}
}

// TestConcurrentNoSlotReaders: while one goroutine adds keys that a
// Concurrent refuses with ErrNoSlot, over and over (a table at 89% load
// with a kick limit of 2: each Add a walk that evicts held keys'
// fingerprints through the table, then its undo, under the exclusive
// lock), lock-free readers must find every key added before, at every
// moment: the walk and the undo run inside an odd sequence number, so a
// reader that raced them retries. The table must come out unchanged.
// (Run with -race, as CI does.)
func TestConcurrentNoSlotReaders(t *testing.T) {
	for _, fb := range []int{8, 16} {
		f := mustNew(t, 4000, WithFingerprintBits(fb), WithMaxKicks(2))
		rng := rand.New(rand.NewPCG(uint64(fb), 85))
		var held, refused []uint64
		for f.LoadFactor() < 0.89 {
			h := rng.Uint64()
			if err := f.AddHash(h); err == nil {
				held = append(held, h)
			} else if err != ErrNoSlot {
				t.Fatal(err)
			}
		}
		// Keys the final table refuses (a refusal changes nothing, so
		// they stay refused).
		for range 400 {
			h := rng.Uint64()
			g := f.Clone()
			if g.AddHash(h) == ErrNoSlot {
				refused = append(refused, h)
			}
			g.Close()
		}
		if len(refused) == 0 {
			t.Fatalf("f=%d: no key refused: the test misses its path", fb)
		}
		before, _ := f.MarshalBinary()
		c := NewConcurrentFrom(f)
		rounds := 40
		if testing.Short() {
			rounds = 4
		}
		done := make(chan struct{})
		errs := make(chan string, 2)
		for range 2 {
			go func() {
				for {
					select {
					case <-done:
						errs <- ""
						return
					default:
					}
					for _, h := range held {
						if !c.ContainsHash(h) {
							errs <- fmt.Sprintf("f=%d: a reader missed a key during a refused Add", fb)
							return
						}
					}
				}
			}()
		}
	adds:
		for range rounds {
			for _, h := range refused {
				if err := c.AddHash(h); err != ErrNoSlot {
					t.Errorf("f=%d: Concurrent.AddHash of a refused key = %v", fb, err)
					break adds
				}
			}
		}
		close(done)
		for range 2 {
			if e := <-errs; e != "" {
				t.Fatal(e)
			}
		}
		if after, _ := c.MarshalBinary(); !bytes.Equal(before, after) {
			t.Fatalf("f=%d: refused Adds changed the filter", fb)
		}
		c.Close()
	}
}
