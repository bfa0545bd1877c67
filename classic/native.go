package classic

import (
	"io"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/internal/format"
)

// The native sift encodings (package internal/format: a 128-byte
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

// MarshalBinary encodes f in sift's native format (see the package
// documentation), which carries checksums and can be read by
// UnmarshalBinary and ReadNative. It implements encoding.BinaryMarshaler.
// For Guava's format use WriteTo or AppendGuava. For a zero Filter it
// returns an error wrapping sift.ErrClosed.
func (f *Filter) MarshalBinary() ([]byte, error) {
	if f.numHash == 0 {
		return nil, errZero
	}
	return format.Encode(f.nativeHeader(), format.WordBytes(f.words)), nil
}

// WriteNativeTo writes f to w in sift's native format, the bytes
// MarshalBinary returns, and returns the number of bytes written.
func (f *Filter) WriteNativeTo(w io.Writer) (int64, error) {
	if f.numHash == 0 {
		return 0, errZero
	}
	return format.Write(w, f.nativeHeader(), format.WordBytes(f.words))
}

// UnmarshalBinary replaces f with the filter encoded in data in sift's
// native format, which must be exactly one encoding. It implements
// encoding.BinaryUnmarshaler and copies what it keeps. Errors wrap the sift
// sentinels (sift.ErrMagic, ErrVersion, ErrKind, ErrTruncated, ErrChecksum,
// ErrCorrupt, ErrTooLarge); on error f is unchanged.
func (f *Filter) UnmarshalBinary(data []byte) error {
	h, payload, n, err := format.Decode(data, format.KindClassic, format.Options{})
	if err != nil {
		return prefixErr(err)
	}
	if n != len(data) {
		return decodeErr(sift.ErrCorrupt, "%d bytes after the filter", len(data)-n)
	}
	g, err := filterFromNative(h, payload, true)
	if err != nil {
		return err
	}
	*f = *g
	return nil
}

// ReadNative reads one filter in sift's native format from r, reading
// exactly its bytes. maxBytes > 0 rejects larger payloads with
// sift.ErrTooLarge before anything is allocated; memory otherwise grows
// only as the input arrives. Errors are as for UnmarshalBinary.
func ReadNative(r io.Reader, maxBytes int64) (*Filter, error) {
	h, payload, _, err := format.Read(r, format.KindClassic, format.Options{MaxPayload: limitOption(maxBytes)})
	if err != nil {
		return nil, prefixErr(err)
	}
	return filterFromNative(h, payload, false)
}

func limitOption(maxBytes int64) uint64 {
	if maxBytes <= 0 {
		return 0
	}
	return uint64(maxBytes)
}

