package blocked

import (
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/clock"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/nocopy"
	"github.com/sift-go/sift/internal/race"
)

// Window generations.
const (
	// DefaultGenerations is the number of generations of a Window made
	// without WithGenerations.
	DefaultGenerations = 4
	// MaxGenerations is the most generations a Window may have.
	MaxGenerations = 64
)

// windowOptions are the options only NewWindow and ReadWindow use.
type windowOptions struct {
	generations int // DefaultGenerations unless WithGenerations (collect)
	clock       func() time.Time
	sliceKeys   uint64
	expiryOnAdd bool
	// after replaces the expiry timers' time.AfterFunc (tests), and runs
	// them with any clock (window_expiry.go).
	after func(time.Duration, func()) stopper
}

// WindowSlice returns the slice of a window of g generations that advances
// by time and guarantees window: window/(g-1) rounded up, so that the
// guarantee, g-1 slices, is at least window (rounded down it would fall
// short by up to g-2 ns). NewWindow cuts its window so; a caller that
// compares a saved Window's Slice with a window it is given can call it.
// It refuses, with an error wrapping ErrInvalidOption, a g that is not a
// power of two in 2..MaxGenerations, a window shorter than g-1 ns and one
// whose g-1 slices would not fit in a time.Duration.
func WindowSlice(window time.Duration, g int) (time.Duration, error) {
	if err := checkGenerations(g); err != nil {
		return 0, err
	}
	n := time.Duration(g - 1)
	if window < n {
		return 0, errorf(ErrInvalidOption, "window %v is too short for %d slices", window, g-1)
	}
	slice := (window-1)/n + 1
	if slice > math.MaxInt64/n {
		return 0, errorf(ErrInvalidOption, "window %v is too long to cut into %d whole slices", window, g-1)
	}
	return slice, nil
}

// checkGenerations refuses a generation count a Window does not take.
func checkGenerations(g int) error {
	if !kernel.ValidGenerations(g) {
		return errorf(ErrInvalidOption, "%d generations: a Window's generations are a power of two in 2..%d", g, MaxGenerations)
	}
	return nil
}

// gens returns the generations WithGenerations asks for
// (DefaultGenerations without it), or ErrInvalidOption.
func (o windowOptions) gens() (int, error) {
	if err := checkGenerations(o.generations); err != nil {
		return 0, err
	}
	return o.generations, nil
}

// WithGenerations sets the number of generations G of a Window (default
// DefaultGenerations; a power of two in 2..MaxGenerations: 2, 4, 8, 16, 32
// or 64). A window of W is cut into G-1 slices of W/(G-1): more
// generations forget sooner after W (at most one slice late), and cost
// more probes per lookup: a lookup reads one 64-byte line at G = 2 and 4,
// G/4 lines above. Memory is least at G = 4 and 8: for n = 1e6 per window
// at 1%, 24.4, 20.8, 21.0, 23.0 and 30.2 bits a key at G = 2, 4, 8, 16
// and 64; at 0.1%, 38.6, 34.7, 34.5, 37.5 and 49.3 (each generation holds
// n/(G-1) keys at fpp/G). Used by NewWindow and OptimalWindowSize.
func WithGenerations(g int) Option {
	return func(o *options) { o.win.generations = g }
}

// minUnix and maxUnix are the first and last instants whose Unix
// nanoseconds fit an int64 (1677-09-21 and 2262-04-11); every nanosecond
// of a second strictly between minSec and maxSec, theirs, fits.
var (
	minUnix, maxUnix = time.Unix(0, math.MinInt64), time.Unix(0, math.MaxInt64)
	minSec, maxSec   = minUnix.Unix(), maxUnix.Unix()
)

// unixNano is t.UnixNano() held to the int64 range, which is how a window
// reads its clock. Go leaves UnixNano undefined outside it, and it wraps:
// a WithClock moved 500 years back read as a jump far forward, which
// expired every generation (keys just added were lost), and one past 2262
// as a step back, which kept every key. Held, a clock before 1678 reads as
// the earliest instant (before any slice: the window stands still, as for
// any clock that goes back) and one after 2262 as the latest.
func unixNano(t time.Time) int64 {
	// Every clock read of a window by time comes here: the seconds'
	// comparison is one call of time's arithmetic where Before and After
	// are two.
	if s := t.Unix(); s > minSec && s < maxSec {
		return t.UnixNano()
	}
	switch {
	case t.Before(minUnix):
		return math.MinInt64
	case t.After(maxUnix):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// WithClock sets the clock a Window reads to decide which slice it is in.
// The default is the wall clock as the monotonic clock advances it: the
// time.Now of the program's start (package initialisation), plus the
// time.Since of it. Unlike time.Now it never jumps when the system's wall clock is set,
// which would end slices early (dropping keys inside their window) or
// late, and it reads one clock where time.Now reads two. Tests inject a
// simulated clock. A Window given a clock runs no expiry timers (they
// follow the default clock only; see the Window doc): its lookups read
// the clock on every hit. A reading before 1678 or after 2262, where
// Unix nanoseconds leave the int64 range, counts as the first or the last
// instant within it. Used by NewWindow and ReadWindow; ignored by a
// Window that advances by count (WithSliceKeys).
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.win.clock = now }
}

