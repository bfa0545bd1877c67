package blocked

import (
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/nocopy"
	"github.com/sift-go/sift/internal/race"
)

// ConcurrentWindow is a Window whose methods may all be called from many
// goroutines at once, but for Close and the decoders (UnmarshalBinary,
// ReadFrom), which must run alone: adds set bits with atomic ORs (as
// Concurrent does), lookups read with atomic loads and take no lock, and
// a rotation (the first add past a slice boundary clears the expired
// generations) runs under a mutex that only adds crossing the boundary
// wait for.
//
// Guarantee: a lookup that reads the clock at time t finds every key whose
// add returned before the lookup began and lies inside its window at t.
// Lookups skip, by their own clock reading, the generations a rotation
// would clear; on the default clock they read none while the current
// slice's expiry timer has not fired (see Window: inside the slice every
// generation is live). A lookup whose miss overlapped a rotation's clearing
// (a sequence number, odd while clearing, changed during it) looks again
// with the new state, so a rotation never makes a reader miss. Only
// misses that overlap a clearing retry; hits never do.
//
// It has the guarantees and sizing of Window (see NewWindow), and its
// encoding: MarshalBinary and WriteTo save a copy made while adds and
// lookups go on, and ReadConcurrentWindow or ConcurrentWindowFromBytes
// resume it (a restarted server goes on with the window it saved). Do not
// copy a ConcurrentWindow value (go vet's copylocks check reports a copy).
type ConcurrentWindow struct {
	_ nocopy.NoCopy // go vet reports copies; no space
	// ex tells lookups that the current epoch's slice lasts (see
	// window_expiry.go), armed under mu. At offset 0: see expiry.
	ex        expiry
	core      // the generations' lanes in groups, as Window's
	g         int
	nb        uint64
	wt        kernel.WindowTable // as Window's
	slice     time.Duration
	sliceKeys uint64
	capacity  uint64
	clock     func() time.Time
	// userClock: clock came from WithClock (as Window's).
	userClock bool
	// expiryOnAdd: lookups read no clock (WithExpiryOnAdd).
	expiryOnAdd bool
	// state is the current slice: published whole after each rotation.
	state atomic.Pointer[windowState]
	// seq is odd while a rotation clears generations, and counts them.
	seq atomic.Uint64
	// adds counts every add, for a window that advances by count.
	adds atomic.Uint64
	mu   sync.Mutex // serializes rotations
}

// windowState is one slice of a ConcurrentWindow: immutable once published.
type windowState struct {
	epoch uint64 // slices since the window was made
	cur   int    // index in gens of the epoch's generation
	start int64  // time mode: the slice's start, Unix ns
}

// NewConcurrentWindow is NewWindow for a ConcurrentWindow: same arguments,
// options and errors.
func NewConcurrentWindow(n uint64, fpp float64, window time.Duration, opts ...Option) (*ConcurrentWindow, error) {
	w, err := NewWindow(n, fpp, window, opts...)
	if err != nil {
		return nil, err
	}
	return concurrentWindow(w), nil
}

// concurrentWindow returns a ConcurrentWindow holding w's generations and
// current slice (its generation, its start or its adds so far), which it
// takes over: w must not be used after.
func concurrentWindow(w *Window) *ConcurrentWindow {
	c := new(ConcurrentWindow)
	c.take(w)
	return c
}

