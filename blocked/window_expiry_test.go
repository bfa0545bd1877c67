package blocked

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/sift-go/sift/internal/clock"
)

// fakeTimers stands in for time.AfterFunc in a window's expiry (the
// package's withTimers option): timers fire when the test calls fire, by
// the simulated clock, never before their deadline. With rng set, a due
// timer fires with probability 1/2 at each call (late otherwise), and a
// Stop fails one time in four for a timer that is due, as time.Timer's
// does for a callback already running: that callback still runs at a later
// fire.
type fakeTimers struct {
	clk *simClock
	rng *rand.Rand
	ts  []*fakeTimer
}

type fakeTimer struct {
	ft      *fakeTimers
	at      time.Time
	f       func()
	stopped bool // Stop succeeded: never runs
	ran     bool
}

func (ft *fakeTimers) after(d time.Duration, f func()) stopper {
	t := &fakeTimer{ft: ft, at: ft.clk.now.Add(d), f: f}
	ft.ts = append(ft.ts, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	if t.ran || t.stopped {
		return false
	}
	if !t.ft.clk.now.Before(t.at) && t.ft.rng != nil && t.ft.rng.IntN(4) == 0 {
		return false // already firing: its callback runs anyway
	}
	t.stopped = true
	return true
}

// fire runs the callbacks of the timers that are due (with rng, each with
// probability 1/2).
func (ft *fakeTimers) fire() {
	for _, t := range ft.ts {
		if !t.ran && !t.stopped && !ft.clk.now.Before(t.at) && (ft.rng == nil || ft.rng.IntN(2) == 0) {
			t.ran = true
			t.f()
		}
	}
}

// due reports whether a timer that is due has not run.
func (ft *fakeTimers) due() bool {
	for _, t := range ft.ts {
		if !t.ran && !t.stopped && !ft.clk.now.Before(t.at) {
			return true
		}
	}
	return false
}

// withTimers runs a window's expiry timers on ft, with its clock.
func withTimers(ft *fakeTimers) Option {
	return func(o *options) { o.win.after = ft.after }
}

// TestWindowTimersRun checks which windows run expiry timers: those by time
// on the default clock, made by every constructor and decoder, and no
// others (WithClock, WithExpiryOnAdd, WithSliceKeys).
func TestWindowTimersRun(t *testing.T) {
	armed := func(name string, x *expiry, want bool) {
		t.Helper()
		if got := x.after != nil && x.timer != nil && x.live() != 0; got != want {
			t.Errorf("%s: timer armed %v, want %v (fresh %#x)", name, got, want, x.fresh)
		}
	}
	w, z, c, data := defaultWindows(t)
	armed("NewWindow", &w.ex, true)
	armed("UnmarshalBinary into a zero Window", &z.ex, true)
	armed("NewConcurrentWindow", &c.ex, true)
	r, err := ReadWindow(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	armed("ReadWindow", &r.ex, true)
	if err := r.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	armed("UnmarshalBinary into a window", &r.ex, true)

	for name, opts := range map[string][]Option{
		"WithClock":       {WithClock(time.Now)},
		"WithExpiryOnAdd": {WithExpiryOnAdd()},
	} {
		w, err := NewWindow(100, 0.01, time.Hour, opts...)
		if err != nil {
			t.Fatal(err)
		}
		armed(name, &w.ex, false)
		w.Close()
	}
	s, err := NewWindow(100, 0.01, 0, WithSliceKeys(10))
	if err != nil {
		t.Fatal(err)
	}
	armed("WithSliceKeys", &s.ex, false)
	s.Close()

	// A stored window whose slice has ended resumes reading the clock.
	old, err := NewWindow(100, 0.01, time.Minute, WithClock(func() time.Time { return clock.Steady().Add(-time.Hour) }))
	if err != nil {
		t.Fatal(err)
	}
	data, err = old.MarshalBinary()
	old.Close()
	if err != nil {
		t.Fatal(err)
	}
	late, err := WindowFromBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	armed("WindowFromBytes of an ended slice", &late.ex, false)
	if late.ex.after == nil {
		t.Error("WindowFromBytes: no timers on the default clock")
	}
	late.AddString("k") // rotates: the new slice is armed
	armed("the first add after it", &late.ex, true)
}

// TestWindowTimersSkipClock checks that while the current slice's timer
// has not fired, lookups of present keys read no clock (single-key and
// batch, Window and ConcurrentWindow), that once it has fired they read it
// again and forget what expired, and that the next add arms the next slice.
func TestWindowTimersSkipClock(t *testing.T) {
	clk := newSimClock()
	reads := 0
	now := func() time.Time { reads++; return clk.now }
	ft := &fakeTimers{clk: clk}
	opts := []Option{WithClock(now), withTimers(ft), WithGenerations(2)} // one slice = W
	w, c := windowPair(t, 100, 0.001, time.Second, opts...)
	origin := clk.now
	w.AddString("k")
	c.AddString("k")
	hs := []uint64{w.HashString("k")}
	out := make([]bool, 1)
	lookups := func() (found int) {
		for _, ok := range []bool{w.ContainsString("k"), c.ContainsString("k"), w.ContainsHashes(hs, out) == 1, c.ContainsHashes(hs, out) == 1} {
			if ok {
				found++
			}
		}
		return found
	}

	clk.now = origin.Add(1999 * time.Millisecond) // the next slice, no add yet
	ft.fire()                                     // the first slice's timers
	if found := lookups(); found != 4 {
		t.Fatalf("%d of 4 lookups found a key added one slice ago", found)
	}
	w.AddString("x") // rotate: k's generation is now the older one
	c.AddString("x")
	for _, tm := range ft.ts[len(ft.ts)-2:] {
		if end := origin.Add(2 * time.Second); !tm.at.Equal(end) {
			t.Fatalf("the second slice's timer is set for %v, not its end %v", tm.at.Sub(origin), end.Sub(origin))
		}
	}
	reads = 0
	if found := lookups(); found != 4 {
		t.Fatalf("%d of 4 lookups found a key inside its window", found)
	}
	if reads != 0 {
		t.Fatalf("lookups inside an armed slice read the clock %d times", reads)
	}
	clk.now = origin.Add(3 * time.Second) // past W + one slice for k
	if found := lookups(); found != 4 {
		t.Fatalf("%d of 4 lookups found k before the slice's timer fired (want 4: no clock read)", found)
	}
	ft.fire()
	reads = 0
	if found := lookups(); found != 0 {
		t.Fatalf("%d of 4 lookups found k after the timer fired, past W + one slice", found)
	}
	if reads == 0 {
		t.Fatal("lookups read no clock after the slice's timer fired")
	}
	w.AddString("y")
	c.AddString("y")
	if w.ex.live() == 0 || !c.ex.current(c.state.Load().epoch) {
		t.Fatal("an add after the slice's end armed no timer")
	}
}

// TestWindowTimerStale checks that the timer of a slice that a rotation has
// replaced, firing after the rotation (its Stop too late), does not end the
// new slice: lookups keep skipping the clock.
func TestWindowTimerStale(t *testing.T) {
	clk := newSimClock()
	ft := &fakeTimers{clk: clk}
	w, c := windowPair(t, 100, 0.01, time.Second, WithClock(clk.Now), withTimers(ft))
	first := len(ft.ts)
	clk.now = clk.now.Add(time.Second) // past the first slice
	w.AddString("k")                   // rotates, stops the first timers
	c.AddString("k")
	for _, tm := range ft.ts[:first] {
		tm.f() // as if each had fired just before its Stop
	}
	if w.ex.live() == 0 {
		t.Error("Window: the replaced slice's timer ended the new slice")
	}
	if !c.ex.current(c.state.Load().epoch) {
		t.Error("ConcurrentWindow: the replaced slice's timer ended the new slice")
	}
}

// TestWindowTimerStaleUnmarshal: a window's timer that fires after
// UnmarshalBinary replaced the window (its Stop too late) does not end the
// slice the decoded window armed.
func TestWindowTimerStaleUnmarshal(t *testing.T) {
	clk := newSimClock()
	ft := &fakeTimers{clk: clk}
	w, _ := windowPair(t, 100, 0.01, time.Second, WithClock(clk.Now), withTimers(ft))
	clk.now = clk.now.Add(time.Second)
	w.AddString("k") // a rotation: w's second slice
	data, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	before := len(ft.ts)
	if err := w.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	for _, tm := range ft.ts[:before] {
		tm.f() // as if each had fired just before its Stop
	}
	if w.ex.live() == 0 {
		t.Error("a timer of the window before UnmarshalBinary ended the decoded window's slice")
	}
}

// TestWindowTimerReal runs the real timer of a window on the default clock
// with 2 ms slices: the flag clears, and not before the slice's end.
func TestWindowTimerReal(t *testing.T) {
	w, err := NewWindow(100, 0.01, 2*time.Millisecond, WithGenerations(2))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	end := w.start + int64(w.slice)
	deadline := time.Now().Add(10 * time.Second)
	for w.ex.live() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the slice's timer did not fire within 10 s")
		}
		time.Sleep(100 * time.Microsecond)
	}
	if now := clock.Steady().UnixNano(); now < end {
		t.Fatalf("the timer fired %v before the slice's end", time.Duration(end-now))
	}
}

