package blocked

import (
	"encoding/binary"
	"math"
	"math/bits"
	"runtime"
	"time"
	"unsafe"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/kernel"
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
	generations int
	clock       func() time.Time
	sliceKeys   uint64
}

// WithGenerations sets the number of generations G of a Window (default
// DefaultGenerations; 2..MaxGenerations). A window of W is cut into G-1
// slices of W/(G-1): more generations forget sooner after W (at most one
// slice late) but cost more memory and more probes per lookup. Used only by
// NewWindow.
func WithGenerations(g int) Option {
	return func(o *options) { o.win.generations = g }
}

// WithClock sets the clock a Window reads to decide which slice it is in
// (default time.Now). Tests inject a simulated clock. Used by NewWindow and
// ReadWindow; ignored by a Window that advances by count (WithSliceKeys).
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.win.clock = now }
}

// WithSliceKeys makes a Window advance by count instead of by time: a slice
// lasts k adds (the window is then (G-1)·k adds, and NewWindow's window
// argument must be 0). Each generation is sized for k keys, or for
// n/(G-1) if that is more. Used only by NewWindow.
func WithSliceKeys(k uint64) Option {
	return func(o *options) { o.win.sliceKeys = k }
}

// Window is a blocked Bloom filter that forgets: a key is found for at
// least the window W after its last add and forgotten at most one slice
// after that, W + W/(G-1).
//
// It is a ring of G blocked generations of equal size. Time is cut into
// slices of W/(G-1) (or of a number of adds, see WithSliceKeys); adds go to
// the current slice's generation, and when a slice ends, the oldest
// generation is cleared and becomes the current one. A lookup ORs over the
// generations still live. A key added during slice s stays in its
// generation until that generation is reused G slices later, so it is found
// for the rest of slice s and the G-1 slices after it: at least (G-1)
// slices = W after the add, and at most G slices = W + one slice.
//
// The rotation is lazy: the first add after a slice boundary clears the
// generations whose slices have ended (a memclr of each). Lookups never
// write: they read the same clock and skip the generations that the next
// add would clear, so a lookup never misses a key inside its guaranteed
// window whatever the timing of the adds and of the rotation. A clock that
// goes back is treated as standing still at the latest slice seen.
//
// Sizing (NewWindow) assumes keys arrive at a steady rate: each generation
// holds the keys of one slice, n/(G-1) for n keys per window. Bursts that
// put more keys in one slice raise the false-positive rate of that slice's
// generation; size n for the busiest window, or pass WithSliceKeys to bound
// each generation's keys exactly.
//
// Lookups may run concurrently with each other; adds (and Close,
// UnmarshalBinary) must not run concurrently with anything else. Do not
// copy a Window value.
type Window struct {
	core // all G generations' blocks, generation i at blocks [i·B, (i+1)·B)
	// gens are the G generations' tables, views of core's blocks.
	gens []kernel.BlockedTable
	// slice is a slice's duration (time mode), or 0 (count mode).
	slice time.Duration
	// sliceKeys is a slice's adds (count mode), or 0 (time mode).
	sliceKeys uint64
	// capacity is the keys each generation was sized for.
	capacity uint64
	clock    func() time.Time
	// cur is the index in gens of the current generation.
	cur int
	// start is the start of the current slice (time mode), in Unix
	// nanoseconds.
	start int64
	// added counts the adds of the current slice.
	added uint64
}

// NewWindow returns a Window that finds every key for window after its last
// add, for n keys per window at a false-positive rate of at most fpp over
// the whole window: each of the G generations (WithGenerations) is sized for
// n/(G-1) keys (one slice's, at a steady rate) at the rate p with
// 1-(1-p)^G = fpp, so a lookup that ORs the G generations stays within fpp.
// window must be positive and at least G-1 nanoseconds, unless
// WithSliceKeys makes the window count adds; then window must be 0. Errors
// are New's and ErrInvalidOption for an option or window out of range.
// Options: WithGenerations, WithClock, WithSliceKeys, WithSeed, WithMaxSize
// (the bound applies to all generations together).
func NewWindow(n uint64, fpp float64, window time.Duration, opts ...Option) (*Window, error) {
	o := collect(opts)
	g := o.win.generations
	if g == 0 {
		g = DefaultGenerations
	}
	if g < 2 || g > MaxGenerations {
		return nil, errorf(ErrInvalidOption, "%d generations is not in 2..%d", g, MaxGenerations)
	}
	var slice time.Duration
	switch {
	case o.win.sliceKeys != 0 && window != 0:
		return nil, errorf(ErrInvalidOption, "a window advancing by count (WithSliceKeys) takes window 0, not %v", window)
	case o.win.sliceKeys == 0 && window < time.Duration(g-1):
		return nil, errorf(ErrInvalidOption, "window %v is too short for %d slices", window, g-1)
	case o.win.sliceKeys == 0:
		slice = window / time.Duration(g-1)
	}
	if err := checkFPP(fpp); err != nil {
		return nil, err
	}
	capacity := max(o.win.sliceKeys, (max(n, 1)+uint64(g)-2)/uint64(g-1))
	p := -math.Expm1(math.Log1p(-fpp) / float64(g))
	if p < MinFPP {
		return nil, errorf2(ErrFPPTooLow, ErrInvalidArgument, "%d generations need %.3g each for %g over the window, below MinFPP = %g", g, p, fpp, MinFPP)
	}
	blocks, k, err := optimalBlocks(capacity, p)
	if err != nil {
		return nil, err
	}
	w := &Window{slice: slice, sliceKeys: o.win.sliceKeys, capacity: capacity}
	if err := w.allocGens(blocks, k, g, o); err != nil {
		return nil, err
	}
	if slice != 0 {
		w.start = w.clock().UnixNano()
	}
	return w, nil
}