// WithExpiryOnAdd makes a Window's lookups read no clock: they probe every
// generation, and a generation whose slice has ended stops answering only
// when the next add rotates the window (and clears it). Lookups then cost
// the probes alone. On the default clock the expiry timers (see the
// Window doc) give lookups that cost within the timers' noise of these
// inside the current slice, and forget at W + one slice; this option
// matters there only once a slice ends with no add (lookups then read the
// clock on a hit until the next add), and with WithClock, whose lookups
// read the clock on every hit. A clock reading costs as much as a lookup or far more:
// time.Now took 67-148 ns on the development VM (AMD EPYC family 26, Zen
// 5, a guest whose clock source reads slowly; BenchmarkTimeNow), the
// default clock 36-41 ns on an AMD EPYC family 25 model 17 (Zen 4) guest
// with a TSC clock source (time.Now 49-52 there), where a ContainsHash of
// a cached window takes 10-20 ns
// (BenchmarkWindowContains, impl=window-now against impl=window-expiry).
//
// The guarantee is unchanged: a key is found for at least the window after
// its last add, and the false-positive rate stays within the fpp the
// window was sized for (sizing assumes every generation is probed). What
// changes is forgetting: a key is forgotten at the first add after W + one
// slice, not at W + one slice. Pass it where adds come steadily (a stream
// being de-duplicated) or where a key lingering until the next add is
// harmless. Used by NewWindow, NewConcurrentWindow, ReadWindow and
// WindowFromBytes (it is not saved with the window).
func WithExpiryOnAdd() Option {
	return func(o *options) { o.win.expiryOnAdd = true }
}

// WithSliceKeys makes a Window advance by count instead of by time: a slice
// lasts k adds (the window is then (G-1)·k adds, and NewWindow's window
// argument must be 0). Each generation is sized for k keys, or for
// n/(G-1) if that is more. Used by NewWindow and OptimalWindowSize.
func WithSliceKeys(k uint64) Option {
	return func(o *options) { o.win.sliceKeys = k }
}

