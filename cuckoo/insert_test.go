package cuckoo

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// TestAddHashesMatchesAddHash feeds the same keys to AddHashes, in batches
// of every length from 0 to 100 (around and across the pipeline's groups of
// addAhead keys), and to AddHash one at a time: every batch call must
// stop where the loop first fails, with the same error, and the filters
// must end bit for bit the same (bytes, count, PRNG state). Some keys
// come 12 times in a row (so ErrDuplicateLimit comes mid-batch), fill the filter past its first ErrFull, and after
// each ErrFull some keys are removed from both, so that the victim is
// re-homed and adding goes on: a batch that starts with the victim slot in
// use must add nothing and return ErrFull.
func TestAddHashesMatchesAddHash(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		// The second pass runs the vector insert kernel on every table, the
		// third the full-pair scan and the overlapped walks from 3/4 load
		// on (see scanMinBytes, addWalks), which place keys differently
		// from AddHash: that pass checks the contract without the twin.
		for _, p := range []struct{ vmin, smin uint64 }{
			{vectorMinBuckets, scanMinBytes}, {1, scanMinBytes}, {vectorMinBuckets, 0},
		} {
			defer setVectorMin(p.vmin)()
			defer setScanMin(p.smin)()
			for _, fb := range []int{8, 16} {
				for _, capacity := range []uint64{1, 7, 100, 5003, 20011} {
					if capacity > 5003 && (p.vmin == 1 || testing.Short()) {
						continue // vmin 1 runs the kernel on the small ones
					}
					batchMatchesLoop(t, fb, capacity, p.smin != 0)
				}
			}
		}
	})
}

// setVectorMin sets vectorMinBuckets (1: AddHashes runs the vector insert
// kernel, where there is one, on every table) and returns the restore.
func setVectorMin(n uint64) (restore func()) {
	old := vectorMinBuckets
	vectorMinBuckets = n
	return func() { vectorMinBuckets = old }
}

// setScanMin sets scanMinBytes (0: AddHashes scans for full bucket pairs
// from 3/4 load on, on every table) and returns the restore.
func setScanMin(n uint64) (restore func()) {
	old := scanMinBytes
	scanMinBytes = n
	return func() { scanMinBytes = old }
}

// dupLimited reports whether both buckets of the key of hash h hold only
// its fingerprint (the condition of ErrDuplicateLimit).
func dupLimited(f *Filter, h uint64) bool {
	i1, fp, i2 := f.locate(h)
	mask, pat := f.bucketMask(), fp*f.lo
	return (f.bucket(i1)^pat)&mask|(f.bucket(i2)^pat)&mask == 0
}

// noSlot reports whether ErrNoSlot for the key of hash h is borne out by
// f's table: no victim parked, both of the key's buckets full (and not
// with its own fingerprint only), and f below the load from which a
// failed walk parks its homeless fingerprint.
func noSlot(f *Filter, h uint64) bool {
	i1, _, i2 := f.locate(h)
	return !f.VictimInUse() && f.emptyLanes(f.bucket(i1))|f.emptyLanes(f.bucket(i2)) == 0 &&
		!dupLimited(f, h) && !f.parks(f.Count())
}

// borneOut reports whether AddHashes' error err at the key of hash h is
// borne out by f's table (the contract checks, where AddHashes may place
// keys differently from a loop of AddHash).
func borneOut(f *Filter, h uint64, err error) bool {
	switch {
	case errors.Is(err, ErrDuplicateLimit):
		return dupLimited(f, h)
	case errors.Is(err, ErrNoSlot):
		return noSlot(f, h)
	case errors.Is(err, ErrFull):
		return f.VictimInUse()
	}
	return false
}