// allocGens gives w g zeroed generations of blocks blocks and its clock.
func (w *Window) allocGens(blocks uint64, k, g int, o options) error {
	if blocks > blockLimit()/uint64(g) {
		return errorf(ErrTooLarge, "%d generations of %d blocks exceed the maximum of %d blocks", g, blocks, blockLimit())
	}
	if err := checkSize(blocks*uint64(g), k, o.maxBytes); err != nil {
		return err
	}
	if err := w.alloc(blocks*uint64(g), k, o.seed); err != nil {
		return err
	}
	w.maxBytes = o.maxBytes
	w.setGens(g)
	w.clock = o.win.clock
	if w.clock == nil {
		w.clock = time.Now
	}
	return nil
}

// setGens cuts core's blocks into g generation tables.
func (w *Window) setGens(g int) {
	b := len(w.t.Blocks) / g
	w.gens = make([]kernel.BlockedTable, g)
	for i := range w.gens {
		w.gens[i] = kernel.BlockedTable{Blocks: w.t.Blocks[i*b : (i+1)*b : (i+1)*b], K: w.t.K}
	}
}

// elapsed returns how many slices have ended since the current one began,
// by the clock (0 in count mode, or when the clock went back).
func (w *Window) elapsed() uint64 {
	if w.slice == 0 {
		return 0
	}
	now := w.clock().UnixNano()
	if now < w.start {
		return 0
	}
	// Exact in uint64 for any two int64 values with now >= start.
	return (uint64(now) - uint64(w.start)) / uint64(w.slice)
}

// live returns how many generations, counting back from the current one,
// hold keys still inside their window: G less the slices that have ended
// since the current one began (their generations are due to be cleared).
func (w *Window) live() int {
	e := w.elapsed()
	if e >= uint64(len(w.gens)) {
		return 0
	}
	return len(w.gens) - int(e)
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
		steps = w.elapsed()
		if steps == 0 {
			w.added++
			return
		}
		w.start = int64(uint64(w.start) + steps*uint64(w.slice)) // at most now
		w.added = 1
	}
	g := len(w.gens)
	for i := uint64(0); i < min(steps, uint64(g)); i++ {
		w.cur++
		if w.cur == g {
			w.cur = 0
		}
		clear(w.genWords(w.cur))
	}
	if steps > uint64(g) {
		w.cur = (w.cur + int((steps-uint64(g))%uint64(g))) % g
	}
}

