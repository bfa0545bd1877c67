package classic

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"runtime"

	"github.com/sift-go/sift/internal/errs"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/mem"
)

// Guava's stream format (BloomFilter.writeTo / readFrom), big-endian:
//
//	offset size field
//	0      1    strategy ordinal (signed byte; 0 or 1)
//	1      1    number of hash functions (unsigned byte; 1..255)
//	2      4    number of 64-bit words (signed int; 1..2^31-1)
//	6      8*n  the words, in order; bit i of the filter is bit i%64 of word i/64
const guavaHeaderSize = 6

// guavaChunk is how many bytes of words a reader decodes per read: the
// reader's only fixed buffer.
const guavaChunk = 8 << 10

// guavaInitialWords bounds the first allocation of a reader: the word slice
// then doubles as data actually arrives, capped at the declared count, so a
// header claiming 2^31-1 words over a short stream costs a few KiB.
const guavaInitialWords = 1 << 10

// AppendGuava appends f in Guava's stream format to b and returns the
// extended slice: the bytes WriteGuava writes. For a zero or closed Filter,
// which has no Guava form, it returns b unchanged and an error wrapping
// ErrClosed.
func (f *Filter) AppendGuava(b []byte) ([]byte, error) {
	if f.numHash == 0 {
		return b, errZero
	}
	b = append(b, byte(f.strategy), byte(f.numHash))
	b = binary.BigEndian.AppendUint32(b, uint32(len(f.words)))
	for _, w := range f.words {
		b = binary.BigEndian.AppendUint64(b, w)
	}
	runtime.KeepAlive(f)
	return b, nil
}

// GuavaSize returns the length of f in Guava's stream format; 0 for a
// closed or zero filter, which has no Guava form (WriteGuava fails).
func (f *Filter) GuavaSize() int64 {
	if f.numHash == 0 { // closed or zero, as mustMade tests
		return 0
	}
	return guavaHeaderSize + 8*int64(len(f.words))
}

// WriteGuava writes f to w in Guava's stream format, the bytes Guava's
// BloomFilter.writeTo(OutputStream) writes for the same filter, so Java's
// BloomFilter.readFrom(InputStream, funnel) reads it (with the funnel
// matching the keys' form), and returns the number of bytes written.
// ReadGuava reads it back. (WriteTo writes sift's format.)
func (f *Filter) WriteGuava(w io.Writer) (int64, error) {
	if f.numHash == 0 {
		return 0, errZero
	}
	var buf [guavaChunk]byte
	b := append(buf[:0], byte(f.strategy), byte(f.numHash))
	b = binary.BigEndian.AppendUint32(b, uint32(len(f.words)))
	var written int64
	for i := 0; ; {
		for ; i < len(f.words) && len(b)+8 <= len(buf); i++ {
			b = binary.BigEndian.AppendUint64(b, f.words[i])
		}
		n, err := w.Write(b)
		written += int64(n)
		if err != nil {
			return written, err
		}
		if i == len(f.words) {
			return written, nil
		}
		b = buf[:0]
	}
}

// ReadGuava reads one filter in Guava's stream format (what
// BloomFilter.writeTo writes) from r, reading exactly its bytes and nothing
// after them.
//
// It accepts what Guava's BloomFilter.readFrom accepts and rejects the rest
// with an error: an unknown strategy ordinal or zero hash functions
// (wrapping ErrCorrupt), a word count that is zero or negative
// (ErrCorrupt), words beyond the WithMaxSize bound (ErrTooLarge,
// before any is read), and input that ends early (ErrTruncated). Errors
// from r itself are returned wrapped.
//
// Memory grows only with the bytes that actually arrive: a header declaring
// 2^31-1 words followed by little data allocates a few KiB, not 16 GiB.
// Without WithMaxSize the bound is Guava's own (2^31-1 words) and the
// machine's memory (RAM and swap, where the system reports them). The
// filter keeps the bound for its own UnmarshalBinary and ReadFrom. Options:
// WithMaxSize.
func ReadGuava(r io.Reader, opts ...Option) (*Filter, error) {
	o := collect(opts)
	f, _, err := readGuava(r, o.maxBytes)
	if err != nil {
		return nil, err
	}
	f.maxBytes = o.maxBytes
	return f, nil
}

func readGuava(r io.Reader, maxBytes uint64) (*Filter, int64, error) {
	var hdr [guavaHeaderSize]byte
	got, err := io.ReadFull(r, hdr[:])
	read := int64(got)
	if err != nil {
		return nil, read, guavaReadErr(err, "header", int64(got), guavaHeaderSize)
	}
	strategy := int8(hdr[0]) // Java's readByte is signed
	if strategy != int8(Murmur128Mitz32) && strategy != int8(Murmur128Mitz64) {
		if format.HasMagic(hdr[:]) {
			return nil, read, decodeErr(ErrCorrupt, "Guava stream: the input is a sift file, not Guava's stream format: read it with ReadFilter (or sift.Open)")
		}
		return nil, read, decodeErr(ErrCorrupt, "Guava stream: unknown strategy ordinal %d", strategy)
	}
	k := int(hdr[1])
	if k == 0 {
		return nil, read, decodeErr(ErrCorrupt, "Guava stream: zero hash functions")
	}
	nwords := int64(int32(binary.BigEndian.Uint32(hdr[2:])))
	if nwords <= 0 {
		return nil, read, decodeErr(ErrCorrupt, "Guava stream: word count %d must be positive", nwords)
	}
	total := guavaHeaderSize + 8*nwords
	if maxBytes > 0 && uint64(nwords) > maxBytes/8 {
		return nil, read, decodeErr(ErrTooLarge, "Guava stream of %d words (%d bytes) exceeds the maximum size of %d bytes (WithMaxSize)", nwords, 8*nwords, maxBytes)
	}
	if uint64(nwords) > uint64(math.MaxInt)/8 {
		return nil, read, decodeErr(ErrTooLarge, "Guava stream of %d words does not fit in memory on this platform", nwords)
	}
	if m := mem.MachineMemory(); m != 0 && uint64(nwords) > m/8 {
		return nil, read, decodeErr(ErrTooLarge, "Guava stream of %d words (%d bytes) is more than this machine's memory (%d bytes of RAM and swap)", nwords, 8*nwords, m)
	}

	words := make([]uint64, 0, min(nwords, guavaInitialWords))
	var buf [guavaChunk]byte
	for int64(len(words)) < nwords {
		want := min(int64(len(buf)), 8*(nwords-int64(len(words))))
		got, err := io.ReadFull(r, buf[:want])
		read += int64(got)
		if got%8 != 0 {
			got -= got % 8 // a partial word is as good as none
		}
		if len(words)+got/8 > cap(words) {
			grown := make([]uint64, len(words), min(nwords, max(2*int64(cap(words)), int64(len(words)+got/8))))
			copy(grown, words)
			words = grown
		}
		for i := 0; i < got; i += 8 {
			words = append(words, binary.BigEndian.Uint64(buf[i:]))
		}
		if err != nil {
			return nil, read, guavaReadErr(err, "words", read, total)
		}
	}
	return newFilter(words, k, Strategy(strategy)), read, nil
}

func guavaReadErr(err error, what string, got, want int64) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return decodeErr(ErrTruncated, "Guava stream: input ends in the %s after %d of %d bytes", what, got, want)
	}
	return errs.Errorf(pkg, []error{err}, "reading Guava stream %s: %v", what, err)
}
