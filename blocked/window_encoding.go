package blocked

import (
	"encoding"
	"io"
	"math"
	"runtime"
	"time"

	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/kernel"
)

// Params of a window's header (FORMAT.md, kind 9).
const (
	winParamGroups    = 0 // groups N, N·kernel.WindowLines(G) in 1..MaxBlocks
	winParamK         = 1 // probes per key, 1..MaxK
	winParamGens      = 2 // generations G, a power of two in 2..MaxGenerations
	winParamSlice     = 3 // slice duration in nanoseconds (time mode), else 0
	winParamSliceKeys = 4 // adds per slice (count mode), else 0
	winParamCur       = 5 // index of the current generation, < G
	winParamStart     = 6 // time mode: start of the current slice, Unix ns (int64 bits); count mode: adds in the current slice
	winParamCapacity  = 7 // keys each generation was sized for, >= 1
)

var (
	_ encoding.BinaryMarshaler   = (*Window)(nil)
	_ encoding.BinaryAppender    = (*Window)(nil)
	_ encoding.BinaryUnmarshaler = (*Window)(nil)
	_ io.WriterTo                = (*Window)(nil)
	_ io.ReaderFrom              = (*Window)(nil)
)

// windowHeader returns w's format header.
func (w *Window) header() format.Header {
	h := format.Header{Kind: format.KindWindow, Hash: format.HashXXH3, Seed: w.seed}
	h.Params[winParamGroups] = w.nb
	h.Params[winParamK] = uint64(w.t.K)
	h.Params[winParamGens] = uint64(w.g)
	h.Params[winParamSlice] = uint64(w.slice)
	h.Params[winParamSliceKeys] = w.sliceKeys
	h.Params[winParamCur] = uint64(w.cur)
	if w.slice != 0 {
		h.Params[winParamStart] = uint64(w.start)
	} else {
		h.Params[winParamStart] = w.added
	}
	h.Params[winParamCapacity] = w.capacity
	return h
}

// MarshalBinary returns the window in sift's file format (FORMAT.md, kind
// 9): a 128-byte header with the generations' geometry, the slice length,
// the current generation and the start of the current slice, then the
// table of groups, a key's lanes of all G generations side by side, as in
// memory. A window read back resumes where it was: keys added
// within the window before the save are still found, by the clock. For a
// closed or zero Window it returns an error wrapping ErrClosed.
func (w *Window) MarshalBinary() ([]byte, error) {
	return w.AppendBinary(make([]byte, 0, format.HeaderSize+len(w.words)*8))
}

// AppendBinary appends MarshalBinary's bytes to b (encoding.BinaryAppender).
func (w *Window) AppendBinary(b []byte) ([]byte, error) {
	if w.closed() {
		return b, errorf(ErrClosed, "cannot encode a closed or zero window")
	}
	payload := format.WordBytes(w.words)
	b = format.AppendHeader(b, w.header(), payload)
	b = append(b, payload...)
	runtime.KeepAlive(w)
	return b, nil
}

// WriteTo writes MarshalBinary's bytes to w without copying the blocks.
func (w *Window) WriteTo(dst io.Writer) (int64, error) {
	if w.closed() {
		return 0, errorf(ErrClosed, "cannot encode a closed or zero window")
	}
	n, err := format.Write(dst, w.header(), format.WordBytes(w.words))
	runtime.KeepAlive(w)
	return n, err
}

