package blocked

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sift-go/sift/internal/clock"
)

// simClock is a clock the tests move by hand.
type simClock struct{ now time.Time }

func (c *simClock) Now() time.Time { return c.now }

func newSimClock() *simClock { return &simClock{now: time.Unix(1_700_000_000, 0)} }

// TestWindowGuarantee adds keys under a clock that jumps by random steps,
// many of them landing exactly on slice boundaries or one nanosecond either
// side, and checks after every step that every key whose last add is within
// the window is found (single-key, batch and AddNew's answer), and that
// keys whose last add is more than window + slice ago are found no more
// often than false positives explain.
//
// With WithExpiryOnAdd the same holds, but a stale key is only counted
// once an add has followed the clock's move (lookups read no clock).
//
// With expiry timers (window_expiry.go; fake ones that the test fires,
// each at its deadline or some steps later, and whose Stop sometimes comes
// too late to keep a fired callback from running) the same holds for the
// Window and for a ConcurrentWindow given the same adds, but a stale key is
// only counted when no timer that is due has yet to fire (until then
// lookups take every generation of the current slice as live).
func TestWindowGuarantee(t *testing.T) {
	for _, mode := range []string{"clock", "expiry-on-add", "timers"} {
		for _, g := range []int{2, 4, 8, 16} {
			name := "G=" + strconv.Itoa(g) + "/" + mode
			t.Run(name, func(t *testing.T) { testWindowGuarantee(t, g, mode) })
		}
	}
}

