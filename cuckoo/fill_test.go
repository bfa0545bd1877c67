package cuckoo

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// TestAddHashesFillPastFull fills filters to ErrFull with AddHashes, in
// one call and in batches of varying length, with every kernel set, and
// in a second pass with the vector insert kernel, the full-pair scan and
// the overlapped walks (addWalks) on every table (see setVectorMin,
// setScanMin), and checks what the contract says at every step: a batch
// that returns no error added all its keys; the fill reaches 95% load at
// 16 bits (90% at 8) before the victim is parked; the batch that parks it
// returns ErrFull at the key after the one that parked it, with that key
// and all before it present and counted; from then on AddHashes adds
// nothing and returns ErrFull at 0. In the first pass the table is also
// the one a loop of AddHash builds from the same keys; the walks of the
// second place keys differently, so there it is not.
func TestAddHashesFillPastFull(t *testing.T) {
	caps := []uint64{5003, 100003}
	if testing.Short() {
		caps = caps[:1]
	}
	kerneltest.Run(t, func(t *testing.T, impl string) {
		for _, p := range []struct{ vmin, smin uint64 }{
			{vectorMinBuckets, scanMinBytes}, {1, 0},
		} {
			defer setVectorMin(p.vmin)()
			defer setScanMin(p.smin)()
			for _, fb := range []int{8, 16} {
				for _, c := range caps {
					for _, chunk := range []int{0, 1, 37, 1000} {
						fillPastFull(t, fmt.Sprintf("f=%d c=%d chunk=%d vmin=%d", fb, c, chunk, p.vmin), fb, c, chunk, p.smin != 0)
					}
				}
			}
		}
	})
}

// fillPastFull adds random keys to a filter of capacity c with AddHashes,
// chunk keys a call (0: one call), until ErrFull, and checks it (see
// TestAddHashesFillPastFull; exact: against a loop of AddHash too).
func fillPastFull(t *testing.T, what string, fb int, c uint64, chunk int, exact bool) {
	t.Helper()
	a := mustNew(t, c, WithFingerprintBits(fb), WithSeed(c))
	b := mustNew(t, c, WithFingerprintBits(fb), WithSeed(c))
	rng := rand.New(rand.NewPCG(c, uint64(fb)))
	hs := make([]uint64, a.Capacity()+a.Capacity()/8)
	for i := range hs {
		hs[i] = rng.Uint64()
	}
	if chunk == 0 {
		chunk = len(hs)
	}
	done := 0
	var err error
	for done < len(hs) {
		part := hs[done:min(done+chunk, len(hs))]
		var n int
		n, err = a.AddHashes(part)
		done += n
		if err != nil {
			break
		}
		if n != len(part) {
			t.Fatalf("%s: AddHashes added %d of %d keys and returned no error", what, n, len(part))
		}
		// (If the batch's last key parked the victim, the next batch
		// fails at once.)
	}
	if !errors.Is(err, ErrFull) || !a.VictimInUse() {
		t.Fatalf("%s: the fill of %d keys ended at %d with %v (victim in use: %v)", what, len(hs), done, err, a.VictimInUse())
	}
	want := 0.95
	if fb == 8 {
		want = 0.90
	}
	if l := float64(done) / float64(a.Capacity()); l < want {
		t.Fatalf("%s: ErrFull at load %.3f, below %.2f", what, l, want)
	}
	if a.Count() != uint64(done) {
		t.Fatalf("%s: count %d after %d keys added", what, a.Count(), done)
	}
	allPresent(t, a, hs[:done], what)
	// Full: nothing more goes in, and nothing changes.
	before, _ := a.MarshalBinary()
	for _, l := range []int{1, 8, 100} {
		if n, err := a.AddHashes(hs[done:min(done+l, len(hs))]); n != 0 || !errors.Is(err, ErrFull) {
			t.Fatalf("%s: AddHashes on a full filter = %d, %v", what, n, err)
		}
	}
	if after, _ := a.MarshalBinary(); !bytes.Equal(before, after) {
		t.Fatalf("%s: a failed AddHashes changed the filter", what)
	}
	if !exact {
		return
	}
	// The same keys one at a time: the same stop and the same table.
	m := 0
	for ; m < len(hs); m++ {
		if e := b.AddHash(hs[m]); e != nil {
			if !errors.Is(e, ErrFull) {
				t.Fatalf("%s: AddHash: %v", what, e)
			}
			break
		}
	}
	if m != done {
		t.Fatalf("%s: AddHashes stopped at %d, a loop of AddHash at %d", what, done, m)
	}
	if after, _ := b.MarshalBinary(); !bytes.Equal(before, after) {
		t.Fatalf("%s: AddHashes and a loop of AddHash built different tables", what)
	}
}