// Window is a blocked Bloom filter that forgets: a key is found for at
// least the window W after its last add and forgotten at most one slice
// after that, W + W/(G-1).
//
// It is a ring of G blocked generations of equal size in one table of
// groups: a key has one group, and the group holds the key's lane in every
// generation side by side, a 128-bit lane (256-bit at G = 2) a generation,
// four lanes (two at G = 2) to a 64-byte cache line. So a lookup of every
// generation reads one cache line at G = 2 and 4 (G/4 lines above), as a
// lookup of a Filter does, with one address and one mask for all of them
// (internal/kernel's windowed kernels, SIMD for single keys and batches).
// Narrow lanes cost memory: at 1% over the window and n = 1e6, 20.8 bits a
// key at G = 4 against 17.8 with whole 512-bit blocks a generation (+17%),
// 24.4 against 23.3 at G = 2 (bench/README.md, "Window: one cache line per
// key"). Time is cut into slices of W/(G-1) (or of a number of adds, see WithSliceKeys); adds go to the
// current slice's generation, and when a slice ends, the oldest generation
// is cleared and becomes the current one. A lookup ORs over the
// generations still live. A key added during slice s stays in its
// generation until that generation is reused G slices later, so it is found
// for the rest of slice s and the G-1 slices after it: at least (G-1)
// slices = W after the add, and at most G slices = W + one slice.
//
// The rotation is lazy: the first add after a slice boundary clears the
// generations whose slices have ended. A generation's lanes are one lane
// of every group, so clearing one writes into every line of the table at
// G <= 4 (clearGen has the cost), paid once a slice by the add that
// crosses the boundary. Lookups never write: they
// read the same clock and skip the generations that the next add would
// clear, so a lookup never misses a key inside its guaranteed window
// whatever the timing of the adds and of the rotation. A clock that goes
// back is treated as standing still at the latest slice seen.
//
// The clock: an add reads it once (AddHash, AddNewHash; AddHashes and
// AddNewHashes once a call). A lookup needs the time only to know whether
// the current slice has ended (inside it every generation is live), and
// on the default clock a timer tells it: each rotation (and NewWindow, the
// decoders) sets one for the slice's end, and until it fires lookups read
// no clock. A Go timer never fires early (it and the default clock both
// follow the monotonic clock), so the guarantee holds as it is; a timer
// that fires late (a stalled process) can keep a generation answering
// past W + one slice by its delay. Once it has fired, and with a clock of
// WithClock (which the timers cannot follow), a single-key lookup reads
// the clock when the key is in some generation (a miss is a miss whatever
// the time, and reads none) and a batch once a call, until the next add
// starts a slice. The timer holds no reference that keeps a dropped
// Window alive, and Close stops it. The default clock is the wall clock as the
// monotonic clock advances it (WithClock): a wall clock stepped forward
// would end slices early and drop keys inside their window, and the
// monotonic clock is never stepped. It reads one clock where time.Now
// reads two, and can still cost more than the lookup or the add itself
// (BenchmarkTimeNow: 36-41 ns against time.Now's 49-52 on an AMD EPYC
// family 25 model 17 guest, Zen 4, TSC clock source; time.Now took 67-148
// ns on an AMD EPYC family 26 model 2 (Zen 5) guest whose clock reads
// are slow). WithExpiryOnAdd removes the read from lookups altogether
// without weakening the guarantee; the batch adds pay it once a call; a
// window that advances by count (WithSliceKeys) reads no clock at all.
//
// Sizing (NewWindow) assumes keys arrive at a steady rate: each generation
// holds the keys of one slice, n/(G-1) for n keys per window. Bursts that
// put more keys in one slice raise the false-positive rate of that slice's
// generation; size n for the busiest window, or pass WithSliceKeys to bound
// each generation's keys exactly.
//
// Lookups may run concurrently with each other; adds (and Close,
// UnmarshalBinary, ReadFrom) must not run concurrently with anything
// else. Do not copy a Window value (go vet's copylocks check reports a
// copy).
type Window struct {
	_ nocopy.NoCopy // go vet reports copies; no space
	// ex tells lookups by time that the current slice lasts, from a timer
	// (window_expiry.go). At offset 0: see expiry.
	ex   expiry
	core // all G generations' lanes, in nb groups of kernel.WindowLines(G) lines
	// g is the number of generations G, nb the number of groups.
	g  int
	nb uint64
	// wt is the table the single-key lookups read (core's blocks, nb, g
	// and k through one pointer); Close empties it with core's.
	wt kernel.WindowTable
	// slice is a slice's duration (time mode), or 0 (count mode).
	slice time.Duration
	// sliceKeys is a slice's adds (count mode), or 0 (time mode).
	sliceKeys uint64
	// capacity is the keys each generation was sized for.
	capacity uint64
	clock    func() time.Time
	// userClock: clock came from WithClock (else it is clock.Steady, and
	// a window by time runs expiry timers).
	userClock bool
	// cur is the current generation, 0..G-1.
	cur int
	// start is the start of the current slice (time mode), in Unix
	// nanoseconds.
	start int64
	// added counts the adds of the current slice.
	added uint64
	// expiryOnAdd: lookups read no clock (WithExpiryOnAdd).
	expiryOnAdd bool
}

// NewWindow returns a Window that finds every key for window after its last
// add, for n keys per window at a false-positive rate of at most fpp over
// the whole window: each of the G generations (WithGenerations) is sized for
// n/(G-1) keys (one slice's, at a steady rate) at the rate p with
// 1-(1-p)^G = fpp, so a lookup that ORs the G generations stays within fpp
// (WindowFalsePositiveRate is a generation's rate, with the margin New
// sizes a Filter with).
// window must be positive and at least G-1 nanoseconds, unless
// WithSliceKeys makes the window count adds; then window must be 0. A
// slice is window/(G-1) rounded up to a whole nanosecond, so Window, the
// guarantee, is window or up to G-2 ns more. Errors
// are New's and ErrInvalidOption for an option or window out of range.
// Options: WithGenerations, WithClock, WithExpiryOnAdd, WithSliceKeys,
// WithSeed, WithMaxSize (the bound applies to all generations together).
// OptimalWindowSize gives the size without allocating the window.
func NewWindow(n uint64, fpp float64, window time.Duration, opts ...Option) (*Window, error) {
	o := collect(opts)
	g, err := o.win.gens()
	if err != nil {
		return nil, err
	}
	var slice time.Duration
	switch {
	case o.win.sliceKeys != 0 && window != 0:
		return nil, errorf(ErrInvalidOption, "a window advancing by count (WithSliceKeys) takes window 0, not %v", window)
	case o.win.sliceKeys == 0:
		if slice, err = WindowSlice(window, g); err != nil {
			return nil, err
		}
	}
	size, err := sizeWindow(n, fpp, g, o)
	if err != nil {
		return nil, err
	}
	w := &Window{slice: slice, sliceKeys: o.win.sliceKeys, capacity: size.Capacity}
	if err := w.allocGens(size.Groups, size.K, g, o); err != nil {
		return nil, err
	}
	if slice != 0 {
		w.start = unixNano(w.clock())
		w.arm(w.start)
	}
	return w, nil
}

