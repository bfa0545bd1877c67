package cuckoo

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/edgetest"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// TestConcurrentStress runs adders, removers and readers at once, up to and
// past full: no key whose Add succeeded (and that was not removed) may ever
// be reported absent, during or after the run. Run it with -race.
func TestConcurrentStress(t *testing.T) {
	capacity, workers := uint64(20000), 4
	if testing.Short() {
		capacity = 3000
	}
	for _, fb := range []int{8, 16} {
		c, err := NewConcurrent(capacity, WithFingerprintBits(fb))
		if err != nil {
			t.Fatal(err)
		}
		// Keys k*workers+w belong to worker w. Even keys stay, odd keys
		// are removed again after being added. Kept keys are published
		// (slot written, then the atomic length) for the readers to check.
		// Workers stop at ErrFull, or 100 keys after another worker's
		// ErrFull: with 4 workers, two add only odd keys, and since a
		// Remove re-homes the victim, their add-remove churn at full load
		// would go on without an ErrFull of their own. Those 100 keys run
		// that churn (relocations, victims parked and re-homed) under the
		// readers' lookups.
		var kept [8][]uint64 // fixed headers: only elements are written
		var published [8]atomic.Int64
		for w := range workers {
			kept[w] = make([]uint64, 2*capacity) // more than the slots
		}
		var fails atomic.Int64
		var stop, full atomic.Bool
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				after := 100
				for k := uint64(0); ; k++ {
					if full.Load() {
						if after == 0 {
							return
						}
						after--
					}
					key := k*uint64(workers) + uint64(w)
					err := c.AddUint64(key)
					if errors.Is(err, ErrFull) {
						full.Store(true)
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
					if key%2 == 1 {
						if !c.RemoveUint64(key) {
							fails.Add(1)
						}
						continue
					}
					n := published[w].Load()
					kept[w][n] = key
					published[w].Store(n + 1)
					if !c.ContainsUint64(key) {
						fails.Add(1)
					}
				}
			}()
		}
		// Readers look up published keys (which must be present) and
		// random ones, single and batched, while relocations run.
		var rg sync.WaitGroup
		var checked atomic.Int64
		for r := range 2 {
			rg.Add(1)
			go func() {
				defer rg.Done()
				rng := rand.New(rand.NewPCG(uint64(r), 9))
				// Batches of 40 (past two prefetch batches) hold a
				// published key's hash at a random place.
				hs, out := make([]uint64, 40), make([]bool, 40)
				for !stop.Load() {
					for i := range hs {
						hs[i] = rng.Uint64()
					}
					j, pub := rng.IntN(len(hs)), false
					w := rng.IntN(workers)
					if n := published[w].Load(); n > 0 {
						key := kept[w][rng.Int64N(n)]
						if !c.ContainsUint64(key) {
							fails.Add(1)
						}
						hs[j], pub = c.f.HashUint64(key), true
						checked.Add(1)
					}
					if c.ContainsHashes(hs, out); pub && !out[j] {
						fails.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		stop.Store(true)
		rg.Wait()
		t.Logf("f=%d: %d concurrent lookups of present keys", fb, checked.Load())
		if n := fails.Load(); n != 0 {
			t.Fatalf("f=%d: %d lookups or removes of present keys failed", fb, n)
		}
		total := 0
		for w := range workers {
			kept[w] = kept[w][:published[w].Load()]
			for _, k := range kept[w] {
				if !c.ContainsUint64(k) {
					t.Fatalf("f=%d: kept key %d lost", fb, k)
				}
			}
			total += len(kept[w])
		}
		if c.Count() != uint64(total) {
			t.Fatalf("f=%d: count %d, kept %d", fb, c.Count(), total)
		}
		if c.LoadFactor() < 0.5 {
			t.Fatalf("f=%d: full at load %.3f", fb, c.LoadFactor())
		}
		// The snapshot is a plain filter with the same keys.
		s := c.Snapshot()
		for w := range workers {
			for _, k := range kept[w] {
				if !s.ContainsUint64(k) {
					t.Fatalf("snapshot lost key %d", k)
				}
			}
		}
		s.Close()
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConcurrentMatchesFilter: used from one goroutine, Concurrent behaves
// exactly like Filter and encodes to the same bytes.
func TestConcurrentMatchesFilter(t *testing.T) {
	for _, fb := range []int{8, 16} {
		f := mustNew(t, 500, WithFingerprintBits(fb), WithSeed(3))
		c, _ := NewConcurrent(500, WithFingerprintBits(fb), WithSeed(3))
		rng := rand.New(rand.NewPCG(4, 5))
		var hs []uint64
		for {
			h := rng.Uint64()
			e1, e2 := f.AddHash(h), c.AddHash(h)
			if (e1 == nil) != (e2 == nil) {
				t.Fatalf("Add diverges: %v vs %v", e1, e2)
			}
			if e1 != nil {
				break
			}
			hs = append(hs, h)
		}
		for i, h := range hs {
			if i%3 == 0 && f.RemoveHash(h) != c.RemoveHash(h) {
				t.Fatal("Remove diverges")
			}
		}
		a, _ := f.MarshalBinary()
		b, _ := c.MarshalBinary()
		if !bytes.Equal(a, b) {
			t.Fatal("encodings differ")
		}
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil || !bytes.Equal(buf.Bytes(), a) {
			t.Fatal("WriteTo differs")
		}
		var d Concurrent
		if _, err := d.ReadFrom(&buf); err != nil || d.Count() != f.Count() || d.FPP() != f.FPP() {
			t.Fatalf("ReadFrom: %v", err)
		}
		g := NewConcurrentFrom(f)
		if g.Count() != f.Count() || g.Capacity() != f.Capacity() || g.Seed() != 3 || g.FingerprintBits() != fb {
			t.Fatal("NewConcurrentFrom")
		}
		g.Reset()
		if g.Count() != 0 || g.ContainsHash(hs[1]) && g.ContainsHash(hs[2]) && g.ContainsHash(hs[4]) {
			t.Fatal("Reset")
		}
		if err := g.Add([]byte("a")); err != nil || !g.Contains([]byte("a")) || !g.Remove([]byte("a")) {
			t.Fatal("bytes API")
		}
		if err := g.AddString("a"); err != nil || !g.ContainsString("a") || !g.RemoveString("a") {
			t.Fatal("string API")
		}
		if n, err := g.AddHashes(hs[:10]); n != 10 || err != nil {
			t.Fatal("AddHashes")
		}
	}
}

// TestConcurrentBatchMatchesSingle: Concurrent's batch calls, which
// prefetch ahead with the kernel in use, give exactly the results of their
// single-key loops, for every batch length around the prefetch batches.
func TestConcurrentBatchMatchesSingle(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		for _, fb := range []int{8, 16} {
			for _, capacity := range []uint64{1, 7, 1000, 100003} {
				a, _ := NewConcurrent(capacity, WithFingerprintBits(fb), WithSeed(capacity))
				b, _ := NewConcurrent(capacity, WithFingerprintBits(fb), WithSeed(capacity))
				rng := rand.New(rand.NewPCG(capacity, uint64(fb)))
				hs := make([]uint64, capacity+capacity/10+100)
				for i := range hs {
					hs[i] = rng.Uint64()
				}
				// a takes hs in batches of every length from 0 to 70;
				// b one key at a time. Both stop at the first ErrFull.
				added, err := 0, error(nil)
				for l := 0; err == nil && added < len(hs); l = (l + 1) % 71 {
					var n int
					n, err = a.AddHashes(hs[added:min(added+l, len(hs))])
					added += n
				}
				want := 0
				for _, h := range hs {
					if b.AddHash(h) != nil {
						break
					}
					want++
				}
				if added != want || (err == nil) != (want == len(hs)) {
					t.Fatalf("f=%d c=%d: AddHashes added %d (%v), AddHash %d", fb, capacity, added, err, want)
				}
				ea, _ := a.MarshalBinary()
				eb, _ := b.MarshalBinary()
				if !bytes.Equal(ea, eb) {
					t.Fatalf("f=%d c=%d: filters differ", fb, capacity)
				}
				qs := append(hs[:added:added], make([]uint64, 200)...)
				for i := added; i < len(qs); i++ {
					qs[i] = rng.Uint64()
				}
				// Windows of every length 0..70 across the end of the
				// added keys: half present keys, half random ones.
				for l := range 71 {
					q := qs[added-min(added, l/2):][:l]
					out := make([]bool, l+1)
					n := a.ContainsHashes(q, out)
					hits := 0
					for i, h := range q {
						if out[i] != a.ContainsHash(h) {
							t.Fatalf("f=%d c=%d len %d: key %d: batch %v", fb, capacity, l, i, out[i])
						}
						if out[i] {
							hits++
						}
					}
					if n != hits || out[l] {
						t.Fatalf("f=%d c=%d len %d: count %d, want %d (out past the batch: %v)", fb, capacity, l, n, hits, out[l])
					}
				}
				for _, h := range hs[:added] {
					if !a.ContainsHash(h) {
						t.Fatalf("f=%d c=%d: added key lost", fb, capacity)
					}
				}
				a.Close()
				b.Close()
			}
		}
	})
}

// TestConcurrentSnapshotWhileWriting: snapshots taken while other
// goroutines add and remove decode as writable filters, whose count the
// decoder checks against the slots in use. (The count was updated after
// the shared lock was released, so a snapshot could see a slot filled or
// emptied without its count: 78 of 2000 such snapshots failed
// UnmarshalBinary with "count 1001, but 1000 slots are occupied".)
func TestConcurrentSnapshotWhileWriting(t *testing.T) {
	c, err := NewConcurrent(100_000)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	stop := edgetest.Until(2, func(w int, i uint64) bool {
		base := uint64(w) << 40
		c.AddUint64(base + i)
		if i >= 500 {
			c.RemoveUint64(base + i - 500)
		}
		return true
	})
	defer stop()
	rounds := 2000
	if testing.Short() {
		rounds = 300
	}
	for i := range rounds {
		b, err := c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var g Filter
		if err := g.UnmarshalBinary(b); err != nil {
			stop()
			t.Fatalf("snapshot %d does not decode: %v", i, err)
		}
		g.Close()
		if n := c.Count(); n > 1002 {
			t.Errorf("Count %d while at most 1000 keys are held (and one add per writer in flight)", n)
		}
	}
}

// TestConcurrentHash: Concurrent has Filter's Hash, HashString and
// HashUint64 (before, only its *Hash methods, so a caller hashed with
// hash.String(key, c.Seed())), with the same values, and the hashes find
// the keys its Add forms added.
func TestConcurrentHash(t *testing.T) {
	for _, seed := range []uint64{0, 1, 0x9e3779b97f4a7c15} {
		c, err := NewConcurrent(1000, WithSeed(seed))
		if err != nil {
			t.Fatal(err)
		}
		f, err := New(1000, WithSeed(seed))
		if err != nil {
			t.Fatal(err)
		}
		for i := range uint64(200) {
			s := string(rune('a'+i%26)) + "key" + string(rune('0'+i%10))
			if c.Hash([]byte(s)) != f.Hash([]byte(s)) || c.Hash([]byte(s)) != hash.Bytes([]byte(s), seed) {
				t.Fatalf("seed %#x: Hash(%q) = %#x, Filter's %#x", seed, s, c.Hash([]byte(s)), f.Hash([]byte(s)))
			}
			if c.HashString(s) != f.HashString(s) || c.HashString(s) != hash.String(s, seed) {
				t.Fatalf("seed %#x: HashString(%q) = %#x, Filter's %#x", seed, s, c.HashString(s), f.HashString(s))
			}
			if c.HashUint64(i) != f.HashUint64(i) || c.HashUint64(i) != hash.Uint64(i, seed) {
				t.Fatalf("seed %#x: HashUint64(%d) = %#x, Filter's %#x", seed, i, c.HashUint64(i), f.HashUint64(i))
			}
		}
		if err := c.AddString("s"); err != nil {
			t.Fatal(err)
		}
		if err := c.AddUint64(42); err != nil {
			t.Fatal(err)
		}
		if err := c.Add([]byte("b")); err != nil {
			t.Fatal(err)
		}
		if !c.ContainsHash(c.HashString("s")) || !c.ContainsHash(c.HashUint64(42)) || !c.ContainsHash(c.Hash([]byte("b"))) {
			t.Fatalf("seed %#x: a key's hash is not found after its Add", seed)
		}
		_ = c.Close()
		_ = f.Close()
	}
	var z Concurrent // seed 0, as Seed reports
	if z.Seed() != 0 || z.HashUint64(7) != hash.Uint64(7, 0) || z.HashString("x") != hash.String("x", 0) || z.Hash([]byte("x")) != hash.Bytes([]byte("x"), 0) {
		t.Fatal("zero Concurrent: hashes are not seed 0's")
	}
}