// genWords returns generation i's words.
func (w *Window) genWords(i int) []uint64 {
	n := len(w.words) / len(w.gens)
	return w.words[i*n : (i+1)*n]
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

// AddHash is Add for a key whose hash (see Hash) is h.
func (w *Window) AddHash(h uint64) {
	w.advance()
	kernel.BlockedAdd1(&w.gens[w.cur], h)
	runtime.KeepAlive(w)
}

// AddNew adds key and reports whether it was new: not found in any live
// generation before the add (a false positive makes a new key read as
// seen). Added either way, a seen key's window starts again.
func (w *Window) AddNew(key []byte) bool { return w.AddNewHash(hash.Bytes(key, w.seed)) }

// AddNewString is AddNew for a string key.
func (w *Window) AddNewString(key string) bool { return w.AddNewHash(hash.String(key, w.seed)) }

// AddNewUint64 is AddNew for x's eight little-endian bytes.
func (w *Window) AddNewUint64(x uint64) bool { return w.AddNewHash(w.h64.Hash(x)) }

// AddNewHash is AddNew for a key whose hash (see Hash) is h.
func (w *Window) AddNewHash(h uint64) bool {
	w.advance()
	seen := w.containsLive(h, len(w.gens))
	kernel.BlockedAdd1(&w.gens[w.cur], h)
	runtime.KeepAlive(w)
	return !seen
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
func (w *Window) ContainsHash(h uint64) bool {
	mustOpen(&w.core)
	r := w.containsLive(h, w.live())
	runtime.KeepAlive(w)
	return r
}

// containsLive probes the live newest generations, newest first.
func (w *Window) containsLive(h uint64, live int) bool {
	i := w.cur
	for range live {
		if kernel.BlockedContains1(&w.gens[i], h) {
			return true
		}
		i--
		if i < 0 {
			i = len(w.gens) - 1
		}
	}
	return false
}

// windowChunk is how many keys ContainsHashes probes per generation at a
// time: the scratch answers live on the stack. A multiple of 8, so the
// answers OR as whole words.
const windowChunk = 1024

// ContainsHashes sets out[i] = ContainsHash(hs[i]) for every i and returns
// how many are true. Each live generation is probed for a chunk of keys by
// the batch kernel (prefetched, so the cache misses overlap), and the
// answers are ORed eight at a time. It panics if len(out) < len(hs); out
// beyond len(hs) is left alone.
func (w *Window) ContainsHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("blocked: ContainsHashes: len(out) < len(hs)")
	}
	mustOpen(&w.core)
	live := w.live()
	out = out[:len(hs)]
	if live == 0 {
		clear(out)
		return 0
	}
	var scratch [windowChunk]bool
	n := 0
	for start := 0; start < len(hs); start += windowChunk {
		chunk := hs[start:min(start+windowChunk, len(hs))]
		dst := out[start : start+len(chunk)]
		i := w.cur
		for a := range live {
			s := dst
			if a > 0 {
				s = scratch[:len(chunk)]
			}
			t := &w.gens[i]
			if useKernel(len(chunk)) {
				kernel.BlockedContains(t.Blocks, t.K, chunk, s)
			} else {
				probeAll(t, chunk, s)
			}
			if a > 0 {
				orBools(dst, s)
			}
			i--
			if i < 0 {
				i = len(w.gens) - 1
			}
		}
		n += countBools(dst)
	}
	runtime.KeepAlive(w)
	return n
}

// orBools sets dst[i] = dst[i] || src[i], eight at a time: a bool is one
// byte, 0 or 1, so ORing the bytes of a word ORs eight answers.
// len(src) >= len(dst).
func orBools(dst, src []bool) {
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		d := (*[8]byte)(unsafe.Pointer(&dst[i]))
		s := (*[8]byte)(unsafe.Pointer(&src[i]))
		binary.LittleEndian.PutUint64(d[:], binary.LittleEndian.Uint64(d[:])|binary.LittleEndian.Uint64(s[:]))
	}
	for ; i < len(dst); i++ {
		dst[i] = dst[i] || src[i]
	}
}

// countBools returns how many of bs are true, eight at a time (each true
// byte is 1).
func countBools(bs []bool) int {
	n, i := 0, 0
	for ; i+8 <= len(bs); i += 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64((*[8]byte)(unsafe.Pointer(&bs[i]))[:]))
	}
	for ; i < len(bs); i++ {
		if bs[i] {
			n++
		}
	}
	return n
}

// Generations returns G, the number of generations.
func (w *Window) Generations() int { return len(w.gens) }

// Slice returns a slice's duration, or 0 for a window that advances by
// count.
func (w *Window) Slice() time.Duration { return w.slice }

// Window returns the guaranteed window, (G-1) slices, or 0 for a window
// that advances by count (see SliceKeys).
func (w *Window) Window() time.Duration { return w.slice * time.Duration(len(w.gens)-1) }

// SliceKeys returns the adds per slice of a window that advances by count,
// or 0.
func (w *Window) SliceKeys() uint64 { return w.sliceKeys }

// Capacity returns the keys each generation was sized for.
func (w *Window) Capacity() uint64 { return w.capacity }

// SliceAdds returns the adds made to the current slice so far (as of the
// last add: a slice that has ended by the clock but seen no add since still
// counts).
func (w *Window) SliceAdds() uint64 { return w.added }

// K returns the probes per key.
func (w *Window) K() int { return w.t.K }

// Seed returns the hash seed.
func (w *Window) Seed() uint64 { return w.seed }

// Blocks returns the blocks of all generations together.
func (w *Window) Blocks() uint64 { return uint64(len(w.t.Blocks)) }

// SizeBytes returns the memory the blocks of all generations take.
func (w *Window) SizeBytes() uint64 { return uint64(len(w.t.Blocks)) * kernel.BlockBytes }

// Close releases the window's memory now if it was mapped outside the Go
// heap, as Filter.Close does; afterwards adds and lookups panic with an
// error wrapping ErrClosed, and the encoders return such an error. Close is
// harmless more than once.
func (w *Window) Close() error {
	for i := range w.gens {
		w.gens[i].Blocks = nil
	}
	return w.free()
}
