package cuckoo

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestEvictionFormsAgree holds Filter and Concurrent, which share one
// eviction implementation (evict.go) but store through plain and atomic
// writes, to the same results over many random sequences of adds (new keys
// and duplicates) and removes, past ErrFull and back: every call returns
// the same, every key held stays findable in both after each ErrFull, and
// the two encode to the same bytes at the end.
func TestEvictionFormsAgree(t *testing.T) {
	runs := 200
	if testing.Short() {
		runs = 40
	}
	totalFulls, totalDups := 0, 0
	for run := range runs {
		rng := rand.New(rand.NewPCG(uint64(run), 77))
		fb := []int{8, 16}[run%2]
		capacity := 1 + rng.Uint64N(3000)
		kicks := []int{0, 1, 5, DefaultMaxKicks}[rng.IntN(4)]
		opts := []Option{WithFingerprintBits(fb), WithSeed(rng.Uint64()), WithMaxKicks(kicks)}
		f := mustNew(t, capacity, opts...)
		c, err := NewConcurrent(capacity, opts...)
		if err != nil {
			t.Fatal(err)
		}
		var held []uint64
		fulls := 0
		for op := 0; fulls < 4 && op < 20000; op++ {
			switch r := rng.IntN(10); {
			case r < 2 && len(held) > 0: // remove a held key
				j := rng.IntN(len(held))
				h := held[j]
				a, b := f.RemoveHash(h), c.RemoveHash(h)
				if a != b || !a {
					t.Fatalf("run %d op %d: RemoveHash = %v (Filter), %v (Concurrent)", run, op, a, b)
				}
				held[j] = held[len(held)-1]
				held = held[:len(held)-1]
			default: // add a new key, or now and then the first held one again
				h := rng.Uint64()
				if r == 9 && len(held) > 0 {
					h = held[0] // soon held 8 times: ErrDuplicateLimit
				}
				e1, e2 := f.AddHash(h), c.AddHash(h)
				if e1 != e2 {
					t.Fatalf("run %d op %d: AddHash = %v (Filter), %v (Concurrent)", run, op, e1, e2)
				}
				switch {
				case e1 == nil:
					held = append(held, h)
				case errors.Is(e1, ErrFull):
					fulls++
					for _, k := range held {
						if !f.ContainsHash(k) || !c.ContainsHash(k) {
							t.Fatalf("run %d op %d: a held key is lost at ErrFull (Filter %v, Concurrent %v)", run, op, f.ContainsHash(k), c.ContainsHash(k))
						}
					}
				case errors.Is(e1, ErrDuplicateLimit):
					totalDups++
				default:
					t.Fatalf("run %d op %d: AddHash: %v", run, op, e1)
				}
			}
			if f.Count() != c.Count() || f.Count() != uint64(len(held)) {
				t.Fatalf("run %d op %d: Count %d (Filter), %d (Concurrent), %d held", run, op, f.Count(), c.Count(), len(held))
			}
		}
		a, _ := f.MarshalBinary()
		b, _ := c.MarshalBinary()
		if !bytes.Equal(a, b) {
			t.Fatalf("run %d (f=%d, capacity %d, kicks %d): the two forms encode differently", run, fb, capacity, kicks)
		}
		totalFulls += fulls
		f.Close()
		c.Close()
	}
	t.Logf("%d runs: %d ErrFull, %d ErrDuplicateLimit", runs, totalFulls, totalDups)
	if totalFulls < runs {
		t.Fatalf("only %d ErrFull in %d runs: the sequences do not reach full", totalFulls, runs)
	}
}

// layoutDigest is the SHA-256 of what TestLayoutUnchanged builds, as the
// code before the eviction code was shared and the batch insert rewritten
// (commit 91d379f) built it.
const layoutDigest = "0356552a9d551397bd541405451d5aa133afcbd93a871b1fbf5e27205c124c4e"

