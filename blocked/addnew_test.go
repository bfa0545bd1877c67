package blocked

import (
	"encoding/binary"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sift-go/sift/internal/edgetest"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// adder is what Filter and Concurrent share for these tests.
type adder interface {
	AddHash(h uint64)
	ContainsHash(h uint64) bool
	AddNewHash(h uint64) bool
	AddNewHashes(hs []uint64, out []bool) int
	AddNew(key []byte) bool
	AddNewString(key string) bool
	AddNewUint64(x uint64) bool
	Hash(key []byte) uint64
	HashUint64(x uint64) uint64
}

// newPair returns a Filter and a Concurrent of the same geometry, and
// their words.
func newPair(t *testing.T, blocks uint64, k int) (*Filter, *Concurrent) {
	t.Helper()
	f := mustNewSize(t, blocks*BlockBits, k)
	c, err := NewConcurrentWithSize(blocks*BlockBits, k)
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

func wordsOf(a adder) []uint64 {
	switch a := a.(type) {
	case *Filter:
		return a.words
	case *Concurrent:
		return a.words
	}
	panic("unknown type")
}

// withRepeats returns n hashes of which about a third repeat an earlier one
// of the same slice (in-batch duplicates).
func withRepeats(n int, seed uint64) []uint64 {
	hs := hashes(n, seed)
	for i := 1; i < n; i += 3 {
		hs[i] = hs[int(hs[i]%uint64(i))]
	}
	return hs
}

// TestAddNewHash: for every k, on filters small enough that keys share
// blocks, AddNewHash answers !ContainsHash before the add, and leaves the
// memory image of AddHash; the bytes, string and uint64 forms are the
// hash form of the same key.
func TestAddNewHash(t *testing.T) {
	kerneltest.Run(t, testAddNewHash)
}

func testAddNewHash(t *testing.T, impl string) {
	for k := 1; k <= MaxK; k++ {
		for _, blocks := range []uint64{1, 7, 1000} {
			f, c := newPair(t, blocks, k)
			ref := mustNewSize(t, blocks*BlockBits, k)
			for _, a := range []adder{f, c} {
				for i, h := range withRepeats(2000, uint64(k)) {
					want := !ref.ContainsHash(h)
					ref.AddHash(h)
					if got := a.AddNewHash(h); got != want {
						t.Fatalf("%T k=%d blocks=%d key %d: AddNewHash = %v, want %v", a, k, blocks, i, got, want)
					}
				}
				for i, w := range wordsOf(a) {
					if w != ref.words[i] {
						t.Fatalf("%T k=%d blocks=%d: word %d differs from AddHash's", a, k, blocks, i)
					}
				}
				ref.Reset()
			}
		}
	}
	f, c := newPair(t, 1000, 7)
	for _, a := range []adder{f, c} {
		for i := range uint64(200) {
			key := fmt.Appendf(nil, "key-%d", i)
			if !a.AddNew(key) || a.AddNew(key) || a.AddNewString(string(key)) || a.AddNewHash(a.Hash(key)) {
				t.Fatalf("%T: %s: AddNew forms disagree (want new once)", a, key)
			}
			var le [8]byte
			binary.LittleEndian.PutUint64(le[:], i)
			if !a.AddNewUint64(i) || a.AddNew(le[:]) || !a.ContainsHash(a.HashUint64(i)) {
				t.Fatalf("%T: AddNewUint64(%d) is not AddNew of its bytes", a, i)
			}
		}
	}
}

// TestAddNewHashes runs for every kernel: for batch lengths 0..600 (across
// the kernels' loop boundaries, and Concurrent's chunk of addChunk keys),
// with in-batch duplicates and keys sharing
// blocks (1 and 3 blocks), the batch gives the answers, count and memory
// image of AddNewHash calls in order.
func TestAddNewHashes(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		for _, k := range []int{1, 3, 7, 8, 9, 16} {
			for _, blocks := range []uint64{1, 3, 1000} {
				f, c := newPair(t, blocks, k)
				ref := mustNewSize(t, blocks*BlockBits, k)
				for _, a := range []adder{f, c} {
					step := 1
					if testing.Short() {
						step = 7
					}
					for n := 0; n <= 600; n += step + n/8 {
						hs := withRepeats(n, uint64(n*31+k))
						// Half of each batch after the first repeats the
						// previous batch's keys.
						hs = append(hs, withRepeats(n, uint64((n-1)*31+k))[:n/2]...)
						out := kerneltest.GuardedBools(t, len(hs))
						count := a.AddNewHashes(hs, out)
						want := 0
						for i, h := range hs {
							r := ref.AddNewHash(h)
							if out[i] != r {
								t.Fatalf("%T k=%d blocks=%d n=%d: out[%d] = %v, want %v", a, k, blocks, n, i, out[i], r)
							}
							if r {
								want++
							}
						}
						if count != want {
							t.Fatalf("%T k=%d blocks=%d n=%d: count %d, want %d", a, k, blocks, n, count, want)
						}
						for i, w := range wordsOf(a) {
							if w != ref.words[i] {
								t.Fatalf("%T k=%d blocks=%d n=%d: word %d differs", a, k, blocks, n, i)
							}
						}
					}
					ref.Reset()
				}
			}
		}
	})
}

