package fuzz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/kernel"
)

// FuzzWindow runs a script of operations through the windowed Bloom
// filters at once: a blocked.Window per kernel set (batch calls, with the
// set selected), a single-key reference Window (generic kernels) and a
// blocked.ConcurrentWindow (taking the kernel sets in turn), all made with
// the same fuzzed geometry, seed and options, by an injected clock that
// the script moves or by count (WithSliceKeys), with or without
// WithExpiryOnAdd. Two models written here from the Window doc run beside
// them (winModel): the slice of each key's last add, which says which keys
// the window guarantees to find, and every generation's bits in the
// documented layout (modelWindowAdd), which gives every answer exactly,
// false positives included. After every step every filter must answer
// every key seen as the bit model does (ContainsHashes and ContainsHash),
// a key inside its guaranteed window must be found, and every Window's
// image must be the model's bits (and every lane's header the reference
// lane's). Add-if-new must answer as the model (never new for a key inside
// its window; the negation of ContainsHash just before unless the add
// rotates away a generation a lookup still counted), batches as the
// single calls in order, leaving out past the batch alone. A reload
// (WriteTo → ReadWindow, MarshalBinary → WindowFromBytes, AppendBinary →
// UnmarshalBinary into another Window or in place) must re-encode to the
// same bytes and answer alike, and the script goes on with the copy; a
// closed filter must panic (or, encoding, fail) with ErrClosed.
//
// A window script is 6 parameter bytes (decodeWinParams), then operations.
// Each is an op byte b: b%numWinOps names it (0 add, 1 add-batch, 2
// add-new, 3 add-new-batch, 4 contains, 5 contains-batch, 6 tick, 7
// reload, 8 close, 9 fill) and v = b/numWinOps is its variant; then its
// arguments:
//
//	add, add-new, contains  one key (winHarness.key); v%4 picks the first
//	                        lane's form (bytes, string, uint64, hash), the
//	                        other filters take the next forms in turn
//	add-batch, contains-batch, add-new-batch
//	                        a count byte c, then c%winMaxBatch keys;
//	                        add-new-batch's out has 1+v%3 entries more
//	tick                    a byte a: the clock's step (winHarness.tick)
//	reload                  a byte m: m%4 the decoder, m/4 the lanes, a
//	                        bit each, from the reference lane (0: all)
//	close                   a byte: the filter, lanes then the
//	                        ConcurrentWindow, modulo their number
//	fill                    a count byte c: 129+2c keys, mostly made up,
//	                        with repeats, as one batch: add-if-new for odd
//	                        v, else add (up to winMaxFill made-up keys)
//
// Missing bytes read as zero, so every input is a valid script.

// Operation codes of a window script: an op byte modulo numWinOps. New
// ones go at the end, so that seeds keep their meaning.
const (
	wopAdd = iota
	wopAddBatch
	wopAddNew
	wopAddNewBatch
	wopContains
	wopContainsBatch
	wopTick
	wopReload
	wopClose
	wopFill
	numWinOps
)

var winOpNames = [numWinOps]string{"add", "add-batch", "add-new", "add-new-batch", "contains", "contains-batch", "tick", "reload", "close", "fill"}

// Limits that keep one execution fast whatever the input.
const (
	winMaxOps    = 120  // operations per script
	winMaxBatch  = 64   // keys per batch
	winMaxFill   = 1200 // made-up keys of fill operations, in all
	winSmallKeys = 48   // size of the small key space
	winProbeKeys = 16   // keys never added, always probed
)

// winOrigin is the fake clock's time when the filters are made: offset 0.
var winOrigin = time.Unix(1_700_000_000, 0)

// winParams are a window script's geometry and options, from its first
// bytes.
type winParams struct {
	g         int     // generations
	n         uint64  // keys per window
	fpp       float64 // over the window
	byCount   bool    // WithSliceKeys
	expiry    bool    // WithExpiryOnAdd
	slice     int64   // a slice, ns (by time)
	sliceKeys uint64  // a slice, adds (by count)
	window    time.Duration
	seed      uint64
	mode      int // the batch kernels' mode, an index of kernel.BatchModes
}

// decodeWinParams reads the 6 parameter bytes:
//
//	p[0]  bits 0-2: G = 2<<(x%6); bit 3: by count (WithSliceKeys); bit 4:
//	      WithExpiryOnAdd; bits 5-6: fpp, one of 0.01, 0.1, 0.5, 0.001
//	p[1]  n-1 (keys per window)
//	p[2]  the slice: 1+x%64 ns by time, 1+x%40 adds by count
//	p[3]  by time, NewWindow's window is the slice·(G-1) - x%(G-1) ns
//	      (which it must cut into the same slices, rounding up; with a
//	      slice of 1 ns, exactly G-1 ns, the shortest window allowed)
//	p[4]  the seed, times a constant
//	p[5]  the batch kernels' mode (kernel.SetBatchModes), x%len(kernel.BatchModes)
func decodeWinParams(in *input) winParams {
	var b [6]byte
	for i := range b {
		b[i] = in.byte()
	}
	p := winParams{
		g:       2 << (b[0] & 7 % 6),
		n:       1 + uint64(b[1]),
		fpp:     [4]float64{0.01, 0.1, 0.5, 0.001}[b[0]>>5&3],
		byCount: b[0]&8 != 0,
		expiry:  b[0]&16 != 0,
		seed:    uint64(b[4]) * 0x9e3779b97f4a7c15,
		mode:    int(b[5]) % len(kernel.BatchModes),
	}
	if p.byCount {
		p.sliceKeys = 1 + uint64(b[2]%40)
	} else {
		p.slice = 1 + int64(b[2]%64)
		r := int64(int(b[3]) % (p.g - 1))
		if p.slice == 1 {
			r = 0
		}
		p.window = time.Duration(p.slice*int64(p.g-1) - r)
	}
	return p
}

// winClock is the fake clock every filter of a script reads.
type winClock struct{ now time.Time }

// Now is the clock, for WithClock.
func (c *winClock) Now() time.Time { return c.now }

// options are NewWindow's and NewConcurrentWindow's options for p, with
// clock (passed by count too, where the window must ignore it).
func (p winParams) options(clock *winClock) []blocked.Option {
	opts := []blocked.Option{blocked.WithGenerations(p.g), blocked.WithSeed(p.seed), blocked.WithClock(clock.Now)}
	if p.byCount {
		opts = append(opts, blocked.WithSliceKeys(p.sliceKeys))
	}
	if p.expiry {
		opts = append(opts, blocked.WithExpiryOnAdd())
	}
	return opts
}

// loadOptions are the decoders' options for p: the same clock and
// WithExpiryOnAdd, which a window does not save.
func (p winParams) loadOptions(clock *winClock) []blocked.Option {
	opts := []blocked.Option{blocked.WithClock(clock.Now)}
	if p.expiry {
		opts = append(opts, blocked.WithExpiryOnAdd())
	}
	return opts
}