// take makes c hold w's generations and current slice, which it takes over
// (w must not be used after), as epoch 0. The caller holds c.mu, or is
// alone with c.
func (c *ConcurrentWindow) take(w *Window) {
	c.core, c.g, c.nb, c.wt = w.core, w.g, w.nb, w.wt
	c.slice, c.sliceKeys, c.capacity = w.slice, w.sliceKeys, w.capacity
	c.clock, c.userClock, c.expiryOnAdd = w.clock, w.userClock, w.expiryOnAdd
	// ContainsHash's live source in time mode, read on a hit only (as
	// Window's: a miss reads no clock); w's source reads w's state.
	c.wt.SetLiveNow(nil)
	if c.slice != 0 && !c.expiryOnAdd {
		c.wt.SetLiveNow(c.liveNow)
	}
	s := &windowState{cur: w.cur, start: w.start}
	c.state.Store(s)
	c.adds.Store(w.added) // epoch 0 ends after sliceKeys adds, w.added of them made
	w.ex.stop()
	c.ex.stop()
	c.ex.after = w.ex.after
	if c.ex.after != nil { // as rotate's: no timer, no clock read (a count window reads none: WithClock's doc)
		c.ex.arm(0, untilEnd(s.start, c.slice, unixNano(c.clock())))
	}
	if c.expiryOnAdd || c.slice == 0 {
		// Every generation is live to ContainsHash for good (no timer
		// runs to clear the bit; Close does).
		atomic.StoreUint64(&c.ex.fresh, 1)
	}
}

// epochAt returns the slice the clock (time mode) or the add count n
// (count mode) is in, never before s's.
func (c *ConcurrentWindow) epochAt(s *windowState, n uint64) uint64 {
	if c.slice == 0 {
		return max(s.epoch, n/c.sliceKeys)
	}
	now := unixNano(c.clock())
	if now < s.start {
		return s.epoch
	}
	d := uint64(now) - uint64(s.start)
	if d < uint64(c.slice) {
		return s.epoch // inside the slice: no division
	}
	return s.epoch + d/uint64(c.slice)
}

// rotate moves the window on to epoch e, clearing the generations of the
// slices that ended, unless another add did so already.
func (c *ConcurrentWindow) rotate(e uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.state.Load()
	if s.epoch >= e {
		return
	}
	steps := e - s.epoch
	g := c.g
	c.seq.Add(1) // odd: clearing
	cur := s.cur
	for i := uint64(0); i < min(steps, uint64(g)); i++ {
		cur++
		if cur == g {
			cur = 0
		}
		// Generation cur: its lane of every group (as Window's
		// clearLanes), word by word.
		first, o := kernel.GenLane(1, g, cur, 0)
		p, lw := kernel.WindowLines(g), kernel.LaneWords(g)
		bs := c.t.Blocks
		for b := int(first); b < len(bs); b += p {
			for w := o; w < o+lw; w++ {
				atomic.StoreUint64(&bs[b][w], 0)
			}
		}
	}
	if steps > uint64(g) {
		cur = (cur + int((steps-uint64(g))%uint64(g))) % g
	}
	ns := &windowState{epoch: e, cur: cur, start: int64(uint64(s.start) + steps*uint64(c.slice))}
	c.state.Store(ns)
	c.seq.Add(1) // even: done
	if c.ex.after != nil {
		c.ex.arm(e, untilEnd(ns.start, c.slice, unixNano(c.clock())))
	}
}

// current returns the state to add to, rotating first if a slice has
// ended.
func (c *ConcurrentWindow) current() *windowState {
	mustOpen(&c.core)
	var n uint64
	if c.slice == 0 {
		n = c.adds.Add(1) - 1
	}
	s := c.state.Load()
	e := c.epochAt(s, n)
	if e == s.epoch {
		return s
	}
	// One clock reading, one rotation: the state after it is at epoch e or
	// later (another add rotated further), and a key added to it is kept
	// at least as long. Reading the clock again until two readings agreed
	// never ended when a rotation took longer than a slice.
	c.rotate(e)
	return c.state.Load()
}

// Hash returns the hash of key with the window's seed, for the *Hash methods.
func (c *ConcurrentWindow) Hash(key []byte) uint64 { return hash.Bytes(key, c.seed) }

// HashString is Hash for a string key.
func (c *ConcurrentWindow) HashString(key string) uint64 { return hash.String(key, c.seed) }

// HashUint64 is Hash for x's eight little-endian bytes.
func (c *ConcurrentWindow) HashUint64(x uint64) uint64 { return c.h64.Hash(x) }

// Add adds key to the current slice's generation.
func (c *ConcurrentWindow) Add(key []byte) { c.AddHash(hash.Bytes(key, c.seed)) }