// WindowSize is the shape of a Window: what NewWindow sizes it to, as
// OptimalWindowSize computes it without allocating the window.
type WindowSize struct {
	// Generations is the number of generations G (Window.Generations).
	Generations int
	// Capacity is the keys each generation is sized for (Window.Capacity):
	// n/(G-1) rounded up, or WithSliceKeys' count when that is more.
	Capacity uint64
	// Groups is the number of groups of the table (Window.Groups): a
	// generation is one lane of every group, Groups lanes of LaneBits bits.
	Groups uint64
	// K is the number of probes per key (Window.K).
	K int
}

// LaneBits returns the bits of one generation's lane (Window.LaneBits):
// 256 at G = 2, 128 above.
func (s WindowSize) LaneBits() int { return 64 * kernel.LaneWords(s.Generations) }

// Blocks returns the 64-byte lines of all generations together
// (Window.Blocks).
func (s WindowSize) Blocks() uint64 { return s.Groups * uint64(kernel.WindowLines(s.Generations)) }

// SizeBytes returns the memory the blocks of all generations take
// (Window.SizeBytes); each generation takes a G-th of it.
func (s WindowSize) SizeBytes() uint64 { return s.Blocks() * kernel.BlockBytes }

// OptimalWindowSize returns the shape NewWindow gives a Window for n keys
// per window at the false-positive rate fpp over the whole window (see
// NewWindow), computed as NewWindow computes it but without allocating the
// window, with the error NewWindow returns for these n, fpp and options:
// ErrInvalidOption for generations out of range, ErrInvalidFPP,
// ErrFPPTooLow (for fpp, or for the rate each generation would need),
// ErrTooLarge when the generations cannot be that large (MaxBlocks, or
// WithMaxSize). The window's duration plays no part in the size; NewWindow
// can still fail on it, on memory the machine cannot provide, and on a
// 32-bit platform on a size past its address space (OptimalWindowSize,
// like OptimalSize, computes the same sizes on every platform).
// Options: WithGenerations, WithSliceKeys, WithMaxSize.
func OptimalWindowSize(n uint64, fpp float64, opts ...Option) (WindowSize, error) {
	o := collect(opts)
	g, err := o.win.gens()
	if err != nil {
		return WindowSize{}, err
	}
	size, err := sizeWindow(n, fpp, g, o)
	if err != nil {
		return WindowSize{}, err
	}
	if err := checkShape(size.Blocks(), size.K, o.maxBytes); err != nil {
		return WindowSize{}, err
	}
	return size, nil
}

// sizeWindow is the sizing of NewWindow and OptimalWindowSize, for g
// generations (valid) and the options' WithSliceKeys: each generation holds
// its capacity at the rate p with 1-(1-p)^g = fpp. WithMaxSize is the
// callers' to check.
func sizeWindow(n uint64, fpp float64, g int, o options) (WindowSize, error) {
	if err := checkFPP(fpp); err != nil {
		return WindowSize{}, err
	}
	// n/(g-1) rounded up, written so that it cannot overflow.
	capacity := max(o.win.sliceKeys, (max(n, 1)-1)/uint64(g-1)+1)
	p := -math.Expm1(math.Log1p(-fpp) / float64(g))
	if p < MinFPP {
		return WindowSize{}, errorf2(ErrFPPTooLow, ErrInvalidArgument, "%d generations need %.3g each for %g over the window, below MinFPP = %g", g, p, fpp, MinFPP)
	}
	groups, k, err := windowGroups(capacity, p, g, MaxBlocks/uint64(kernel.WindowLines(g)))
	if err != nil {
		return WindowSize{}, err
	}
	return WindowSize{Generations: g, Capacity: capacity, Groups: groups, K: k}, nil
}

// allocGens gives w a zeroed table of groups groups for g generations and
// its clock.
func (w *Window) allocGens(groups uint64, k, g int, o options) error {
	p := uint64(kernel.WindowLines(g))
	if groups > MaxBlocks/p {
		return errorf(ErrTooLarge, "%d groups of %d lines for %d generations exceed the maximum of %d lines", groups, p, g, uint64(MaxBlocks))
	}
	if err := checkSize(groups*p, k, o.maxBytes); err != nil {
		return err
	}
	if err := w.alloc(groups*p, k, o.seed); err != nil {
		return err
	}
	w.maxBytes = o.maxBytes
	w.setGens(g)
	w.clock, w.userClock = o.win.clock, o.win.clock != nil
	w.expiryOnAdd = o.win.expiryOnAdd
	w.ex.after = timers(w.slice, o.win)
	if w.clock == nil {
		w.clock = clock.Steady
	}
	w.setLookups()
	return nil
}

// setGens records that core's blocks hold the groups of g generations.
func (w *Window) setGens(g int) {
	w.g = g
	w.nb = uint64(len(w.t.Blocks) / kernel.WindowLines(g))
	wt, err := kernel.NewWindowTable(w.t.Blocks, g, w.t.K)
	if err != nil {
		// Every caller sized the blocks for g generations and checked k.
		panic("blocked: " + err.Error())
	}
	w.wt = wt
}