// TestAddHashesFewBuckets feeds AddHashes adversarial batches: every key
// has its first bucket among three (so their alternates are few too, and
// relocations run in a small corner of the table), with some keys repeated
// up to twelve times (the ninth copy meets ErrDuplicateLimit). Each batch
// error is checked against AddHash on a twin filter, the batch is resumed
// after a duplicate, and at the end both tables, their counts and the
// presence of every added key must agree. With every kernel set, and with
// the vector kernel, the full-pair scan and the overlapped walks on every
// table, where keys are placed differently and the contract alone is
// checked: ErrDuplicateLimit only where the key's buckets hold only its
// fingerprint, the keys added present and counted.
func TestAddHashesFewBuckets(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		for _, p := range []struct{ vmin, smin uint64 }{
			{vectorMinBuckets, scanMinBytes}, {1, 0},
		} {
			defer setVectorMin(p.vmin)()
			defer setScanMin(p.smin)()
			for _, fb := range []int{8, 16} {
				for _, c := range []uint64{100, 5003} {
					fewBuckets(t, fmt.Sprintf("f=%d c=%d vmin=%d", fb, c, p.vmin), fb, c, p.smin != 0)
				}
			}
		}
	})
}

func fewBuckets(t *testing.T, what string, fb int, c uint64, exact bool) {
	t.Helper()
	a := mustNew(t, c, WithFingerprintBits(fb), WithSeed(7))
	b := mustNew(t, c, WithFingerprintBits(fb), WithSeed(7))
	rng := rand.New(rand.NewPCG(c, 99))
	n := a.t.Buckets
	corner := [3]uint64{0, n / 2, n - 1}
	var hs []uint64
	for len(hs) < 400 {
		h := rng.Uint64()
		if i := kernel.CuckooIndex(h, n); i != corner[0] && i != corner[1] && i != corner[2] {
			continue
		}
		reps := 1
		if rng.IntN(10) == 0 {
			reps = 12
		}
		for range reps {
			hs = append(hs, h)
		}
	}
	var held []uint64
	dups, pos := 0, 0
	for pos < len(hs) {
		m, err := a.AddHashes(hs[pos:])
		held = append(held, hs[pos:pos+m]...)
		for _, h := range hs[pos : pos+m] {
			if !exact {
				break
			}
			if e := b.AddHash(h); e != nil {
				t.Fatalf("%s: AddHashes added a key AddHash refuses: %v", what, e)
			}
		}
		pos += m
		if a.Count() != uint64(len(held)) {
			t.Fatalf("%s: count %d, %d keys added", what, a.Count(), len(held))
		}
		if err == nil {
			break
		}
		if !exact {
			if !borneOut(a, hs[pos], err) {
				t.Fatalf("%s: AddHashes stopped at key %d with %v, which the table does not bear out", what, pos, err)
			}
		} else if e := b.AddHash(hs[pos]); e != err {
			t.Fatalf("%s: AddHashes stopped at key %d with %v, AddHash says %v", what, pos, err, e)
		}
		if errors.Is(err, ErrNoSlot) {
			pos++
			continue
		}
		if errors.Is(err, ErrFull) {
			break
		}
		if !errors.Is(err, ErrDuplicateLimit) {
			t.Fatalf("%s: AddHashes: %v", what, err)
		}
		dups++
		pos++
	}
	if dups == 0 {
		t.Fatalf("%s: no ErrDuplicateLimit: the test misses its path", what)
	}
	ea, _ := a.MarshalBinary()
	eb, _ := b.MarshalBinary()
	if !exact {
		eb = ea
		b = a
	}
	if !bytes.Equal(ea, eb) || a.Count() != uint64(len(held)) || b.Count() != a.Count() {
		t.Fatalf("%s: AddHashes and AddHash built different filters (counts %d, %d; %d held)", what, a.Count(), b.Count(), len(held))
	}
	allPresent(t, a, held, what)
}