// TestWindowTimerCollect checks that a window dropped without Close, with
// its timer pending, is collected (the timer holds only a weak pointer).
func TestWindowTimerCollect(t *testing.T) {
	done := make(chan struct{})
	func() {
		w, err := NewWindow(100, 0.01, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		runtime.AddCleanup(w, func(ch chan struct{}) { close(ch) }, done)
	}()
	for range 20 {
		runtime.GC()
		select {
		case <-done:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("a dropped window with a pending expiry timer was not collected")
}

// TestWindowUnmarshalTimeIntoCount: a window by time decoded into a Window
// made to advance by count, on the default clock, runs its expiry timers
// as one made by NewWindow does, so its hits read no clock. (The count
// window's default clock was passed on as a clock of the caller's, which
// runs no timers: every hit read the clock, 59 ns against 8 on an AMD
// EPYC family 25 model 17, Zen 4.)
func TestWindowUnmarshalTimeIntoCount(t *testing.T) {
	tw, err := NewWindow(100, 0.01, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer tw.Close()
	tw.AddString("k")
	data, err := tw.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	cw, err := NewWindow(100, 0.01, 0, WithSliceKeys(50))
	if err != nil {
		t.Fatal(err)
	}
	defer cw.Close()
	if err := cw.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if cw.ex.after == nil || cw.ex.live() == 0 {
		t.Errorf("decoded into a count window: expiry timers %v, live %#x; want timers armed, as NewWindow's", cw.ex.after != nil, cw.ex.live())
	}
	if tw.ex.live() == 0 {
		t.Fatal("NewWindow's own window runs no timer")
	}
	if !cw.ContainsString("k") {
		t.Error("the decoded window lost its key")
	}
	// A clock of the caller's is kept: no timers.
	uw, err := NewWindow(100, 0.01, 0, WithSliceKeys(50), WithClock(time.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer uw.Close()
	if err := uw.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if uw.ex.after != nil {
		t.Error("a window on WithClock's clock runs expiry timers after UnmarshalBinary")
	}
}