// winModel is the exact model of a Window, from its doc: time is cut into
// slices (of slice ns from the window's making, or of sliceKeys adds);
// an add goes to the current slice's generation, after each slice boundary
// passed since the last add has cleared the oldest generation and made it
// the current one (a clock behind the current slice counts as standing
// still in it); a lookup ORs the generations still live: by time, those
// of the G-1 slices before the clock's and of the clock's own, with
// WithExpiryOnAdd or by count every generation (a generation expires at
// the next add). blocks holds the bits in the layout of modelWindowLane;
// last the slice of each key's last add.
type winModel struct {
	g, k      int
	nb        uint64 // groups
	slice     int64  // ns; 0 by count
	sliceKeys uint64
	expiry    bool
	blocks    []kernel.Block
	cur       int    // the current slice's generation (0 for slice 0)
	state     int64  // the current slice: that of the last add, or 0
	adds      uint64 // adds in all
	added     uint64 // adds in the current slice
	last      map[uint64]int64
}

// clockSlice returns the slice the clock's offset now is in, by time
// (rounding down: negative before the window was made).
func (m *winModel) clockSlice(now int64) int64 {
	s := now / m.slice
	if now%m.slice < 0 {
		s--
	}
	return s
}

// addSlice returns the slice an add at now goes to.
func (m *winModel) addSlice(now int64) int64 {
	if m.slice == 0 {
		return int64(m.adds / m.sliceKeys)
	}
	return max(m.state, m.clockSlice(now))
}

// lookupSlice returns the slice a lookup at now counts from: the clock's
// by time, the last add's with WithExpiryOnAdd or by count.
func (m *winModel) lookupSlice(now int64) int64 {
	if m.slice == 0 || m.expiry {
		return m.state
	}
	return max(m.state, m.clockSlice(now))
}

// live returns the mask of the generations a lookup at now reads: those
// of the slices at most G-1 before lookupSlice, back from cur.
func (m *winModel) live(now int64) uint64 {
	n := int64(m.g) - (m.lookupSlice(now) - m.state)
	var mask uint64
	for d := int64(0); d < n; d++ {
		mask |= 1 << uint(((m.cur-int(d))%m.g+m.g)%m.g)
	}
	return mask
}

// clearGen clears generation j's lane in every group (modelWindowLane's
// layout: a group is g/lanes lines of lanes lanes each).
func (m *winModel) clearGen(j int) {
	lanes := modelLanes(m.g)
	words := kernel.BlockWords / lanes
	for grp := uint64(0); grp < m.nb; grp++ {
		b := &m.blocks[grp*uint64(m.g/lanes)+uint64(j/lanes)]
		clear(b[j%lanes*words : (j%lanes+1)*words])
	}
}

// rotateTo moves the model on to slice e, clearing a generation for each
// slice boundary passed (all of them for G or more), and reports whether
// it moved.
func (m *winModel) rotateTo(e int64) bool {
	steps := e - m.state
	if steps <= 0 {
		return false
	}
	for i := int64(1); i <= min(steps, int64(m.g)); i++ {
		m.clearGen(int((int64(m.cur) + i) % int64(m.g)))
	}
	m.cur = int((int64(m.cur) + steps) % int64(m.g))
	m.state = e
	m.added = 0
	return true
}

// winAddResult is what the model says of one add.
type winAddResult struct {
	slice   int64 // the slice it went to
	age     int64 // slices since the key's last add before it, or -1
	held    bool  // the key was inside its guaranteed window
	rotated bool  // the add moved the window on to a new slice
	isNew   bool  // add-if-new's answer: in no generation after the rotation
}

// describe describes the add of key h for a failure.
func (r winAddResult) describe(h uint64) string {
	last := "never added before"
	if r.age >= 0 {
		last = fmt.Sprintf("last added %d slices before", r.age)
	}
	return fmt.Sprintf("key %#x, added in slice %d, %s (the add rotated: %v)", h, r.slice, last, r.rotated)
}

// add adds the key with hash h at now, and returns what add-if-new sees.
func (m *winModel) add(h uint64, now int64) winAddResult {
	e := m.addSlice(now)
	r := winAddResult{slice: e, age: -1}
	if a, ok := m.last[h]; ok {
		r.age = e - a
	}
	r.held = r.age >= 0 && r.age <= int64(m.g-1)
	r.rotated = m.rotateTo(e)
	r.isNew = !modelWindowContains(m.blocks, m.nb, m.g, ^uint64(0), m.k, h)
	modelWindowAdd(m.blocks, m.nb, m.g, m.cur, m.k, h)
	m.last[h] = e
	m.adds++
	m.added++
	return r
}

// contains is the exact answer of a lookup of h at now.
func (m *winModel) contains(h uint64, now int64) bool {
	return modelWindowContains(m.blocks, m.nb, m.g, m.live(now), m.k, h)
}

// guaranteed reports whether the doc promises that a lookup of h at now
// finds it: its last add was in a slice at most G-1 before the lookup's
// (for at least the window W = (G-1) slices after the add).
func (m *winModel) guaranteed(h uint64, now int64) bool {
	a, ok := m.last[h]
	return ok && m.lookupSlice(now)-a <= int64(m.g-1)
}

// image returns the model's bits as a window's payload: little-endian
// words.
func (m *winModel) image() []byte {
	b := make([]byte, 0, len(m.blocks)*kernel.BlockBytes)
	for _, bl := range m.blocks {
		for _, w := range bl {
			b = binary.LittleEndian.AppendUint64(b, w)
		}
	}
	return b
}

// winFilter is what Window and ConcurrentWindow have in common.
type winFilter interface {
	Add(key []byte)
	AddString(key string)
	AddUint64(x uint64)
	AddHash(h uint64)
	AddHashes(hs []uint64)
	AddNew(key []byte) bool
	AddNewString(key string) bool
	AddNewUint64(x uint64) bool
	AddNewHash(h uint64) bool
	AddNewHashes(hs []uint64, out []bool) int
	Contains(key []byte) bool
	ContainsString(key string) bool
	ContainsUint64(x uint64) bool
	ContainsHash(h uint64) bool
	ContainsHashes(hs []uint64, out []bool) int
	Hash(key []byte) uint64
	HashString(key string) uint64
	HashUint64(x uint64) uint64
	Generations() int
	Slice() time.Duration
	Close() error
}

// winKeyBytes returns key x's bytes: its eight little-endian bytes, which
// AddUint64(x) and HashUint64(x) hash, so every form names the same key.
func winKeyBytes(x uint64) []byte { return binary.LittleEndian.AppendUint64(nil, x) }

// winAddForm adds key x (hash h) to f in form 0 bytes, 1 string, 2 uint64
// or 3 hash.
func winAddForm(f winFilter, form int, x, h uint64) {
	switch form % 4 {
	case 0:
		f.Add(winKeyBytes(x))
	case 1:
		f.AddString(string(winKeyBytes(x)))
	case 2:
		f.AddUint64(x)
	default:
		f.AddHash(h)
	}
}

// winAddNewForm is winAddForm for add-if-new.
func winAddNewForm(f winFilter, form int, x, h uint64) bool {
	switch form % 4 {
	case 0:
		return f.AddNew(winKeyBytes(x))
	case 1:
		return f.AddNewString(string(winKeyBytes(x)))
	case 2:
		return f.AddNewUint64(x)
	}
	return f.AddNewHash(h)
}

// winContainsForm is winAddForm for lookups.
func winContainsForm(f winFilter, form int, x, h uint64) bool {
	switch form % 4 {
	case 0:
		return f.Contains(winKeyBytes(x))
	case 1:
		return f.ContainsString(string(winKeyBytes(x)))
	case 2:
		return f.ContainsUint64(x)
	}
	return f.ContainsHash(h)
}