// filterFromNative validates a decoded header and payload. copyWords says
// whether the words must be copied (the payload belongs to the caller).
func filterFromNative(h format.Header, payload []byte, copyWords bool) (*Filter, error) {
	if h.Hash != format.HashMurmur3 || h.Seed != 0 {
		return nil, decodeErr(sift.ErrCorrupt, "a classic filter hashes with murmur3 seed 0, header says %v seed %#x", h.Hash, h.Seed)
	}
	strategy, k, nwords := h.Params[0], h.Params[1], h.Params[2]
	if strategy > uint64(Murmur128Mitz64) {
		return nil, decodeErr(sift.ErrCorrupt, "unknown strategy ordinal %d", strategy)
	}
	if k == 0 || k > MaxHashFunctions {
		return nil, decodeErr(sift.ErrCorrupt, "%d hash functions (must be 1..%d)", k, MaxHashFunctions)
	}
	if nwords == 0 || nwords > MaxWords {
		return nil, decodeErr(sift.ErrCorrupt, "%d words (must be 1..%d)", nwords, MaxWords)
	}
	if err := zeroParams(h, 3); err != nil {
		return nil, err
	}
	if uint64(len(payload)) != 8*nwords {
		return nil, decodeErr(sift.ErrCorrupt, "payload of %d bytes for %d words", len(payload), nwords)
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
			return decodeErr(sift.ErrCorrupt, "header parameter %d is %#x, must be zero", i, h.Params[i])
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

// MarshalBinary encodes c in sift's native format (see the package
// documentation). It implements encoding.BinaryMarshaler. For a zero
// Counting it returns an error wrapping sift.ErrClosed.
func (c *Counting) MarshalBinary() ([]byte, error) {
	if c.k == 0 {
		return nil, errZero
	}
	return format.Encode(c.nativeHeader(), format.WordBytes(c.words)), nil
}

// WriteTo writes c to w in sift's native format and returns the number of
// bytes written. It implements io.WriterTo.
func (c *Counting) WriteTo(w io.Writer) (int64, error) {
	if c.k == 0 {
		return 0, errZero
	}
	return format.Write(w, c.nativeHeader(), format.WordBytes(c.words))
}

// UnmarshalBinary replaces c with the filter encoded in data, which must be
// exactly one encoding in sift's native format. It implements
// encoding.BinaryUnmarshaler and copies what it keeps. Errors wrap the sift
// sentinels; on error c is unchanged.
func (c *Counting) UnmarshalBinary(data []byte) error {
	h, payload, n, err := format.Decode(data, format.KindCounting, format.Options{})
	if err != nil {
		return prefixErr(err)
	}
	if n != len(data) {
		return decodeErr(sift.ErrCorrupt, "%d bytes after the filter", len(data)-n)
	}
	d, err := countingFromNative(h, payload, true)
	if err != nil {
		return err
	}
	*c = *d
	return nil
}

// ReadFrom replaces c with the filter read from r in sift's native format,
// reading exactly its bytes, and returns the number of bytes read. It
// implements io.ReaderFrom; on error c is unchanged. Use ReadCounting for a
// size limit.
func (c *Counting) ReadFrom(r io.Reader) (int64, error) {
	d, n, err := readCounting(r, 0)
	if err != nil {
		return n, err
	}
	*c = *d
	return n, nil
}

// ReadCounting reads one counting filter in sift's native format from r.
// maxBytes > 0 rejects larger payloads with sift.ErrTooLarge before
// anything is allocated; memory otherwise grows only as the input arrives.
func ReadCounting(r io.Reader, maxBytes int64) (*Counting, error) {
	c, _, err := readCounting(r, maxBytes)
	return c, err
}

func readCounting(r io.Reader, maxBytes int64) (*Counting, int64, error) {
	h, payload, n, err := format.Read(r, format.KindCounting, format.Options{MaxPayload: limitOption(maxBytes)})
	if err != nil {
		return nil, n, prefixErr(err)
	}
	c, err := countingFromNative(h, payload, false)
	return c, n, err
}

func countingFromNative(h format.Header, payload []byte, copyWords bool) (*Counting, error) {
	if h.Hash != format.HashXXH3 {
		return nil, decodeErr(sift.ErrCorrupt, "a counting filter hashes with xxh3, header says %v", h.Hash)
	}
	m, k := h.Params[0], h.Params[1]
	if m == 0 || m%countersPerWord != 0 || m/countersPerWord > maxCountingWords {
		return nil, decodeErr(sift.ErrCorrupt, "%d counters (must be a positive multiple of %d)", m, countersPerWord)
	}
	if k == 0 || k > MaxHashFunctions {
		return nil, decodeErr(sift.ErrCorrupt, "%d hash functions (must be 1..%d)", k, MaxHashFunctions)
	}
	if err := zeroParams(h, 2); err != nil {
		return nil, err
	}
	if uint64(len(payload)) != m/2 {
		return nil, decodeErr(sift.ErrCorrupt, "payload of %d bytes for %d counters", len(payload), m)
	}
	words, shared := format.Words(payload)
	if shared && copyWords {
		words = append([]uint64(nil), words...)
	}
	return newCounting(words, int(k), h.Seed), nil
}