// TestAddHashesFillPastFullLarge is TestAddHashesFillPastFull on a 16-bit
// filter whose bucket array is over 4 MiB, where AddHashes overlaps walks
// with its default thresholds (the other tests lower them).
// largeFillCRC is the CRC-32 (IEEE) of the filter TestAddHashesFillPastFullLarge
// builds to 93% load in one AddHashes call.
const largeFillCRC = 0x138c808d

func TestAddHashesFillPastFullLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a 2.2e6-key filter")
	}
	const c = 2_200_000
	if f := mustNew(t, c); uint64(len(f.t.Words))*8 < scanMinBytes {
		t.Fatalf("%d bytes: below scanMinBytes", len(f.t.Words)*8)
	}
	kerneltest.Run(t, func(t *testing.T, impl string) {
		for _, chunk := range []int{0, 1000} {
			fillPastFull(t, fmt.Sprintf("f=16 c=%d chunk=%d", c, chunk), 16, c, chunk, false)
		}
	})
	// The overlapped walks run in every build, so a fill past 3/4 load
	// gives the same table with every kernel set.
	var first []byte
	kerneltest.Run(t, func(t *testing.T, impl string) {
		f := mustNew(t, c, WithSeed(5))
		rng := rand.New(rand.NewPCG(5, 6))
		hs := make([]uint64, f.Capacity()*93/100)
		for i := range hs {
			hs[i] = rng.Uint64()
		}
		if n, err := f.AddHashes(hs); err != nil || n != len(hs) {
			t.Fatalf("AddHashes: %d of %d, %v", n, len(hs), err)
		}
		b, _ := f.MarshalBinary()
		if first == nil {
			first = b
		} else if !bytes.Equal(b, first) {
			t.Fatalf("impl=%s: the table differs from the first kernel set's", impl)
		}
		// And in every build (purego, other architectures): the table's
		// checksum as this code computes it on amd64 with each set.
		if got := crc32.ChecksumIEEE(b); got != largeFillCRC {
			t.Errorf("impl=%s: table CRC %#x, want %#x", impl, got, largeFillCRC)
		}
	})
}

// TestFullPairs checks addWalks' scan for full bucket pairs, fullPairs, in
// both widths (the 16-bit one is branch-free, fullPairs16) against the
// definition: for each key of a group, in order, both of its buckets have
// no free slot. The scan only aims prefetches, so a wrong answer would
// change no table and no other test: it is checked here, at loads where
// some pairs are full and some are not.
func TestFullPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, fb := range []int{8, 16} {
		f := mustNew(t, 20000, WithFingerprintBits(fb))
		seen, full := 0, 0
		for _, load := range []float64{0.3, 0.8, 0.92} {
			for f.LoadFactor() < load {
				if err := f.AddHash(rng.Uint64()); err != nil {
					t.Fatalf("%d bits: %v at load %.3f", fb, err, f.LoadFactor())
				}
			}
			for range 200 {
				var hs, locs [addAheadFull]uint64
				n := 1 + rng.IntN(addAheadFull)
				for j := range n {
					hs[j] = rng.Uint64()
				}
				kernel.CuckooLocateGeneric(&f.t, hs[:n], locs[:n])
				var is, bs [2 * addAheadFull]uint64
				m := f.fullPairs(locs[:n], &is, &bs)
				var want []uint64
				for _, l := range locs[:n] {
					i1, i2 := splitLoc(l)
					if f.emptyLanes(f.bucket(i1)) == 0 && f.emptyLanes(f.bucket(i2)) == 0 {
						want = append(want, i1, f.bucket(i1), i2, f.bucket(i2))
						full++
					}
					seen++
				}
				var got []uint64
				for j := 0; j < m; j += 2 {
					got = append(got, is[j], bs[j], is[j+1], bs[j+1])
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%d bits, load %.2f: fullPairs gave (bucket, word) pairs %x, want %x", fb, load, got, want)
				}
			}
		}
		if full == 0 || full == seen {
			t.Fatalf("%d bits: %d of %d keys had both buckets full: the check needs both kinds", fb, full, seen)
		}
	}
}