// winLane is one Window: the first lane makes single-key calls with the
// generic kernels and is the reference, the others batch calls with their
// kernel set.
type winLane struct {
	name  string
	impl  string
	batch bool
	w     *blocked.Window
	// By time a window does not save its current slice's adds: a reload
	// restarts SliceAdds at 0 until the next slice. lost is how many the
	// last reload lost, in slice lostIn.
	lost   uint64
	lostIn int64
}

// winLogEntry is one add operation, for rebuilding a ConcurrentWindow
// (which is not encoded) after close: the clock's offset and the hashes.
type winLogEntry struct {
	now int64
	hs  []uint64
}

// winStats summarise a run: what the hand-made seeds must reach.
type winStats struct {
	ops           [numWinOps]int
	batchRotate   int // add batches whose first add moved the window by time
	countRotAdd   int // AddHashes batches by count that move the window after their first key
	countRotNew   int // AddNewHashes batches by count that do
	newHeld       int // add-if-new of a key inside its window (so not new)
	newExpired    int // add-if-new of a key exactly G slices after its last add
	newDup        int // keys of an add-if-new batch repeated earlier in it
	newShared     int // keys of an add-if-new batch whose group an earlier, other key of it has
	newChunks     int // add-if-new batches longer than a run of the batch kernel (256)
	reloadsHeld   int // reloads of windows holding a key inside its window
	backSteps     int // clock steps backwards
	addBehind     int // adds by time with the clock behind the current slice
	lookupExpired int // checks by time, without WithExpiryOnAdd, after slices ended with no add
	staleFound    int // checks with WithExpiryOnAdd finding a key the clock has expired, no add since
	closes        int // Window lanes closed (and reloaded)
	concCloses    int // ConcurrentWindows closed (and rebuilt)
}

// winHarness runs a window script.
type winHarness struct {
	p     winParams
	clk   *winClock
	now   int64 // the clock's offset from winOrigin, ns
	lanes []*winLane
	conc  *blocked.ConcurrentWindow
	m     winModel
	log   []winLogEntry

	// Every key seen, with its hash, for answer comparisons.
	known    []uint64
	knownH   []uint64
	knownSet map[uint64]bool

	fillNext int
	out      []bool
	st       winStats
}

// runWindowScript runs the window script in data and returns the first
// violated invariant as an error (any other panic is re-raised with its
// stack).
func runWindowScript(data []byte) (st winStats, err error) {
	defer endScript(kernel.Impl(), &err)
	in := &input{b: data}
	p := decodeWinParams(in)
	if kernel.SetBatchModes != nil {
		m := kernel.BatchModes[p.mode]
		defer kernel.SetBatchModes(m)()
	}
	h := newWinHarness(p)
	defer h.closeAll()
	h.checkAll("new")
	for n := 0; n < winMaxOps && in.more(); n++ {
		b := in.byte()
		op, v := int(b)%numWinOps, int(b)/numWinOps
		h.step(op, v, in)
		h.st.ops[op]++
		if op != wopContains && op != wopContainsBatch {
			h.checkAll(winOpNames[op])
		}
	}
	return h.st, nil
}

// winSmallKey is key i of the small key space.
func winSmallKey(i int) uint64 { return 0x6b6579<<40 | uint64(i) }

// winProbeKey is probe key i, never added.
func winProbeKey(i int) uint64 { return 0x70726f<<40 | uint64(i) }

// winFillKey is the i-th made-up key of fill operations.
func winFillKey(i int) uint64 { return 0x66696c<<40 | uint64(i) }

// newWinHarness makes the filters and the model for p, and checks the
// windows' geometry against p and each other.
func newWinHarness(p winParams) *winHarness {
	h := &winHarness{p: p, clk: &winClock{now: winOrigin}, knownSet: map[uint64]bool{}}
	h.lanes = append(h.lanes, &winLane{name: "single", impl: "generic"})
	for _, impl := range kernel.Impls() {
		h.lanes = append(h.lanes, &winLane{name: "batch/" + impl, impl: impl, batch: true})
	}
	for _, l := range h.lanes {
		useImpl(l.impl)
		l.w = must(blocked.NewWindow(p.n, p.fpp, p.window, p.options(h.clk)...))
	}
	h.conc = must(blocked.NewConcurrentWindow(p.n, p.fpp, p.window, p.options(h.clk)...))
	w := h.lanes[0].w
	lanes := modelLanes(p.g)
	h.m = winModel{g: p.g, k: w.K(), nb: w.Groups(), slice: p.slice, sliceKeys: p.sliceKeys, expiry: p.expiry, last: map[uint64]int64{}}
	h.m.blocks = make([]kernel.Block, h.m.nb*uint64(p.g/lanes))
	perGen := (p.n + uint64(p.g) - 2) / uint64(p.g-1)
	switch {
	case w.Generations() != p.g || h.conc.Generations() != p.g:
		failf("%d generations (ConcurrentWindow %d), want %d", w.Generations(), h.conc.Generations(), p.g)
	case w.Slice() != time.Duration(p.slice) || h.conc.Slice() != w.Slice():
		failf("slice %v (ConcurrentWindow %v), want %v: window %v cut into %d slices", w.Slice(), h.conc.Slice(), time.Duration(p.slice), p.window, p.g-1)
	case w.Window() != time.Duration(p.slice*int64(p.g-1)) || w.SliceKeys() != p.sliceKeys:
		failf("Window() %v, SliceKeys %d; want %v and %d", w.Window(), w.SliceKeys(), time.Duration(p.slice*int64(p.g-1)), p.sliceKeys)
	case w.Blocks() != uint64(len(h.m.blocks)) || w.SizeBytes() != w.Blocks()*kernel.BlockBytes:
		failf("%d lines (%d bytes) for %d groups of %d generations", w.Blocks(), w.SizeBytes(), w.Groups(), p.g)
	case w.LaneBits() != 64*kernel.BlockWords/lanes || w.Seed() != p.seed:
		failf("lanes of %d bits, seed %#x", w.LaneBits(), w.Seed())
	case w.Capacity() != max(p.sliceKeys, perGen):
		failf("capacity %d keys a generation, want %d (n = %d, %d adds a slice)", w.Capacity(), max(p.sliceKeys, perGen), p.n, p.sliceKeys)
	}
	for _, l := range h.lanes[1:] {
		if winGeometry(l.w) != winGeometry(w) {
			failf("%s: geometry %+v, the single lane's %+v", l.name, winGeometry(l.w), winGeometry(w))
		}
	}
	for i := range winSmallKeys {
		h.learn(winSmallKey(i))
	}
	for i := range winProbeKeys {
		h.learn(winProbeKey(i))
	}
	return h
}

// winGeom is what a Window's accessors say of its geometry.
type winGeom struct {
	g, k, laneBits                      int
	slice, window                       time.Duration
	sliceKeys, capacity, blocks, groups uint64
	seed, size                          uint64
}

// winGeometry returns w's geometry.
func winGeometry(w *blocked.Window) winGeom {
	return winGeom{w.Generations(), w.K(), w.LaneBits(), w.Slice(), w.Window(), w.SliceKeys(), w.Capacity(), w.Blocks(), w.Groups(), w.Seed(), w.SizeBytes()}
}

// closeAll releases every filter.
func (h *winHarness) closeAll() {
	for _, l := range h.lanes {
		l.w.Close()
	}
	h.conc.Close()
}

// turnLane returns the batch lane whose kernel set the ConcurrentWindow
// runs the current operation with: the sets in turn, one operation after
// another.
func (h *winHarness) turnLane() *winLane { return h.lanes[turn(h.st.ops[:], len(h.lanes))] }

