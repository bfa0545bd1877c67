package blocked

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sift-go/sift/internal/kernel"
)

// TestConcurrentWindowRaces runs adders, AddNew callers and a goroutine
// moving a shared simulated clock across slice boundaries, under -race:
// every key is found by a lookup that starts within the window after its
// add returned, and AddNew never reports new a key whose add returned
// within the window.
func TestConcurrentWindowRaces(t *testing.T) {
	const window = 3 * time.Second // G=4: 1 s slices
	var nanos atomic.Int64
	base := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return base.Add(time.Duration(nanos.Load())) }
	w, err := NewConcurrentWindow(50_000, 0.001, window, WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	perWorker := 20_000
	switch {
	case testing.Short() && raceEnabled:
		// The ticker rotates the window every few operations, and under
		// the race detector each rotation's atomic clear of a generation
		// (a lane in every line) costs milliseconds: 3000 took minutes.
		perWorker = 300
	case testing.Short():
		perWorker = 3_000
	}
	var stop atomic.Bool
	var ticker sync.WaitGroup
	var ops atomic.Int64 // the workers' iterations so far
	ticker.Add(1)
	go func() { // the clock: small steps, and jumps onto slice boundaries
		defer ticker.Done()
		rng := rand.New(rand.NewPCG(9, 9))
		for step := int64(0); !stop.Load(); step++ {
			// At most one step per two iterations of the workers: the
			// ticker ran freely before, and under the race detector the
			// number of rotations (each a clear costing milliseconds)
			// depended on the scheduling: 40-300 s for -short -race.
			for ops.Load() < 2*step && !stop.Load() {
				runtime.Gosched()
			}
			if rng.IntN(4) == 0 {
				d := nanos.Load()
				nanos.Store((d/int64(time.Second) + 1) * int64(time.Second))
			} else {
				nanos.Add(rng.Int64N(int64(time.Millisecond)))
			}
			time.Sleep(0) // yield only; the clock is simulated
		}
	}()
	var wg sync.WaitGroup
	var misses, newAgain atomic.Int64
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				x := uint64(g)<<40 | uint64(i)
				before := clock()
				if g%2 == 0 {
					w.AddUint64(x)
				} else {
					w.AddNewUint64(x)
				}
				found := w.ContainsUint64(x)
				again := w.AddNewUint64(x)
				ops.Add(1)
				if clock().Sub(before) <= window {
					if !found {
						misses.Add(1)
					}
					if again {
						newAgain.Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()
	stop.Store(true)
	ticker.Wait()
	if misses.Load() != 0 || newAgain.Load() != 0 {
		t.Fatalf("%d false negatives, %d keys new again inside their window", misses.Load(), newAgain.Load())
	}
	if nanos.Load() < int64(2*time.Second) {
		t.Logf("the clock moved only %v", time.Duration(nanos.Load()))
	}
}

// TestConcurrentWindowMatchesWindow: driven by one goroutine, the
// concurrent form answers as Window does, by time and by count.
func TestConcurrentWindowMatchesWindow(t *testing.T) {
	for _, byCount := range []bool{false, true} {
		clk := newSimClock()
		window, opts := 4*time.Second, []Option{WithGenerations(8), WithClock(clk.Now), WithSeed(3)}
		if byCount {
			window, opts = 0, append(opts, WithSliceKeys(300))
		}
		w, c := windowPair(t, 1200, 0.01, window, opts...)
		rng := rand.New(rand.NewPCG(5, 6))
		hs := make([]uint64, 50)
		out1, out2 := make([]bool, 50), make([]bool, 50)
		for step := range 3000 {
			clk.now = clk.now.Add(time.Duration(rng.Int64N(int64(20 * time.Millisecond))))
			x := rng.Uint64N(5000)
			if a, b := w.AddNewUint64(x), c.AddNewUint64(x); a != b {
				t.Fatalf("by count %v, step %d: AddNew %v and %v", byCount, step, a, b)
			}
			for i := range hs {
				hs[i] = w.HashUint64(rng.Uint64N(5000))
			}
			if a, b := w.ContainsHashes(hs, out1), c.ContainsHashes(hs, out2); a != b {
				t.Fatalf("by count %v, step %d: ContainsHashes %d and %d", byCount, step, a, b)
			}
		}
	}
}

func TestConcurrentWindowAllocs(t *testing.T) {
	clk := newSimClock()
	c, err := NewConcurrentWindow(1000, 0.01, time.Minute, WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	i := uint64(0)
	if a := testing.AllocsPerRun(100, func() {
		c.AddUint64(i)
		c.AddNewUint64(i + 1)
		_ = c.ContainsUint64(i)
		i++
	}); a != 0 {
		t.Fatalf("%v allocations per run", a)
	}
}

// TestConcurrentWindowRotationDuringLookup makes a rotation run between a
// lookup's reading of the state and its probes (from inside the lookup's
// clock reading, deterministically): the rotation clears the generation
// the lookup is about to probe. The lookup may answer false only if the
// key is out of its window by the last clock reading it made, so it must
// look again after the rotation.
func TestConcurrentWindowRotationDuringLookup(t *testing.T) {
	origin := time.Unix(1_700_000_000, 0)
	now := origin
	var hook func()
	var last time.Time
	clock := func() time.Time {
		r := now
		if h := hook; h != nil {
			hook = nil
			h()
		}
		last = r
		return r
	}
	c, err := NewConcurrentWindow(100, 0.001, 3*time.Second, WithClock(clock)) // G=4, 1 s slices
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	now = origin.Add(900 * time.Millisecond)
	c.AddString("k") // in its window until 3.9 s
	now = origin.Add(3500 * time.Millisecond)
	if !c.ContainsString("k") {
		t.Fatal("key not found at 3.5 s")
	}
	hook = func() {
		now = origin.Add(4 * time.Second) // a boundary: k's generation is reused
		c.AddString("other")
	}
	found := c.ContainsString("k")
	if !found && last.Sub(origin) < 3900*time.Millisecond {
		t.Fatalf("a lookup that read the clock at %v missed a key in its window until 3.9 s", last.Sub(origin))
	}
}

// TestConcurrentWindowRotationDuringBatchLookup is
// TestConcurrentWindowRotationDuringLookup for ContainsHashes: a rotation
// that clears the generation of a key inside its window while the batch
// kernel runs (here: between the lookup's state and clock readings) must
// send the misses to the retry. Without the retry the batch misses "k".
func TestConcurrentWindowRotationDuringBatchLookup(t *testing.T) {
	origin := time.Unix(1_700_000_000, 0)
	now := origin
	var hook func()
	var last time.Time
	clock := func() time.Time {
		r := now
		if h := hook; h != nil {
			hook = nil
			h()
		}
		last = r
		return r
	}
	c, err := NewConcurrentWindow(100, 0.001, 3*time.Second, WithClock(clock)) // G=4, 1 s slices
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	now = origin.Add(900 * time.Millisecond)
	c.AddString("k")
	now = origin.Add(3500 * time.Millisecond)
	hs := make([]uint64, 64)
	for i := range hs {
		hs[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	hs[17] = c.HashString("k")
	out := make([]bool, len(hs))
	if c.ContainsHashes(hs, out); !out[17] {
		t.Fatal("key not found at 3.5 s")
	}
	hook = func() {
		now = origin.Add(4 * time.Second) // a boundary: k's generation is reused
		c.AddString("other")
	}
	c.ContainsHashes(hs, out)
	if !out[17] && last.Sub(origin) < 3900*time.Millisecond {
		t.Fatalf("a batch lookup that read the clock at %v missed a key in its window until 3.9 s", last.Sub(origin))
	}
}

// TestConcurrentWindowAddNewHashes checks the batch add-if-new against
// one-at-a-time calls on a twin.
// TestConcurrentWindowAddNewHashes: driven by one goroutine, AddNewHashes
// answers as a loop of AddNewHash and leaves the same table, by count
// (one key at a time) and by time (the batch path: a lookup of the chunk
// with the kernel, then the adds), with repeats inside a batch, keys that
// share lanes, and a clock that crosses slice boundaries between batches.
func TestConcurrentWindowAddNewHashes(t *testing.T) {
	for _, byCount := range []bool{true, false} {
		clk := newSimClock()
		mk := func() *ConcurrentWindow {
			window, opts := 3*time.Second, []Option{WithGenerations(4), WithClock(clk.Now), WithSeed(3)}
			if byCount {
				window, opts = 0, append(opts, WithSliceKeys(40))
			}
			c, err := NewConcurrentWindow(150, 0.01, window, opts...)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		a, b := mk(), mk()
		rng := rand.New(rand.NewPCG(8, 9))
		for round := range 40 {
			hs := make([]uint64, rng.IntN(700))
			for i := range hs {
				hs[i] = rng.Uint64N(170) * 0x9e3779b97f4a7c15
			}
			out := make([]bool, len(hs)+1)
			out[len(hs)] = true // beyond len(hs): left alone
			got := b.AddNewHashes(hs, out)
			checkAddNewBatch(t, fmt.Sprintf("by count %v, round %d", byCount, round), hs, got, out, a.AddNewHash)
			if !slices.Equal(a.words, b.words) {
				t.Fatalf("by count %v, round %d: tables differ", byCount, round)
			}
			clk.now = clk.now.Add(time.Duration(rng.Int64N(int64(1500 * time.Millisecond))))
		}
		a.Close()
		b.Close()
	}
}

// TestConcurrentWindowAddNewHashesRaces: goroutines add overlapping key
// sets in batches while the clock crosses slice boundaries. Every key is
// reported new at least once (its first batch saw it new, or another
// goroutine's did), is found after its batch returned, and a batch that
// starts after a batch holding the key returned, inside the window, never
// reports it new.
func TestConcurrentWindowAddNewHashesRaces(t *testing.T) {
	const window = 3 * time.Second
	var nanos atomic.Int64
	base := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return base.Add(time.Duration(nanos.Load())) }
	c, err := NewConcurrentWindow(20_000, 0.001, window, WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	keys := 4000
	if testing.Short() && raceEnabled {
		keys = 400
	}
	const workers = 4
	newCount := make([]atomic.Int32, keys)
	var stop atomic.Bool
	var ticker sync.WaitGroup
	ticker.Add(1)
	go func() {
		defer ticker.Done()
		for !stop.Load() {
			nanos.Add(int64(time.Millisecond))
			time.Sleep(0)
		}
	}()
	var wg sync.WaitGroup
	var misses, newAgain atomic.Int64
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			hs := make([]uint64, 64)
			idx := make([]int, 64)
			out := make([]bool, 64)
			for i := 0; i < keys; i += len(hs) / 2 {
				for j := range hs { // half this worker's stride, half anyone's
					idx[j] = (i + j/2) % keys
					if j%2 == 1 {
						idx[j] = rng.IntN(keys)
					}
					hs[j] = c.HashUint64(uint64(idx[j]))
				}
				before := clock()
				c.AddNewHashes(hs, out)
				for j, x := range idx {
					if out[j] {
						newCount[x].Add(1)
					}
				}
				for _, h := range hs {
					if !c.ContainsHash(h) && clock().Sub(before) <= window {
						misses.Add(1)
					}
				}
				again := c.AddNewHashes(hs, out)
				if again != 0 && clock().Sub(before) <= window {
					newAgain.Add(int64(again))
				}
			}
		}()
	}
	wg.Wait()
	stop.Store(true)
	ticker.Wait()
	if misses.Load() != 0 || newAgain.Load() != 0 {
		t.Fatalf("%d false negatives, %d keys new again inside their window", misses.Load(), newAgain.Load())
	}
	// A key is new at least once unless a false positive hid it (0.1%)
	// or it expired and came back (then more than once is right).
	never := 0
	for x := range newCount {
		if newCount[x].Load() == 0 {
			never++
		}
	}
	if never > keys/100+5 {
		t.Fatalf("%d of %d keys never reported new", never, keys)
	}
}

// TestConcurrentWindowSlowRotation: a clock that moves past a slice on
// every reading (a rotation that takes longer than a slice) must not keep
// an add rotating forever: each add rotates once, to the slice it read,
// and returns, and the key is found in that slice.
func TestConcurrentWindowSlowRotation(t *testing.T) {
	var now atomic.Int64
	now.Store(1_700_000_000e9)
	clock := func() time.Time { return time.Unix(0, now.Add(int64(3*time.Millisecond))) } // 1.5 slices a read
	c, err := NewConcurrentWindow(1000, 0.01, 6*time.Millisecond, WithClock(clock))       // G=4: 2 ms slices
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 100 {
			c.AddUint64(uint64(i))
			c.AddHashes([]uint64{c.HashUint64(uint64(i) + 1000)})
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("adds under a clock that moves past a slice each reading did not return")
	}
	// Two more readings later (3 slices on, inside the 6 ms window of the
	// last add), the last keys are found.
	if !c.ContainsUint64(99) {
		t.Error("the last key added is not found")
	}
}

// TestWindowSliceRoundsUp: a window that G-1 does not divide gets slices
// rounded up, so the guarantee (Window) is at least the window asked for,
// and a key is found for that long; a window too long to round up is an
// error, not an overflow.
func TestWindowSliceRoundsUp(t *testing.T) {
	clk := newSimClock()
	w, err := NewWindow(100, 0.01, 10*time.Second, WithClock(clk.Now)) // G=4: 3 slices
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Window() < 10*time.Second || w.Slice() != 3333333334 {
		t.Fatalf("window %v, slice %v", w.Window(), w.Slice())
	}
	clk.now = clk.now.Add(w.Slice() - 1) // the last nanosecond of slice 0
	w.AddString("k")
	clk.now = clk.now.Add(10 * time.Second)
	if !w.ContainsString("k") {
		t.Error("a key is lost 10 s after its add in a 10 s window")
	}
	if _, err := NewWindow(100, 0.01, math.MaxInt64); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("a window of MaxInt64 ns (G-1 = 3 does not divide it): %v", err)
	}
	if w, err := NewWindow(100, 0.01, math.MaxInt64-1); err != nil || w.Window() != math.MaxInt64-1 {
		t.Errorf("a window of MaxInt64-1 ns (divisible by 3): %v", err)
	} else {
		w.Close()
	}
}

// TestWindowBatchOneClockReading: the batch calls of a window that
// advances by time read the clock once a call on every path, so under a
// clock that moves on each reading the answers and the bytes do not depend
// on the kernel set (the Go path read it once a key): Window.AddNewHashes
// and ConcurrentWindow.AddNewHashes and ContainsHashes, with every kernel
// set this CPU has.
func TestWindowBatchOneClockReading(t *testing.T) {
	hs := make([]uint64, 3000)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range hs {
		hs[i] = rng.Uint64()
		if i%7 == 3 {
			hs[i] = hs[i/2] // repeats
		}
	}
	type result struct {
		answers []bool
		bytes   []byte
		words   []uint64
		reads   int64
	}
	run := func() (w, c result) {
		var reads atomic.Int64
		clock := func() time.Time {
			return time.Unix(1_700_000_000, reads.Add(1)*int64(time.Millisecond))
		}
		win, err := NewWindow(5000, 0.01, 40*time.Millisecond, WithClock(clock)) // 13.3 ms slices
		if err != nil {
			t.Fatal(err)
		}
		cw, err := NewConcurrentWindow(5000, 0.01, 40*time.Millisecond, WithClock(clock))
		if err != nil {
			t.Fatal(err)
		}
		reads.Store(0)
		for i := 0; i < len(hs); i += 300 {
			out := make([]bool, 300)
			win.AddNewHashes(hs[i:i+300], out)
			w.answers = append(w.answers, out...)
			out = make([]bool, 300)
			cw.AddNewHashes(hs[i:i+300], out)
			c.answers = append(c.answers, out...)
			out = make([]bool, 300)
			cw.ContainsHashes(hs[:300], out)
			c.answers = append(c.answers, out...)
		}
		w.reads = reads.Load()
		w.bytes, _ = win.MarshalBinary()
		c.words = slices.Clone(cw.words)
		win.Close()
		cw.Close()
		return w, c
	}
	var firstW, firstC result
	for i, impl := range kernel.Impls() {
		restore, err := kernel.SetImpl(impl)
		if err != nil {
			t.Fatal(err)
		}
		w, c := run()
		restore()
		// Three calls a round, ten rounds: a few readings each (the
		// rotation's timer arming reads it too), never one a key.
		if w.reads > 100 {
			t.Errorf("%s: %d clock readings for 30 batch calls of 300 keys", impl, w.reads)
		}
		if i == 0 {
			firstW, firstC = w, c
			continue
		}
		if !slices.Equal(w.answers, firstW.answers) || !bytes.Equal(w.bytes, firstW.bytes) {
			t.Errorf("Window.AddNewHashes: %s and %s differ", impl, kernel.Impls()[0])
		}
		if !slices.Equal(c.answers, firstC.answers) || !slices.Equal(c.words, firstC.words) {
			t.Errorf("ConcurrentWindow: %s and %s differ", impl, kernel.Impls()[0])
		}
	}
}

// TestCountWindowReadsNoClock: WithClock is ignored by a window that
// advances by count, NewConcurrentWindow included (it read the clock once
// to arm an expiry timer such a window does not have).
func TestCountWindowReadsNoClock(t *testing.T) {
	reads := 0
	clk := func() time.Time { reads++; return time.Unix(0, 0) }
	w, err := NewWindow(100, 0.01, 0, WithSliceKeys(5), WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	c, err := NewConcurrentWindow(100, 0.01, 0, WithSliceKeys(5), WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	hs := []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	out := make([]bool, len(hs))
	for _, h := range hs {
		w.AddHash(h)
		c.AddHash(h)
	}
	w.AddNewHashes(hs, out)
	c.AddNewHashes(hs, out)
	if w.ContainsHashes(hs[len(hs)-5:], out) != 5 || c.ContainsHashes(hs[len(hs)-5:], out) != 5 {
		t.Error("the last slice's keys are not found")
	}
	if reads != 0 {
		t.Errorf("the clock was read %d times", reads)
	}
}

// TestTimeWindowMissReadsNoClock: with WithClock (whose windows have no
// expiry timer, so every lookup checks the clock's slice) a miss reads no
// clock, in Window and ConcurrentWindow alike, and a hit reads it once;
// the answers follow the clock. ConcurrentWindow read it on every lookup.
func TestTimeWindowMissReadsNoClock(t *testing.T) {
	var reads atomic.Int64
	now := time.Unix(1_700_000_000, 0)
	clk := func() time.Time { reads.Add(1); return now }
	w, err := NewWindow(1000, 0.01, 3*time.Second, WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	c, err := NewConcurrentWindow(1000, 0.01, 3*time.Second, WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, f := range []struct {
		name string
		w    interface {
			AddHash(uint64)
			ContainsHash(uint64) bool
		}
	}{{"Window", w}, {"ConcurrentWindow", c}} {
		f.w.AddHash(1)
		before := reads.Load()
		misses := 0
		for i := range uint64(1000) {
			if !f.w.ContainsHash(i*0x9e3779b97f4a7c15 + 2) {
				misses++
			}
		}
		if misses < 900 {
			t.Fatalf("%s: %d misses of 1000 absent keys", f.name, misses)
		}
		// (Under the race detector ConcurrentWindow's lookups take the
		// atomic probes, which read the state and the clock first.)
		if got, want := reads.Load()-before, int64(1000-misses); got != want && !(raceEnabled && f.name == "ConcurrentWindow") {
			t.Errorf("%s: %d clock reads for %d misses and %d hits, want one a hit", f.name, got, misses, 1000-misses)
		}
		if !f.w.ContainsHash(1) {
			t.Errorf("%s: the key added now is not found", f.name)
		}
	}
	// Past the window by the clock: a hit on the bits reads the clock and
	// answers false.
	now = now.Add(time.Hour)
	if w.ContainsHash(1) || c.ContainsHash(1) {
		t.Error("a key an hour past its 3 s window is found")
	}
}

// TestConcurrentWindowAccessors: a ConcurrentWindow has every method of a
// Window that reports its shape (SizeBytes, K, Seed, Capacity, Window and
// the rest; before, it had only Generations and Slice), with the same
// answers for the same arguments. SliceAdds is Window's alone: a
// ConcurrentWindow by time does not count its adds.
func TestConcurrentWindowAccessors(t *testing.T) {
	wt, ct := reflect.TypeFor[*Window](), reflect.TypeFor[*ConcurrentWindow]()
	for i := range wt.NumMethod() {
		m := wt.Method(i)
		if m.Type.NumIn() != 1 || m.Name == "SliceAdds" || m.Name == "Close" {
			continue // not an accessor
		}
		cm, ok := ct.MethodByName(m.Name)
		if !ok {
			t.Errorf("ConcurrentWindow has no %s, which Window has", m.Name)
			continue
		}
		if cm.Type.NumIn() != 1 || cm.Type.NumOut() != m.Type.NumOut() || cm.Type.Out(0) != m.Type.Out(0) {
			t.Errorf("ConcurrentWindow.%s is %v, Window's %v", m.Name, cm.Type, m.Type)
		}
	}
	for _, byCount := range []bool{false, true} {
		clk := newSimClock()
		window, opts := 4*time.Second, []Option{WithGenerations(4), WithClock(clk.Now), WithSeed(7)}
		if byCount {
			window, opts = 0, append(opts, WithSliceKeys(300))
		}
		w, c := windowPair(t, 1200, 0.001, window, opts...)
		check := func(when string) {
			t.Helper()
			for _, a := range []struct {
				name string
				w, c any
			}{
				{"Generations", w.Generations(), c.Generations()},
				{"Slice", w.Slice(), c.Slice()},
				{"SliceStart", w.SliceStart(), c.SliceStart()},
				{"Window", w.Window(), c.Window()},
				{"SliceKeys", w.SliceKeys(), c.SliceKeys()},
				{"Capacity", w.Capacity(), c.Capacity()},
				{"K", w.K(), c.K()},
				{"Seed", w.Seed(), c.Seed()},
				{"Blocks", w.Blocks(), c.Blocks()},
				{"Groups", w.Groups(), c.Groups()},
				{"LaneBits", w.LaneBits(), c.LaneBits()},
				{"SizeBytes", w.SizeBytes(), c.SizeBytes()},
			} {
				if a.w != a.c {
					t.Errorf("by count %v, %s: %s: Window %v, ConcurrentWindow %v", byCount, when, a.name, a.w, a.c)
				}
			}
		}
		check("new")
		if c.Seed() != 7 || c.K() == 0 || c.SizeBytes() == 0 || c.Capacity() == 0 {
			t.Fatalf("by count %v: seed %d, k %d, %d bytes, capacity %d", byCount, c.Seed(), c.K(), c.SizeBytes(), c.Capacity())
		}
		if !byCount && (c.Window() < 4*time.Second || c.SliceStart().IsZero()) {
			t.Fatalf("window %v, slice start %v", c.Window(), c.SliceStart())
		}
		for i := range uint64(1000) {
			clk.now = clk.now.Add(7 * time.Millisecond)
			w.AddUint64(i)
			c.AddUint64(i)
		}
		check("after 1000 adds")
		w.Close()
		c.Close()
		check("closed")
	}
}
