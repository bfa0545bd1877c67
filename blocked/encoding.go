package blocked

import (
	"encoding"
	"io"
	"runtime"

	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/mem"
)

// Params of a blocked filter's header (see "File format" in the package
// documentation).
const (
	paramBlocks   = 0 // block count, 1..MaxBlocks
	paramK        = 1 // probes per key, 1..MaxK
	paramCount    = 2 // keys added, when the container tracks it (Scalable stages); else 0
	paramCapacity = 3 // keys the filter was sized for (Scalable stages); else 0
)

// header returns the format header of a blocked filter with these words.
func blockedHeader(blocks uint64, k int, seed, count, capacity uint64) format.Header {
	h := format.Header{Kind: format.KindBlocked, Hash: format.HashXXH3, Seed: seed}
	h.Params[paramBlocks] = blocks
	h.Params[paramK] = uint64(k)
	h.Params[paramCount] = count
	h.Params[paramCapacity] = capacity
	return h
}

// appendEncoding appends the complete encoding of a blocked filter.
func appendEncoding(dst []byte, words []uint64, k int, seed, count, capacity uint64) []byte {
	h := blockedHeader(uint64(len(words)/kernel.BlockWords), k, seed, count, capacity)
	payload := format.WordBytes(words)
	dst = format.AppendHeader(dst, h, payload)
	return append(dst, payload...)
}

// blockedParams checks a decoded blocked header against its payload and
// returns the geometry. Nothing has been allocated on the header's word.
// A stage record of a Scalable may carry its key count and capacity
// (count <= capacity); a standalone filter's record must not, so every
// valid input re-encodes to the same bytes.
func blockedParams(h format.Header, payloadLen uint64, stage bool) (blocks uint64, k int, err error) {
	if h.Hash != format.HashXXH3 {
		return 0, 0, errorf(ErrCorrupt, "hash algorithm %v, blocked filters use %v", h.Hash, format.HashXXH3)
	}
	blocks = h.Params[paramBlocks]
	kk := h.Params[paramK]
	switch {
	case kk < 1 || kk > MaxK:
		return 0, 0, errorf(ErrCorrupt, "k = %d is not in 1..%d", kk, MaxK)
	case blocks < 1 || blocks > MaxBlocks:
		return 0, 0, errorf(ErrCorrupt, "block count %d is not in 1..%d", blocks, uint64(MaxBlocks))
	case blocks > uint64(maxPlatformBlocks):
		return 0, 0, errorf(ErrTooLarge, "%d blocks do not fit in this platform's memory", blocks)
	case payloadLen != blocks*kernel.BlockBytes:
		return 0, 0, errorf(ErrCorrupt, "payload of %d bytes does not hold %d blocks of %d bytes", payloadLen, blocks, kernel.BlockBytes)
	case h.Params[paramCount] > 0 && h.Params[paramCapacity] == 0:
		return 0, 0, errorf(ErrCorrupt, "key count %d without a capacity", h.Params[paramCount])
	case h.Params[paramCount] > h.Params[paramCapacity]:
		return 0, 0, errorf(ErrCorrupt, "key count %d exceeds the capacity %d", h.Params[paramCount], h.Params[paramCapacity])
	case !stage && (h.Params[paramCount] != 0 || h.Params[paramCapacity] != 0):
		return 0, 0, errorf(ErrCorrupt, "a stand-alone filter has key count %d and capacity %d (only Scalable stages carry them)", h.Params[paramCount], h.Params[paramCapacity])
	}
	for i := paramCapacity + 1; i < format.NumParams; i++ {
		if h.Params[i] != 0 {
			return 0, 0, errorf(ErrCorrupt, "parameter %d is %d, must be 0", i, h.Params[i])
		}
	}
	return blocks, int(kk), nil
}

// decodeInto validates one encoded blocked filter at the start of data and
// copies it into fresh memory from mem.Alloc. It returns the header
// and the bytes consumed.
func decodeCopy(data []byte, opt format.Options, stage bool) (c core, h format.Header, n int, err error) {
	h, payload, n, err := format.Decode(data, format.KindBlocked, opt)
	if err != nil {
		if stage { // a stage of another kind: a corrupt scalable file
			return c, h, 0, prefix(err)
		}
		return c, h, 0, formatErr(err, h)
	}
	blocks, k, err := blockedParams(h, uint64(len(payload)), stage)
	if err != nil {
		return c, h, 0, err
	}
	if err := c.alloc(blocks, k, h.Seed); err != nil {
		return c, h, 0, err
	}
	src, _ := format.Words(payload)
	copy(c.words, src)
	return c, h, n, nil
}

