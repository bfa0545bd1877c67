package classic

import (
	"encoding"
	"io"
	"runtime"

	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/nocopy"
)

// The sift encodings (package internal/format: a 128-byte
// little-endian header with CRC-32C, then the payload at a 64-byte-aligned
// offset with its own CRC-32C).
//
// classic.Filter, kind format.KindClassic, hash format.HashMurmur3, seed 0:
//
//	Params[0] strategy ordinal (0 or 1)
//	Params[1] number of hash functions (1..255)
//	Params[2] number of 64-bit words (1..2^31-1)
//	Params[3..7] zero
//	payload   the words, little-endian; bit i is bit i%64 of word i/64
//	          (the same words as Guava's stream, in the other byte order)
//
// classic.Counting, kind format.KindCounting, hash format.HashXXH3 with the
// filter's seed:
//
//	Params[0] number of 4-bit counters (a positive multiple of 16)
//	Params[1] number of hash functions (1..255)
//	Params[2..7] zero
//	payload   the counters, sixteen per little-endian uint64; counter i is
//	          bits 4*(i%16) to 4*(i%16)+3 of word i/16

func (f *Filter) nativeHeader() format.Header {
	h := format.Header{Kind: format.KindClassic, Hash: format.HashMurmur3}
	h.Params[0] = uint64(f.strategy)
	h.Params[1] = uint64(f.numHash)
	h.Params[2] = uint64(len(f.words))
	return h
}

// The encodings each type implements, checked at compile time.
var (
	_ encoding.BinaryMarshaler   = (*Filter)(nil)
	_ encoding.BinaryAppender    = (*Filter)(nil)
	_ encoding.BinaryUnmarshaler = (*Filter)(nil)
	_ io.WriterTo                = (*Filter)(nil)
	_ io.ReaderFrom              = (*Filter)(nil)

	_ encoding.BinaryMarshaler   = (*Counting)(nil)
	_ encoding.BinaryAppender    = (*Counting)(nil)
	_ encoding.BinaryUnmarshaler = (*Counting)(nil)
	_ io.WriterTo                = (*Counting)(nil)
	_ io.ReaderFrom              = (*Counting)(nil)
)

// MarshalBinary encodes f in sift's format (see the package documentation),
// which carries checksums and which UnmarshalBinary, ReadFrom and ReadFilter
// read. For Guava's stream format use WriteGuava or AppendGuava. For a zero
// or closed Filter it returns an error wrapping ErrClosed.
func (f *Filter) MarshalBinary() ([]byte, error) {
	return f.AppendBinary(make([]byte, 0, format.HeaderSize+8*len(f.words)))
}

// AppendBinary appends MarshalBinary's bytes to b and returns the extended
// slice (encoding.BinaryAppender). For a zero or closed Filter it returns b
// unchanged and an error wrapping ErrClosed.
func (f *Filter) AppendBinary(b []byte) ([]byte, error) {
	if f.numHash == 0 {
		return b, errZero
	}
	p := format.WordBytes(f.words)
	b = append(format.AppendHeader(b, f.nativeHeader(), p), p...)
	runtime.KeepAlive(f)
	return b, nil
}

// WriteTo writes f to w in sift's format, the bytes MarshalBinary returns,
// and returns the number of bytes written. For Guava's stream format use
// WriteGuava.
func (f *Filter) WriteTo(w io.Writer) (int64, error) {
	if f.numHash == 0 {
		return 0, errZero
	}
	n, err := format.Write(w, f.nativeHeader(), format.WordBytes(f.words))
	runtime.KeepAlive(f)
	return n, err
}

// UnmarshalBinary replaces f with the filter encoded in data in sift's
// format, which must be exactly one encoding, and copies what it keeps.
// Errors wrap the sift sentinels (ErrMagic, ErrVersion, ErrKind,
// ErrTruncated, ErrChecksum, ErrCorrupt, ErrTooLarge); a filter made with
// WithMaxSize refuses a larger encoding and keeps the bound. On error f is
// unchanged.
func (f *Filter) UnmarshalBinary(data []byte) error {
	h, payload, n, err := format.Decode(data, format.KindClassic, format.Options{MaxPayload: f.maxBytes})
	if err != nil {
		return formatErr(err, h)
	}
	if n != len(data) {
		return decodeErr(ErrCorrupt, "%d bytes after the filter", len(data)-n)
	}
	g, err := filterFromNative(h, payload, true)
	if err != nil {
		return err
	}
	f.replace(g)
	return nil
}

