package cuckoo

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// refAddNew is the reference add-if-new: a lookup, then an add.
func refAddNew(f *Filter, h uint64) (bool, error) {
	if f.ContainsHash(h) {
		return false, nil
	}
	err := f.AddHash(h)
	return err == nil, err
}

// addNewStream returns n hashes of which about half repeat an earlier one
// (some many times in a row, more than the duplicate limit of 8), the
// rest fresh.
func addNewStream(rng *rand.Rand, n int) []uint64 {
	hs := make([]uint64, 0, n)
	for len(hs) < n {
		h := rng.Uint64()
		switch r := rng.IntN(20); {
		case r == 0: // a key 12 times in a row
			for range 11 {
				hs = append(hs, h)
			}
		case r < 10 && len(hs) > 0: // an earlier key
			h = hs[rng.IntN(len(hs))]
		}
		hs = append(hs, h)
	}
	return hs[:n]
}

// TestAddNewMatchesReference feeds one stream, half repeats, to
// AddNewHashes in batches of every length from 0 to 100, to AddNewHash one
// at a time, and to the reference (ContainsHash, then AddHash), past the
// first ErrFull, removing some keys from all three after every third
// ErrFull so that the victim is re-homed and adding goes on (so batches
// also start with the victim slot in use). Every answer, every stop and
// error, and the final tables (bytes, count, PRNG state) must agree; every
// key added stays present.
func TestAddNewMatchesReference(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		// As in TestAddHashesMatchesAddHash: the vector kernel, then the
		// full-pair scan, on every table.
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
					addNewMatches(t, fb, capacity, DefaultMaxKicks)
				}
				// With no relocation a key whose buckets are both full
				// parks the victim at once, often below 3/4 load: also
				// as the last key of the first stage (found by
				// FuzzFilters: AddNewHashes went on adding there).
				for _, capacity := range []uint64{1, 7, 100} {
					addNewMatches(t, fb, capacity, 0)
				}
			}
		}
	})
}

func addNewMatches(t *testing.T, fb int, capacity uint64, maxKicks int) {
	rng := rand.New(rand.NewPCG(capacity, uint64(fb)+7))
	opts := []Option{WithFingerprintBits(fb), WithSeed(capacity), WithMaxKicks(maxKicks)}
	a := mustNew(t, capacity, opts...) // AddNewHashes
	s := mustNew(t, capacity, opts...) // AddNewHash
	r := mustNew(t, capacity, opts...) // the reference
	hs := addNewStream(rng, int(6*capacity+300))
	var held []uint64
	out := make([]bool, 101)
	fulls, news, pos := 0, 0, 0
	for l := 0; pos < len(hs); l = (l + 1) % 101 {
		chunk := hs[pos:min(pos+l, len(hs))]
		for i := range out {
			out[i] = i%2 == 0 // garbage the call must overwrite
		}
		n, err := a.AddNewHashes(chunk, out)
		for j := range n {
			want, e := refAddNew(r, chunk[j])
			if e != nil || out[j] != want {
				t.Fatalf("f=%d c=%d: key %d of a batch of %d: AddNewHashes says %v, the reference %v, %v", fb, capacity, j, len(chunk), out[j], want, e)
			}
			if got, e := s.AddNewHash(chunk[j]); got != want || e != nil {
				t.Fatalf("f=%d c=%d: AddNewHash says %v, %v, the reference %v", fb, capacity, got, e, want)
			}
			if want {
				held = append(held, chunk[j])
				news++
			}
		}
		for j := n; j < len(chunk) && j < len(out); j++ {
			if out[j] != (j%2 == 0) {
				t.Fatalf("f=%d c=%d: AddNewHashes stopped at %d of %d but wrote out[%d]", fb, capacity, n, len(chunk), j)
			}
		}
		pos += n
		if err == nil {
			if n != len(chunk) {
				t.Fatalf("f=%d c=%d: AddNewHashes went through %d of %d keys without an error", fb, capacity, n, len(chunk))
			}
			continue
		}
		if want, e := refAddNew(r, hs[pos]); want || e != err {
			t.Fatalf("f=%d c=%d: AddNewHashes stopped at key %d with %v, the reference says %v, %v", fb, capacity, pos, err, want, e)
		}
		if got, e := s.AddNewHash(hs[pos]); got || e != err {
			t.Fatalf("f=%d c=%d: AddNewHash of key %d: %v, %v, want false, %v", fb, capacity, pos, got, e, err)
		}
		if !errors.Is(err, ErrFull) {
			t.Fatalf("f=%d c=%d: AddNewHashes: %v", fb, capacity, err)
		}
		pos++
		fulls++
		allPresent(t, a, held, "AddNewHashes at ErrFull")
		if fulls%3 == 0 {
			for range 1 + len(held)/50 {
				j := rng.IntN(len(held))
				ra, rs, rr := a.RemoveHash(held[j]), s.RemoveHash(held[j]), r.RemoveHash(held[j])
				if ra != rr || rs != rr {
					t.Fatalf("f=%d c=%d: Remove diverges", fb, capacity)
				}
				held[j] = held[len(held)-1]
				held = held[:len(held)-1]
			}
		}
	}
	if fulls == 0 || news == 0 {
		t.Fatalf("f=%d c=%d: %d ErrFull, %d new keys: the test misses a path", fb, capacity, fulls, news)
	}
	ea, _ := a.MarshalBinary()
	es, _ := s.MarshalBinary()
	er, _ := r.MarshalBinary()
	if !bytes.Equal(ea, er) || !bytes.Equal(es, er) || a.Count() != uint64(len(held)) {
		t.Fatalf("f=%d c=%d: AddNewHashes, AddNewHash and the reference built different filters (count %d, %d held)", fb, capacity, a.Count(), len(held))
	}
	allPresent(t, a, held, "AddNewHashes")
}