// readCore reads one encoded blocked filter from r. Memory grows only as
// input arrives (format.Read); the result lives in the read buffer, or in
// mapped huge-page memory for big filters.
func readCore(r io.Reader, opt format.Options) (c core, h format.Header, n int64, err error) {
	h, payload, n, err := format.Read(r, format.KindBlocked, opt)
	if err != nil {
		return c, h, n, formatErr(err, h)
	}
	blocks, k, err := blockedParams(h, uint64(len(payload)), false)
	if err != nil {
		return c, h, n, err
	}
	words, shared := format.Words(payload)
	if !shared || len(payload) >= mem.HugeThreshold {
		if err := c.alloc(blocks, k, h.Seed); err != nil {
			return c, h, n, err
		}
		copy(c.words, words)
	} else {
		c.setWords(words, &mem.Region{}, k, h.Seed)
	}
	return c, h, n, nil
}

// replace swaps c's memory for d's and frees c's old memory; c keeps its
// maximum size.
func (c *core) replace(d core) {
	old := c.region
	d.maxBytes = c.maxBytes
	*c = d
	_ = old.Free()
}

// limit is the format check of a decoder into c: c's maximum size.
func (c *core) limit() format.Options { return format.Options{MaxPayload: c.maxBytes} }

// The encodings every type implements, checked at compile time.
var (
	_ encoding.BinaryMarshaler   = (*Filter)(nil)
	_ encoding.BinaryAppender    = (*Filter)(nil)
	_ encoding.BinaryUnmarshaler = (*Filter)(nil)
	_ io.WriterTo                = (*Filter)(nil)
	_ io.ReaderFrom              = (*Filter)(nil)

	_ encoding.BinaryMarshaler   = (*Concurrent)(nil)
	_ encoding.BinaryAppender    = (*Concurrent)(nil)
	_ encoding.BinaryUnmarshaler = (*Concurrent)(nil)
	_ io.WriterTo                = (*Concurrent)(nil)
	_ io.ReaderFrom              = (*Concurrent)(nil)

	_ encoding.BinaryMarshaler   = (*Scalable)(nil)
	_ encoding.BinaryAppender    = (*Scalable)(nil)
	_ encoding.BinaryUnmarshaler = (*Scalable)(nil)
	_ io.WriterTo                = (*Scalable)(nil)
	_ io.ReaderFrom              = (*Scalable)(nil)

	// A View is read-only: it encodes, and Open and FromBytes make it.
	_ encoding.BinaryMarshaler = (*View)(nil)
	_ encoding.BinaryAppender  = (*View)(nil)
	_ io.WriterTo              = (*View)(nil)
)

// MarshalBinary returns the filter in sift's file format (see "File format"
// in the package documentation): a 128-byte header and the blocks,
// little-endian, identical on every architecture and kernel. For a closed
// or zero filter it returns an error wrapping ErrClosed.
func (f *Filter) MarshalBinary() ([]byte, error) {
	return f.AppendBinary(make([]byte, 0, format.HeaderSize+len(f.words)*8))
}

// AppendBinary appends MarshalBinary's bytes to b and returns the extended
// slice (encoding.BinaryAppender). For a closed or zero filter it returns b
// unchanged and an error wrapping ErrClosed.
func (f *Filter) AppendBinary(b []byte) ([]byte, error) {
	if f.closed() {
		return b, errorf(ErrClosed, "cannot encode a closed or zero filter")
	}
	b = appendEncoding(b, f.words, f.t.K, f.seed, 0, 0)
	runtime.KeepAlive(f)
	return b, nil
}

// UnmarshalBinary replaces f with the filter encoded in data, which must be
// exactly one encoding (as made by MarshalBinary or WriteTo of a Filter or a
// Concurrent). It checks every field and both checksums before using
// anything, and copies the blocks, so data may be reused afterwards. A
// filter made with WithMaxSize refuses a larger encoding (ErrTooLarge) and
// keeps the bound. On error f is unchanged.
func (f *Filter) UnmarshalBinary(data []byte) error {
	c, _, n, err := decodeCopy(data, f.limit(), false)
	if err != nil {
		return err
	}
	if n != len(data) {
		_ = c.free()
		return errorf(ErrCorrupt, "%d bytes after the filter", len(data)-n)
	}
	f.replace(c)
	return nil
}

// WriteTo writes MarshalBinary's bytes to w without copying the blocks (or
// returns MarshalBinary's error).
func (f *Filter) WriteTo(w io.Writer) (int64, error) {
	if f.closed() {
		return 0, errorf(ErrClosed, "cannot encode a closed or zero filter")
	}
	h := blockedHeader(uint64(len(f.t.Blocks)), f.t.K, f.seed, 0, 0)
	n, err := format.Write(w, h, format.WordBytes(f.words))
	runtime.KeepAlive(f)
	return n, err
}