// AddString is Add for a string key.
func (c *ConcurrentWindow) AddString(key string) { c.AddHash(hash.String(key, c.seed)) }

// AddUint64 is Add for x's eight little-endian bytes.
func (c *ConcurrentWindow) AddUint64(x uint64) { c.AddHash(c.h64.Hash(x)) }

// AddHash is Add for a key whose hash (see Hash) is h.
func (c *ConcurrentWindow) AddHash(h uint64) {
	s := c.current()
	m := kernel.WindowMask(h, c.t.K, c.g)
	insertLane(c.lane(s.cur, h), &m)
	runtime.KeepAlive(c)
}

// AddHashes adds every key whose hash is in hs, as AddHash one at a time
// would, but a window that advances by time reads its clock once for the
// batch and adds all its keys in the slice of that reading (as
// Window.AddHashes); one that advances by count rotates between keys.
func (c *ConcurrentWindow) AddHashes(hs []uint64) {
	mustOpen(&c.core) // an empty batch too, as Filter's
	if c.slice == 0 {
		for _, h := range hs {
			c.AddHash(h)
		}
		return
	}
	if len(hs) == 0 {
		return
	}
	s := c.current()
	for _, h := range hs {
		m := kernel.WindowMask(h, c.t.K, c.g)
		insertLane(c.lane(s.cur, h), &m)
	}
	runtime.KeepAlive(c)
}

// lane returns h's lane of generation j: its words in the table.
func (c *ConcurrentWindow) lane(j int, h uint64) []uint64 {
	if len(c.t.Blocks) == 0 {
		panic(errUse)
	}
	line, word := kernel.GenLane(c.nb, c.g, j, h)
	w := word + kernel.LaneWords(c.g)
	return c.t.Blocks[line][word:w:w]
}

// insertLane ORs the lane mask m (a kernel.WindowMask) into lane with
// atomic ORs, writing only the words that lack bits (as insertAtomic).
func insertLane(lane []uint64, m *kernel.Block) {
	for i := range lane {
		if x := m[i]; atomic.LoadUint64(&lane[i])&x != x {
			atomic.OrUint64(&lane[i], x)
		}
	}
}

// addNewLane is insertLane reporting whether this call set a bit that was
// clear: from the old values OrUint64 returns, so of racing goroutines
// setting the same clear bits exactly one sees each clear (addNewAtomic's
// guarantee).
func addNewLane(lane []uint64, m *kernel.Block) bool {
	set := false
	for i := range lane {
		if x := m[i]; atomic.LoadUint64(&lane[i])&x != x && atomic.OrUint64(&lane[i], x)&x != x {
			set = true
		}
	}
	return set
}

// probeLane reports whether every bit of the lane mask m is set in lane,
// with atomic loads.
func probeLane(lane []uint64, m *kernel.Block) bool {
	for i := range lane {
		if atomic.LoadUint64(&lane[i])&m[i] != m[i] {
			return false
		}
	}
	return true
}

// AddNew adds key and reports whether it was new: not found in any live
// generation. A key added by racing goroutines is reported new at least
// once (unless a false positive hides it, or a plain Add of it, which
// reports nothing, came first), and never after an add of it has returned
// within its window.
func (c *ConcurrentWindow) AddNew(key []byte) bool { return c.AddNewHash(hash.Bytes(key, c.seed)) }

// AddNewString is AddNew for a string key.
func (c *ConcurrentWindow) AddNewString(key string) bool {
	return c.AddNewHash(hash.String(key, c.seed))
}

// AddNewUint64 is AddNew for x's eight little-endian bytes.
func (c *ConcurrentWindow) AddNewUint64(x uint64) bool { return c.AddNewHash(c.h64.Hash(x)) }

// AddNewHash is AddNew for a key whose hash (see Hash) is h: the older
// live generations are looked up first, then the current one is tested and
// set in one pass (only the racer that sets a missing bit sees it new).
func (c *ConcurrentWindow) AddNewHash(h uint64) bool {
	s := c.current()
	seenBefore := c.lookupOlder(h, s)
	m := kernel.WindowMask(h, c.t.K, c.g)
	isNew := addNewLane(c.lane(s.cur, h), &m)
	runtime.KeepAlive(c)
	return isNew && !seenBefore
}