// hashOf is the key's hash by the package doc: XXH3-64 of its bytes with
// the seed.
func (h *winHarness) hashOf(x uint64) uint64 { return hash.Bytes(winKeyBytes(x), h.p.seed) }

// learn adds x to the keys every check probes, and checks that every
// filter hashes it, in every form, as hashOf does.
func (h *winHarness) learn(x uint64) {
	if h.knownSet[x] {
		return
	}
	h.knownSet[x] = true
	hx := h.hashOf(x)
	h.known = append(h.known, x)
	h.knownH = append(h.knownH, hx)
	for _, f := range []winFilter{h.lanes[0].w, h.conc} {
		b := winKeyBytes(x)
		if f.Hash(b) != hx || f.HashString(string(b)) != hx || f.HashUint64(x) != hx {
			failf("key %#x: Hash %#x, HashString %#x, HashUint64 %#x; want %#x", x, f.Hash(b), f.HashString(string(b)), f.HashUint64(x), hx)
		}
	}
}

// key reads one key: a byte below 0xe0 names one of winSmallKeys keys (so
// keys repeat); 0xe0+c is followed by c%7+1 bytes of a fresh key.
func (h *winHarness) key(in *input) uint64 {
	c := in.byte()
	if c < 0xe0 {
		return winSmallKey(int(c) % winSmallKeys)
	}
	x := uint64(0xfe) << 56
	for i := range int(c-0xe0)%7 + 1 {
		x |= uint64(in.byte()) << (8 * i)
	}
	return x
}

// keys reads a count byte c, then c%winMaxBatch keys.
func (h *winHarness) keys(in *input) []uint64 {
	xs := make([]uint64, int(in.byte())%winMaxBatch)
	for i := range xs {
		xs[i] = h.key(in)
	}
	return xs
}

// hashes learns xs and returns their hashes.
func (h *winHarness) hashes(xs []uint64) []uint64 {
	hs := make([]uint64, len(xs))
	for i, x := range xs {
		h.learn(x)
		hs[i] = h.hashOf(x)
	}
	return hs
}

// step runs operation op, variant v.
func (h *winHarness) step(op, v int, in *input) {
	switch op {
	case wopAdd:
		x := h.key(in)
		h.add([]uint64{x}, h.hashes([]uint64{x}), false, v)
	case wopAddBatch:
		xs := h.keys(in)
		h.add(xs, h.hashes(xs), true, v)
	case wopAddNew:
		x := h.key(in)
		h.addNew([]uint64{x}, h.hashes([]uint64{x}), false, v)
	case wopAddNewBatch:
		xs := h.keys(in)
		h.addNew(xs, h.hashes(xs), true, v)
	case wopContains:
		x := h.key(in)
		h.contains(x, h.hashes([]uint64{x})[0], v)
	case wopContainsBatch:
		h.checkKeys("contains-batch", h.hashes(h.keys(in)))
	case wopTick:
		h.tick(in.byte())
	case wopReload:
		h.reload(in.byte())
	case wopClose:
		h.close(in.byte())
	case wopFill:
		h.fill(in.byte(), v)
	}
}

// where describes the window's state for a failure.
func (h *winHarness) where() string {
	mode := fmt.Sprintf("by time (slice %d ns)", h.p.slice)
	if h.p.byCount {
		mode = fmt.Sprintf("by count (%d adds a slice, %d adds made)", h.p.sliceKeys, h.m.adds)
	}
	return fmt.Sprintf("G=%d k=%d groups=%d %s expiry-on-add=%v; clock at %d ns, window in slice %d (generation %d), lookups in slice %d",
		h.p.g, h.m.k, h.m.nb, mode, h.p.expiry, h.now, h.m.state, h.m.cur, h.m.lookupSlice(h.now))
}

// keyState describes the model's view of the key with hash x.
func (h *winHarness) keyState(x uint64) string {
	a, ok := h.m.last[x]
	if !ok {
		return fmt.Sprintf("key %#x never added", x)
	}
	return fmt.Sprintf("key %#x last added in slice %d (guaranteed: %v)", x, a, h.m.guaranteed(x, h.now))
}

// add adds the keys xs (hashes hs) to every filter: the reference lane
// one at a time in the forms in turn; the batch lanes one key in form v
// and the next forms, or a batch with AddHashes; the ConcurrentWindow
// likewise. Each key must be present after in the reference lane.
func (h *winHarness) add(xs, hs []uint64, batch bool, v int) {
	for li, l := range h.lanes {
		useImpl(l.impl)
		if batch && l.batch {
			l.w.AddHashes(hs)
			continue
		}
		for j, x := range xs {
			winAddForm(l.w, v+li+j, x, hs[j])
			if li == 0 && !l.w.ContainsHash(hs[j]) {
				failf("false negative: single Window lost %s just added; %s", h.keyState(hs[j]), h.where())
			}
		}
	}
	useImpl(h.turnLane().impl)
	if batch {
		h.conc.AddHashes(hs)
	} else if len(xs) == 1 {
		winAddForm(h.conc, v+len(h.lanes), xs[0], hs[0])
	}
	h.modelAdds(hs, batch, false)
}

// modelAdds adds hs to the model and the log, counts what the seeds must
// reach, and returns the model's answers.
func (h *winHarness) modelAdds(hs []uint64, batch, addNew bool) []winAddResult {
	if len(hs) == 0 {
		return nil
	}
	h.log = append(h.log, winLogEntry{h.now, append([]uint64(nil), hs...)})
	rs := make([]winAddResult, len(hs))
	for j, x := range hs {
		if h.p.slice != 0 && h.m.clockSlice(h.now) < h.m.state {
			h.st.addBehind++
		}
		rs[j] = h.m.add(x, h.now)
		switch {
		case !batch || len(hs) < 2 || !rs[j].rotated:
		case j == 0 && h.p.slice != 0:
			h.st.batchRotate++
		case j > 0 && addNew:
			h.st.countRotNew++
		case j > 0:
			h.st.countRotAdd++
		}
	}
	return rs
}