// windowParams checks a window header against its payload length.
func windowParams(h format.Header, payloadLen uint64) (groups uint64, k, g int, err error) {
	p := h.Params
	if h.Hash != format.HashXXH3 {
		return 0, 0, 0, errorf(ErrCorrupt, "hash algorithm %v, windows use %v", h.Hash, format.HashXXH3)
	}
	switch {
	case p[winParamK] < 1 || p[winParamK] > MaxK:
		return 0, 0, 0, errorf(ErrCorrupt, "k = %d is not in 1..%d", p[winParamK], MaxK)
	case p[winParamGens] > MaxGenerations || !kernel.ValidGenerations(int(p[winParamGens])):
		return 0, 0, 0, errorf(ErrCorrupt, "%d generations is not a power of two in 2..%d", p[winParamGens], MaxGenerations)
	}
	lines := uint64(kernel.WindowLines(int(p[winParamGens])))
	switch {
	case p[winParamGroups] < 1 || p[winParamGroups] > MaxBlocks/lines:
		return 0, 0, 0, errorf(ErrCorrupt, "%d groups is not in 1..%d", p[winParamGroups], MaxBlocks/lines)
	case p[winParamGroups]*lines > uint64(maxPlatformBlocks):
		return 0, 0, 0, errorf(ErrTooLarge, "%d lines do not fit in this platform's memory", p[winParamGroups]*lines)
	case payloadLen != p[winParamGroups]*lines*kernel.BlockBytes:
		return 0, 0, 0, errorf(ErrCorrupt, "payload of %d bytes does not hold %d groups of %d generations", payloadLen, p[winParamGroups], p[winParamGens])
	case (p[winParamSlice] == 0) == (p[winParamSliceKeys] == 0):
		return 0, 0, 0, errorf(ErrCorrupt, "slice of %d ns and of %d keys: exactly one must be set", p[winParamSlice], p[winParamSliceKeys])
	case p[winParamSliceKeys] > math.MaxUint64/(p[winParamGens]-1):
		// The window, G-1 slices of adds, fits a uint64 (a constructor
		// could not make one: each generation is sized for a slice).
		return 0, 0, 0, errorf(ErrCorrupt, "slice of %d keys is out of range: %d of them exceed the longest window", p[winParamSliceKeys], p[winParamGens]-1)
	case p[winParamSlice] > math.MaxInt64/(p[winParamGens]-1):
		// WindowSlice's bound: the window, G-1 slices, fits a Duration.
		return 0, 0, 0, errorf(ErrCorrupt, "slice of %d ns is out of range: %d of them exceed the longest window", p[winParamSlice], p[winParamGens]-1)
	case p[winParamCur] >= p[winParamGens]:
		return 0, 0, 0, errorf(ErrCorrupt, "current generation %d of %d", p[winParamCur], p[winParamGens])
	case p[winParamSliceKeys] != 0 && p[winParamStart] > p[winParamSliceKeys]:
		return 0, 0, 0, errorf(ErrCorrupt, "%d adds in a slice of %d", p[winParamStart], p[winParamSliceKeys])
	case p[winParamCapacity] < 1:
		return 0, 0, 0, errorf(ErrCorrupt, "a capacity of 0 keys per generation")
	}
	return p[winParamGroups], int(p[winParamK]), int(p[winParamGens]), nil
}

// decodeWindow makes a Window of its own memory from one encoding's header
// and payload.
func decodeWindow(h format.Header, payload []byte, o options) (*Window, error) {
	groups, k, g, err := windowParams(h, uint64(len(payload)))
	if err != nil {
		return nil, err
	}
	p := h.Params
	w := &Window{slice: time.Duration(p[winParamSlice]), sliceKeys: p[winParamSliceKeys], capacity: p[winParamCapacity], cur: int(p[winParamCur])}
	o.seed = h.Seed
	if err := w.allocGens(groups, k, g, o); err != nil {
		return nil, err
	}
	if w.slice != 0 {
		w.start = int64(p[winParamStart])
		w.arm(unixNano(w.clock()))
	} else {
		w.added = p[winParamStart]
	}
	src, _ := format.Words(payload)
	copy(w.words, src)
	return w, nil
}

// ReadWindow reads one window from r, as MarshalBinary or WriteTo wrote it,
// reading exactly its bytes. It checks every field and both checksums, and
// resumes the window by the clock (WithClock): the generations whose
// slices ended while it was stored are skipped by lookups and cleared by
// the next add. Memory grows only as bytes arrive.
// Options: WithClock, WithExpiryOnAdd, WithMaxSize (refuses a larger
// payload before reading it), WithoutChecksum.
func ReadWindow(r io.Reader, opts ...Option) (*Window, error) {
	o := collect(opts)
	h, payload, _, err := readWindowRecord(r, format.Options{MaxPayload: o.maxBytes, SkipPayloadCRC: o.skipChecksum})
	if err != nil {
		return nil, err
	}
	return decodeWindow(h, payload, o)
}

// readWindowRecord reads one window's encoding from r (ReadWindow and the
// ReadFrom methods): its header, payload and length, or the format's
// error under this package's prefix.
func readWindowRecord(r io.Reader, opt format.Options) (format.Header, []byte, int64, error) {
	h, payload, n, err := format.Read(r, format.KindWindow, opt)
	if err != nil {
		return h, nil, n, formatErr(err, h)
	}
	return h, payload, n, nil
}