// TestConcurrentBatchEquivalence runs for every kernel: Concurrent's
// AddHashes leaves Filter's memory image, and its ContainsHashes gives
// Filter's answers, for lengths 0..600 and half-repeated batches.
func TestConcurrentBatchEquivalence(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		for _, k := range []int{1, 7, 8, 12, 16} {
			for _, blocks := range []uint64{1, 3, 1000} {
				f, c := newPair(t, blocks, k)
				for n := 0; n <= 600; n += 1 + n/4 {
					hs := withRepeats(n, uint64(n*17+k))
					f.AddHashes(hs)
					c.AddHashes(hs)
					for i := range f.words {
						if f.words[i] != c.words[i] {
							t.Fatalf("k=%d blocks=%d n=%d: word %d differs", k, blocks, n, i)
						}
					}
					probe := append(hashes(n, uint64(n)), hs...)
					want := make([]bool, len(probe))
					out := kerneltest.GuardedBools(t, len(probe))
					if fc, cc := f.ContainsHashes(probe, want), c.ContainsHashes(probe, out); fc != cc {
						t.Fatalf("k=%d blocks=%d n=%d: count %d, Filter's %d", k, blocks, n, cc, fc)
					}
					for i := range want {
						if out[i] != want[i] {
							t.Fatalf("k=%d blocks=%d n=%d: out[%d] differs", k, blocks, n, i)
						}
					}
				}
			}
		}
	})
}

// TestConcurrentAddNewRace checks Concurrent.AddNewHash's guarantee under
// races (run with -race): goroutines add the same keys, each in its own
// order. Every key, each in a block of its own so no other key can set its
// bits, is reported new at least once; and no call that began after
// another call for the key had returned reports it new.
func TestConcurrentAddNewRace(t *testing.T) {
	const goroutines = 8
	keys := 20000
	if testing.Short() {
		keys = 4000
	}
	c, err := NewConcurrentWithSize(uint64(keys)*4*BlockBits, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Keys in distinct blocks.
	seen := map[uint64]bool{}
	var hs []uint64
	for _, h := range hashes(4*keys, 99) {
		if b := kernel.BlockIndex(h, c.Blocks()); !seen[b] && len(hs) < keys {
			seen[b] = true
			hs = append(hs, h)
		}
	}
	done := make([]atomic.Bool, len(hs))
	reported := make([]atomic.Int32, len(hs))
	var late atomic.Int64
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range hs {
				i := (j*(2*g+1) + g*997) % len(hs) // each goroutine its own order
				if g%2 == 1 {
					i = len(hs) - 1 - i
				}
				before := done[i].Load()
				if c.AddNewHash(hs[i]) {
					reported[i].Add(1)
					if before {
						late.Add(1)
					}
				}
				done[i].Store(true)
			}
		}()
	}
	wg.Wait()
	if n := late.Load(); n != 0 {
		t.Errorf("%d keys reported new after an add of them had returned", n)
	}
	for i := range hs {
		if reported[i].Load() == 0 {
			t.Fatalf("key %d was never reported new", i)
		}
		if c.AddNewHash(hs[i]) {
			t.Fatalf("key %d reported new after all adds returned", i)
		}
	}
}