// ReadFrom replaces f with the filter read from r in sift's format, reading
// exactly its bytes, and returns the number of bytes read. Memory grows
// only as the input arrives, and a declared payload larger than f's maximum
// size is refused (ErrTooLarge) before any of it is read: the
// WithMaxSize f was made with, or for a zero Filter the default maximum,
// the machine's memory (RAM and swap, where the system reports them).
// ReadFilter reads into a new filter with options; ReadGuava reads Guava's
// stream format. On error f is unchanged.
func (f *Filter) ReadFrom(r io.Reader) (int64, error) {
	g, n, err := readFilter(r, format.Options{MaxPayload: f.maxBytes})
	if err != nil {
		return n, err
	}
	f.replace(g)
	return n, nil
}

// ReadFilter reads one filter in sift's format from r as Filter.ReadFrom
// does, into a new Filter. Options: WithMaxSize (refuses a larger payload
// before reading it; the filter keeps the bound), WithoutChecksum.
func ReadFilter(r io.Reader, opts ...Option) (*Filter, error) {
	o := collect(opts)
	f, _, err := readFilter(r, format.Options{MaxPayload: o.maxBytes, SkipPayloadCRC: o.skipChecksum})
	if err != nil {
		return nil, err
	}
	f.maxBytes = o.maxBytes
	return f, nil
}

func readFilter(r io.Reader, opt format.Options) (*Filter, int64, error) {
	h, payload, n, err := format.Read(r, format.KindClassic, opt)
	if err != nil {
		return nil, n, formatErr(err, h)
	}
	f, err := filterFromNative(h, payload, false)
	return f, n, err
}

// replace moves g into f, releasing f's old memory; f keeps its maximum
// size.
func (f *Filter) replace(g *Filter) {
	_ = f.region.Free()
	maxBytes := f.maxBytes
	nocopy.Move(f, g)
	f.maxBytes = maxBytes
}

// filterFromNative validates a decoded header and payload. copyWords says
// whether the words must be copied (the payload belongs to the caller).
func filterFromNative(h format.Header, payload []byte, copyWords bool) (*Filter, error) {
	if h.Hash != format.HashMurmur3 || h.Seed != 0 {
		return nil, decodeErr(ErrCorrupt, "a classic filter hashes with murmur3 seed 0, header says %v seed %#x", h.Hash, h.Seed)
	}
	strategy, k, nwords := h.Params[0], h.Params[1], h.Params[2]
	if strategy > uint64(Murmur128Mitz64) {
		return nil, decodeErr(ErrCorrupt, "unknown strategy ordinal %d", strategy)
	}
	if k == 0 || k > MaxHashFunctions {
		return nil, decodeErr(ErrCorrupt, "%d hash functions (must be 1..%d)", k, MaxHashFunctions)
	}
	if nwords == 0 || nwords > MaxWords {
		return nil, decodeErr(ErrCorrupt, "%d words (must be 1..%d)", nwords, MaxWords)
	}
	if err := zeroParams(h, 3); err != nil {
		return nil, err
	}
	if uint64(len(payload)) != 8*nwords {
		return nil, decodeErr(ErrCorrupt, "payload of %d bytes for %d words", len(payload), nwords)
	}
	words, shared := format.Words(payload)
	if shared && copyWords {
		words = append([]uint64(nil), words...)
	}
	return newFilter(words, int(k), Strategy(strategy)), nil
}

func zeroParams(h format.Header, from int) error {
	for i := from; i < format.NumParams; i++ {
		if h.Params[i] != 0 {
			return decodeErr(ErrCorrupt, "header parameter %d is %#x, must be zero", i, h.Params[i])
		}
	}
	return nil
}

func (c *Counting) nativeHeader() format.Header {
	h := format.Header{Kind: format.KindCounting, Hash: format.HashXXH3, Seed: c.seed}
	h.Params[0] = c.m
	h.Params[1] = uint64(c.k)
	return h
}

// MarshalBinary encodes c in sift's format (see the package
// documentation). For a zero or closed Counting it returns an error wrapping
// ErrClosed.
func (c *Counting) MarshalBinary() ([]byte, error) {
	return c.AppendBinary(make([]byte, 0, format.HeaderSize+8*len(c.words)))
}