// TestAddNewNoSlotAtStageEnd: around the end of AddNewHashes' first stage
// (the keys that bring the count to 3/4 load), a new key that finds no
// slot stops the batch with ErrNoSlot, at that key, with the table and the
// answers of a loop of AddNewHash, whether it is the first stage's last
// key or the second stage's first. (FuzzFilters once found AddNewHashes
// adding on after a victim parked at the stage's end; below 90% load a
// failed walk is now undone instead of parking, so ErrNoSlot is what such
// a key meets there.)
func TestAddNewNoSlotAtStageEnd(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		for _, vmin := range []uint64{vectorMinBuckets, 1} { // the Go runs, the vector kernel
			defer setVectorMin(vmin)()
			for _, fb := range []int{8, 16} {
				noSlotAtStageEnd(t, fb)
			}
		}
	})
}

func noSlotAtStageEnd(t *testing.T, fb int) {
	rng := rand.New(rand.NewPCG(uint64(fb), 3))
	f := mustNew(t, 2000, WithFingerprintBits(fb), WithMaxKicks(0))
	full := func(h uint64) bool { // both buckets full
		i1, _, i2 := f.locate(h)
		return f.emptyLanes(f.bucket(i1))|f.emptyLanes(f.bucket(i2)) == 0
	}
	// Fill one key at a time, with keys that find room, to one key below
	// 3/4 load.
	for f.Count() < 3*f.Capacity()/4-1 {
		if h := rng.Uint64(); !f.ContainsHash(h) && !full(h) {
			if err := f.AddHash(h); err != nil {
				t.Fatal(err)
			}
		}
	}
	refused := func(h uint64) bool { // no move makes room: AddHash refuses the key
		c := f.Clone()
		defer c.Close()
		return !f.ContainsHash(h) && c.AddHash(h) == ErrNoSlot
	}
	var walled, fresh uint64
	for walled = rng.Uint64(); !refused(walled); walled = rng.Uint64() {
	}
	for fresh = rng.Uint64(); f.ContainsHash(fresh) || full(fresh); fresh = rng.Uint64() {
	}
	for _, c := range []struct {
		hs   []uint64
		stop int
	}{
		{[]uint64{walled, fresh, walled}, 0}, // the first stage's last key
		{[]uint64{fresh, walled, fresh}, 1},  // the second stage's first
	} {
		a, g := f.Clone(), f.Clone()
		out := make([]bool, len(c.hs))
		n, err := a.AddNewHashes(c.hs, out)
		if n != c.stop || err != ErrNoSlot || a.VictimInUse() || n == 1 && !out[0] {
			t.Fatalf("f=%d %v: AddNewHashes: %d, %v, out %v, victim in use %v; want %d, ErrNoSlot, no victim", fb, c.hs, n, err, out, a.VictimInUse(), c.stop)
		}
		for j, h := range c.hs[:n+1] {
			isNew, err := g.AddNewHash(h)
			if j < n && (!isNew || err != nil) || j == n && (isNew || err != ErrNoSlot) {
				t.Fatalf("f=%d: AddNewHash of key %d: %v, %v", fb, j, isNew, err)
			}
		}
		ea, _ := a.MarshalBinary()
		eg, _ := g.MarshalBinary()
		if !bytes.Equal(ea, eg) || a.ContainsHash(walled) {
			t.Fatalf("f=%d: AddNewHashes and a loop of AddNewHash built different filters (the walled-in key added: %v)", fb, a.ContainsHash(walled))
		}
		a.Close()
		g.Close()
	}
}