// TestConcurrentBatchRace: readers run ContainsHashes and AddNewHashes
// while writers run AddHashes (run with -race): keys added before a reader
// began are always found, and never reported new.
func TestConcurrentBatchRace(t *testing.T) {
	c, err := NewConcurrent(100_000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	old := hashes(20_000, 5)
	c.AddHashes(old)
	fresh := hashes(80_000, 6)
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			edgetest.InParallel(1, fresh[w*40_000:(w+1)*40_000], c.AddHashes)
		}()
	}
	errs := make(chan string, 4)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := make([]bool, len(old))
			for range 5 {
				if n := c.ContainsHashes(old, out); n != len(old) {
					errs <- fmt.Sprintf("ContainsHashes found %d of %d added keys", n, len(old))
					return
				}
				if n := c.AddNewHashes(old, out); n != 0 {
					errs <- fmt.Sprintf("AddNewHashes reported %d added keys new", n)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	out := make([]bool, len(fresh))
	if n := c.ContainsHashes(fresh, out); n != len(fresh) {
		t.Errorf("after the adds: %d of %d found", n, len(fresh))
	}
}

func TestAddNewContract(t *testing.T) {
	f, c := newPair(t, 10, 7)
	hs := hashes(10, 1)
	for _, a := range []adder{f, c} {
		edgetest.WantPanic(t, "", fmt.Sprintf("%T.AddNewHashes with a short out", a), nil, func() {
			a.AddNewHashes(hs, make([]bool, 9))
		})
		out := make([]bool, 12)
		out[10], out[11] = true, true
		a.AddNewHashes(hs, out)
		if !out[10] || !out[11] {
			t.Errorf("%T.AddNewHashes wrote beyond len(hs)", a)
		}
	}
	var zf Filter
	var zc Concurrent
	for _, a := range []adder{&zf, &zc} {
		edgetest.WantPanic(t, "blocked: ", fmt.Sprintf("%T.AddNewHash on a zero filter", a), ErrClosed, func() { a.AddNewHash(1) })
		edgetest.WantPanic(t, "blocked: ", fmt.Sprintf("%T.AddNewHashes on a zero filter", a), ErrClosed, func() { a.AddNewHashes(hs, make([]bool, 10)) })
	}
}

func TestAddNewAllocs(t *testing.T) {
	f, c := newPair(t, 1000, 7)
	hs := hashes(600, 3)
	out := make([]bool, len(hs))
	key := []byte("key")
	_, small := newPair(t, 10, 7) // 600 keys into 10 blocks: the merge path
	for name, fn := range map[string]func(){
		"Concurrent.AddHashes (merge)":   func() { small.AddHashes(hs) },
		"Filter.AddNew":                  func() { f.AddNew(key) },
		"Filter.AddNewString":            func() { f.AddNewString("key") },
		"Filter.AddNewHashes":            func() { f.AddNewHashes(hs, out) },
		"Concurrent.AddNew":              func() { c.AddNew(key) },
		"Concurrent.AddNewUint64":        func() { c.AddNewUint64(7) },
		"Concurrent.AddNewHashes":        func() { c.AddNewHashes(hs, out) },
		"Concurrent.AddHashes":           func() { c.AddHashes(hs) },
		"Concurrent.ContainsHashes":      func() { c.ContainsHashes(hs, out) },
		"Concurrent.AddHash":             func() { c.AddHash(hs[0]) },
		"Concurrent.ContainsHash":        func() { c.ContainsHash(hs[0]) },
		"Filter.AddNewHash (in a block)": func() { f.AddNewHash(hs[1]) },
	} {
		if raceEnabled && name == "Filter.AddNewHashes" {
			// Under -race the kernel wrappers' annotations
			// (runtime.RaceReadRange) make its stack buffers escape.
			continue
		}
		if n := testing.AllocsPerRun(100, fn); n != 0 {
			t.Errorf("%s: %v allocations, want 0", name, n)
		}
	}
}

// TestConcurrentMergeStripes takes AddHashes' merge path with stripes of 5
// blocks (the many-stripe rebased kernel calls, and the one-stripe kernel
// for filters of at most 5 blocks) and compares the memory image with Filter's, for batches
// around the merge threshold, into empty and into filled filters; every
// batch also goes through mergeAdd directly.
func TestConcurrentMergeStripes(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		defer func(old int) { mergeStripeBlocks = old }(mergeStripeBlocks)
		mergeStripeBlocks = 5
		merged := 0
		for _, k := range []int{1, 7, 8, 16} {
			// 41 blocks are nine stripes: beyond mergeMaxStripes, the
			// atomic path throughout.
			for _, blocks := range []uint64{1, 5, 6, 23, 40, 41} {
				f, c := newPair(t, blocks, k)
				// m takes every batch through mergeAdd itself, whichever
				// path AddHashes chooses, so the stripes' rebased kernel
				// calls are checked even if that choice changes.
				_, m := newPair(t, blocks, k)
				// Around the thresholds of one and several stripes (one
				// and two keys a block); 300 keys a block put more than
				// 1024 keys (stripeAdd's chunk) in a stripe.
				b := int(blocks)
				for _, n := range []int{0, 1, b - 1, b, 2*b - 1, 2 * b, 10 * b, 50 * b, 300 * b} {
					if mergePays(n, b) {
						merged++
					}
					hs := withRepeats(n, uint64(n)+blocks)
					f.AddHashes(hs)
					c.AddHashes(hs)
					mergeAdd(m.t.Blocks, k, hs)
					for i := range f.words {
						if f.words[i] != c.words[i] {
							t.Fatalf("k=%d blocks=%d n=%d: word %d differs", k, blocks, n, i)
						}
						if f.words[i] != m.words[i] {
							t.Fatalf("k=%d blocks=%d n=%d: mergeAdd: word %d differs", k, blocks, n, i)
						}
					}
				}
			}
		}
		// The cases that merge: from one key a block with one stripe
		// (blocks 1 and 5: 7 and 6 of the 9 values of n) and from two with
		// several (6, 23 and 40 blocks: 4 each), for each of the 4 k.
		if want := 4 * (7 + 6 + 3*4); merged != want {
			t.Errorf("%d cases took the merge path, want %d", merged, want)
		}
	})
}