func testWindowGuarantee(t *testing.T, g int, mode string) {
	expiry := mode == "expiry-on-add"
	{
		{
			const window = 10500 * time.Millisecond // divisible by G-1 = 1, 3, 7 and 15
			clk := newSimClock()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			opts := []Option{WithGenerations(g), WithClock(clk.Now), WithSeed(uint64(g))}
			var ft *fakeTimers
			switch mode {
			case "expiry-on-add":
				opts = append(opts, WithExpiryOnAdd())
			case "timers":
				ft = &fakeTimers{clk: clk, rng: rng}
				opts = append(opts, withTimers(ft))
			}
			w, err := NewWindow(3000, 0.01, window, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			var c *ConcurrentWindow
			if ft != nil {
				if c, err = NewConcurrentWindow(3000, 0.01, window, opts...); err != nil {
					t.Fatal(err)
				}
				defer c.Close()
			}
			slice := w.Slice()
			if slice != window/time.Duration(g-1) || w.Window() != window {
				t.Fatalf("slice %v, window %v", slice, w.Window())
			}
			lastAdd := map[uint64]time.Time{}
			origin := clk.now
			steps := 3000
			if testing.Short() {
				steps = 600
			}
			var stale, staleFound int
			hs := make([]uint64, 0, 64)
			out := make([]bool, 64)
			for step := 0; step < steps; step++ {
				switch rng.IntN(6) {
				case 0: // exactly onto a slice boundary (relative to the creation time)
					next := clk.now.Sub(origin)/slice + 1
					clk.now = origin.Add(next * slice)
				case 1: // one nanosecond before or after a boundary
					next := clk.now.Sub(origin)/slice + 1
					clk.now = origin.Add(next*slice + time.Duration(rng.IntN(3)-1))
				case 2: // a long jump, past the whole window sometimes
					clk.now = clk.now.Add(time.Duration(rng.Int64N(int64(2 * window))))
				case 3: // no move
				default:
					clk.now = clk.now.Add(time.Duration(rng.Int64N(int64(slice / 3))))
				}
				if ft != nil {
					ft.fire()
				}
				// Some adds, some of them repeats of known keys.
				adds := rng.IntN(8)
				for range adds {
					var x uint64
					if len(lastAdd) > 0 && rng.IntN(3) == 0 {
						x = rng.Uint64N(uint64(step + 1))
					} else {
						x = rng.Uint64()
					}
					h := w.HashUint64(x)
					inWindow := false
					if at, ok := lastAdd[h]; ok && clk.now.Sub(at) <= window {
						inWindow = true
					}
					if isNew := w.AddNewHash(h); isNew && inWindow {
						t.Fatalf("step %d: AddNew reports a key added %v ago as new (window %v)", step, clk.now.Sub(lastAdd[h]), window)
					}
					if c != nil {
						if isNew := c.AddNewHash(h); isNew && inWindow {
							t.Fatalf("step %d: ConcurrentWindow.AddNew reports a key added %v ago as new (window %v)", step, clk.now.Sub(lastAdd[h]), window)
						}
					}
					lastAdd[h] = clk.now
				}
				// Every key inside its window is found; the stale ones rarely.
				hs = hs[:0]
				for h, at := range lastAdd {
					age := clk.now.Sub(at)
					switch {
					case age <= window:
						if !w.ContainsHash(h) {
							t.Fatalf("step %d: false negative for a key added %v ago (window %v, slice %v)", step, age, window, slice)
						}
						if c != nil && !c.ContainsHash(h) {
							t.Fatalf("step %d: ConcurrentWindow: false negative for a key added %v ago (window %v, slice %v)", step, age, window, slice)
						}
						if len(hs) < cap(hs) {
							hs = append(hs, h)
						}
					case age > window+slice:
						if !expiry && (ft == nil || !ft.due()) || expiry && adds > 0 {
							stale++
							if w.ContainsHash(h) {
								staleFound++
							}
						}
						delete(lastAdd, h)
					}
				}
				if n := w.ContainsHashes(hs, out); n != len(hs) {
					t.Fatalf("step %d: ContainsHashes found %d of %d keys inside the window", step, n, len(hs))
				}
				if c != nil {
					if n := c.ContainsHashes(hs, out); n != len(hs) {
						t.Fatalf("step %d: ConcurrentWindow.ContainsHashes found %d of %d keys inside the window", step, n, len(hs))
					}
				}
			}
			if stale < 500 {
				t.Fatalf("only %d stale keys checked", stale)
			}
			if staleFound > stale/20 {
				t.Fatalf("%d of %d keys older than window+slice still found", staleFound, stale)
			}
		}
	}
}

// TestWindowExpiryOnAdd checks WithExpiryOnAdd: lookups never read the
// clock, a key stays found past W + one slice until an add rotates the
// window, and is forgotten by that add.
func TestWindowExpiryOnAdd(t *testing.T) {
	clk := newSimClock()
	reads := 0
	clock := func() time.Time { reads++; return clk.now }
	w, c := windowPair(t, 100, 0.001, 3*time.Second, WithClock(clock), WithExpiryOnAdd()) // G=4, 1 s slices
	origin := clk.now
	w.AddString("k")
	c.AddString("k")
	clk.now = origin.Add(10 * time.Second) // far past W + one slice
	reads = 0
	hs := make([]uint64, 40)
	hs[0] = w.HashString("k")
	out := make([]bool, len(hs))
	if !w.ContainsString("k") || !c.ContainsString("k") || w.ContainsHashes(hs, out) == 0 || c.ContainsHashes(hs, out) == 0 {
		t.Fatal("a key was forgotten before any add rotated the window")
	}
	if reads != 0 {
		t.Fatalf("lookups read the clock %d times", reads)
	}
	w.AddString("other")
	c.AddString("other")
	if w.ContainsString("k") || c.ContainsString("k") {
		t.Fatal("a key older than W + one slice is still found after an add")
	}
}

// TestWindowFPR fills a window at a steady rate, n keys per window, and
// measures the false-positive rate at its fullest (just before a rotation,
// when every generation holds one slice of keys): it must be at most the
// target, with a tolerance of 10% of it (at 2e5 queries and a rate of 1%
// the standard deviation is 2.2% of the target).
func TestWindowFPR(t *testing.T) {
	n, queries := uint64(200_000), 200_000
	if testing.Short() {
		n, queries = 30_000, 50_000
	}
	for _, fpp := range []float64{0.01, 0.001} {
		for _, g := range []int{2, 4, 8} {
			clk := newSimClock()
			const window = time.Hour
			w, err := NewWindow(n, fpp, window, WithGenerations(g), WithClock(clk.Now))
			if err != nil {
				t.Fatal(err)
			}
			// G slices of n/(G-1) keys each, the last ending just before
			// the next boundary: G full generations.
			perSlice := n / uint64(g-1)
			step := w.Slice() / time.Duration(perSlice+1)
			x := uint64(0)
			for s := 0; s < g; s++ {
				start := clk.now
				for range perSlice {
					clk.now = clk.now.Add(step)
					w.AddUint64(x)
					x++
				}
				clk.now = start.Add(w.Slice())
			}
			clk.now = clk.now.Add(-1) // the last slice's last nanosecond
			fp := 0
			for i := range queries {
				if w.ContainsUint64(1<<62 + uint64(i)) {
					fp++
				}
			}
			rate := float64(fp) / float64(queries)
			t.Logf("fpp %g, G=%d: %d blocks, measured %.5f", fpp, g, w.Blocks(), rate)
			tol := 0.1 * fpp
			if fpp*float64(queries) < 200 {
				tol = 0.3 * fpp
			}
			if rate > fpp+tol {
				t.Errorf("fpp %g, G=%d: measured false-positive rate %.5f above the target", fpp, g, rate)
			}
			// The newest keys of the window are all found.
			for i := x - perSlice*uint64(g-1); i < x; i++ {
				if !w.ContainsUint64(i) {
					t.Fatalf("fpp %g, G=%d: false negative for key %d", fpp, g, i)
				}
			}
			w.Close()
		}
	}
}

// TestWindowSliceKeys checks a window advancing by count: a key is found
// for (G-1)·k adds after its add and gone after G·k.
func TestWindowSliceKeys(t *testing.T) {
	const k, g = 100, 4
	w, err := NewWindow(0, 0.001, 0, WithSliceKeys(k), WithGenerations(g))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Capacity() != k || w.SliceKeys() != k || w.Window() != 0 {
		t.Fatalf("capacity %d, slice keys %d, window %v", w.Capacity(), w.SliceKeys(), w.Window())
	}
	const total = 5000
	seen := 0 // false positives of AddNew
	for i := uint64(0); i < total; i++ {
		if !w.AddNewUint64(i) {
			seen++
		}
		// Keys i-(G-1)k+1 .. i are found.
		for j := uint64(0); j < (g-1)*k && j <= i; j++ {
			if !w.ContainsUint64(i - j) {
				t.Fatalf("after add %d: key %d (%d adds ago) not found", i, i-j, j)
			}
		}
	}
	if seen > total/200 {
		t.Fatalf("AddNew reported %d of %d distinct keys as seen", seen, total)
	}
	gone := 0
	for i := uint64(0); i < total-g*k; i++ {
		if !w.ContainsUint64(i) {
			gone++
		}
	}
	if gone < (total-g*k)*95/100 {
		t.Fatalf("only %d of %d old keys forgotten", gone, total-g*k)
	}
}

// TestWindowForgets checks the exact rotation: a key is found up to the
// end of the G-1 slices after its own, and not after its generation's
// reuse, whether or not an add happened in between.
func TestWindowForgets(t *testing.T) {
	for _, addBetween := range []bool{false, true} {
		clk := newSimClock()
		w, err := NewWindow(100, 0.0001, 3*time.Second, WithClock(clk.Now)) // G=4, 1 s slices
		if err != nil {
			t.Fatal(err)
		}
		origin := clk.now
		clk.now = origin.Add(500 * time.Millisecond)
		w.AddString("k")
		for _, c := range []struct {
			at    time.Duration
			found bool
		}{
			{999 * time.Millisecond, true},
			{time.Second, true},
			{3500 * time.Millisecond, true},
			{4*time.Second - 1, true},
			{4 * time.Second, false},
			{9 * time.Second, false},
		} {
			clk.now = origin.Add(c.at)
			if addBetween {
				w.AddString("other")
			}
			if got := w.ContainsString("k"); got != c.found {
				t.Errorf("add between %v: at %v found %v, want %v", addBetween, c.at, got, c.found)
			}
		}
		w.Close()
	}
}

// TestWindowClockBack: a clock going back neither loses keys nor panics.
func TestWindowClockBack(t *testing.T) {
	clk := newSimClock()
	w, err := NewWindow(100, 0.01, time.Minute, WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.AddString("a")
	clk.now = clk.now.Add(-time.Hour)
	w.AddString("b")
	if !w.ContainsString("a") || !w.ContainsString("b") {
		t.Fatal("keys lost after the clock went back")
	}
}

// windowPair returns a Window and a ConcurrentWindow made with the same
// arguments, closed when t ends.
func windowPair(t *testing.T, n uint64, fpp float64, window time.Duration, opts ...Option) (*Window, *ConcurrentWindow) {
	t.Helper()
	w, err := NewWindow(n, fpp, window, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	c, err := NewConcurrentWindow(n, fpp, window, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return w, c
}

// defaultWindows returns windows of 100 keys an hour on the default
// clock, made by NewWindow (w), by UnmarshalBinary of w's encoding into a
// zero Window (z) and by NewConcurrentWindow (c), closed when t ends, and
// w's encoding.
func defaultWindows(t *testing.T) (w, z *Window, c *ConcurrentWindow, data []byte) {
	t.Helper()
	w, err := NewWindow(100, 0.01, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if data, err = w.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	z = new(Window)
	if err := z.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { z.Close() })
	if c, err = NewConcurrentWindow(100, 0.01, time.Hour); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return w, z, c, data
}

// TestWindowDefaultClock: a Window without WithClock (made, decoded into a
// zero Window, or read) reads clock.Steady (internal/clock's tests check
// it never goes back and agrees with time.Now).
func TestWindowDefaultClock(t *testing.T) {
	w, z, c, _ := defaultWindows(t)
	def := reflect.ValueOf(clock.Steady).Pointer()
	for name, clk := range map[string]func() time.Time{"NewWindow": w.clock, "UnmarshalBinary": z.clock, "NewConcurrentWindow": c.clock} {
		if reflect.ValueOf(clk).Pointer() != def {
			t.Errorf("%s: the default clock is not clock.Steady", name)
		}
	}
	if got := time.Duration(clock.Steady().UnixNano() - w.start); got < 0 || got > time.Minute {
		t.Errorf("a new window's slice began %v before its default clock's now", got)
	}
}

func TestWindowErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		n      uint64
		fpp    float64
		window time.Duration
		opts   []Option
		want   error
	}{
		{"generations 1", 10, 0.01, time.Second, []Option{WithGenerations(1)}, ErrInvalidOption},
		{"generations 0", 10, 0.01, time.Second, []Option{WithGenerations(0)}, ErrInvalidOption}, // it meant the default
		{"generations 65", 10, 0.01, time.Second, []Option{WithGenerations(65)}, ErrInvalidOption},
		{"generations 3", 10, 0.01, time.Second, []Option{WithGenerations(3)}, ErrInvalidOption},
		{"generations 12", 10, 0.01, time.Second, []Option{WithGenerations(12)}, ErrInvalidOption},
		{"negative window", 10, 0.01, -time.Second, nil, ErrInvalidOption},
		{"zero window", 10, 0.01, 0, nil, ErrInvalidOption},
		{"window shorter than slices", 10, 0.01, 2, nil, ErrInvalidOption},
		{"window with slice keys", 10, 0.01, time.Second, []Option{WithSliceKeys(5)}, ErrInvalidOption},
		{"fpp 0", 10, 0, time.Second, nil, ErrInvalidFPP},
		{"fpp NaN", 10, nan(), time.Second, nil, ErrInvalidFPP},
		{"fpp too low per generation", 10, 2e-8, time.Second, nil, ErrFPPTooLow},
		{"max size", 1e6, 0.01, time.Second, []Option{WithMaxSize(1 << 20)}, ErrTooLarge},
	} {
		w, err := NewWindow(c.n, c.fpp, c.window, c.opts...)
		if !errors.Is(err, c.want) || w != nil {
			t.Errorf("%s: got %v, %v; want %v", c.name, w, err, c.want)
		}
	}
}

func nan() float64 { z := 0.0; return z / z }

func TestWindowClosed(t *testing.T) {
	// By time, and by count: an add inside a slice of a window that
	// advances by count takes tick's inlined path, which leaves the
	// panic to the kernel.
	for _, mode := range []string{"time", "count"} {
		w, err := NewWindow(10, 0.01, time.Second)
		if mode == "count" {
			w, err = NewWindow(10, 0.01, 0, WithSliceKeys(100))
		}
		if err != nil {
			t.Fatal(err)
		}
		w.AddString("y")
		w.Close()
		w.Close()
		wantClosedPanics(t, "a closed window ("+mode+")", map[string]func(){
			"Add":            func() { w.AddString("x") },
			"AddNew":         func() { w.AddNewString("x") },
			"AddNewHashes":   func() { w.AddNewHashes([]uint64{1, 2}, make([]bool, 2)) },
			"Contains":       func() { w.ContainsString("x") },
			"ContainsHashes": func() { w.ContainsHashes([]uint64{1, 2}, make([]bool, 2)) },
			// Empty batches fail as loudly, as Filter's do.
			"AddHashes":           func() { w.AddHashes([]uint64{1, 2}) },
			"AddHashes(nil)":      func() { w.AddHashes(nil) },
			"AddNewHashes(nil)":   func() { w.AddNewHashes(nil, nil) },
			"ContainsHashes(nil)": func() { w.ContainsHashes(nil, nil) },
		})
	}
}

// TestConcurrentWindowClosed: every lookup and add of a closed or zero
// ConcurrentWindow panics with ErrClosed, by time (whose lookups check no
// state while the slice's timer runs), by count and with WithExpiryOnAdd
// (every generation live for good).
func TestConcurrentWindowClosed(t *testing.T) {
	for _, mode := range []string{"time", "count", "expiry-on-add", "zero"} {
		var c *ConcurrentWindow
		var err error
		switch mode {
		case "time":
			c, err = NewConcurrentWindow(10, 0.01, time.Second)
		case "count":
			c, err = NewConcurrentWindow(10, 0.01, 0, WithSliceKeys(100))
		case "expiry-on-add":
			c, err = NewConcurrentWindow(10, 0.01, time.Second, WithExpiryOnAdd())
		case "zero":
			c = new(ConcurrentWindow)
		}
		if err != nil {
			t.Fatal(err)
		}
		if mode != "zero" {
			c.AddString("y")
			if !c.ContainsString("y") {
				t.Fatalf("%s: a key just added is not found", mode)
			}
			c.Close()
		}
		wantClosedPanics(t, "a "+mode+" ConcurrentWindow", map[string]func(){
			"Add":            func() { c.AddString("x") },
			"AddNew":         func() { c.AddNewString("x") },
			"Contains":       func() { c.ContainsString("x") },
			"ContainsHashes": func() { c.ContainsHashes([]uint64{1, 2}, make([]bool, 2)) },
			"AddHashes":      func() { c.AddHashes([]uint64{1, 2}) },
			"AddNewHashes":   func() { c.AddNewHashes([]uint64{1, 2}, make([]bool, 2)) },
			// Empty batches fail as loudly, as Filter's do.
			"AddHashes(nil)":      func() { c.AddHashes(nil) },
			"AddNewHashes(nil)":   func() { c.AddNewHashes(nil, nil) },
			"ContainsHashes(nil)": func() { c.ContainsHashes(nil, nil) },
		})
	}
}

// wantClosedPanics calls each of calls and fails t unless it panics with an
// error wrapping ErrClosed; on is what they are called on, for messages.
func wantClosedPanics(t *testing.T, on string, calls map[string]func()) {
	t.Helper()
	for name, f := range calls {
		func() {
			defer func() {
				r := recover()
				if err, ok := r.(error); !ok || !errors.Is(err, ErrClosed) {
					t.Errorf("%s on %s: recovered %v", name, on, r)
				}
			}()
			f()
		}()
	}
}

func TestWindowAllocs(t *testing.T) {
	clk := newSimClock()
	w, err := NewWindow(1000, 0.01, time.Minute, WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	key := []byte("key")
	hs := []uint64{1, 2, 3, 4, 5}
	out := make([]bool, len(hs))
	i := 0
	if a := testing.AllocsPerRun(100, func() {
		clk.now = clk.now.Add(time.Second)
		w.Add(key)
		w.AddHashes(hs)
		w.AddNewUint64(uint64(i))
		_ = w.Contains(key)
		_ = w.ContainsUint64(uint64(i))
		i++
	}); a != 0 {
		t.Fatalf("%v allocations per run", a)
	}
	// Under -race the kernel wrappers' annotations (runtime.RaceReadRange)
	// make the stack scratch of ContainsHashes escape.
	if a := testing.AllocsPerRun(100, func() { w.ContainsHashes(hs, out) }); a != 0 && !raceEnabled {
		t.Fatalf("ContainsHashes: %v allocations per run", a)
	}
}

// TestWindowContainsHashes checks the batch against the single-key lookup
// at lengths around the chunk size and the word width of the OR, with the
// generations at every liveness (0..G live).
func TestWindowContainsHashes(t *testing.T) {
	clk := newSimClock()
	w, err := NewWindow(4000, 0.2, 8*time.Second, WithGenerations(8), WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	var keys []uint64
	for s := 0; s < 8; s++ { // one slice of keys in each generation
		for range 1000 {
			x := rng.Uint64()
			keys = append(keys, x)
			w.AddHash(x)
		}
		clk.now = clk.now.Add(time.Second)
	}
	clk.now = clk.now.Add(-1)
	hs := make([]uint64, 2*1024+9)
	for i := range hs {
		if i%2 == 0 {
			hs[i] = keys[rng.IntN(len(keys))]
		} else {
			hs[i] = rng.Uint64()
		}
	}
	out := make([]bool, len(hs)+1)
	for elapsed := 0; elapsed <= 8; elapsed++ {
		for _, n := range []int{0, 1, 2, 7, 8, 9, 63, 1023, 1024, 1025, len(hs)} {
			out[n] = true // beyond len(hs): left alone
			got := w.ContainsHashes(hs[:n], out)
			want := 0
			for i, h := range hs[:n] {
				c := w.ContainsHash(h)
				if c {
					want++
				}
				if out[i] != c {
					t.Fatalf("elapsed %d, n %d: out[%d] = %v, ContainsHash %v", elapsed, n, i, out[i], c)
				}
			}
			if got != want || !out[n] {
				t.Fatalf("elapsed %d, n %d: returned %d, want %d (out[n] %v)", elapsed, n, got, want, out[n])
			}
		}
		clk.now = clk.now.Add(time.Second)
	}
}

// TestWindowAddNewHashes checks that the batch add-if-new gives the
// answers of one-at-a-time AddNewHash calls in order, and leaves the same
// table, in both modes: by count (rotating inside a batch) and by time
// (one clock reading a batch, the clock moving between batches).
func TestWindowAddNewHashes(t *testing.T) {
	for _, byCount := range []bool{true, false} {
		clk := newSimClock()
		mk := func() *Window {
			opts := []Option{WithGenerations(4), WithClock(clk.Now), WithSeed(5)}
			window := 3 * time.Second
			if byCount {
				opts, window = append(opts, WithSliceKeys(50)), 0
			}
			w, err := NewWindow(150, 0.01, window, opts...)
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
		a, b := mk(), mk()
		rng := rand.New(rand.NewPCG(1, 2))
		pool := make([]uint64, 120)
		for i := range pool {
			pool[i] = rng.Uint64()
		}
		out := make([]bool, 301)
		for round := range 40 {
			n := rng.IntN(300)
			hs := make([]uint64, n)
			for i := range hs {
				hs[i] = pool[rng.IntN(len(pool))] // repeats inside and across batches
			}
			out[n] = true
			got := b.AddNewHashes(hs, out)
			checkAddNewBatch(t, fmt.Sprintf("byCount %v, round %d", byCount, round), hs, got, out, a.AddNewHash)
			if !slices.Equal(a.words, b.words) || a.cur != b.cur || a.added != b.added {
				t.Fatalf("byCount %v, round %d: tables differ", byCount, round)
			}
			clk.now = clk.now.Add(time.Duration(rng.IntN(1500)) * time.Millisecond)
		}
		a.Close()
		b.Close()
	}
}

// checkAddNewBatch checks a batch add-if-new's count got and answers
// out[:len(hs)] against a loop of addNew over hs (one-at-a-time calls on
// a twin filter), and that out[len(hs)], set true by the caller, was left
// alone.
func checkAddNewBatch(t *testing.T, label string, hs []uint64, got int, out []bool, addNew func(uint64) bool) {
	t.Helper()
	want := 0
	for i, h := range hs {
		isNew := addNew(h)
		if isNew {
			want++
		}
		if out[i] != isNew {
			t.Fatalf("%s: out[%d] = %v, one at a time %v", label, i, out[i], isNew)
		}
	}
	if got != want || !out[len(hs)] {
		t.Fatalf("%s: returned %d, want %d (out past len(hs) %v)", label, got, want, out[len(hs)])
	}
}

// TestWindowAddHashes checks that the batch add leaves the table a loop of
// AddHash leaves, for Window and ConcurrentWindow, by count (rotating
// inside a batch) and by time (one clock reading a batch, the clock moving
// between batches), and that every key of the last batches is found.
func TestWindowAddHashes(t *testing.T) {
	for _, byCount := range []bool{true, false} {
		clk := newSimClock()
		opts := []Option{WithGenerations(4), WithClock(clk.Now), WithSeed(5)}
		window := 3 * time.Second
		if byCount {
			opts, window = append(opts, WithSliceKeys(50)), 0
		}
		mk := func() *Window {
			w, err := NewWindow(150, 0.01, window, opts...)
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
		a, b := mk(), mk()
		c, err := NewConcurrentWindow(150, 0.01, window, opts...)
		if err != nil {
			t.Fatal(err)
		}
		d, err := NewConcurrentWindow(150, 0.01, window, opts...)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(3, 4))
		for round := range 40 {
			hs := make([]uint64, rng.IntN(300))
			for i := range hs {
				hs[i] = rng.Uint64()
			}
			b.AddHashes(hs)
			d.AddHashes(hs)
			for _, h := range hs {
				a.AddHash(h)
				c.AddHash(h)
			}
			if !slices.Equal(a.words, b.words) || a.cur != b.cur || a.added != b.added {
				t.Fatalf("byCount %v, round %d: Window tables differ", byCount, round)
			}
			if !slices.Equal(c.words, d.words) || c.state.Load().cur != d.state.Load().cur {
				t.Fatalf("byCount %v, round %d: ConcurrentWindow tables differ", byCount, round)
			}
			for i, h := range hs[max(0, len(hs)-40):] {
				if !b.ContainsHash(h) || !d.ContainsHash(h) {
					t.Fatalf("byCount %v, round %d: key %d of the batch not found", byCount, round, i)
				}
			}
			clk.now = clk.now.Add(time.Duration(rng.IntN(1500)) * time.Millisecond)
		}
		for _, w := range []interface{ Close() error }{a, b, c, d} {
			w.Close()
		}
	}
}

// TestWindowLiveGens checks liveGens against a loop over the ring.
func TestWindowLiveGens(t *testing.T) {
	for g := 1; g <= MaxGenerations; g++ {
		for cur := range g {
			for live := 0; live <= g; live++ {
				var want uint64
				for a := range live {
					want |= 1 << uint((cur-a+g)%g)
				}
				if got := liveGens(g, cur, live); got != want {
					t.Fatalf("liveGens(%d, %d, %d) = %#x, want %#x", g, cur, live, got, want)
				}
			}
		}
	}
}

// TestWindowLiveMaskMatches checks the lookups' fast mask against the
// definition, liveGens of the G generations less the slices ended (all G
// with WithExpiryOnAdd or by count), in time mode at every elapsed slice count and every
// current generation, with and without WithExpiryOnAdd, and in count mode.
func TestWindowLiveMaskMatches(t *testing.T) {
	for _, g := range []int{2, 4, 8, 64} {
		for _, expiry := range []bool{false, true} {
			clk := newSimClock()
			opts := []Option{WithGenerations(g), WithClock(clk.Now)}
			if expiry {
				opts = append(opts, WithExpiryOnAdd())
			}
			w, err := NewWindow(100, 0.01, time.Duration(g-1)*time.Second, opts...)
			if err != nil {
				t.Fatal(err)
			}
			for cur := range g {
				w.cur = cur
				// e whole slices elapsed, exactly (a slice ends at
				// start + slice: that instant is the next one's) and
				// 1 ns past.
				for e := 0; e <= g+1; e++ {
					for _, past := range []int64{0, 1} {
						w.start = clk.now.UnixNano() - int64(e)*int64(time.Second) - past
						want := liveGens(g, cur, max(0, g-e))
						if expiry {
							want = liveGens(g, cur, g)
						}
						if got := w.liveMask(); got != want {
							t.Fatalf("G=%d expiry %v cur %d elapsed %d slices + %d ns: liveMask %#x, want %#x", g, expiry, cur, e, past, got, want)
						}
					}
				}
			}
			w.Close()
		}
		c, err := NewWindow(0, 0.01, 0, WithGenerations(g), WithSliceKeys(10))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := c.liveMask(), liveGens(g, c.cur, g); got != want {
			t.Fatalf("G=%d by count: liveMask %#x, want %#x", g, got, want)
		}
		c.Close()
	}
}

// TestWindowClockRange: a clock read outside the int64 range of Unix
// nanoseconds (before 1678, after 2262), where time.Time.UnixNano wraps,
// counts as the range's first or last instant: a key just added is still
// found after the clock goes back centuries (it stands still), and keys
// are forgotten after a jump past 2262 (it is more than the window).
func TestWindowClockRange(t *testing.T) {
	// pair returns the add and lookup of a new Window (or ConcurrentWindow)
	// of an hour on a simulated clock, and the clock.
	pair := func(conc bool) (add func(string), has func(string) bool, clk *simClock) {
		clk = newSimClock()
		w, c := windowPair(t, 100, 0.01, time.Hour, WithClock(clk.Now))
		if conc {
			return c.AddString, c.ContainsString, clk
		}
		return w.AddString, w.ContainsString, clk
	}
	for _, years := range []int{100, 349, 400, 500, 600, 2000} {
		for _, conc := range []bool{false, true} {
			add, has, clk := pair(conc)
			add("alice")
			clk.now = clk.now.AddDate(-years, 0, 0)
			if !has("alice") {
				t.Errorf("concurrent %v: a key added is lost when the clock goes back %d years", conc, years)
			}
			add("bob")
			if !has("alice") || !has("bob") {
				t.Errorf("concurrent %v: keys lost after an add %d years back", conc, years)
			}
		}
	}
	for _, to := range []time.Time{time.Date(2262, 4, 12, 0, 0, 0, 0, time.UTC), time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)} {
		for _, conc := range []bool{false, true} {
			add, has, clk := pair(conc)
			for i := range 20 {
				add(fmt.Sprint("old-", i))
			}
			clk.now = to
			add("new")
			old := 0
			for i := range 20 {
				if has(fmt.Sprint("old-", i)) {
					old++
				}
			}
			if !has("new") || old > 3 {
				t.Errorf("concurrent %v, clock at %v: the new key found %v, %d of 20 keys of 2023 still found", conc, to, has("new"), old)
			}
		}
	}
	for _, c := range []struct {
		t    time.Time
		want int64
	}{
		{time.Unix(0, math.MinInt64), math.MinInt64},
		{time.Unix(0, math.MinInt64).Add(-1), math.MinInt64},
		{time.Unix(0, math.MaxInt64), math.MaxInt64},
		{time.Unix(0, math.MaxInt64).Add(1), math.MaxInt64},
		{time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC), math.MinInt64},
		{time.Unix(1_700_000_000, 5), 1_700_000_000_000_000_005},
		{time.Time{}, math.MinInt64},
	} {
		if got := unixNano(c.t); got != c.want {
			t.Errorf("unixNano(%v) = %d, want %d", c.t, got, c.want)
		}
	}
}
