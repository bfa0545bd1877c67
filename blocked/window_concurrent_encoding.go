package blocked

import (
	"encoding"
	"io"

	"github.com/sift-go/sift/internal/format"
)

var (
	_ encoding.BinaryMarshaler   = (*ConcurrentWindow)(nil)
	_ encoding.BinaryAppender    = (*ConcurrentWindow)(nil)
	_ encoding.BinaryUnmarshaler = (*ConcurrentWindow)(nil)
	_ io.WriterTo                = (*ConcurrentWindow)(nil)
	_ io.ReaderFrom              = (*ConcurrentWindow)(nil)
)

// snapshot returns a Window holding a copy of c: its generations read with
// atomic loads under c.mu, so that no rotation runs during the copy, and
// the current slice as c's state has it. Every key whose add returned
// before snapshot began is in the copy; an add running during it may be in
// part (some of its bits), as with Concurrent.MarshalBinary. The copy
// runs no timers and is for encoding only; the caller closes it.
func (c *ConcurrentWindow) snapshot() (*Window, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed() {
		return nil, errorf(ErrClosed, "cannot encode a closed or zero window")
	}
	s := c.state.Load()
	w := &Window{g: c.g, nb: c.nb, slice: c.slice, sliceKeys: c.sliceKeys, capacity: c.capacity, cur: s.cur, start: s.start}
	if c.slice == 0 {
		// Adds counted past the slice's end have not rotated yet: the
		// copy's slice is full, and its next add rotates.
		w.added = min(c.adds.Load()-s.epoch*c.sliceKeys, c.sliceKeys)
	}
	cp, err := c.atomicCopy() // the deferred Unlock keeps c alive
	if err != nil {
		return nil, err
	}
	w.core = cp
	return w, nil
}

// MarshalBinary returns the window in sift's file format, as
// Window.MarshalBinary does, from a copy made while adds and lookups go on
// (rotations wait for the copy): every key whose add returned before the
// call is in it, and an add running during the call may be in part. Read
// it back with ReadConcurrentWindow or ConcurrentWindowFromBytes (or as a
// Window: the encodings are the same kind). For a closed or zero window it
// returns an error wrapping ErrClosed.
func (c *ConcurrentWindow) MarshalBinary() ([]byte, error) {
	w, err := c.snapshot()
	if err != nil {
		return nil, err
	}
	defer w.Close()
	return w.MarshalBinary() // sized for the whole encoding at once
}

// AppendBinary appends MarshalBinary's bytes to b (encoding.BinaryAppender).
func (c *ConcurrentWindow) AppendBinary(b []byte) ([]byte, error) {
	w, err := c.snapshot()
	if err != nil {
		return b, err
	}
	defer w.Close()
	return w.AppendBinary(b)
}

// WriteTo writes MarshalBinary's bytes to dst (sift.WriteFile takes a
// ConcurrentWindow so). The copy is made first, so a slow dst holds up no
// rotation.
func (c *ConcurrentWindow) WriteTo(dst io.Writer) (int64, error) {
	w, err := c.snapshot()
	if err != nil {
		return 0, err
	}
	defer w.Close()
	return w.WriteTo(dst)
}

// ReadConcurrentWindow is ReadWindow for a ConcurrentWindow: it reads one
// window (written by a Window or a ConcurrentWindow), with ReadWindow's
// checks and options, and resumes it by the clock, so that a restarted
// server goes on with the window it saved.
func ReadConcurrentWindow(r io.Reader, opts ...Option) (*ConcurrentWindow, error) {
	w, err := ReadWindow(r, opts...)
	if err != nil {
		return nil, err
	}
	return concurrentWindow(w), nil
}

// ConcurrentWindowFromBytes is WindowFromBytes for a ConcurrentWindow (see
// ReadConcurrentWindow).
func ConcurrentWindowFromBytes(data []byte, opts ...Option) (*ConcurrentWindow, error) {
	w, err := WindowFromBytes(data, opts...)
	if err != nil {
		return nil, err
	}
	return concurrentWindow(w), nil
}

// UnmarshalBinary replaces c with the window encoded in data (see
// Window.UnmarshalBinary: it keeps c's clock, its WithExpiryOnAdd and its
// WithMaxSize bound, and resumes the window by the clock). No other
// goroutine may use c meanwhile, as for Concurrent.UnmarshalBinary; to
// swap a served window, load a new one (ConcurrentWindowFromBytes) and
// publish it. On error c is unchanged.
func (c *ConcurrentWindow) UnmarshalBinary(data []byte) error {
	h, payload, err := decodeWindowBytes(data, c.limit())
	if err != nil {
		return err
	}
	return c.replace(h, payload)
}

// ReadFrom replaces c with one window read from r, reading exactly its
// bytes (see Window.ReadFrom, also for the maximum size). No other
// goroutine may use c meanwhile. On error c is unchanged.
func (c *ConcurrentWindow) ReadFrom(r io.Reader) (int64, error) {
	h, payload, n, err := readWindowRecord(r, c.limit())
	if err != nil {
		return n, err
	}
	return n, c.replace(h, payload)
}

// replace is UnmarshalBinary and ReadFrom once the encoding is read. The
// decoded window gets c's options (decodeOptions, as Window's decoders
// pass on theirs), and its slice is epoch 0, as a new window's.
// (Continuing c's numbering instead would let a decoded start far behind
// the count overflow the epoch a clock reading gives. A timer of c's
// replaced epoch 0 that fires late can only clear the mark of the slice
// armed now: lookups then read the clock until the next rotation, which
// is always correct.)
func (c *ConcurrentWindow) replace(h format.Header, payload []byte) error {
	d, err := decodeWindow(h, payload, decodeOptions(c.maxBytes, c.clock, c.userClock, c.expiryOnAdd, c.ex.after))
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.region
	c.take(d) // d has c's WithMaxSize bound: decodeOptions passed it
	_ = old.Free()
	return nil
}