// TestMergePays: Concurrent.AddHashes merges batches of at least one key
// a block into a filter of one stripe, two keys a block into one of
// several, and never into one of more than mergeMaxStripes.
func TestMergePays(t *testing.T) {
	s := mergeStripeBlocks
	for _, c := range []struct {
		n, blocks int
		want      bool
	}{
		{0, 1, false}, {1, 1, true},
		{s - 1, s, false}, {s, s, true},
		{2*(s+1) - 1, s + 1, false}, {2 * (s + 1), s + 1, true},
		{2 * mergeMaxStripes * s, mergeMaxStripes * s, true},
		{math.MaxInt, mergeMaxStripes*s + 1, false},
	} {
		if got := mergePays(c.n, c.blocks); got != c.want {
			t.Errorf("mergePays(%d keys, %d blocks) = %v, want %v", c.n, c.blocks, got, c.want)
		}
	}
}

// TestAddNewInlining: Filter.AddNewHash inlines, with
// kernel.BlockedAddNew1 inlined into it, so an add-if-new is one call
// (into the assembly kernel on amd64, the fused Go probe elsewhere), as
// AddHash is (TestInlining).
func TestAddNewInlining(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the compiler")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goBin, "build", "-gcflags=-m", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	text := string(out)
	if !regexp.MustCompile(`(?m)can inline \(\*Filter\)\.AddNewHash( |$)`).MatchString(text) {
		t.Error("(*Filter).AddNewHash is no longer inlinable")
	}
	line := lineAfter(t, "addnew.go", methodLine(t, "addnew.go", "func (f *Filter) AddNewHash("), "kernel.BlockedAddNew1(")
	if !regexp.MustCompile(`addnew\.go:` + line + `:\d+: inlining call to kernel\.BlockedAddNew1`).MatchString(text) {
		t.Error("(*Filter).AddNewHash does not inline kernel.BlockedAddNew1")
	}
}