// lookupOlder reports whether h is in a generation older than s's current
// one that is live by the clock, with lookup's retry.
func (c *ConcurrentWindow) lookupOlder(h uint64, s *windowState) bool {
	m := kernel.WindowMask(h, c.t.K, c.g)
	for {
		q := c.seq.Load()
		st := c.state.Load()
		live := liveGens(c.g, st.cur, c.liveAt(st, c.lookupEpoch(st)))
		if s.cur >= 0 {
			live &^= 1 << uint(s.cur)
		}
		if c.probeGens(h, &m, live) {
			return true
		}
		if q&1 == 0 && c.seq.Load() == q {
			return false
		}
		runtime.Gosched()
	}
}

// liveNow returns the live generations of the current state by the clock
// (ContainsHash where not every generation is live).
func (c *ConcurrentWindow) liveNow() uint64 {
	mustOpen(&c.core)
	st := c.state.Load()
	return liveGens(c.g, st.cur, c.liveAt(st, c.lookupEpoch(st)))
}

// lookupEpoch returns the epoch a lookup of state s runs at: by the
// clock, or s's own with WithExpiryOnAdd or while s's slice timer says it
// lasts (window_expiry.go).
func (c *ConcurrentWindow) lookupEpoch(s *windowState) uint64 {
	if c.expiryOnAdd || c.ex.current(s.epoch) {
		return s.epoch
	}
	return c.epochAt(s, 0)
}

// liveAt returns how many generations of state s are live at epoch e (see
// Window.live).
func (c *ConcurrentWindow) liveAt(s *windowState, e uint64) int {
	if e-s.epoch >= uint64(c.g) {
		return 0
	}
	return c.g - int(e-s.epoch)
}

// Contains reports whether key may have been added within the window (see
// Window.Contains).
func (c *ConcurrentWindow) Contains(key []byte) bool { return c.ContainsHash(hash.Bytes(key, c.seed)) }

// ContainsString is Contains for a string key.
func (c *ConcurrentWindow) ContainsString(key string) bool {
	return c.ContainsHash(hash.String(key, c.seed))
}

// ContainsUint64 is Contains for x's eight little-endian bytes.
func (c *ConcurrentWindow) ContainsUint64(x uint64) bool { return c.ContainsHash(c.h64.Hash(x)) }

// ContainsHash is Contains for a key whose hash (see Hash) is h. It runs
// the single-key windowed kernel (plain loads: a bit an add sets while it
// reads may be missed, so the lookup answers as if it ran before that add,
// as Concurrent's lookups do) and, where it misses while a rotation was
// clearing, looks again with atomic loads. Under the race detector it uses
// the atomic probes only (see race.go). Where every generation is live to
// it (WithExpiryOnAdd, by count, or while the current slice's expiry timer
// has not fired) it reads neither the state nor the clock: the sequence
// number, the kernel, and on a miss the sequence number again. Otherwise
// (time mode, once the slice's timer has fired, and always with WithClock)
// it probes every generation and reads the state and the clock on a hit
// only, then probes the generations live by them, as Window does: a miss
// reads no clock.
func (c *ConcurrentWindow) ContainsHash(h uint64) bool {
	if !raceEnabled {
		q := c.seq.Load()
		// ex.fresh's bit: the armed slice lasts, or every generation is
		// live for good. (A bit left from the slice before a rotation
		// that has not yet armed the next one makes every generation
		// live a moment longer: more generations, never fewer.) Without
		// it, a mask with no live generation asks the kernel to read
		// liveNow (the table's live source, set in time mode) on a hit.
		live := ^uint64(0)
		if atomic.LoadUint64(&c.ex.fresh)&1 == 0 {
			live = 0
		}
		if kernel.BlockedContainsGensT(&c.wt, live, h) {
			runtime.KeepAlive(c)
			return true
		}
		if q&1 == 0 && c.seq.Load() == q {
			runtime.KeepAlive(c)
			return false
		}
	}
	mustOpen(&c.core)
	r := c.lookupOlder(h, &windowState{cur: -1})
	runtime.KeepAlive(c)
	return r
}