// decodeWindowBytes checks that data is exactly one window's encoding
// (WindowFromBytes and the UnmarshalBinary methods) and returns its header
// and payload.
func decodeWindowBytes(data []byte, opt format.Options) (format.Header, []byte, error) {
	h, payload, n, err := format.Decode(data, format.KindWindow, opt)
	if err != nil {
		return h, nil, formatErr(err, h)
	}
	if n != len(data) {
		return h, nil, errorf(ErrCorrupt, "%d bytes after the window", len(data)-n)
	}
	return h, payload, nil
}

// UnmarshalBinary replaces w with the window encoded in data, which must be
// exactly one encoding (of a Window or a ConcurrentWindow). It keeps w's
// clock (the default for a zero Window), its WithExpiryOnAdd and its
// WithMaxSize bound, and resumes the window by the clock as ReadWindow
// does. On error w is unchanged.
func (w *Window) UnmarshalBinary(data []byte) error {
	h, payload, err := decodeWindowBytes(data, w.limit())
	if err != nil {
		return err
	}
	return w.replace(h, payload)
}

// ReadFrom replaces w with one window read from r, reading exactly its
// bytes and nothing after them, with ReadWindow's checks; memory grows
// with the input, never with its claims, and a declared payload larger
// than w's WithMaxSize bound is refused (ErrTooLarge) before any of it is
// read. It keeps what UnmarshalBinary keeps. On error w is unchanged.
func (w *Window) ReadFrom(r io.Reader) (int64, error) {
	h, payload, n, err := readWindowRecord(r, w.limit())
	if err != nil {
		return n, err
	}
	return n, w.replace(h, payload)
}

// decodeOptions are the options a decoder into a window passes on from it:
// its clock if it is its own (userClock: WithClock), its WithExpiryOnAdd,
// its expiry timers (after) and its WithMaxSize bound. Window's and
// ConcurrentWindow's decoders alike.
func decodeOptions(maxBytes uint64, clock func() time.Time, userClock, expiryOnAdd bool, after func(time.Duration, func()) stopper) options {
	o := options{maxBytes: maxBytes}
	if userClock {
		// The default clock is left nil here, so that a window by time
		// decoded into a window by count (which has no timers to pass on)
		// gets its expiry timers, and its hits read no clock.
		o.win.clock = clock
	}
	o.win.expiryOnAdd = expiryOnAdd
	o.win.after = after
	return o
}

// replace is UnmarshalBinary and ReadFrom once the encoding is read: w
// becomes the window of header h and payload, or is left unchanged with
// the error that refused it.
func (w *Window) replace(h format.Header, payload []byte) error {
	d, err := decodeWindow(h, payload, decodeOptions(w.maxBytes, w.clock, w.userClock, w.expiryOnAdd, w.ex.after))
	if err != nil {
		return err
	}
	old := w.region
	w.ex.stop()
	d.ex.stop() // its timer would clear d's word: w arms its own below
	// d is fresh and unshared: its fields move into w one by one, all but
	// the expiry, whose word a timer callback of w's that began before
	// the Stop may still be writing (atomically: a plain copy of the
	// struct raced it). w's slices keep their numbering, so that such a
	// callback cannot match the slice armed below.
	w.core, w.g, w.nb, w.wt = d.core, d.g, d.nb, d.wt
	w.slice, w.sliceKeys, w.capacity = d.slice, d.sliceKeys, d.capacity
	w.clock, w.userClock, w.expiryOnAdd = d.clock, d.userClock, d.expiryOnAdd
	w.cur, w.start, w.added = d.cur, d.start, d.added
	w.ex.after = d.ex.after
	w.ex.epoch = max(w.ex.epoch, d.ex.epoch)
	w.setLookups() // d's live source is bound to d
	if w.slice != 0 {
		w.arm(unixNano(w.clock()))
	}
	_ = old.Free()
	return nil
}

// WindowFromBytes returns the window encoded in data, which must be exactly
// one encoding, as a Window of its own memory (a window is written to as
// time passes, so it never uses data in place): it is UnmarshalBinary into
// a new Window, for sift.Open and sift.FromBytes. Options: WithClock,
// WithExpiryOnAdd, WithMaxSize, WithoutChecksum.
func WindowFromBytes(data []byte, opts ...Option) (*Window, error) {
	o := collect(opts)
	h, payload, err := decodeWindowBytes(data, format.Options{MaxPayload: o.maxBytes, SkipPayloadCRC: o.skipChecksum})
	if err != nil {
		return nil, err
	}
	return decodeWindow(h, payload, o)
}