// addNew runs add-if-new of xs (hashes hs) on every filter. The model
// answers first (winModel.add). The reference lane calls the single forms
// in turn, key by key: each answer must be the model's, a key inside its
// window must not be new, the answer must be the negation of ContainsHash
// just before the call where that lookup counts the generations the add
// will (by time without WithExpiryOnAdd, or where the add does not move
// the window; else a key the lookup missed must still be new), and the key
// must be present after. A single key goes the same way through every
// filter; a batch through AddNewHashes (newOuts' out, one to three entries
// longer, which must stay untouched), whose answers and count must be the
// model's.
func (h *winHarness) addNew(xs, hs []uint64, batch bool, v int) {
	if batch {
		dup, shared := batchRepeats(hs, h.m.nb)
		h.st.newDup += dup
		h.st.newShared += shared
		if len(hs) > 256 {
			h.st.newChunks++
		}
	}
	// The model's answers, from the state before any filter's add.
	rs := h.modelAdds(hs, batch, true)
	want := make([]bool, len(hs))
	nNew := 0
	for j, r := range rs {
		want[j] = r.isNew
		if r.isNew {
			nNew++
		}
		if r.held && !r.isNew {
			h.st.newHeld++
		}
		if r.age == int64(h.p.g) {
			h.st.newExpired++
		}
	}
	lookupCounts := h.p.slice != 0 && !h.p.expiry
	before := make([]bool, len(hs)) // the reference lane's lookups
	check := func(name string, j int, got, before bool) {
		r := rs[j]
		switch {
		case got && r.held:
			failf("%s: AddNew = true for %s (inside its window); %s", name, r.describe(hs[j]), h.where())
		case got != r.isNew:
			failf("%s: AddNew = %v for %s, the model's %v; %s", name, got, r.describe(hs[j]), r.isNew, h.where())
		case (lookupCounts || !r.rotated) && got == before:
			failf("%s: AddNew = %v for %s with ContainsHash %v just before; %s", name, got, r.describe(hs[j]), before, h.where())
		case !before && !got:
			failf("%s: AddNew = false for %s, which ContainsHash missed just before; %s", name, r.describe(hs[j]), h.where())
		}
	}
	for li, l := range h.lanes {
		useImpl(l.impl)
		if batch && l.batch {
			h.addNewBatch(l.name+" Window", l.w, hs, want, nNew, v)
			continue
		}
		for j, x := range xs {
			b := l.w.ContainsHash(hs[j])
			if li == 0 {
				before[j] = b
			} else if b != before[j] {
				failf("%s: ContainsHash %v for %s, the single lane's %v; %s", l.name, b, h.keyState(hs[j]), before[j], h.where())
			}
			got := winAddNewForm(l.w, v+li+j, x, hs[j])
			check(l.name+" Window", j, got, b)
			if !l.w.ContainsHash(hs[j]) {
				failf("false negative: %s Window lost %s just added by AddNew; %s", l.name, h.keyState(hs[j]), h.where())
			}
		}
	}
	useImpl(h.turnLane().impl)
	if batch {
		h.addNewBatch("ConcurrentWindow", h.conc, hs, want, nNew, v)
	} else if len(xs) == 1 {
		b := h.conc.ContainsHash(hs[0])
		check("ConcurrentWindow", 0, winAddNewForm(h.conc, v+len(h.lanes), xs[0], hs[0]), b)
	}
}

// addNewBatch runs f.AddNewHashes(hs, out) with out 1+v%3 entries longer
// than hs, set beforehand to the opposite of want and, past hs, to
// alternate values: the answers must be want, the count nNew, and out past
// hs unchanged.
func (h *winHarness) addNewBatch(name string, f winFilter, hs []uint64, want []bool, nNew, v int) {
	extra := 1 + v%3
	out := make([]bool, len(hs)+extra)
	for j := range out {
		if j < len(hs) {
			out[j] = !want[j]
		} else {
			out[j] = (j-len(hs))%2 == 0
		}
	}
	n := f.AddNewHashes(hs, out)
	for j := range out {
		switch {
		case j < len(hs) && out[j] != want[j]:
			failf("%s: AddNewHashes answer %d (key %#x) = %v, the model's (single calls') %v (batch of %d); %s", name, j, hs[j], out[j], want[j], len(hs), h.where())
		case j >= len(hs) && out[j] != ((j-len(hs))%2 == 0):
			failf("%s: AddNewHashes wrote out[%d], past its %d keys", name, j, len(hs))
		}
	}
	if n != nNew {
		failf("%s: AddNewHashes returned %d, %d keys are new (batch of %d); %s", name, n, nNew, len(hs), h.where())
	}
}

// contains asks every filter about one key, in form v and the next forms
// in turn: the answers must be the model's.
func (h *winHarness) contains(x, hx uint64, v int) {
	want := h.m.contains(hx, h.now)
	if h.m.guaranteed(hx, h.now) && !want {
		failf("model: %s is not found by the bits model; %s", h.keyState(hx), h.where())
	}
	for li, l := range h.lanes {
		useImpl(l.impl)
		if got := winContainsForm(l.w, v+li, x, hx); got != want {
			failf("%s: %s: %s answers %v, the model %v; %s", l.name, "Window", h.keyState(hx), got, want, h.where())
		}
	}
	useImpl(h.turnLane().impl)
	if got := winContainsForm(h.conc, v+len(h.lanes), x, hx); got != want {
		failf("ConcurrentWindow: %s answers %v, the model %v; %s", h.keyState(hx), got, want, h.where())
	}
}

// checkKeys compares every filter's ContainsHashes and ContainsHash of hs
// with the model's answers, which must find every key inside its window.
func (h *winHarness) checkKeys(what string, hs []uint64) {
	want := make([]bool, len(hs))
	n := 0
	for i, x := range hs {
		want[i] = h.m.contains(x, h.now)
		if want[i] {
			n++
		} else if h.m.guaranteed(x, h.now) {
			failf("model: %s is not found by the bits model; %s", h.keyState(x), h.where())
		}
	}
	if cap(h.out) < len(hs)+1 {
		h.out = make([]bool, len(hs)+1)
	}
	out := h.out[:len(hs)+1]
	check := func(name string, f winFilter) {
		for i := range hs {
			out[i] = !want[i] // an answer left unwritten shows
		}
		out[len(hs)] = true
		got := f.ContainsHashes(hs, out)
		if !out[len(hs)] {
			failf("%s: ContainsHashes wrote past len(hs)", name)
		}
		for i, x := range hs {
			kind := "answers"
			if !out[i] && h.m.guaranteed(x, h.now) {
				kind = "false negative: answers"
			}
			if out[i] != want[i] {
				failf("%s: %s: ContainsHashes[%d] %s %v for %s, the model %v (batch of %d); %s", what, name, i, kind, out[i], h.keyState(x), want[i], len(hs), h.where())
			}
			if s := f.ContainsHash(x); s != want[i] {
				failf("%s: %s: ContainsHash answers %v for %s, the model %v; %s", what, name, s, h.keyState(x), want[i], h.where())
			}
		}
		if got != n {
			failf("%s: %s: ContainsHashes returned %d, %d are true", what, name, got, n)
		}
	}
	for _, l := range h.lanes {
		useImpl(l.impl)
		check(l.name+" Window", l.w)
	}
	useImpl(h.turnLane().impl)
	check("ConcurrentWindow", h.conc)
}

// checkAll checks every invariant: every filter's answers on every key
// seen (checkKeys), the reference lane's bits against the model's, every
// other lane's whole image against the reference lane's, and SliceAdds.
func (h *winHarness) checkAll(after string) {
	defer func() {
		if r := recover(); r != nil {
			if f, ok := r.(failure); ok {
				panic(failure{"after " + after + ": " + f.msg})
			}
			panic(r)
		}
	}()
	if h.p.slice != 0 && !h.p.expiry && h.m.clockSlice(h.now) > h.m.state {
		h.st.lookupExpired++
	}
	if h.p.slice != 0 && h.p.expiry {
		for _, x := range h.knownH {
			if a, ok := h.m.last[x]; ok && h.m.clockSlice(h.now)-a > int64(h.p.g-1) && h.m.contains(x, h.now) {
				h.st.staleFound++
				break
			}
		}
	}
	h.checkKeys("check", h.knownH)
	ref := image(h.lanes[0].w)
	if !bytes.Equal(ref[format.HeaderSize:], h.m.image()) {
		failf("the single lane's bits differ from the model's; %s", h.where())
	}
	for _, l := range h.lanes {
		if l != h.lanes[0] && !bytes.Equal(image(l.w), ref) {
			failf("%s Window's image differs from the single lane's", l.name)
		}
		want := h.m.added
		if l.lostIn == h.m.state {
			want -= l.lost
		}
		if got := l.w.SliceAdds(); got != want {
			failf("%s: SliceAdds %d, the model %d (%d lost to a reload by time in slice %d); %s", l.name, got, want, l.lost, l.lostIn, h.where())
		}
	}
}