// elapsedAt returns how many slices have ended since the current one
// began, by a clock reading of now (time mode; 0 when the clock went
// back).
func (w *Window) elapsedAt(now int64) uint64 {
	if now < w.start {
		return 0
	}
	// Exact in uint64 for any two int64 values with now >= start. Inside
	// the current slice (most lookups) there is no division.
	d := uint64(now) - uint64(w.start)
	if d < uint64(w.slice) {
		return 0
	}
	return d / uint64(w.slice)
}

// liveMask returns the mask of the live generations for a lookup now:
// liveGens of those the clock has not expired. Inside the current slice,
// the common case, every generation is live and the mask is all G bits,
// whatever cur is.
func (w *Window) liveMask() uint64 {
	all := uint64(1)<<uint(w.g) - 1 // g = 64: all ones
	if w.expiryOnAdd || w.slice == 0 || w.ex.live() != 0 {
		return all
	}
	return w.liveNow() & all
}

// liveAt is liveMask for a clock reading of now (time mode, lookups that
// read the clock). Inside the current slice it is all ones (the kernels
// drop the bits at and above G) and inlines: ContainsHash pays the clock
// and a comparison, no call besides the clock's (at 1e6, G = 4 a lookup
// with a simulated clock took 15.0 ns through liveMask's two calls, against
// 12.0 without a clock; AMD EPYC family 26 model 2 (Zen 5),
// BenchmarkWindowContains).
func (w *Window) liveAt(now int64) uint64 {
	if uint64(now)-uint64(w.start) < uint64(w.slice) { // false when now < start
		return ^uint64(0)
	}
	return w.liveAtSlow(now)
}

// liveAtSlow is liveAt outside the current slice: a clock that went back
// (every generation live), or slices that ended since the last add.
func (w *Window) liveAtSlow(now int64) uint64 {
	all := uint64(1)<<uint(w.g) - 1 // g = 64: all ones
	e := w.elapsedAt(now)
	if e == 0 {
		return all
	}
	if e >= uint64(w.g) {
		return 0
	}
	return liveGens(w.g, w.cur, w.g-int(e))
}

// liveGens returns the bit mask of the live live generations counting back
// from cur (bit j: generation j), for the windowed kernels.
func liveGens(g, cur, live int) uint64 {
	if live <= 0 {
		return 0
	}
	all := uint64(1)<<uint(g) - 1 // g = 64: all ones
	run := uint64(1)<<uint(live) - 1
	lo := cur - live + 1 // the oldest live generation, before wrapping
	if lo >= 0 {
		return run << uint(lo)
	}
	// cur+1 generations at 0..cur, the rest at the top: g+lo..g-1.
	return (run>>uint(-lo) | run<<uint(g+lo)) & all
}

// advance rotates w for an add: past each slice boundary the oldest
// generation is cleared and becomes the current one.
func (w *Window) advance() {
	mustOpen(&w.core)
	var steps uint64
	if w.slice == 0 {
		if w.added < w.sliceKeys {
			w.added++
			return
		}
		steps, w.added = 1, 1
	} else {
		now := unixNano(w.clock())
		steps = w.elapsedAt(now)
		if steps == 0 {
			w.added++
			return
		}
		w.start = int64(uint64(w.start) + steps*uint64(w.slice)) // at most now
		w.added = 1
		w.arm(now)
	}
	g := w.g
	if steps >= uint64(g) {
		// Every generation expired: one contiguous clear (seen by -race).
		race.Clear(w.t.Blocks)
	}
	for i := uint64(0); i < min(steps, uint64(g)); i++ {
		w.cur++
		if w.cur == g {
			w.cur = 0
		}
		if steps < uint64(g) {
			w.clearGen(w.cur)
		}
	}
	if steps > uint64(g) {
		w.cur = (w.cur + int((steps-uint64(g))%uint64(g))) % g
	}
}

// arm sets the expiry timer (if w runs them) for the end of the current
// slice, by a clock reading of now taken before the call.
func (w *Window) arm(now int64) {
	if w.ex.after != nil {
		w.ex.epoch++
		w.ex.arm(w.ex.epoch, untilEnd(w.start, w.slice, now))
	}
}

// tick is advance for an add, with its most common case inlined: an add
// inside the current slice of a window that advances by count (a closed
// window's add then panics in the kernel, with ErrNoBlocks, which reads as
// advance's errUse). It saves about 12 instructions of an add's 105
// (asm/blocked/windowadd.go has the counts): BenchmarkWindowAdd, AMD EPYC
// family 26 model 2 (Zen 5), n = 1e7, AddHash 47.1 ns at G = 2 and 54.3 at
// G = 4 against 59.7 and 56.1 with advance called (medians of 3 and 6
// rounds, noisy).
func (w *Window) tick() {
	if w.slice == 0 && w.added < w.sliceKeys {
		w.added++
		return
	}
	w.advance()
}