// TestAddNewDuplicatesInBatch: a key repeated in one batch, even past the
// duplicate limit, is new once and takes one slot.
func TestAddNewDuplicatesInBatch(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		for _, fb := range []int{8, 16} {
			f := mustNew(t, 1000, WithFingerprintBits(fb))
			a, b, c := f.HashUint64(1), f.HashUint64(2), f.HashUint64(3)
			hs := []uint64{a, a, b, a, b, c}
			for range 40 { // long enough for the assembly locate kernels
				hs = append(hs, a, b, c)
			}
			out := make([]bool, len(hs))
			n, err := f.AddNewHashes(hs, out)
			if n != len(hs) || err != nil {
				t.Fatalf("f=%d: AddNewHashes: %d, %v", fb, n, err)
			}
			for i, o := range out {
				if o != (i == 0 || i == 2 || i == 5) {
					t.Fatalf("f=%d: out = %v", fb, out[:6])
				}
			}
			if f.Count() != 3 {
				t.Fatalf("f=%d: count %d after 3 distinct keys", fb, f.Count())
			}
			if isNew, err := f.AddNewUint64(2); isNew || err != nil {
				t.Fatalf("f=%d: AddNewUint64 of a present key: %v, %v", fb, isNew, err)
			}
			if isNew, err := f.AddNewString("four"); !isNew || err != nil {
				t.Fatalf("f=%d: AddNewString of a new key: %v, %v", fb, isNew, err)
			}
			if isNew, err := f.AddNew([]byte("four")); isNew || err != nil {
				t.Fatalf("f=%d: AddNew of the same key as bytes: %v, %v", fb, isNew, err)
			}
		}
	})
}

// TestAddNewVictim fills a filter until its victim slot is in use: then the
// victim's key, and any key in the buckets, are (false, nil), and a new key
// is (false, ErrFull), for the single-key and the batch calls of Filter
// and Concurrent; nothing changes.
func TestAddNewVictim(t *testing.T) {
	for _, fb := range []int{8, 16} {
		f := mustNew(t, 500, WithFingerprintBits(fb))
		var added []uint64
		for k := uint64(0); !f.VictimInUse(); k++ {
			h := f.HashUint64(k)
			isNew, err := f.AddNewHash(h)
			if err != nil {
				t.Fatalf("f=%d: before the victim: %v", fb, err)
			}
			if isNew {
				added = append(added, h)
			}
		}
		victim := -1
		for i, h := range added {
			i1, fp, i2 := f.locate(h)
			if kernel.CuckooTag(fp, min(i1, i2)) == f.t.Victim {
				victim = i
			}
		}
		if victim < 0 {
			t.Fatalf("f=%d: no added key is the victim", fb)
		}
		var fresh uint64
		for k := uint64(1 << 40); ; k++ {
			if fresh = f.HashUint64(k); !f.ContainsHash(fresh) {
				break
			}
		}
		before, _ := f.MarshalBinary()
		c := NewConcurrentFrom(f)
		defer c.Close()
		for _, h := range []uint64{added[victim], added[0], added[len(added)/2]} {
			if isNew, err := f.AddNewHash(h); isNew || err != nil {
				t.Fatalf("f=%d: AddNewHash of a present key with the victim in use: %v, %v", fb, isNew, err)
			}
			if isNew, err := c.AddNewHash(h); isNew || err != nil {
				t.Fatalf("f=%d: Concurrent.AddNewHash of a present key with the victim in use: %v, %v", fb, isNew, err)
			}
		}
		if isNew, err := f.AddNewHash(fresh); isNew || err != ErrFull {
			t.Fatalf("f=%d: AddNewHash of a new key with the victim in use: %v, %v", fb, isNew, err)
		}
		if isNew, err := c.AddNewHash(fresh); isNew || err != ErrFull {
			t.Fatalf("f=%d: Concurrent.AddNewHash of a new key with the victim in use: %v, %v", fb, isNew, err)
		}
		hs := append([]uint64{}, added...)
		hs = append(hs, fresh, added[0])
		out := make([]bool, len(hs))
		for _, batch := range []func([]uint64, []bool) (int, error){f.AddNewHashes, c.AddNewHashes} {
			if n, err := batch(hs, out); n != len(added) || err != ErrFull {
				t.Fatalf("f=%d: AddNewHashes with the victim in use: %d, %v; want %d, ErrFull", fb, n, err, len(added))
			}
			for i, o := range out[:len(added)] {
				if o {
					t.Fatalf("f=%d: AddNewHashes says present key %d is new", fb, i)
				}
			}
		}
		after, _ := f.MarshalBinary()
		snap, _ := c.MarshalBinary()
		if !bytes.Equal(before, after) || !bytes.Equal(before, snap) {
			t.Fatalf("f=%d: a full filter changed", fb)
		}
		allPresent(t, f, added, "AddNew at ErrFull")
	}
}