// ContainsHashes sets out[i] = ContainsHash(hs[i]) for every i and returns
// how many are true. It reads the state and the clock once and probes the
// whole batch with the windowed batch kernel (prefetched; plain loads, so
// a lookup racing an add answers as if it ran before or after that add);
// if a rotation was clearing meanwhile (the sequence number was odd or
// changed), the keys it missed are looked up again one at a time, with
// ContainsHash's retry. Under the race detector, or for batches too small
// for the kernel (and without assembly), every key takes an atomic probe,
// at the same one reading of the state and the clock. It panics if len(out) <
// len(hs); out beyond len(hs) is left alone.
func (c *ConcurrentWindow) ContainsHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("blocked: ContainsHashes: len(out) < len(hs)")
	}
	mustOpen(&c.core)
	out = out[:len(hs)]
	none := windowState{cur: -1}
	q := c.seq.Load()
	st := c.state.Load()
	live := liveGens(c.g, st.cur, c.liveAt(st, c.lookupEpoch(st)))
	n := c.lookupGens(hs, out, live, !raceEnabled && useKernel(len(hs)))
	if q&1 != 0 || c.seq.Load() != q {
		for i, h := range hs {
			if !out[i] && c.lookupOlder(h, &none) {
				out[i] = true
				n++
			}
		}
	}
	runtime.KeepAlive(c)
	return n
}

// lookupGens sets out[i] to whether hs[i] is in one of the generations
// live names and returns how many are true: with the batch kernel where
// useK, else with a key-by-key atomic probe (the race detector, batches
// too small for the kernel).
func (c *ConcurrentWindow) lookupGens(hs []uint64, out []bool, live uint64, useK bool) int {
	if useK {
		return kernel.BlockedContainsGens(c.t.Blocks, c.nb, c.g, live, c.t.K, hs, out)
	}
	n := 0
	for i, h := range hs {
		m := kernel.WindowMask(h, c.t.K, c.g)
		out[i] = c.probeGens(h, &m, live)
		if out[i] {
			n++
		}
	}
	return n
}

// probeGens reports whether h, whose mask is m, is in one of the
// generations in live, with atomic loads and no retry.
func (c *ConcurrentWindow) probeGens(h uint64, m *kernel.Block, live uint64) bool {
	for ; live != 0; live &= live - 1 {
		if probeLane(c.lane(bits.TrailingZeros64(live), h), m) {
			return true
		}
	}
	return false
}