// clearGen clears generation j: its lane in every group (see
// kernel.GenLane), a strided clear that at G <= 4 writes into every line
// of the table, once a slice. BenchmarkWindowRotate measures it against a
// contiguous clear of the same bytes.
func (w *Window) clearGen(j int) {
	clearLanes(w.t.Blocks, w.g, j)
}

// clearLanes zeroes generation j's lane in every group of blocks.
func clearLanes(bs []kernel.Block, g, j int) {
	first, o := kernel.GenLane(1, g, j, 0) // group 0's line and word
	p, lw := kernel.WindowLines(g), kernel.LaneWords(g)
	if lw == 2 { // two stores a line, not a call of clear
		for i := int(first); i < len(bs); i += p {
			b := &bs[i]
			b[o&6], b[o&6+1] = 0, 0
		}
		return
	}
	for i := int(first); i < len(bs); i += p {
		race.Clear(bs[i][o : o+lw]) // seen by -race, as the other widths' stores are
	}
}

// Hash returns the hash of key with the window's seed, for the *Hash methods.
func (w *Window) Hash(key []byte) uint64 { return hash.Bytes(key, w.seed) }

// HashString is Hash for a string key.
func (w *Window) HashString(key string) uint64 { return hash.String(key, w.seed) }

// HashUint64 is Hash for x's eight little-endian bytes.
func (w *Window) HashUint64(x uint64) uint64 { return w.h64.Hash(x) }

// Add adds key to the current slice's generation, rotating first if a slice
// has ended.
func (w *Window) Add(key []byte) { w.AddHash(hash.Bytes(key, w.seed)) }

// AddString is Add for a string key.
func (w *Window) AddString(key string) { w.AddHash(hash.String(key, w.seed)) }

// AddUint64 is Add for x's eight little-endian bytes.
func (w *Window) AddUint64(x uint64) { w.AddHash(w.h64.Hash(x)) }

// AddHash is Add for a key whose hash (see Hash) is h. After the rotation
// check it is one call of the windowed single-key add kernel (through wt,
// which keeps w alive).
func (w *Window) AddHash(h uint64) {
	w.tick()
	kernel.BlockedAddGenT(&w.wt, w.cur, h)
}

// AddHashes adds every key whose hash is in hs, as AddHash one at a time
// would, but reads the clock once for the batch (a window that advances by
// time adds all its keys in the slice of that reading; one that advances
// by count rotates between keys as AddHash would). An AddHash by time
// reads the clock each add: time.Now cost 100-150 ns on the development VM
// (AMD EPYC family 26 model 2, Zen 5), where the add itself costs 10-50 ns.
func (w *Window) AddHashes(hs []uint64) {
	mustOpen(&w.core) // an empty batch too, as Filter's
	for i, h := range hs {
		w.batchTick(i)
		kernel.BlockedAddGenT(&w.wt, w.cur, h)
	}
}

// batchTick is tick for key i of a batch: a window that advances by time
// reads its clock for key 0 only (one reading a batch), one that advances
// by count ticks every key.
func (w *Window) batchTick(i int) {
	if i == 0 || w.slice == 0 {
		w.tick()
	} else {
		w.added++
	}
}

// AddNew adds key and reports whether it was new: not found in any live
// generation before the add (a false positive makes a new key read as
// seen). Added either way, a seen key's window starts again.
func (w *Window) AddNew(key []byte) bool { return w.AddNewHash(hash.Bytes(key, w.seed)) }

// AddNewString is AddNew for a string key.
func (w *Window) AddNewString(key string) bool { return w.AddNewHash(hash.String(key, w.seed)) }

// AddNewUint64 is AddNew for x's eight little-endian bytes.
func (w *Window) AddNewUint64(x uint64) bool { return w.AddNewHash(w.h64.Hash(x)) }

// AddNewHash is AddNew for a key whose hash (see Hash) is h. The block
// index and mask are computed once for the lookup of every generation and
// the add: one call of the windowed single-key add-if-new kernel.
func (w *Window) AddNewHash(h uint64) bool {
	w.tick()
	return kernel.BlockedAddNewGensT(&w.wt, ^uint64(0), w.cur, h)
}

