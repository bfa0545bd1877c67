package blocked

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestConcurrentStress: 8 goroutines add disjoint key sets while 4 others
// query and one marshals snapshots; afterwards every key is present. Run
// with -race to check the atomics.
func TestConcurrentStress(t *testing.T) {
	perWriter := 50_000
	if testing.Short() {
		perWriter = 5_000
	}
	const writers, readers = 8, 4
	c, err := NewConcurrent(uint64(writers*perWriter), 0.01, WithSeed(11))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var wg sync.WaitGroup
	var done atomic.Bool
	var snapshots atomic.Int64
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			base := uint64(w * perWriter)
			for i := range uint64(perWriter) {
				switch i % 3 {
				case 0:
					c.AddUint64(base + i)
				case 1:
					c.AddHash(c.Hash(le64(base + i)))
				case 2:
					c.AddHashes([]uint64{c.HashString(string(le64(base + i)))})
				}
				// A key whose Add returned is visible at once to this goroutine.
				if !c.ContainsUint64(base + i) {
					t.Errorf("writer %d: key %d missing right after Add", w, base+i)
					return
				}
			}
		}()
	}
	var rg sync.WaitGroup
	for r := range readers {
		rg.Add(1)
		go func() {
			defer rg.Done()
			hs := hashes(256, uint64(r))
			out := make([]bool, len(hs))
			for !done.Load() {
				c.ContainsHashes(hs, out)
				c.ContainsUint64(uint64(r))
			}
		}()
	}
	rg.Add(1)
	go func() {
		defer rg.Done()
		for !done.Load() {
			b, err := c.MarshalBinary()
			if err != nil {
				t.Error(err)
				return
			}
			var f Filter
			if err := f.UnmarshalBinary(b); err != nil {
				t.Errorf("snapshot taken during adds does not decode: %v", err)
				return
			}
			f.Close()
			snapshots.Add(1)
		}
	}()
	wg.Wait()
	done.Store(true)
	rg.Wait()
	for i := range uint64(writers * perWriter) {
		if !c.ContainsUint64(i) {
			t.Fatalf("key %d missing after all adds", i)
		}
	}
	hs := make([]uint64, writers*perWriter)
	for i := range hs {
		hs[i] = c.Hash(le64(uint64(i)))
	}
	if n := c.ContainsHashes(hs, make([]bool, len(hs))); n != len(hs) {
		t.Fatalf("ContainsHashes: %d of %d present", n, len(hs))
	}
	t.Logf("%d snapshots taken during the adds", snapshots.Load())
}

func le64(x uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(x >> (8 * i))
	}
	return b
}

// TestConcurrentMatchesFilter: the same keys give the same bits, so the two
// types' encodings are interchangeable.
func TestConcurrentMatchesFilter(t *testing.T) {
	f := mustNew(t, 10_000, 0.001, WithSeed(2))
	c, err := NewConcurrent(10_000, 0.001, WithSeed(2))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	hs := hashes(10_000, 9)
	f.AddHashes(hs)
	c.AddHashes(hs[:5000])
	for _, h := range hs[5000:] {
		c.AddHash(h)
	}
	sameFilter(t, "Concurrent vs Filter", &f.core, &c.core)
	fb, _ := f.MarshalBinary()
	cb, _ := c.MarshalBinary()
	if !bytes.Equal(fb, cb) {
		t.Fatal("encodings differ")
	}
	var buf bytes.Buffer
	c.WriteTo(&buf)
	d := &Concurrent{}
	if _, err := d.ReadFrom(&buf); err != nil {
		t.Fatal(err)
	}
	sameFilter(t, "ReadFrom", &c.core, &d.core)
	g := c.Filter()
	sameFilter(t, "Filter()", &f.core, &g.core)
	cl := c.Clone()
	sameFilter(t, "Clone", &c.core, &cl.core)
	if c.EstimatedCount() != f.EstimatedCount() || c.FPP() != f.FPP() {
		t.Fatal("statistics differ")
	}
	if c.Bits() != f.Bits() || c.K() != f.K() || c.Seed() != 2 || c.Blocks() != f.Blocks() {
		t.Fatal("accessors differ")
	}
	e, _ := NewConcurrent(10_000, 0.001, WithSeed(2))
	e.AddUint64(77)
	if err := cl.Union(e); err != nil || !cl.ContainsUint64(77) {
		t.Fatal("Union", err)
	}
	other, _ := NewConcurrent(10_000, 0.001, WithSeed(3))
	if err := cl.Union(other); !errors.Is(err, ErrIncompatible) {
		t.Fatal("Union of different seeds:", err)
	}
	cl.Reset()
	if cl.ContainsUint64(77) {
		t.Fatal("Reset left keys")
	}
	for _, x := range []interface{ Close() error }{d, g, cl, e, other} {
		x.Close()
	}
}