// batchMatchesLoop checks AddHashes against a loop of AddHash on a twin
// filter; with exact false (where AddHashes may place keys differently)
// it checks the contract alone: the keys added are present and counted,
// ErrDuplicateLimit comes only where the key's buckets hold only its
// fingerprint, ErrNoSlot only below the parking load with both full,
// ErrFull only with the victim in use, and Remove finds every key added.
// A key refused with ErrDuplicateLimit or ErrNoSlot is passed over.
func batchMatchesLoop(t *testing.T, fb int, capacity uint64, exact bool) {
	rng := rand.New(rand.NewPCG(capacity, uint64(fb)))
	a := mustNew(t, capacity, WithFingerprintBits(fb), WithSeed(capacity))
	b := mustNew(t, capacity, WithFingerprintBits(fb), WithSeed(capacity))
	hs := make([]uint64, 0, 3*capacity+200)
	for len(hs) < cap(hs) {
		h := rng.Uint64()
		switch r := rng.IntN(40); {
		case r == 0: // a new key 12 times: the ninth may meet the limit
			for range 11 {
				hs = append(hs, h)
			}
		case r < 3 && len(hs) > 0: // an earlier key a few times more
			h = hs[rng.IntN(len(hs))]
			for range rng.IntN(4) {
				hs = append(hs, h)
			}
		}
		hs = append(hs, h)
	}
	hs = hs[:cap(hs)]
	var held []uint64
	fulls, dups, l := 0, 0, 0
	for pos := 0; pos < len(hs); l = (l + 1) % 101 {
		chunk := hs[pos:min(pos+l, len(hs))]
		n, err := a.AddHashes(chunk)
		for j := range n {
			if !exact {
				break
			}
			if e := b.AddHash(chunk[j]); e != nil {
				t.Fatalf("f=%d c=%d: AddHashes added key %d of a batch of %d, AddHash says %v", fb, capacity, j, len(chunk), e)
			}
		}
		held = append(held, chunk[:n]...)
		pos += n
		if err == nil {
			if n != len(chunk) {
				t.Fatalf("f=%d c=%d: AddHashes added %d of %d keys without an error", fb, capacity, n, len(chunk))
			}
			continue
		}
		if !exact {
			if !borneOut(a, hs[pos], err) {
				t.Fatalf("f=%d c=%d: AddHashes stopped at key %d with %v, which the table does not bear out", fb, capacity, pos, err)
			}
			if a.Count() != uint64(len(held)) {
				t.Fatalf("f=%d c=%d: count %d, %d keys held", fb, capacity, a.Count(), len(held))
			}
		} else if e := b.AddHash(hs[pos]); e != err {
			t.Fatalf("f=%d c=%d: AddHashes stopped at key %d with %v, AddHash says %v", fb, capacity, pos, err, e)
		}
		pos++
		switch {
		case errors.Is(err, ErrDuplicateLimit), errors.Is(err, ErrNoSlot):
			dups++
		case errors.Is(err, ErrFull):
			fulls++
			allPresent(t, a, held, "AddHashes at ErrFull")
			if fulls%3 == 0 {
				// Make room, and let Remove re-home the victim.
				for range 1 + len(held)/50 {
					j := rng.IntN(len(held))
					if !exact {
						if !a.RemoveHash(held[j]) {
							t.Fatalf("f=%d c=%d: Remove misses a key added", fb, capacity)
						}
					} else if a.RemoveHash(held[j]) != b.RemoveHash(held[j]) {
						t.Fatalf("f=%d c=%d: Remove diverges", fb, capacity)
					}
					held[j] = held[len(held)-1]
					held = held[:len(held)-1]
				}
			}
		default:
			t.Fatalf("f=%d c=%d: AddHashes: %v", fb, capacity, err)
		}
	}
	if fulls == 0 || dups == 0 && capacity >= 100 {
		t.Fatalf("f=%d c=%d: %d ErrFull and %d ErrDuplicateLimit: the test misses a path", fb, capacity, fulls, dups)
	}
	ea, _ := a.MarshalBinary()
	eb, _ := b.MarshalBinary()
	if !exact {
		eb = ea
	}
	if !bytes.Equal(ea, eb) || a.Count() != uint64(len(held)) {
		t.Fatalf("f=%d c=%d: AddHashes and AddHash built different filters (count %d, %d held)", fb, capacity, a.Count(), len(held))
	}
	allPresent(t, a, held, "AddHashes")
}

// TestDuplicateLimitOneBucket: a key whose alternate bucket is its first
// one has four slots, so its fifth copy meets ErrDuplicateLimit (as the
// docs say), leaving the filter unchanged and other keys addable; a key
// with two buckets takes eight. Both for Filter and Concurrent, single and
// batch adds.
func TestDuplicateLimitOneBucket(t *testing.T) {
	f := mustNew(t, 1000)
	var same, two uint64
	for k := uint64(0); same == 0 || two == 0; k++ {
		h := f.HashUint64(k)
		i1, _, i2 := f.locate(h)
		if i1 == i2 && same == 0 {
			same = h
		} else if i1 != i2 && two == 0 {
			two = h
		}
	}
	for _, c := range []struct {
		h     uint64
		limit int
	}{{same, 4}, {two, 8}} {
		f := mustNew(t, 1000)
		cf, err := NewConcurrent(1000)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cf.Close() })
		for i := 0; i < c.limit; i++ {
			if err := f.AddHash(c.h); err != nil {
				t.Fatalf("limit %d: copy %d: %v", c.limit, i+1, err)
			}
			if err := cf.AddHash(c.h); err != nil {
				t.Fatalf("limit %d: Concurrent copy %d: %v", c.limit, i+1, err)
			}
		}
		before, _ := f.MarshalBinary()
		if err := f.AddHash(c.h); !errors.Is(err, ErrDuplicateLimit) {
			t.Errorf("limit %d: copy %d: %v, want ErrDuplicateLimit", c.limit, c.limit+1, err)
		}
		if err := cf.AddHash(c.h); !errors.Is(err, ErrDuplicateLimit) {
			t.Errorf("limit %d: Concurrent copy %d: %v, want ErrDuplicateLimit", c.limit, c.limit+1, err)
		}
		if n, err := f.AddHashes([]uint64{c.h}); n != 0 || !errors.Is(err, ErrDuplicateLimit) {
			t.Errorf("limit %d: AddHashes: %d, %v", c.limit, n, err)
		}
		if n, err := cf.AddHashes([]uint64{c.h}); n != 0 || !errors.Is(err, ErrDuplicateLimit) {
			t.Errorf("limit %d: Concurrent AddHashes: %d, %v", c.limit, n, err)
		}
		if after, _ := f.MarshalBinary(); !bytes.Equal(before, after) || f.Count() != uint64(c.limit) {
			t.Errorf("limit %d: the failed adds changed the filter (count %d)", c.limit, f.Count())
		}
		if cf.Count() != uint64(c.limit) {
			t.Errorf("limit %d: the failed adds changed the Concurrent (count %d)", c.limit, cf.Count())
		}
		if err := f.AddUint64(1 << 40); err != nil {
			t.Errorf("limit %d: another key after the limit: %v", c.limit, err)
		}
	}
	// A one-bucket filter: every key has four slots.
	g := mustNew(t, 1)
	for i := 0; i < 4; i++ {
		if err := g.AddString("d"); err != nil {
			t.Fatalf("one bucket: copy %d: %v", i+1, err)
		}
	}
	if err := g.AddString("d"); !errors.Is(err, ErrDuplicateLimit) {
		t.Errorf("one bucket: fifth copy: %v, want ErrDuplicateLimit", err)
	}
}