// ReadFrom replaces f with one filter read from r, reading exactly its bytes
// and nothing after them. A declared size is believed only as far as bytes
// actually arrive: memory grows with the input, never with its claims; and
// a declared payload larger than f's maximum size is refused (ErrTooLarge)
// before any of it is read: the WithMaxSize f was made with, or for a zero
// Filter the default maximum, the machine's memory (RAM and swap, where the
// system reports them). ReadFilter reads into a new filter with options. On
// error f is unchanged.
func (f *Filter) ReadFrom(r io.Reader) (int64, error) {
	c, _, n, err := readCore(r, f.limit())
	if err != nil {
		return n, err
	}
	f.replace(c)
	return n, nil
}

// ReadFilter reads one filter from r as Filter.ReadFrom does, into a new
// Filter (ReadConcurrent: into a new Concurrent). Options: WithMaxSize
// (refuses a larger payload before reading it; the filter keeps the
// bound), WithoutChecksum.
func ReadFilter(r io.Reader, opts ...Option) (*Filter, error) {
	o := collect(opts)
	c, _, _, err := readCore(r, format.Options{MaxPayload: o.maxBytes, SkipPayloadCRC: o.skipChecksum})
	if err != nil {
		return nil, err
	}
	c.maxBytes = o.maxBytes
	return &Filter{core: c}, nil
}

// MarshalBinary returns a snapshot of the filter in the same format as
// Filter.MarshalBinary. It may run while other goroutines add: the words
// are copied with atomic loads before the checksum is computed, so the
// output is always valid and holds every key whose Add returned before
// MarshalBinary was called; a key added during the call may be wholly,
// partly (then it reads as absent) or not at all in it. It costs a copy of
// the filter's memory. For a closed or zero filter it returns an error
// wrapping ErrClosed.
func (c *Concurrent) MarshalBinary() ([]byte, error) {
	return c.AppendBinary(make([]byte, 0, format.HeaderSize+len(c.words)*8))
}

// AppendBinary appends MarshalBinary's bytes to b and returns the extended
// slice (encoding.BinaryAppender). For a closed or zero filter it returns b
// unchanged and an error wrapping ErrClosed.
func (c *Concurrent) AppendBinary(b []byte) ([]byte, error) {
	s, err := c.snapshot()
	if err != nil {
		return b, err
	}
	defer s.free()
	return appendEncoding(b, s.words, c.t.K, c.seed, 0, 0), nil
}

// UnmarshalBinary replaces c with the filter encoded in data (see
// Filter.UnmarshalBinary, also for the maximum size). No other goroutine
// may use c meanwhile.
func (c *Concurrent) UnmarshalBinary(data []byte) error {
	d, _, n, err := decodeCopy(data, c.limit(), false)
	if err != nil {
		return err
	}
	if n != len(data) {
		_ = d.free()
		return errorf(ErrCorrupt, "%d bytes after the filter", len(data)-n)
	}
	c.replace(d)
	return nil
}

// WriteTo writes a snapshot of the filter to w (see MarshalBinary for what
// concurrent adds mean). It costs a copy of the filter's memory.
func (c *Concurrent) WriteTo(w io.Writer) (int64, error) {
	s, err := c.snapshot()
	if err != nil {
		return 0, err
	}
	defer s.free()
	return format.Write(w, blockedHeader(uint64(len(c.t.Blocks)), c.t.K, c.seed, 0, 0), format.WordBytes(s.words))
}

// ReadFrom replaces c with one filter read from r (see Filter.ReadFrom,
// also for the maximum size). No other goroutine may use c meanwhile.
// ReadConcurrent reads into a new Concurrent with options.
func (c *Concurrent) ReadFrom(r io.Reader) (int64, error) {
	d, _, n, err := readCore(r, c.limit())
	if err != nil {
		return n, err
	}
	c.replace(d)
	return n, nil
}

// ReadConcurrent is ReadFilter for a Concurrent: it reads one filter
// (written by a Filter or a Concurrent) from r as Filter.ReadFrom does,
// with ReadFilter's checks and errors, into a new Concurrent. Options:
// WithMaxSize (refuses a larger payload before reading it; the filter
// keeps the bound), WithoutChecksum.
func ReadConcurrent(r io.Reader, opts ...Option) (*Concurrent, error) {
	o := collect(opts)
	c, _, _, err := readCore(r, format.Options{MaxPayload: o.maxBytes, SkipPayloadCRC: o.skipChecksum})
	if err != nil {
		return nil, err
	}
	c.maxBytes = o.maxBytes
	return &Concurrent{core: c}, nil
}
