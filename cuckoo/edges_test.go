package cuckoo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sift-go/sift/internal/edgetest"
	"github.com/sift-go/sift/internal/mem"
)

func wantPanic(t *testing.T, what string, sentinel error, f func()) {
	t.Helper()
	edgetest.WantPanic(t, "cuckoo: ", what, sentinel, f)
}

func wantErr(t *testing.T, what string, err, sentinel error) {
	t.Helper()
	edgetest.WantErr(t, "cuckoo: ", what, err, sentinel)
}

// TestConstructorMaxSize: New and NewConcurrent honour WithMaxSize.
func TestConstructorMaxSize(t *testing.T) {
	_, err := New(1e6, WithMaxSize(1<<20))
	wantErr(t, "New over WithMaxSize", err, ErrTooLarge)
	_, err = NewConcurrent(1e6, WithMaxSize(1<<20), WithFingerprintBits(8))
	wantErr(t, "NewConcurrent over WithMaxSize", err, ErrTooLarge)
	f, err := New(1e5, WithMaxSize(1<<20))
	if err != nil || f.SizeBytes() > 1<<20 {
		t.Fatalf("New under WithMaxSize: %v", err)
	}
	// Beyond the design's 2^32-1 buckets: both sentinels.
	_, err = New(uint64(MaxBuckets)*4 + 1)
	wantErr(t, "New beyond MaxBuckets", err, ErrTooLarge)
	wantErr(t, "New beyond MaxBuckets", err, ErrInvalidArgument)
}

// TestHugeConstructors runs New and NewConcurrent, in a child process, on
// capacities whose buckets are beyond this machine (about 34 GB): each
// must return an error wrapping ErrTooLarge. Before, the refused
// mapping fell back to the Go heap, which ended the process.
func TestHugeConstructors(t *testing.T) {
	edgetest.Huge(t, "TestHugeConstructors", mem.MachineMemory(), []edgetest.Case{
		{Name: "New(16e9)", Bytes: 33 << 30, Make: func() error { _, err := New(16e9); return err }},
		{Name: "NewConcurrent(16e9)", Bytes: 33 << 30, Make: func() error { _, err := NewConcurrent(16e9); return err }},
	})
}

// TestChurn: a full filter recovers when keys go. Fill to ErrFull, remove
// a small random share of the keys, and new keys are accepted again; over
// rounds of this churn every key whose Add succeeded and that was not
// removed stays present. Before, Add failed with ErrFull until a Remove
// happened to free a slot in one of the victim's two buckets: 8.8% of the
// keys had to go at 16 bits, 27% at 8 bits.
func TestChurn(t *testing.T) {
	capacity := uint64(20000)
	if !testing.Short() {
		capacity = 200000
	}
	for _, fb := range []int{8, 16} {
		for _, conc := range []bool{false, true} {
			name := fmt.Sprintf("f=%d/concurrent=%v", fb, conc)
			var add func(uint64) error
			var remove func(uint64) bool
			var contains func(uint64) bool
			var full func() bool
			if conc {
				c, err := NewConcurrent(capacity, WithFingerprintBits(fb), WithSeed(7))
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				add, remove, contains = c.AddHash, c.RemoveHash, c.ContainsHash
				full = func() bool { return c.victim.Load() != 0 }
			} else {
				f := mustNew(t, capacity, WithFingerprintBits(fb), WithSeed(7))
				add, remove, contains, full = f.AddHash, f.RemoveHash, f.ContainsHash, f.VictimInUse
			}
			rng := rand.New(rand.NewPCG(uint64(fb), 1))
			var held []uint64
			fill := func() int {
				added := 0
				for {
					h := rng.Uint64()
					err := add(h)
					if errors.Is(err, ErrFull) {
						return added
					}
					if err != nil {
						t.Fatalf("%s: Add: %v", name, err)
					}
					held = append(held, h)
					added++
				}
			}
			fill()
			if !full() {
				t.Fatalf("%s: ErrFull without a victim", name)
			}
			for round := range 5 {
				// Remove 1% of the keys held, chosen at random.
				k := len(held) / 100
				rng.Shuffle(len(held), func(i, j int) { held[i], held[j] = held[j], held[i] })
				for _, h := range held[:k] {
					if !remove(h) {
						t.Fatalf("%s: Remove of a held key failed", name)
					}
				}
				held = held[k:]
				if full() {
					t.Errorf("%s round %d: the victim is still parked after %d removes", name, round, k)
				}
				n := fill()
				if n < k/2 {
					t.Errorf("%s round %d: %d keys removed, then only %d accepted", name, round, k, n)
				}
				t.Logf("%s round %d: %d keys removed, %d accepted, %d held", name, round, k, n, len(held))
				for i, h := range held {
					if !contains(h) {
						t.Fatalf("%s round %d: key %d of %d lost", name, round, i, len(held))
					}
				}
			}
		}
	}
}