// AppendBinary appends MarshalBinary's bytes to b and returns the extended
// slice (encoding.BinaryAppender). For a zero or closed Counting it returns
// b unchanged and an error wrapping ErrClosed.
func (c *Counting) AppendBinary(b []byte) ([]byte, error) {
	if c.k == 0 {
		return b, errZero
	}
	p := format.WordBytes(c.words)
	b = append(format.AppendHeader(b, c.nativeHeader(), p), p...)
	runtime.KeepAlive(c)
	return b, nil
}

// WriteTo writes c to w in sift's format and returns the number of bytes
// written.
func (c *Counting) WriteTo(w io.Writer) (int64, error) {
	if c.k == 0 {
		return 0, errZero
	}
	n, err := format.Write(w, c.nativeHeader(), format.WordBytes(c.words))
	runtime.KeepAlive(c)
	return n, err
}

// UnmarshalBinary replaces c with the filter encoded in data, which must be
// exactly one encoding in sift's format, and copies what it keeps. Errors
// wrap the sift sentinels; a filter made with WithMaxSize refuses a larger
// encoding and keeps the bound. On error c is unchanged.
func (c *Counting) UnmarshalBinary(data []byte) error {
	h, payload, n, err := format.Decode(data, format.KindCounting, format.Options{MaxPayload: c.maxBytes})
	if err != nil {
		return formatErr(err, h)
	}
	if n != len(data) {
		return decodeErr(ErrCorrupt, "%d bytes after the filter", len(data)-n)
	}
	d, err := countingFromNative(h, payload, true)
	if err != nil {
		return err
	}
	c.replace(d)
	return nil
}

// ReadFrom replaces c with the filter read from r in sift's format, reading
// exactly its bytes, and returns the number of bytes read. Its maximum size
// is Filter.ReadFrom's. ReadCounting reads into a new filter with options.
// On error c is unchanged.
func (c *Counting) ReadFrom(r io.Reader) (int64, error) {
	d, n, err := readCounting(r, format.Options{MaxPayload: c.maxBytes})
	if err != nil {
		return n, err
	}
	c.replace(d)
	return n, nil
}

// ReadCounting reads one counting filter in sift's format from r as
// Counting.ReadFrom does, into a new Counting. Options: WithMaxSize
// (refuses a larger payload before reading it; the filter keeps the bound),
// WithoutChecksum.
func ReadCounting(r io.Reader, opts ...Option) (*Counting, error) {
	o := collect(opts)
	c, _, err := readCounting(r, format.Options{MaxPayload: o.maxBytes, SkipPayloadCRC: o.skipChecksum})
	if err != nil {
		return nil, err
	}
	c.maxBytes = o.maxBytes
	return c, nil
}

func readCounting(r io.Reader, opt format.Options) (*Counting, int64, error) {
	h, payload, n, err := format.Read(r, format.KindCounting, opt)
	if err != nil {
		return nil, n, formatErr(err, h)
	}
	c, err := countingFromNative(h, payload, false)
	return c, n, err
}

// replace moves d into c, releasing c's old memory; c keeps its maximum
// size.
func (c *Counting) replace(d *Counting) {
	_ = c.region.Free()
	maxBytes := c.maxBytes
	nocopy.Move(c, d)
	c.maxBytes = maxBytes
}

func countingFromNative(h format.Header, payload []byte, copyWords bool) (*Counting, error) {
	if h.Hash != format.HashXXH3 {
		return nil, decodeErr(ErrCorrupt, "a counting filter hashes with xxh3, header says %v", h.Hash)
	}
	m, k := h.Params[0], h.Params[1]
	if m == 0 || m%countersPerWord != 0 || m/countersPerWord > maxCountingWords {
		return nil, decodeErr(ErrCorrupt, "%d counters (must be a positive multiple of %d)", m, countersPerWord)
	}
	if k == 0 || k > MaxHashFunctions {
		return nil, decodeErr(ErrCorrupt, "%d hash functions (must be 1..%d)", k, MaxHashFunctions)
	}
	if err := zeroParams(h, 2); err != nil {
		return nil, err
	}
	if uint64(len(payload)) != m/2 {
		return nil, decodeErr(ErrCorrupt, "payload of %d bytes for %d counters", len(payload), m)
	}
	words, shared := format.Words(payload)
	if shared && copyWords {
		words = append([]uint64(nil), words...)
	}
	return newCounting(words, int(k), h.Seed), nil
}