// AddNewHashes sets out[i] = AddNewHash(hs[i]) for i in order and returns
// how many are true: the answers of the one-at-a-time calls in order (a
// hash repeated in hs is new at most once, keys that share a lane see each
// other's bits). A window that advances by time reads its clock once for
// the batch, so all its keys are added in the slice of that reading; one
// that advances by count rotates between keys as AddNewHash would. It
// panics if len(out) < len(hs); out beyond len(hs) is left alone.
//
// Batches run in runs of up to 256 keys that no rotation splits: the
// windowed batch kernel looks the run up in every generation (prefetched),
// then each key is added, with its line in cache; a key the lookup missed
// is new if its add set a clear bit of the current generation (an earlier
// key of the run may have added it).
func (w *Window) AddNewHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("blocked: AddNewHashes: len(out) < len(hs)")
	}
	mustOpen(&w.core)
	if len(hs) == 0 {
		return 0
	}
	out = out[:len(hs)]
	n := 0
	if !useKernel(len(hs)) {
		for i, h := range hs {
			// One clock reading for the batch, as the kernel path below.
			w.batchTick(i)
			isNew := kernel.BlockedAddNewGensT(&w.wt, ^uint64(0), w.cur, h)
			out[i] = isNew
			if isNew {
				n++
			}
		}
		runtime.KeepAlive(w)
		return n
	}
	for i := 0; i < len(hs); {
		// The run: its first key's advance may rotate, the others' do not.
		end := min(len(hs), i+addNewChunk)
		w.batchTick(i)
		if w.slice == 0 {
			end = min(end, i+1+int(min(w.sliceKeys-w.added, uint64(addNewChunk))))
		}
		w.added += uint64(end - i - 1)
		part, o := hs[i:end], out[i:end]
		kernel.BlockedContainsGens(w.t.Blocks, w.nb, w.g, ^uint64(0), w.t.K, part, o)
		cur := uint64(1) << uint(w.cur)
		for j, h := range part {
			if o[j] {
				kernel.BlockedAddGenT(&w.wt, w.cur, h)
				o[j] = false
			} else if kernel.BlockedAddNewGensT(&w.wt, cur, w.cur, h) {
				o[j] = true
				n++
			}
		}
		i = end
	}
	runtime.KeepAlive(w)
	return n
}

// Contains reports whether key may have been added within the window:
// false means it was not added in the last W (it may have been added
// longer ago and be forgotten); true is wrong with probability at most the
// fpp the window was made for, at its sizing.
func (w *Window) Contains(key []byte) bool { return w.ContainsHash(hash.Bytes(key, w.seed)) }

// ContainsString is Contains for a string key.
func (w *Window) ContainsString(key string) bool { return w.ContainsHash(hash.String(key, w.seed)) }

// ContainsUint64 is Contains for x's eight little-endian bytes.
func (w *Window) ContainsUint64(x uint64) bool { return w.ContainsHash(w.h64.Hash(x)) }

// ContainsHash is Contains for a key whose hash (see Hash) is h.
//
// It inlines into the caller to one call of the windowed single-key
// kernel. With WithExpiryOnAdd or WithSliceKeys every generation is live
// (the kernel drops the bits of live at and above G) and the call is the
// lookup. By time, while the current slice's expiry timer has not fired
// (window_expiry.go), the mask is all ones too and the call is the lookup.
// Otherwise the kernel probes every generation first: a key in none
// is absent whatever the clock says, so a miss reads no clock; on a hit it
// reads the clock (through the table's live source, liveNow) and the hit
// stands if every generation is live (inside the current slice), else the
// kernel probes again with the live generations. A closed window's empty
// table makes the kernel panic with an error wrapping ErrClosed, as
// Filter.ContainsHash does.
//
// ContainsHash used to be a Go function that read the clock in time mode
// and then called the kernel: a call more than a Filter's lookup, and a
// clock reading for every lookup. BenchmarkWindowContainsPaired (AMD EPYC
// family 26 model 2, Zen 5, before/after binaries alternating;
// bench/README.md "Window: one cache line per key") measured, at n = 1e7,
// G = 4, a Filter of the same size at about 20-25 ns: with WithExpiryOnAdd
// 1.6-1.7x the Filter's time before, 1.0-1.4x after; by time.Now, random
// (absent) keys 183 -> 28 ns and present keys 191 -> 204 ns. With a clock
// that costs nothing (the benchmark's simulated one), a hit costs more
// than before, the kernel's probe, the jump to Go and the call of liveNow
// coming before the clock: present keys 2.2x -> 3.3x the Filter at 1e7,
// absent keys 2.1x -> 1.35x.
//
// A real clock's reading on a hit costs more than the reading alone: the
// vDSO reads the TSC in order (LFENCE; RDTSC or RDTSCP on x86), so it
// waits for the probe's load and every load before it, and a loop of
// lookups no longer overlaps its misses. BenchmarkClockAfterLoad (random
// 8-byte loads, the default clock read after every other one; AMD EPYC
// family 25 model 17, Zen 4, 2 vCPUs, 32 MiB L3), ns a load without /
// with the clock: 1.1 / 21.6 over 1 MB, 3.2-5.5 / 91-102 over 16 MB, 7.9
// / 134-143 over 256 MB; a reading alone costs 36-41 ns (BenchmarkTimeNow).
// Hence present keys by time cost 5-10x a Filter's lookup whatever the
// kernel does (BenchmarkWindowContainsPaired, q=present, now-ns/key
// against filter-ns/key, the same CPU), and hence the expiry timers: with
// them the same lookups cost 0.86-1.56x the Filter's (timer-ns/key, three
// runs, n = 1e6 and 1e7, G = 2 and 4; medians 1.05-1.37x), against
// 4.8-10x reading the clock in the same runs. A lookup heavy on hits with
// WithClock should use ContainsHashes, which reads the clock once a call.
func (w *Window) ContainsHash(h uint64) bool {
	return kernel.BlockedContainsGensT(&w.wt, w.ex.live(), h)
}

