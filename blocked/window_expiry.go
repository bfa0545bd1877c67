package blocked

import (
	"sync/atomic"
	"time"
	"weak"
)

// A window by time on the default clock lets its lookups skip the clock
// while the current slice lasts. Inside the current slice every
// generation is live, so a lookup needs the time only to learn whether the
// slice has ended; a timer set for the slice's end tells it instead. Each
// rotation (and NewWindow, the decoders) arms one: the expiry's word says
// "slice e is current" until the timer of slice e fires, after which
// lookups read the clock again, as every lookup did before, until the next
// rotation arms the next slice's timer.
//
// Why: a clock reading after a hit costs far more than the reading alone
// (the vDSO reads the TSC in order, so it waits for the probe's load and
// every load before it; BenchmarkClockAfterLoad), and present keys by time
// cost 5-10x a Filter's lookup that way (see Window.ContainsHash).
//
// The guarantee is unchanged: a timer never fires before the slice's end
// (a Go timer and the default clock both run on the monotonic clock, and
// the timer is set from a reading taken before it), and until it fires
// every generation of the current slice is live by the clock too, so a
// lookup finds every key the clock-reading lookup would. Forgetting can
// come later by the timer's delay: a key is forgotten at most one slice
// and the timer's lateness after its window (Go's timers fire within
// microseconds on an idle machine; a stalled process delays them).
//
// The timer holds a weak pointer to the window's word, so a window dropped
// without Close is collected as before. A window with WithClock (a clock the timers cannot follow),
// WithExpiryOnAdd (whose lookups read no clock anyway) or WithSliceKeys
// runs none.

// stopper is the part of *time.Timer an expiry keeps.
type stopper interface{ Stop() bool }

// afterFunc arms the expiry timers of windows on the default clock.
func afterFunc(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }

// expiry is the current slice's timer and the word its window's lookups
// read. A Window and a ConcurrentWindow hold one at offset 0 (their first
// field after the zero-size nocopy.NoCopy), so that fresh is 64-bit
// aligned for its atomic operations on 32-bit platforms; its zero value
// runs no timers.
type expiry struct {
	// fresh is e<<1|1 while slice e (Window: its e-th armed slice;
	// ConcurrentWindow: the epoch) is current and its timer has not fired,
	// e<<1 once it has, or after stop; 0 where no timers run.
	fresh uint64
	// epoch numbers a Window's armed slices.
	epoch uint64
	timer stopper
	// after arms the timers; nil where none run.
	after func(time.Duration, func()) stopper
}

// timers returns what arms the expiry timers of a window by time with the
// options o, or nil where it runs none (see above).
func timers(slice time.Duration, o windowOptions) func(time.Duration, func()) stopper {
	after := o.after
	if after == nil && o.clock == nil {
		after = afterFunc
	}
	if slice == 0 || o.expiryOnAdd {
		return nil
	}
	return after
}

// live returns all ones while the armed slice lasts, else 0: or-ed into
// Window.ContainsHash's live mask, where 0 makes the kernel ask the clock
// on a hit.
func (x *expiry) live() uint64 {
	return -(atomic.LoadUint64(&x.fresh) & 1)
}

// current reports whether epoch e's slice is armed and its timer has not
// fired (ConcurrentWindow's lookups).
func (x *expiry) current(e uint64) bool {
	return atomic.LoadUint64(&x.fresh) == e<<1|1
}

// arm stops the previous slice's timer and, if x runs timers and the slice
// numbered e ends in d (> 0), says it is current and sets a timer for its
// end. The timer holds a weak pointer to the word: the window it is part
// of stays collectable.
func (x *expiry) arm(e uint64, d time.Duration) {
	x.stop()
	if x.after == nil || d <= 0 {
		return
	}
	atomic.StoreUint64(&x.fresh, e<<1|1)
	p := weak.Make(&x.fresh)
	x.timer = x.after(d, func() {
		if f := p.Value(); f != nil {
			atomic.CompareAndSwapUint64(f, e<<1|1, e<<1)
		}
	})
}

// stop stops the timer, and lookups read the clock until the next arm.
func (x *expiry) stop() {
	if x.timer != nil {
		x.timer.Stop()
		x.timer = nil
	}
	for {
		f := atomic.LoadUint64(&x.fresh)
		if f&1 == 0 || atomic.CompareAndSwapUint64(&x.fresh, f, f&^1) {
			return
		}
	}
}

// untilEnd returns the time from now to the end of the slice that began at
// start (Unix ns), or 0 if it has ended.
func untilEnd(start int64, slice time.Duration, now int64) time.Duration {
	if now >= start && uint64(now)-uint64(start) >= uint64(slice) {
		return 0
	}
	// now < start (a clock that went back) counts the whole slice from
	// start, as elapsedAt does.
	return time.Duration(uint64(start) + uint64(slice) - uint64(now))
}