// TestConcurrentAddNewMatchesFilter: without races a Concurrent's AddNewHash
// and AddNewHashes answer as Filter's do and build the same table, up to
// and past the first ErrFull.
func TestConcurrentAddNewMatchesFilter(t *testing.T) {
	for _, fb := range []int{8, 16} {
		for _, capacity := range []uint64{7, 1000, 20011} {
			opts := []Option{WithFingerprintBits(fb), WithSeed(capacity)}
			f := mustNew(t, capacity, opts...)
			c, _ := NewConcurrent(capacity, opts...)
			d, _ := NewConcurrent(capacity, opts...)
			hs := addNewStream(rand.New(rand.NewPCG(capacity, 3)), int(6*capacity+50))
			out, cout := make([]bool, len(hs)), make([]bool, len(hs))
			n, err := f.AddNewHashes(hs, out)
			cn, cerr := c.AddNewHashes(hs, cout)
			if n != cn || err != cerr || !errors.Is(err, ErrFull) {
				t.Fatalf("f=%d c=%d: Filter %d, %v; Concurrent %d, %v", fb, capacity, n, err, cn, cerr)
			}
			for i, h := range hs[:n] {
				isNew, err := d.AddNewHash(h)
				if out[i] != cout[i] || out[i] != isNew || err != nil {
					t.Fatalf("f=%d c=%d: key %d: Filter %v, Concurrent batch %v, single %v, %v", fb, capacity, i, out[i], cout[i], isNew, err)
				}
			}
			ef, _ := f.MarshalBinary()
			ec, _ := c.MarshalBinary()
			ed, _ := d.MarshalBinary()
			if !bytes.Equal(ef, ec) || !bytes.Equal(ef, ed) {
				t.Fatalf("f=%d c=%d: the tables differ", fb, capacity)
			}
			c.Close()
			d.Close()
		}
	}
}

// TestConcurrentAddNewRace: goroutines add-if-new the same keys at once,
// each in its own order, into a filter that ends above 90% load (so
// relocations run under the racing calls). Every key must be reported new
// at least once, and never by a call that started after a call for it had
// returned. The keys have distinct fingerprint-and-bucket tags, so none is
// a false positive of another. Run it with -race.
func TestConcurrentAddNewRace(t *testing.T) {
	capacity, workers := uint64(20000), 4
	if testing.Short() {
		capacity = 4000
	}
	for _, fb := range []int{8, 16} {
		c, err := NewConcurrent(capacity, WithFingerprintBits(fb))
		if err != nil {
			t.Fatal(err)
		}
		f := c.f
		tags := map[uint64]bool{}
		var keys []uint64
		for k := uint64(0); len(keys) < int(capacity*92/100); k++ {
			h := f.HashUint64(k)
			i1, fp, i2 := f.locate(h)
			if tag := kernel.CuckooTag(fp, min(i1, i2)); !tags[tag] {
				tags[tag] = true
				keys = append(keys, h)
			}
		}
		done := make([]atomic.Bool, len(keys)) // a call for key i returned
		news := make([]atomic.Int32, len(keys))
		var late, fails atomic.Int64
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(w), 1))
				order := rng.Perm(len(keys))
				var batch []uint64
				var idx []int
				out := make([]bool, 8)
				for n, i := range order {
					if w%2 == 1 { // batches of 8
						batch, idx = append(batch, keys[i]), append(idx, i)
						if len(batch) < 8 && n < len(order)-1 {
							continue
						}
						started := make([]bool, len(idx))
						for j, i := range idx {
							started[j] = done[i].Load()
						}
						if m, err := c.AddNewHashes(batch, out); err != nil || m != len(batch) {
							fails.Add(1)
						}
						for j, i := range idx {
							if out[j] {
								news[i].Add(1)
								if started[j] {
									late.Add(1)
								}
							}
							done[i].Store(true)
						}
						batch, idx = batch[:0], idx[:0]
						continue
					}
					started := done[i].Load()
					isNew, err := c.AddNewHash(keys[i])
					if err != nil {
						fails.Add(1)
					}
					if isNew {
						news[i].Add(1)
						if started {
							late.Add(1)
						}
					}
					done[i].Store(true)
				}
			}()
		}
		wg.Wait()
		missed := 0
		for i := range keys {
			if news[i].Load() == 0 {
				missed++
			}
		}
		if fails.Load() != 0 || late.Load() != 0 || missed != 0 {
			t.Fatalf("f=%d: %d errors, %d keys reported new after a call for them returned, %d never reported new", fb, fails.Load(), late.Load(), missed)
		}
		for i, h := range keys {
			if !c.ContainsHash(h) {
				t.Fatalf("f=%d: key %d lost", fb, i)
			}
		}
		c.Close()
	}
}