// setLookups sets what ContainsHash passes the kernel: in time mode
// without WithExpiryOnAdd the expiry's mask (all ones while its timer says
// the slice lasts, else 0: the kernel then asks the table's live source,
// liveNow, on a hit; 0 until the caller arms the timer); otherwise all
// ones for good (ex.fresh = 1, which no timer clears) and no source.
// NewWindow, the decoders and UnmarshalBinary call it once w is complete
// (liveNow is bound to w).
func (w *Window) setLookups() {
	if w.slice != 0 && !w.expiryOnAdd {
		w.ex.stop() // until the caller arms the current slice's timer
		w.wt.SetLiveNow(w.liveNow)
		return
	}
	atomic.StoreUint64(&w.ex.fresh, 1)
	w.wt.SetLiveNow(nil)
}

// liveNow is the live mask by the clock now: ContainsHash's live source in
// time mode.
func (w *Window) liveNow() uint64 { return w.liveAt(unixNano(w.clock())) }

// ContainsHashes sets out[i] = ContainsHash(hs[i]) for every i and returns
// how many are true, reading the clock once. One call of the windowed batch
// kernel probes every key's live generations (one address and one mask a
// key, the key's live lines prefetched ahead). It panics if len(out) <
// len(hs); out beyond len(hs) is left alone.
func (w *Window) ContainsHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("blocked: ContainsHashes: len(out) < len(hs)")
	}
	mustOpen(&w.core)
	n := kernel.BlockedContainsGens(w.t.Blocks, w.nb, w.g, w.liveMask(), w.t.K, hs, out)
	runtime.KeepAlive(w)
	return n
}

// Generations returns G, the number of generations.
func (w *Window) Generations() int { return w.g }

// Slice returns a slice's duration, or 0 for a window that advances by
// count.
func (w *Window) Slice() time.Duration { return w.slice }

// SliceStart returns the start of the current slice, the one the latest
// add went to (or the window's creation, before any add): the window's
// own time, which a saved window keeps, and which a clock that reads an
// earlier time (one that goes back) stands still at. The zero Time for a
// window that advances by count.
func (w *Window) SliceStart() time.Time {
	if w.slice == 0 {
		return time.Time{}
	}
	return time.Unix(0, w.start)
}

// Window returns the guaranteed window, (G-1) slices, or 0 for a window
// that advances by count (see SliceKeys).
func (w *Window) Window() time.Duration { return w.slice * time.Duration(w.g-1) }

// SliceKeys returns the adds per slice of a window that advances by count,
// or 0.
func (w *Window) SliceKeys() uint64 { return w.sliceKeys }

// Capacity returns the keys each generation was sized for.
func (w *Window) Capacity() uint64 { return w.capacity }

// SliceAdds returns the adds made to the current slice so far (as of the
// last add: a slice that has ended by the clock but seen no add since still
// counts). The encoding keeps it only for a window that advances by count
// (FORMAT.md, kind 9's param 6): a window by time decoded from bytes starts
// it again at 0, which changes nothing the window does.
func (w *Window) SliceAdds() uint64 { return w.added }

// K returns the probes per key.
func (w *Window) K() int { return w.t.K }

// Seed returns the hash seed.
func (w *Window) Seed() uint64 { return w.seed }

// Blocks returns the 64-byte lines of all generations together.
func (w *Window) Blocks() uint64 { return uint64(len(w.t.Blocks)) }

// Groups returns the groups of the table: each key has one, holding its
// lane of every generation; a generation is one lane of every group (see
// WindowFalsePositiveRate).
func (w *Window) Groups() uint64 { return w.nb }

// LaneBits returns the bits of one generation's lane: 256 at G = 2, 128
// above.
func (w *Window) LaneBits() int { return 64 * kernel.LaneWords(w.g) }

// SizeBytes returns the memory the blocks of all generations take.
func (w *Window) SizeBytes() uint64 { return uint64(len(w.t.Blocks)) * kernel.BlockBytes }

// Close releases the window's memory now if it was mapped outside the Go
// heap, as Filter.Close does; afterwards adds and lookups panic with an
// error wrapping ErrClosed, and the encoders return such an error. Close is
// harmless more than once.
func (w *Window) Close() error {
	w.ex.stop()
	w.wt.Close()
	return w.free()
}