// checkFilterUnusable checks what a Filter without buckets (closed, or a
// zero value) does: error-returning methods return ErrClosed (an Add
// said "read-only" before), the others panic with it, and the single-key
// lookups panic (a nil dereference).
func checkFilterUnusable(t *testing.T, name string, f *Filter) {
	hs, out := []uint64{1, 2, 3}, make([]bool, 3)
	wantErr(t, name+".AddUint64", f.AddUint64(1), ErrClosed)
	wantErr(t, name+".AddString", f.AddString("x"), ErrClosed)
	_, err := f.AddHashes(hs)
	wantErr(t, name+".AddHashes", err, ErrClosed)
	for what, add := range map[string]func() (bool, error){
		"AddNew":       func() (bool, error) { return f.AddNew([]byte("x")) },
		"AddNewString": func() (bool, error) { return f.AddNewString("x") },
		"AddNewUint64": func() (bool, error) { return f.AddNewUint64(1) },
		"AddNewHash":   func() (bool, error) { return f.AddNewHash(1) },
		"AddNewHashes": func() (bool, error) { n, err := f.AddNewHashes(hs, out); return n != 0, err },
	} {
		isNew, err := add()
		wantErr(t, name+"."+what, err, ErrClosed)
		if isNew {
			t.Errorf("%s.%s: true", name, what)
		}
	}
	_, err = f.MarshalBinary()
	wantErr(t, name+".MarshalBinary", err, ErrClosed)
	_, err = f.WriteTo(&bytes.Buffer{})
	wantErr(t, name+".WriteTo", err, ErrClosed)
	wantPanic(t, name+".RemoveUint64", ErrClosed, func() { f.RemoveUint64(1) })
	wantPanic(t, name+".ContainsHashes", ErrClosed, func() { f.ContainsHashes(hs, out) })
	wantPanic(t, name+".Reset", ErrClosed, func() { f.Reset() })
	wantPanic(t, name+".Clone", ErrClosed, func() { f.Clone() })
	wantPanic(t, name+".FPP", ErrClosed, func() { f.FPP() })
	wantPanic(t, name+".LoadFactor", ErrClosed, func() { f.LoadFactor() })
	wantPanic(t, name+".BitsPerKey", ErrClosed, func() { f.BitsPerKey() })
	wantPanic(t, name+".ContainsUint64", nil, func() { f.ContainsUint64(1) })
	if f.Count() != 0 || f.Capacity() != 0 || f.SizeBytes() != 0 {
		t.Errorf("%s: count %d, capacity %d", name, f.Count(), f.Capacity())
	}
	if err := f.Close(); err != nil {
		t.Errorf("%s.Close: %v", name, err)
	}
	g := mustNew(t, 100)
	_ = g.AddUint64(7)
	enc, _ := g.MarshalBinary()
	if err := f.UnmarshalBinary(enc); err != nil || !f.ContainsUint64(7) || f.AddUint64(8) != nil {
		t.Errorf("%s.UnmarshalBinary: %v", name, err)
	}
}

func checkConcurrentUnusable(t *testing.T, name string, c *Concurrent) {
	hs, out := []uint64{1, 2, 3}, make([]bool, 3)
	wantErr(t, name+".AddUint64", c.AddUint64(1), ErrClosed)
	_, err := c.AddHashes(hs)
	wantErr(t, name+".AddHashes", err, ErrClosed)
	for what, add := range map[string]func() (bool, error){
		"AddNew":       func() (bool, error) { return c.AddNew([]byte("x")) },
		"AddNewString": func() (bool, error) { return c.AddNewString("x") },
		"AddNewUint64": func() (bool, error) { return c.AddNewUint64(1) },
		"AddNewHash":   func() (bool, error) { return c.AddNewHash(1) },
		"AddNewHashes": func() (bool, error) { n, err := c.AddNewHashes(hs, out); return n != 0, err },
	} {
		isNew, err := add()
		wantErr(t, name+"."+what, err, ErrClosed)
		if isNew {
			t.Errorf("%s.%s: true", name, what)
		}
	}
	_, err = c.MarshalBinary()
	wantErr(t, name+".MarshalBinary", err, ErrClosed)
	_, err = c.WriteTo(&bytes.Buffer{})
	wantErr(t, name+".WriteTo", err, ErrClosed)
	wantPanic(t, name+".RemoveHash", ErrClosed, func() { c.RemoveHash(1) })
	wantPanic(t, name+".ContainsHashes", ErrClosed, func() { c.ContainsHashes(hs, out) })
	wantPanic(t, name+".Reset", ErrClosed, func() { c.Reset() })
	wantPanic(t, name+".Snapshot", ErrClosed, func() { c.Snapshot() })
	wantPanic(t, name+".FPP", ErrClosed, func() { c.FPP() })
	// Every lookup and Remove form of a zero Concurrent, as of a closed
	// one, panics with ErrClosed (not a nil dereference).
	for what, call := range map[string]func(){
		"ContainsHash":   func() { c.ContainsHash(1) },
		"Contains":       func() { c.Contains([]byte("x")) },
		"ContainsString": func() { c.ContainsString("x") },
		"ContainsUint64": func() { c.ContainsUint64(1) },
		"Remove":         func() { c.Remove([]byte("x")) },
		"RemoveString":   func() { c.RemoveString("x") },
		"RemoveUint64":   func() { c.RemoveUint64(1) },
	} {
		wantPanic(t, name+"."+what, ErrClosed, call)
	}
	if c.Count() != 0 || c.Capacity() != 0 {
		t.Errorf("%s: count %d, capacity %d", name, c.Count(), c.Capacity())
	}
	if err := c.Close(); err != nil {
		t.Errorf("%s.Close: %v", name, err)
	}
	g := mustNew(t, 100)
	_ = g.AddUint64(7)
	enc, _ := g.MarshalBinary()
	if err := c.UnmarshalBinary(enc); err != nil || !c.ContainsUint64(7) || c.AddUint64(8) != nil {
		t.Errorf("%s.UnmarshalBinary: %v", name, err)
	}
}