// tick moves the clock by a step of kind a%8 and size x = a/8: 0 none,
// 1 less than a slice (x mod the slice), 2 to the next slice boundary,
// 3 to one ns before it (none if there already), 4 one slice, 5 several
// slices (2 to G+1, plus x mod the slice; 2^40 ns for x = 31), 6 more
// than the window ((G-1) slices + 1 to 2 slices, past W + one slice for
// large x), 7 backwards by 1 ns + x/8 slices' worth (2^40 ns for x = 30).
// By count the clock moves alike (an 8 ns slice) and the windows must
// ignore it.
func (h *winHarness) tick(a byte) {
	s := h.p.slice
	if s == 0 {
		s = 8
	}
	g, x := int64(h.p.g), int64(a/8)
	pos := (h.now%s + s) % s
	var d int64
	switch a % 8 {
	case 1:
		d = x % s
	case 2:
		d = s - pos
	case 3:
		d = s - pos - 1
	case 4:
		d = s
	case 5:
		d = (2+x%g)*s + x%s
		if x == 31 {
			d = 1 << 40 // many windows
		}
	case 6:
		d = (g-1)*s + 1 + x%(2*s)
	case 7:
		d = -(1 + x*s/8)
		if x == 30 {
			d = -1 << 40
		}
		h.st.backSteps++
	}
	h.now += d
	h.clk.now = winOrigin.Add(time.Duration(h.now))
}

// reload saves and reloads the lanes selected by mode/4 (a bit each from
// the reference lane; 0 all) with decoder mode%4 (reloadWindow), and the
// script goes on with the copies.
func (h *winHarness) reload(mode byte) {
	sel := mode / 4
	for _, x := range h.knownH {
		if h.m.guaranteed(x, h.now) {
			h.st.reloadsHeld++
			break
		}
	}
	for li, l := range h.lanes {
		if sel != 0 && sel>>li&1 == 0 {
			continue
		}
		useImpl(l.impl)
		h.reloadWindow(l, mode%4)
	}
}

// reloadWindow replaces l's window by a copy through decoder dec: 0 WriteTo
// then ReadWindow (from a stream with bytes after the window, which it
// must leave), 1 MarshalBinary then WindowFromBytes, 2 AppendBinary then
// UnmarshalBinary into another Window (by time one made with the same
// clock and WithExpiryOnAdd but another geometry; by count a zero Window,
// whose default clock does not matter), 3 UnmarshalBinary of its own
// bytes in place. The decoders get the same clock and WithExpiryOnAdd. The
// copy must re-encode to the same bytes, have the same geometry and
// answer every key seen alike.
func (h *winHarness) reloadWindow(l *winLane, dec byte) {
	old := l.w
	data := image(old)
	geom := winGeometry(old)
	before := make([]bool, len(h.knownH))
	old.ContainsHashes(h.knownH, before)
	var w *blocked.Window
	var err error
	switch dec {
	case 0:
		var buf bytes.Buffer
		n, werr := old.WriteTo(&buf)
		if werr != nil || n != int64(len(data)) || !bytes.Equal(buf.Bytes(), data) {
			failf("%s: WriteTo wrote %d bytes (%v), MarshalBinary %d, same: %v", l.name, n, werr, len(data), bytes.Equal(buf.Bytes(), data))
		}
		buf.Write([]byte{0xa5, 0x5a})
		r := bytes.NewReader(buf.Bytes())
		if w, err = blocked.ReadWindow(r, h.p.loadOptions(h.clk)...); err == nil && r.Len() != 2 {
			failf("%s: ReadWindow left %d bytes of the 2 after the window", l.name, r.Len())
		}
	case 1:
		w, err = blocked.WindowFromBytes(data, h.p.loadOptions(h.clk)...)
	case 2:
		b, aerr := old.AppendBinary([]byte{1, 2, 3})
		if aerr != nil || !bytes.Equal(b[:3], []byte{1, 2, 3}) || !bytes.Equal(b[3:], data) {
			failf("%s: AppendBinary: %v, or not its prefix then MarshalBinary's bytes", l.name, aerr)
		}
		if h.p.byCount {
			w = new(blocked.Window)
		} else {
			w = must(blocked.NewWindow(1, 0.5, time.Hour, h.p.loadOptions(h.clk)...))
		}
		if err = w.UnmarshalBinary(b[3:]); err != nil {
			w.Close()
		}
	default:
		w = old
		err = w.UnmarshalBinary(data)
	}
	if err != nil {
		failf("%s: reload (decoder %d): %v", l.name, dec, err)
	}
	if !bytes.Equal(image(w), data) {
		failf("%s: reload (decoder %d) re-encodes differently", l.name, dec)
	}
	if winGeometry(w) != geom {
		failf("%s: reload (decoder %d): geometry %+v, was %+v", l.name, dec, winGeometry(w), geom)
	}
	after := make([]bool, len(h.knownH))
	w.ContainsHashes(h.knownH, after)
	for i, x := range h.knownH {
		if after[i] != before[i] || w.ContainsHash(x) != before[i] {
			failf("%s: reload (decoder %d) answers %s differently (%v, was %v); %s", l.name, dec, h.keyState(x), after[i], before[i], h.where())
		}
	}
	if w != old {
		old.Close()
	}
	l.w = w
	h.lostAdds(l)
}

// lostAdds records that l's window was just decoded: by time it restarts
// SliceAdds at 0 (the format keeps the current slice's adds by count only).
func (h *winHarness) lostAdds(l *winLane) {
	if !h.p.byCount {
		l.lost, l.lostIn = h.m.added, h.m.state
	}
}

// winWantClosed calls f, which must panic with an error wrapping
// blocked.ErrClosed.
func winWantClosed(name string, f func()) {
	defer func() {
		r := recover()
		if err, ok := r.(error); !ok || !errors.Is(err, blocked.ErrClosed) {
			failf("%s of a closed window: recovered %v, want a panic wrapping ErrClosed", name, r)
		}
	}()
	f()
}

// winWantClosedCalls checks that every add and lookup of the closed f panics
// with ErrClosed.
func winWantClosedCalls(name string, f winFilter) {
	k := winKeyBytes(1)
	hs := []uint64{1, 2, 3}
	out := make([]bool, 3)
	for _, c := range []struct {
		call string
		fn   func()
	}{
		{"Add", func() { f.Add(k) }},
		{"AddString", func() { f.AddString("x") }},
		{"AddUint64", func() { f.AddUint64(1) }},
		{"AddHash", func() { f.AddHash(1) }},
		{"AddHashes", func() { f.AddHashes(hs) }},
		{"AddNew", func() { f.AddNew(k) }},
		{"AddNewString", func() { f.AddNewString("x") }},
		{"AddNewUint64", func() { f.AddNewUint64(1) }},
		{"AddNewHash", func() { f.AddNewHash(1) }},
		{"AddNewHashes", func() { f.AddNewHashes(hs, out) }},
		{"Contains", func() { f.Contains(k) }},
		{"ContainsString", func() { f.ContainsString("x") }},
		{"ContainsUint64", func() { f.ContainsUint64(1) }},
		{"ContainsHash", func() { f.ContainsHash(1) }},
		{"ContainsHashes", func() { f.ContainsHashes(hs, out) }},
	} {
		winWantClosed(name+" "+c.call, c.fn)
	}
	if err := f.Close(); err != nil {
		failf("%s: a second Close: %v", name, err)
	}
}