// TestLayoutUnchanged pins the tables that AddHash, AddHashes and
// Concurrent build, through ErrFull, removals that re-home the victim and
// more adds, for both widths, to the digest of what the code built before
// the refactors of evict.go and the batch runs of insert.go: the same keys
// still give the same bytes. A deliberate change of the placement policy
// (which bucket, which slot, the relocation walk) changes the digest;
// update it then, and say so.
func TestLayoutUnchanged(t *testing.T) {
	h := sha256.New()
	for _, fb := range []int{8, 16} {
		for _, c := range []uint64{1, 13, 1000, 30011} {
			for _, batch := range []bool{false, true} {
				f, _ := New(c, WithFingerprintBits(fb), WithSeed(c*7+uint64(fb)))
				cc, _ := NewConcurrent(c, WithFingerprintBits(fb), WithSeed(c*7+uint64(fb)))
				rng := rand.New(rand.NewPCG(c, 1))
				hs := make([]uint64, 2*c+50)
				for i := range hs {
					hs[i] = rng.Uint64()
				}
				var n int
				var err error
				if batch {
					n, err = f.AddHashes(hs)
				} else {
					for n = 0; n < len(hs); n++ {
						if err = f.AddHash(hs[n]); err != nil {
							break
						}
					}
				}
				for _, x := range hs {
					if cc.AddHash(x) != nil {
						break
					}
				}
				for i := 0; i < n; i += 7 {
					f.RemoveHash(hs[i])
					cc.RemoveHash(hs[i])
				}
				m, err2 := f.AddHashes(hs[n:])
				b, _ := f.MarshalBinary()
				b2, _ := cc.MarshalBinary()
				fmt.Fprintf(h, "%d %d %v %d %v %d %v %x %x\n", fb, c, batch, n, err, m, err2, sha256.Sum256(b), sha256.Sum256(b2))
			}
		}
	}
	if got := fmt.Sprintf("%x", h.Sum(nil)); got != layoutDigest {
		t.Fatalf("layout digest %s, want %s", got, layoutDigest)
	}
}

// TestMaxKicksZero: WithMaxKicks(0) never relocates. A key whose two
// buckets are full changes no other bucket (not even by the look-ahead's
// one move), in both widths; and AddHashes on a bucket array large enough
// for the overlapped walks (from 3/4 load) answers as AddHash does, where
// the walks used to evict before counting kicks.
func TestMaxKicksZero(t *testing.T) {
	for _, fb := range []int{8, 16} {
		f := mustNew(t, 10000, WithFingerprintBits(fb), WithMaxKicks(0))
		rng := rand.New(rand.NewPCG(3, uint64(fb)))
		for f.LoadFactor() < 0.8 {
			_ = f.AddHash(rng.Uint64())
		}
		full := 0
		for range 100000 {
			h := rng.Uint64()
			i1, _, i2 := f.locate(h)
			if f.emptyLanes(f.bucket(i1))|f.emptyLanes(f.bucket(i2)) != 0 {
				continue
			}
			full++
			before := f.Clone()
			err := f.AddHash(h)
			for i := range f.Buckets() {
				if i != i1 && i != i2 && f.bucket(i)&f.bucketMask() != before.bucket(i)&f.bucketMask() {
					t.Fatalf("%d-bit, MaxKicks 0: AddHash of a key whose buckets were full (%v) changed bucket %d", fb, err, i)
				}
			}
			before.Close()
		}
		if full == 0 {
			t.Fatalf("%d-bit: no key met two full buckets", fb)
		}
		f.Close()
	}

	f := mustNew(t, 2_000_000, WithMaxKicks(0)) // 4.2 MB of buckets: the walks' size
	defer f.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	hs := make([]uint64, 4096)
	for f.Count() < 3*f.Capacity()/4+1000 {
		for i := range hs {
			hs[i] = rng.Uint64()
		}
		for rest := hs; len(rest) > 0; {
			n, err := f.AddHashes(rest)
			if err == nil {
				break
			}
			if !errors.Is(err, ErrNoSlot) {
				t.Fatal(err)
			}
			rest = rest[n+1:]
		}
	}
	refused := 0
	for tried := 0; tried < 200000 && refused < 20; tried++ {
		h := rng.Uint64()
		single := f.Clone()
		e1 := single.AddHash(h)
		single.Close()
		if !errors.Is(e1, ErrNoSlot) {
			continue
		}
		refused++
		batch := f.Clone()
		if n, e2 := batch.AddHashes([]uint64{h}); n != 0 || !errors.Is(e2, ErrNoSlot) {
			t.Errorf("load %.3f, MaxKicks 0: AddHash(h) = %v, AddHashes([]uint64{h}) = %d, %v", f.LoadFactor(), e1, n, e2)
		}
		batch.Close()
	}
	if refused == 0 {
		t.Fatal("no key refused at this load: the test checks nothing")
	}
}