// AddNewHashes sets out[i] = AddNewHash(hs[i]) for i in order and returns
// how many are true: the answers of the one-at-a-time calls in order (a
// hash repeated in hs is new at most once, keys that share a lane see each
// other's bits), each with AddNewHash's guarantee under races. It panics if
// len(out) < len(hs); out beyond len(hs) is left alone.
//
// A window that advances by time reads its clock once for the batch, as
// Window.AddNewHashes does, and adds every key to the slice of that
// reading. It looks the batch up first, 256 keys at a time, with the
// windowed batch kernel (every generation, prefetched, plain loads as
// ContainsHashes), then adds key by key with atomic ORs into lines the
// lookup has just brought into cache: a key the lookup found is added and
// answers false; a key it missed is new if its atomic OR set a clear bit
// (a miss that overlapped a rotation's clearing is looked up again, as
// AddNewHash does). A window that advances by count rotates between keys.
// Under the race detector, or for batches too small for the kernel (and
// without assembly), the chunks are looked up with atomic probes instead
// of the kernel, at the same one reading of the clock.
func (c *ConcurrentWindow) AddNewHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("blocked: AddNewHashes: len(out) < len(hs)")
	}
	mustOpen(&c.core)
	out = out[:len(hs)]
	if c.slice == 0 {
		n := 0
		for i, h := range hs {
			out[i] = c.AddNewHash(h)
			if out[i] {
				n++
			}
		}
		return n
	}
	if len(hs) == 0 {
		mustOpen(&c.core)
		return 0
	}
	s := c.current() // the one clock reading
	all := uint64(1)<<uint(c.g) - 1
	n := 0
	useK := !raceEnabled && useKernel(len(hs))
	for i := 0; i < len(hs); i += addNewChunk {
		part := hs[i:min(i+addNewChunk, len(hs))]
		o := out[i : i+len(part)]
		q := c.seq.Load()
		clean := q&1 == 0 && c.state.Load() == s
		if clean {
			// Every generation of s is live at s's own epoch (current
			// returned it for the clock's reading): o[j] is whether key j
			// was in the window before this chunk's adds.
			c.lookupGens(part, o, all, useK)
			clean = c.seq.Load() == q
		} else {
			race.Clear(o)
		}
		for j, h := range part {
			m := kernel.WindowMask(h, c.t.K, c.g)
			lane := c.lane(s.cur, h)
			if o[j] {
				insertLane(lane, &m)
				o[j] = false
				continue
			}
			seenBefore := !clean && c.lookupOlder(h, s)
			if addNewLane(lane, &m) && !seenBefore {
				o[j] = true
				n++
			}
		}
	}
	runtime.KeepAlive(c)
	return n
}

// addNewChunk is the keys ConcurrentWindow.AddNewHashes looks up at once
// before adding them: their lines (16 KiB at G <= 4) stay in L1 for the
// adds.
const addNewChunk = 256

// Generations returns G.
func (c *ConcurrentWindow) Generations() int { return c.g }

// Slice returns a slice's duration, or 0 for a window that advances by
// count.
func (c *ConcurrentWindow) Slice() time.Duration { return c.slice }

// SliceStart returns the start of the current slice, the one the latest
// rotation moved to (or the window's creation, before any): the window's
// own time, as Window.SliceStart's, which a saved window keeps. The zero
// Time for a window that advances by count. With adds running it may be a
// slice behind by the time it returns.
func (c *ConcurrentWindow) SliceStart() time.Time {
	s := c.state.Load()
	if c.slice == 0 || s == nil {
		return time.Time{}
	}
	return time.Unix(0, s.start)
}

// Window returns the guaranteed window, (G-1) slices, or 0 for a window
// that advances by count (see SliceKeys).
func (c *ConcurrentWindow) Window() time.Duration { return c.slice * time.Duration(c.g-1) }

// SliceKeys returns the adds per slice of a window that advances by count,
// or 0.
func (c *ConcurrentWindow) SliceKeys() uint64 { return c.sliceKeys }

// Capacity returns the keys each generation was sized for.
func (c *ConcurrentWindow) Capacity() uint64 { return c.capacity }

// K returns the probes per key.
func (c *ConcurrentWindow) K() int { return c.t.K }

// Seed returns the hash seed.
func (c *ConcurrentWindow) Seed() uint64 { return c.seed }

// Blocks returns the 64-byte lines of all generations together.
func (c *ConcurrentWindow) Blocks() uint64 { return uint64(len(c.t.Blocks)) }

// Groups returns the groups of the table, as Window.Groups.
func (c *ConcurrentWindow) Groups() uint64 { return c.nb }

// LaneBits returns the bits of one generation's lane: 256 at G = 2, 128
// above.
func (c *ConcurrentWindow) LaneBits() int { return 64 * kernel.LaneWords(c.g) }

// SizeBytes returns the memory the blocks of all generations take.
func (c *ConcurrentWindow) SizeBytes() uint64 { return uint64(len(c.t.Blocks)) * kernel.BlockBytes }

// Close releases the memory as Window.Close does. It must not run
// concurrently with other methods.
func (c *ConcurrentWindow) Close() error {
	c.mu.Lock()
	c.ex.stop()
	c.mu.Unlock()
	c.wt.Close()
	return c.free()
}