// close closes one filter (t modulo the lanes and the ConcurrentWindow),
// checks that it fails as documented, and replaces it: a Window by its
// bytes saved before (WindowFromBytes), the ConcurrentWindow, which is not
// encoded, by a new one given the same adds at the same times (the log).
func (h *winHarness) close(t byte) {
	i := int(t) % (len(h.lanes) + 1)
	if i == len(h.lanes) {
		useImpl(h.turnLane().impl)
		if err := h.conc.Close(); err != nil {
			failf("ConcurrentWindow Close: %v", err)
		}
		winWantClosedCalls("ConcurrentWindow", h.conc)
		h.conc = h.replay()
		h.st.concCloses++
		return
	}
	l := h.lanes[i]
	useImpl(l.impl)
	data := image(l.w)
	if err := l.w.Close(); err != nil {
		failf("%s Window Close: %v", l.name, err)
	}
	winWantClosedCalls(l.name+" Window", l.w)
	if _, err := l.w.MarshalBinary(); !errors.Is(err, blocked.ErrClosed) {
		failf("%s: MarshalBinary of a closed Window: %v, want ErrClosed", l.name, err)
	}
	if b, err := l.w.AppendBinary([]byte{7}); !errors.Is(err, blocked.ErrClosed) || !bytes.Equal(b, []byte{7}) {
		failf("%s: AppendBinary of a closed Window: %v (%d bytes), want ErrClosed and its argument", l.name, err, len(b))
	}
	var buf bytes.Buffer
	if n, err := l.w.WriteTo(&buf); !errors.Is(err, blocked.ErrClosed) || n != 0 || buf.Len() != 0 {
		failf("%s: WriteTo of a closed Window: %d bytes, %v; want ErrClosed", l.name, n, err)
	}
	l.w = must(blocked.WindowFromBytes(data, h.p.loadOptions(h.clk)...))
	h.lostAdds(l)
	h.st.closes++
}

// replay returns a new ConcurrentWindow given the log's adds at their
// times, from the time the filters were made: the state of the one it
// replaces (without races, adds are deterministic, and add-if-new adds
// what add does).
func (h *winHarness) replay() *blocked.ConcurrentWindow {
	h.clk.now = winOrigin
	c := must(blocked.NewConcurrentWindow(h.p.n, h.p.fpp, h.p.window, h.p.options(h.clk)...))
	for _, e := range h.log {
		h.clk.now = winOrigin.Add(time.Duration(e.now))
		c.AddHashes(e.hs)
	}
	h.clk.now = winOrigin.Add(time.Duration(h.now))
	return c
}

// fill adds one batch of 129+2c keys (fewer once winMaxFill made-up keys
// are used): mostly made-up keys (every 16th learned, so later checks
// probe it), every fifth a small key and every seventh the key before it
// again; with add-if-new for odd v. Every key of the batch must then
// answer as the model does.
func (h *winHarness) fill(c byte, v int) {
	n := min(129+2*int(c), winMaxFill-h.fillNext)
	if n <= 0 {
		return
	}
	xs := make([]uint64, n)
	for j := range xs {
		switch {
		case j%7 == 6:
			xs[j] = xs[j-1]
		case j%5 == 4:
			xs[j] = winSmallKey(j % winSmallKeys)
		default:
			xs[j] = winFillKey(h.fillNext)
			if h.fillNext%16 == 0 {
				h.learn(xs[j])
			}
			h.fillNext++
		}
	}
	hs := make([]uint64, n)
	for j, x := range xs {
		hs[j] = h.hashOf(x)
	}
	if v%2 == 1 {
		h.addNew(xs, hs, true, v)
	} else {
		h.add(xs, hs, true, v)
	}
	h.checkKeys("fill", hs)
}

// winScript writes window scripts for the seeds.
type winScript struct{ b []byte }

// newWinScript starts a script with the parameter bytes (decodeWinParams).
func newWinScript(p0, p1, p2, p3, p4, p5 byte) *winScript {
	return &winScript{b: []byte{p0, p1, p2, p3, p4, p5}}
}

// winHdr is parameter byte 0: G = 2<<gi, by count, WithExpiryOnAdd, and
// fpp index fi (0.01, 0.1, 0.5, 0.001).
func winHdr(gi int, byCount, expiry bool, fi int) byte {
	b := byte(gi) | byte(fi)<<5
	if byCount {
		b |= 8
	}
	if expiry {
		b |= 16
	}
	return b
}

// op appends operation op of variant v and its argument bytes.
func (s *winScript) op(op, v int, args ...byte) *winScript {
	s.b = append(append(s.b, byte(op+numWinOps*v)), args...)
	return s
}

// batch appends a batch operation over the small keys ids.
func (s *winScript) batch(op, v int, ids ...byte) *winScript {
	s.b = append(append(s.b, byte(op+numWinOps*v), byte(len(ids))), ids...)
	return s
}

// tick appends a tick of kind k (winHarness.tick) and size x.
func (s *winScript) tick(k, x int) *winScript { return s.op(wopTick, 0, byte(k+8*x)) }

// bytes returns the script.
func (s *winScript) bytes() []byte { return s.b }

// winSeq returns the small key ids from..to-1.
func winSeq(from, to int) []byte {
	var b []byte
	for i := from; i < to; i++ {
		b = append(b, byte(i))
	}
	return b
}