// TestReadConcurrent: ReadConcurrent reads a file of a Filter or a
// Concurrent into a new Concurrent, with ReadFilter's options and errors
// (before, it did not exist: var c Concurrent; c.ReadFrom was the way).
func TestReadConcurrent(t *testing.T) {
	f, err := New(2000, 0.01, WithSeed(5))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := range uint64(2000) {
		f.AddUint64(i)
	}
	enc, _ := f.MarshalBinary()
	// It reads exactly the filter's bytes.
	r := bytes.NewReader(append(bytes.Clone(enc), "tail"...))
	c, err := ReadConcurrent(r)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r.Len() != 4 {
		t.Fatalf("ReadConcurrent left %d bytes, want 4", r.Len())
	}
	sameFilter(t, "ReadConcurrent", &f.core, &c.core)
	for i := range uint64(2000) {
		if !c.ContainsUint64(i) {
			t.Fatalf("key %d lost", i)
		}
	}
	var wg sync.WaitGroup
	for g := range uint64(4) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range uint64(500) {
				c.AddUint64(1<<32 + g<<16 + i)
			}
		}()
	}
	wg.Wait()
	for g := range uint64(4) {
		for i := range uint64(500) {
			if !c.ContainsUint64(1<<32 + g<<16 + i) {
				t.Fatalf("concurrent add %d/%d lost", g, i)
			}
		}
	}
	// A Concurrent's own file reads back.
	cenc, _ := c.MarshalBinary()
	d, err := ReadConcurrent(bytes.NewReader(cenc))
	if err != nil {
		t.Fatal(err)
	}
	sameFilter(t, "ReadConcurrent of a Concurrent's file", &c.core, &d.core)
	d.Close()

	// WithMaxSize refuses a larger payload, and the filter keeps the bound.
	limit := WithMaxSize(f.SizeBytes())
	small, err := ReadConcurrent(bytes.NewReader(enc), limit)
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	big := mustNewSize(t, 512*1000, 4)
	bb, _ := big.MarshalBinary()
	if _, err := ReadConcurrent(bytes.NewReader(bb), limit); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadConcurrent of a larger filter: %v", err)
	}
	if _, err := small.ReadFrom(bytes.NewReader(bb)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFrom into a bounded ReadConcurrent filter: %v", err)
	}

	// Bad input: the same errors as ReadFilter's.
	bad := bytes.Clone(enc)
	bad[len(bad)-1] ^= 1
	if _, err := ReadConcurrent(bytes.NewReader(bad)); !errors.Is(err, ErrChecksum) {
		t.Errorf("damaged payload: %v", err)
	}
	if c, err := ReadConcurrent(bytes.NewReader(bad), WithoutChecksum()); err != nil {
		t.Errorf("damaged payload WithoutChecksum: %v", err)
	} else {
		c.Close()
	}
	w, err := NewWindow(100, 0.01, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	wenc, _ := w.MarshalBinary()
	w.Close()
	for what, in := range map[string][]byte{"truncated": enc[:len(enc)/2], "window": wenc, "empty": nil, "text": []byte("hello, world")} {
		_, want := ReadFilter(bytes.NewReader(in))
		_, got := ReadConcurrent(bytes.NewReader(in))
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%s: ReadConcurrent: %v, ReadFilter: %v", what, got, want)
		}
	}
}