func checkViewUnusable(t *testing.T, name string, v *View) {
	hs, out := []uint64{1, 2, 3}, make([]bool, 3)
	_, err := v.MarshalBinary()
	wantErr(t, name+".MarshalBinary", err, ErrClosed)
	_, err = v.WriteTo(&bytes.Buffer{})
	wantErr(t, name+".WriteTo", err, ErrClosed)
	wantPanic(t, name+".ContainsHashes", ErrClosed, func() { v.ContainsHashes(hs, out) })
	wantPanic(t, name+".Clone", ErrClosed, func() { v.Clone() })
	wantPanic(t, name+".FPP", ErrClosed, func() { v.FPP() })
	wantPanic(t, name+".ContainsUint64", nil, func() { v.ContainsUint64(1) })
	if v.Mapped() || v.Count() != 0 {
		t.Errorf("%s: mapped %v, count %d", name, v.Mapped(), v.Count())
	}
	if err := v.Close(); err != nil {
		t.Errorf("%s.Close: %v", name, err)
	}
}

// TestUseAfterClose covers every type: before, Add on a closed Filter said
// "filter is read-only", MarshalBinary returned a 128-byte record that no
// decoder accepts with a nil error, and FPP returned NaN.
func TestUseAfterClose(t *testing.T) {
	for _, capacity := range []uint64{1000, 2e6} { // heap and mapped
		f := mustNew(t, capacity)
		_ = f.AddUint64(1)
		f.Close()
		checkFilterUnusable(t, fmt.Sprintf("closed Filter(%d)", capacity), f)

		c, err := NewConcurrent(capacity)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.AddUint64(1)
		c.Close()
		checkConcurrentUnusable(t, "closed Concurrent", c)

		g := mustNew(t, capacity)
		enc, _ := g.MarshalBinary()
		v, err := FromBytes(enc)
		if err != nil {
			t.Fatal(err)
		}
		v.Close()
		checkViewUnusable(t, "closed View", v)
		path := filepath.Join(t.TempDir(), "f.sift")
		os.WriteFile(path, enc, 0o644)
		if v, err = Open(path); err != nil {
			t.Fatal(err)
		}
		v.Close()
		checkViewUnusable(t, "closed View from Open", v)
	}
}

// TestZeroValues: the zero Filter, Concurrent and View fail loudly, like
// closed ones (before, the zero Filter's Add panicked with an index out of
// range).
func TestZeroValues(t *testing.T) {
	checkFilterUnusable(t, "zero Filter", &Filter{})
	checkConcurrentUnusable(t, "zero Concurrent", &Concurrent{})
	checkViewUnusable(t, "zero View", &View{})
}

// TestErrorPrefixes: every error reads "cuckoo: ..." once and wraps its
// sentinel. Before, decoders said "cuckoo: sift: truncated input..." and
// Open of a directory "sift: ... is not a regular file".
func TestErrorPrefixes(t *testing.T) {
	f := mustNew(t, 100)
	enc, _ := f.MarshalBinary()
	_, err := FromBytes(enc[:50])
	wantErr(t, "FromBytes of a cut header", err, ErrTruncated)
	var g Filter
	wantErr(t, "UnmarshalBinary of a cut filter", g.UnmarshalBinary(enc[:len(enc)-1]), ErrTruncated)
	_, err = g.ReadFrom(bytes.NewReader(enc[:200]))
	wantErr(t, "ReadFrom of a cut filter", err, ErrTruncated)
	_, err = FromBytes(enc, WithMaxSize(8))
	wantErr(t, "FromBytes over MaxBytes", err, ErrTooLarge)
	dir := t.TempDir()
	_, err = Open(filepath.Join(dir, "missing"))
	wantErr(t, "Open of a missing file", err, fs.ErrNotExist)
	_, err = Open(dir)
	var pe *fs.PathError
	if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "cuckoo: open "+dir+": not a regular file (a directory)") {
		t.Errorf("Open of a directory: %v", err)
	}
	_, err = New(0)
	wantErr(t, "New(0)", err, ErrInvalidArgument)
}