// windowSeeds are hand-made scripts, each aimed at one behaviour
// (TestWindowSeedsReachTheirTargets checks that they reach them).
func windowSeeds() [][]byte {
	return [][]byte{
		// By time, G = 4, 10 ns slices: adds, then add-if-new of a key
		// inside its window (false) in every form; a batch whose first
		// add crosses a slice boundary, with repeats; key 7 added again
		// exactly G slices after its last add (just expired: new); a
		// jump past the whole window.
		newWinScript(winHdr(1, false, false, 0), 30, 9, 2, 1, 0).
			batch(wopAddBatch, 0, winSeq(0, 10)...).
			tick(1, 3).op(wopAddNew, 0, 3).op(wopAddNew, 1, 4).op(wopAddNew, 2, 5).op(wopAddNew, 3, 6).
			tick(2, 0).batch(wopAddNewBatch, 1, 0, 1, 2, 3, 0, 1, 20, 21, 20).
			op(wopAdd, 2, 7).tick(4, 0).tick(4, 0).tick(4, 0).op(wopContains, 1, 7).tick(4, 0).op(wopAddNew, 1, 7).
			tick(3, 0).op(wopContains, 0, 7).tick(6, 20).batch(wopContainsBatch, 0, winSeq(0, 12)...).
			batch(wopAddNewBatch, 2, winSeq(0, 12)...).bytes(),
		// A reload mid-window with each decoder, some lanes at a time,
		// between adds and steps within and across slices (G = 8).
		newWinScript(winHdr(2, false, false, 1), 60, 19, 5, 2, 1).
			batch(wopAddBatch, 0, winSeq(0, 20)...).tick(1, 7).
			op(wopReload, 0, 0).op(wopAdd, 1, 30).tick(2, 0).
			op(wopReload, 0, 1).batch(wopAddNewBatch, 0, winSeq(15, 35)...).
			op(wopReload, 0, 2+4*1).tick(5, 3).op(wopReload, 0, 3).op(wopAddNew, 0, 30).
			op(wopReload, 0, 2+4*6).tick(4, 0).op(wopAddNew, 3, 0).bytes(),
		// The clock steps back: adds behind the current slice's start go
		// to it, then the clock comes back and passes boundaries; with a
		// reload while it is behind (G = 2, 5 ns slices); then 2^40 ns
		// back and forward.
		newWinScript(winHdr(0, false, false, 0), 10, 4, 0, 3, 2).
			batch(wopAddBatch, 0, winSeq(0, 8)...).tick(2, 0).op(wopAdd, 0, 9).
			tick(7, 20).op(wopAdd, 1, 10).op(wopAddNew, 2, 9).op(wopReload, 0, 1).
			batch(wopAddNewBatch, 0, 9, 10, 11, 11).tick(7, 31).op(wopAdd, 3, 12).
			tick(6, 3).op(wopContains, 2, 12).op(wopAddNew, 0, 12).tick(1, 4).op(wopAdd, 0, 13).
			tick(7, 30).op(wopAddNew, 1, 13).op(wopReload, 0, 0).tick(5, 31).op(wopContains, 3, 13).
			op(wopAddNew, 2, 13).op(wopAdd, 0, 14).bytes(),
		// By count, G = 2, 3 adds a slice: AddHashes and AddNewHashes
		// batches that rotate in their middle, with repeats; a reload
		// by count (SliceAdds saved); the clock moves and must not matter.
		newWinScript(winHdr(0, true, false, 1), 6, 2, 0, 4, 0).
			batch(wopAddBatch, 0, winSeq(0, 10)...).tick(6, 9).
			batch(wopAddNewBatch, 1, 8, 9, 9, 10, 11, 12, 13, 10, 14).
			op(wopReload, 0, 2).op(wopAddNew, 0, 14).op(wopAddNew, 1, 13).
			batch(wopAddNewBatch, 2, winSeq(0, 12)...).op(wopReload, 0, 3).
			batch(wopAddBatch, 0, 3, 3, 4, 5).batch(wopContainsBatch, 0, winSeq(0, 16)...).bytes(),
		// By count, G = 8, 5 adds a slice: fills through AddNewHashes
		// and AddHashes, over a run of the batch kernel (256 keys), which
		// rotate many times; closes of a lane and of the
		// ConcurrentWindow.
		newWinScript(winHdr(2, true, false, 0), 20, 4, 0, 5, 1).
			op(wopFill, 1, 70).batch(wopAddNewBatch, 0, winSeq(0, 30)...).
			op(wopClose, 0, 1).op(wopFill, 0, 10).op(wopClose, 0, 9).
			batch(wopAddNewBatch, 1, winSeq(20, 45)...).op(wopAddNew, 0, 44).bytes(),
		// WithExpiryOnAdd, G = 64, 3 ns slices: lookups of expired
		// generations until an add; fills over 256 keys in one slice;
		// closes.
		newWinScript(winHdr(5, false, true, 2), 100, 2, 40, 6, 0).
			batch(wopAddBatch, 0, winSeq(0, 16)...).tick(6, 30).tick(6, 30).batch(wopContainsBatch, 0, winSeq(0, 16)...).
			op(wopAddNew, 0, 1).op(wopFill, 1, 80).op(wopClose, 0, 0).op(wopClose, 0, 3).
			tick(5, 7).op(wopAddNew, 2, 2).op(wopReload, 0, 0).op(wopFill, 0, 3).bytes(),
		// Without WithExpiryOnAdd, G = 16: lookups by the clock of
		// generations expired with no add since (the lookup skips them,
		// the add-if-new after finds the key new); a fill over 256 keys.
		newWinScript(winHdr(3, false, false, 2), 40, 1, 0, 7, 2).
			batch(wopAddBatch, 0, winSeq(0, 16)...).tick(4, 0).tick(4, 0).op(wopAdd, 0, 40).
			tick(6, 5).op(wopContains, 0, 1).op(wopAddNew, 0, 1).op(wopAddNew, 0, 40).
			op(wopFill, 3, 90).tick(2, 0).op(wopClose, 0, 2).op(wopFill, 2, 40).bytes(),
		// fpp 0.5 in a tiny window (G = 32): add-if-new batches whose keys
		// share groups and bits, so false positives answer "not new".
		newWinScript(winHdr(4, false, false, 2), 0, 40, 0, 8, 1).
			batch(wopAddNewBatch, 0, winSeq(0, 40)...).tick(4, 0).
			batch(wopAddNewBatch, 1, winSeq(10, 48)...).batch(wopContainsBatch, 0, winSeq(0, 48)...).bytes(),
	}
}

// FuzzWindow runs a window script through every windowed filter at once
// and checks the invariants after every step (see the top of this file).
func FuzzWindow(f *testing.F) {
	for _, s := range modeSeeds(windowSeeds(), 5, 0) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := runWindowScript(data); err != nil {
			t.Fatal(err)
		}
	})
}

// TestWindowSeedsReachTheirTargets keeps the hand-made seeds meaningful:
// together they must run every operation and reach each behaviour
// winStats counts.
func TestWindowSeedsReachTheirTargets(t *testing.T) {
	var total winStats
	for i, s := range windowSeeds() {
		st, err := runWindowScript(s)
		if err != nil {
			t.Fatalf("seed %d: %v", i, err)
		}
		for op, n := range st.ops {
			total.ops[op] += n
		}
		total.batchRotate += st.batchRotate
		total.countRotAdd += st.countRotAdd
		total.countRotNew += st.countRotNew
		total.newHeld += st.newHeld
		total.newExpired += st.newExpired
		total.newDup += st.newDup
		total.newShared += st.newShared
		total.newChunks += st.newChunks
		total.reloadsHeld += st.reloadsHeld
		total.backSteps += st.backSteps
		total.addBehind += st.addBehind
		total.lookupExpired += st.lookupExpired
		total.staleFound += st.staleFound
		total.closes += st.closes
		total.concCloses += st.concCloses
	}
	for op, n := range total.ops {
		if n == 0 {
			t.Errorf("no seed runs %s", winOpNames[op])
		}
	}
	t.Logf("%+v", total)
	for name, n := range map[string]int{
		"batches by time rotating at their first add":          total.batchRotate,
		"AddHashes batches by count rotating in the middle":    total.countRotAdd,
		"AddNewHashes batches by count rotating in the middle": total.countRotNew,
		"add-if-new of keys inside their window":               total.newHeld,
		"add-if-new of keys just expired":                      total.newExpired,
		"keys repeated in an add-if-new batch":                 total.newDup,
		"keys sharing a group in an add-if-new batch":          total.newShared,
		"add-if-new batches over 256 keys":                     total.newChunks,
		"reloads mid-window":                                   total.reloadsHeld,
		"clock steps back":                                     total.backSteps,
		"adds behind the current slice":                        total.addBehind,
		"lookups by time past an ended slice":                  total.lookupExpired,
		"expired keys found with WithExpiryOnAdd":              total.staleFound,
		"closed Windows":                                       total.closes,
		"closed ConcurrentWindows":                             total.concCloses,
	} {
		if n == 0 {
			t.Errorf("no seed reaches %s", name)
		}
	}
}
