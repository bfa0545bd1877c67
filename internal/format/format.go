// Package format is sift's file format for every native filter: a fixed
// 128-byte header, then the payload at a 64-byte-aligned offset so a mapped
// file can be used in place.
//
// FORMAT.md in the repository is the byte-level specification: the
// header's fields and offsets, each kind's parameters and payload, and the
// reading rules. This package implements the header and the reading rules;
// each filter package implements its kind's parameters and payload. In
// code, a kind is one constant and one entry in the table of kinds below
// (its name, and where its parameters keep its geometry).
//
// Readers check the magic, the version, the header CRC, every field's range,
// and the declared sizes against the real input length (and a caller's
// limit) before allocating anything; the payload CRC is checked before the
// payload is trusted unless the caller opts out.
package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"

	"github.com/sift-go/sift/internal/errs"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/mem"
)

// Magic, sizes and the versions this code writes and reads. Writers write
// Version1 unless the header records a generation, which only Version2
// has, so a record without one is byte for byte what earlier releases
// wrote and read.
const (
	HeaderSize = 128
	Align      = 64
	Version1   = 1
	Version2   = 2
	// Version is the newest version this code reads.
	Version   = Version2
	NumParams = 8
)

var magic = [8]byte{0x89, 'S', 'I', 'F', 'T', '\r', '\n', 0x1a}

// Kind identifies the filter type stored in a file.
type Kind uint8

// Filter kinds. Values are part of the format and never change.
const (
	KindBlocked  Kind = 1 // blocked.Filter
	KindCuckoo   Kind = 2 // cuckoo.Filter
	KindScalable Kind = 3 // blocked.Scalable: a chain of blocked filters
	KindCounting Kind = 4 // classic.Counting
	KindClassic  Kind = 5 // classic.Filter (native form)
	// KindSplitBlock is sbbf.Filter: Parquet's split-block Bloom
	// filter, its bitset as the payload.
	KindSplitBlock Kind = 6
	// KindWindowV0 was blocked.Window's kind before its generations were
	// interleaved, never released: readers refuse it (Retired) rather than
	// read its blocks in the new order and miss keys.
	KindWindowV0 Kind = 7
	// KindWindowV1 was blocked.Window's kind while its generations were
	// interleaved block by block (a key's G blocks side by side), never
	// released: readers refuse it (Retired), as KindWindowV0.
	KindWindowV1 Kind = 8
	// KindWindow is blocked.Window: a ring of blocked generations that
	// forgets keys after a window, with its slice times, a key's
	// generations side by side as lanes of one group of cache lines.
	KindWindow Kind = 9
)

// Retired reports whether k is a kind this code knows but refuses to
// read: KindWindowV0 and KindWindowV1.
func (k Kind) Retired() bool { return k == KindWindowV0 || k == KindWindowV1 }

// MaxKind is the highest kind this code knows.
const MaxKind = KindWindow

// Geometry is a kind's size and shape as its header parameters state them
// (FORMAT.md, "Kinds"), unchecked: each field is 0 where the kind has no
// such parameter. The kind's decoder checks them against each other and
// the payload.
type Geometry struct {
	Blocks          uint64 // blocked: 64-byte blocks (window: groups of a key's generations); split-block: 32-byte blocks
	Buckets         uint64 // cuckoo: buckets of four slots
	Counters        uint64 // counting: 4-bit counters
	Words           uint64 // classic: 64-bit words
	Stages          uint64 // scalable: stages
	K               uint64 // bits (or counters) set per key
	FingerprintBits uint64 // cuckoo: 8 or 16
	Count           uint64 // keys recorded: cuckoo's fingerprints, scalable's keys added
}

// kindSpec is what the format says about one kind: its name and where its
// header parameters keep its geometry.
type kindSpec struct {
	name     string
	geometry func(p [NumParams]uint64) Geometry
}

// kinds holds one entry per kind, indexed by Kind: adding a kind to the
// format is a constant above, MaxKind, and one entry here (with its
// parameters in FORMAT.md).
var kinds = [MaxKind + 1]kindSpec{
	KindBlocked: {"blocked", func(p [NumParams]uint64) Geometry { return Geometry{Blocks: p[0], K: p[1]} }},
	KindCuckoo: {"cuckoo", func(p [NumParams]uint64) Geometry {
		return Geometry{Buckets: p[0], FingerprintBits: p[1], Count: p[2]}
	}},
	KindScalable: {"scalable", func(p [NumParams]uint64) Geometry { return Geometry{Stages: p[0], Count: p[5]} }},
	KindCounting: {"counting", func(p [NumParams]uint64) Geometry { return Geometry{Counters: p[0], K: p[1]} }},
	KindClassic:  {"classic", func(p [NumParams]uint64) Geometry { return Geometry{Words: p[2], K: p[1]} }},
	// 256-bit blocks: one bit in each of eight words.
	KindSplitBlock: {"sbbf", func(p [NumParams]uint64) Geometry { return Geometry{Blocks: p[0], K: 8} }},
	KindWindowV0:   {"window-v0", func(p [NumParams]uint64) Geometry { return Geometry{} }},
	KindWindowV1:   {"window-v1", func(p [NumParams]uint64) Geometry { return Geometry{} }},
	// Groups (p[0]) of kernel.WindowLines(G) 64-byte lines (G = p[2]; 1
	// for a G the decoders refuse): Blocks counts lines, as Window.Blocks
	// does.
	KindWindow: {"window", func(p [NumParams]uint64) Geometry {
		lines := uint64(1)
		if g := p[2]; g <= kernel.MaxGenerations && kernel.ValidGenerations(int(g)) {
			lines = uint64(kernel.WindowLines(int(g)))
		}
		hi, lo := bits.Mul64(p[0], lines)
		if hi != 0 {
			lo = math.MaxUint64
		}
		return Geometry{Blocks: lo, K: p[1]}
	}},
}

// String returns the kind's name, as `sift info` prints it.
func (k Kind) String() string {
	if k >= KindBlocked && k <= MaxKind {
		return kinds[k].name
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Geometry returns the size and shape h's parameters state for its kind
// (the zero Geometry for a kind this code does not know).
func (h Header) Geometry() Geometry {
	if h.Kind < KindBlocked || h.Kind > MaxKind {
		return Geometry{}
	}
	return kinds[h.Kind].geometry(h.Params)
}

// Hash identifies how keys were hashed.
type Hash uint8

// Hash algorithms. Values are part of the format and never change.
const (
	HashXXH3    Hash = 1 // package hash: XXH3-64 with the header's seed
	HashMurmur3 Hash = 2 // murmur3_x64_128, seed 0, Guava funnels (classic.Filter)
	HashXXH64   Hash = 3 // XXH64, seed 0, of Parquet's plain encoding (sbbf.Filter)
)

// String returns the hash algorithm's name.
func (h Hash) String() string {
	switch h {
	case HashXXH3:
		return "xxh3-64"
	case HashMurmur3:
		return "murmur3_x64_128"
	case HashXXH64:
		return "xxh64"
	}
	return fmt.Sprintf("hash(%d)", uint8(h))
}

// Header is the decoded fixed header.
type Header struct {
	Kind       Kind
	Hash       Hash
	Seed       uint64
	Params     [NumParams]uint64
	PayloadLen uint64
	PayloadCRC uint32
	// Generation is the writer's sequence number for this filter (version
	// 2 headers; 0 in version 1, which has no such field). A non-zero
	// Generation makes AppendHeader write version 2.
	Generation uint64
	// Version is the format version the header was read with (1 or 2);
	// writers ignore it and choose the version from Generation.
	Version int
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checksum returns the CRC-32C of b, the checksum the format uses.
func Checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// AppendHeader computes h.PayloadLen and h.PayloadCRC from payload and
// appends the encoded header to dst.
func AppendHeader(dst []byte, h Header, payload []byte) []byte {
	var b [HeaderSize]byte
	copy(b[:8], magic[:])
	binary.LittleEndian.PutUint16(b[8:], Version1)
	if h.Generation != 0 {
		binary.LittleEndian.PutUint16(b[8:], Version2)
		binary.LittleEndian.PutUint64(b[112:], h.Generation)
	}
	b[10] = byte(h.Kind)
	b[11] = byte(h.Hash)
	binary.LittleEndian.PutUint64(b[16:], h.Seed)
	binary.LittleEndian.PutUint64(b[24:], HeaderSize)
	binary.LittleEndian.PutUint64(b[32:], uint64(len(payload)))
	binary.LittleEndian.PutUint32(b[40:], Checksum(payload))
	for i, p := range h.Params {
		binary.LittleEndian.PutUint64(b[48+8*i:], p)
	}
	binary.LittleEndian.PutUint32(b[124:], Checksum(b[:124]))
	return append(dst, b[:]...)
}

// Encode returns header and payload as one slice.
func Encode(h Header, payload []byte) []byte {
	out := make([]byte, 0, HeaderSize+len(payload))
	return append(AppendHeader(out, h, payload), payload...)
}

// Write writes header and payload to w (two writes, no copy of the payload).
func Write(w io.Writer, h Header, payload []byte) (int64, error) {
	hdr := AppendHeader(nil, h, payload)
	n, err := w.Write(hdr)
	if err != nil {
		return int64(n), err
	}
	m, err := w.Write(payload)
	return int64(n + m), err
}

// SetGeneration rewrites the header at the start of b (a valid header of
// either version) to record generation gen, as version 2, or none (gen 0,
// version 1), and recomputes the header's CRC. The payload is untouched, so
// its CRC stays valid. It returns ParseHeader's error for a header that is
// not valid, and changes nothing then.
func SetGeneration(b []byte, gen uint64) error {
	if _, _, err := ParseHeader(b, 0, Options{}); err != nil {
		return err
	}
	binary.LittleEndian.PutUint16(b[8:], Version1)
	binary.LittleEndian.PutUint64(b[112:], 0)
	if gen != 0 {
		binary.LittleEndian.PutUint16(b[8:], Version2)
		binary.LittleEndian.PutUint64(b[112:], gen)
	}
	binary.LittleEndian.PutUint32(b[124:], Checksum(b[:124]))
	return nil
}

// Options control decoding.
type Options struct {
	// MaxPayload rejects declared payloads larger than this many bytes with
	// ErrTooLarge; 0 means no limit beyond what the platform can address.
	MaxPayload uint64
	// SkipPayloadCRC skips the payload checksum, for callers who trust their
	// storage and want Open to cost no pass over the data. The header CRC is
	// always checked.
	SkipPayloadCRC bool
	// HeaderOnly is for callers that describe a header and read no
	// payload (sift.Inspect): the payload's length is bounded by the
	// int64 range on every platform, not by what this one can address,
	// so a 32-bit reader describes a file a 64-bit machine wrote.
	HeaderOnly bool
}

// errf is a "sift: <base's message>: <detail>" error wrapping base; the
// filter packages' decoders carry it under their own prefix (errs.Wrap).
func errf(base error, format string, args ...any) error {
	return errs.Annotatef("sift", []error{base}, format, args...)
}

// HasMagic reports whether b is not empty and begins with the magic, as
// far as b goes: for readers of other formats (Guava's stream) to say
// that their input may be a sift file. (sbbf.FromBitset checks with
// ParseHeader, which a bitset's first bytes cannot pass by chance.)
func HasMagic(b []byte) bool { return len(b) > 0 && hasMagic(b) }

// hasMagic reports whether b begins with the magic, as far as b goes.
func hasMagic(b []byte) bool {
	n := min(len(b), len(magic))
	return bytes.Equal(b[:n], magic[:n])
}

// ParseHeader decodes and validates the fixed header in b (at least
// HeaderSize bytes) and returns it with the payload offset. want is the kind
// the caller reads; 0 accepts any kind.
func ParseHeader(b []byte, want Kind, opt Options) (h Header, payloadOff uint64, err error) {
	// ErrMagic also for a short input whose bytes already differ from the
	// magic (a 3-byte text file is not a cut sift file).
	if !hasMagic(b) {
		return h, 0, errs.Magic
	}
	if len(b) < HeaderSize {
		return h, 0, errf(errs.Truncated, "header needs %d bytes, have %d", HeaderSize, len(b))
	}
	v := binary.LittleEndian.Uint16(b[8:])
	if v != Version1 && v != Version2 {
		return h, 0, errf(errs.Version, "file has version %d, this reader knows %d and %d", v, Version1, Version2)
	}
	if got, want := Checksum(b[:124]), binary.LittleEndian.Uint32(b[124:]); got != want {
		return h, 0, errf(errs.Checksum, "header CRC-32C is %#08x, stored %#08x", got, want)
	}
	h.Kind = Kind(b[10])
	h.Hash = Hash(b[11])
	if f := binary.LittleEndian.Uint32(b[12:]); f != 0 {
		return h, 0, errf(errs.Corrupt, "unknown flags %#x", f)
	}
	if r := binary.LittleEndian.Uint32(b[44:]); r != 0 {
		return h, 0, errf(errs.Corrupt, "reserved field is %#x", r)
	}
	h.Version = int(v)
	reserved := b[112:124]
	if v == Version2 {
		h.Generation = binary.LittleEndian.Uint64(b[112:])
		if h.Generation == 0 {
			return h, 0, errf(errs.Corrupt, "a version 2 header with generation 0 (writers use version 1 for that)")
		}
		reserved = b[120:124]
	}
	for _, c := range reserved {
		if c != 0 {
			return h, 0, errf(errs.Corrupt, "reserved bytes are not zero")
		}
	}
	if h.Kind < KindBlocked || h.Kind > MaxKind {
		return h, 0, errf(errs.Corrupt, "unknown filter kind %d", uint8(h.Kind))
	}
	if h.Kind.Retired() {
		return h, 0, errf(errs.Kind, "kind %d is a windowed filter in a layout of before sift's first release (kind 7: generations one after another; kind 8: interleaved block by block), which this version does not read: rebuild it", uint8(h.Kind))
	}
	if want != 0 && h.Kind != want {
		return h, 0, errf(errs.Kind, "file holds a %v filter, want %v", h.Kind, want)
	}
	if h.Hash < HashXXH3 || h.Hash > HashXXH64 {
		return h, 0, errf(errs.Corrupt, "unknown hash algorithm %d", uint8(h.Hash))
	}
	h.Seed = binary.LittleEndian.Uint64(b[16:])
	payloadOff = binary.LittleEndian.Uint64(b[24:])
	h.PayloadLen = binary.LittleEndian.Uint64(b[32:])
	h.PayloadCRC = binary.LittleEndian.Uint32(b[40:])
	for i := range h.Params {
		h.Params[i] = binary.LittleEndian.Uint64(b[48+8*i:])
	}
	if payloadOff < HeaderSize || payloadOff%Align != 0 || payloadOff > 1<<20 {
		return h, 0, errf(errs.Corrupt, "payload offset %d (must be a multiple of %d in [%d, 1 MiB])", payloadOff, Align, HeaderSize)
	}
	limit := uint64(math.MaxInt) - payloadOff
	if opt.HeaderOnly {
		limit = math.MaxInt64 - payloadOff
	}
	if opt.MaxPayload != 0 && opt.MaxPayload < limit {
		limit = opt.MaxPayload
	}
	if h.PayloadLen > limit {
		return h, 0, errf(errs.TooLarge, "payload of %d bytes exceeds the limit of %d", h.PayloadLen, limit)
	}
	return h, payloadOff, nil
}

// StillWrittenHint is the hint CheckHead's ErrTruncated carries for a
// file shorter than its header declares (the sift command adds none of
// its own to such an error).
const StillWrittenHint = "is it still being written?"

// CheckHead checks the first bytes of a file of size bytes that must hold
// exactly one encoding of kind want (0: any) with a payload of at most
// maxPayload bytes (0: no limit): head (HeaderSize bytes, fewer if the
// file is shorter) must be a header ParseHeader accepts, and the file as
// long as the encoding that header declares (ErrTruncated when shorter:
// cut, or still being written; ErrCorrupt when longer).
func CheckHead(head []byte, size int64, want Kind, maxPayload uint64) error {
	h, off, err := ParseHeader(head, want, Options{MaxPayload: maxPayload})
	if err != nil {
		return err
	}
	end := off + h.PayloadLen
	switch {
	case size < 0 || uint64(size) < end:
		return errf(errs.Truncated, "the file has %d bytes, its header declares %d ("+StillWrittenHint+")", size, end)
	case uint64(size) > end:
		return errf(errs.Corrupt, "%d bytes after the filter (the file has %d, its header declares %d)", uint64(size)-end, size, end)
	}
	return nil
}

// Decode parses a complete encoding at the start of b without copying: the
// payload is a subslice of b. It returns the number of bytes the encoding
// spans, so containers can decode several in a row; callers that expect b to
// be exactly one filter check n == len(b).
func Decode(b []byte, want Kind, opt Options) (h Header, payload []byte, n int, err error) {
	h, off, err := ParseHeader(b, want, opt)
	if err != nil {
		return h, nil, 0, err
	}
	if uint64(len(b)) < off || uint64(len(b))-off < h.PayloadLen {
		return h, nil, 0, errf(errs.Truncated, "header declares %d payload bytes at offset %d, input has %d bytes", h.PayloadLen, off, len(b))
	}
	for _, c := range b[HeaderSize:off] {
		if c != 0 {
			return h, nil, 0, errf(errs.Corrupt, "padding before the payload is not zero")
		}
	}
	end := off + h.PayloadLen
	payload = b[off:end:end]
	if !opt.SkipPayloadCRC {
		if got := Checksum(payload); got != h.PayloadCRC {
			return h, nil, 0, errf(errs.Checksum, "payload CRC-32C is %#08x, stored %#08x", got, h.PayloadCRC)
		}
	}
	return h, payload, int(end), nil
}

// firstChunk bounds how far a reader's buffer runs ahead of the bytes that
// have actually arrived: it starts this small and doubles only when full,
// so memory grows with the input, not with its claims. It is 16 KiB less
// the alignment slack, so the aligned allocation (firstChunk+63 bytes)
// stays in the runtime's 16 KiB size class: with 64 KiB the allocation
// (64 KiB + 63) rounded up to the 72 KiB class, past the 64 KiB plus a
// multiple of the input that the fuzz tests allow a decode of a short
// input claiming a large payload (TestReadBoundedMemory).
const firstChunk = 16<<10 - mem.Align

// Read reads one complete encoding from r: exactly the header, padding and
// payload, nothing beyond. The payload buffer starts at a 64-byte-aligned
// address. Memory grows only as input arrives (never more than twice the
// bytes read plus 64 KiB), so a header declaring a huge payload over a
// short stream costs nothing; and a declared payload larger than the
// machine's memory (mem.MachineMemory, where known) is ErrTooLarge before
// anything is read, since the buffer lives on the Go heap, whose
// exhaustion would end the process. It returns the bytes consumed.
func Read(r io.Reader, want Kind, opt Options) (h Header, payload []byte, n int64, err error) {
	var hdr [HeaderSize]byte
	m, err := io.ReadFull(r, hdr[:])
	n = int64(m)
	if err != nil {
		if !hasMagic(hdr[:m]) {
			return h, nil, n, errs.Magic
		}
		return h, nil, n, readErr(err, "header", m, HeaderSize)
	}
	h, off, err := ParseHeader(hdr[:], want, opt)
	if err != nil {
		return h, nil, n, err
	}
	if m := mem.MachineMemory(); m != 0 && h.PayloadLen > m {
		return h, nil, n, errf(errs.TooLarge, "payload of %d bytes is more than this machine's memory (%d bytes of RAM and swap)", h.PayloadLen, m)
	}
	var pad [Align]byte
	for left := off - HeaderSize; left > 0; {
		c := min(left, Align)
		m, err := io.ReadFull(r, pad[:c])
		n += int64(m)
		if err != nil {
			return h, nil, n, readErr(err, "padding", m, int(c))
		}
		for _, b := range pad[:c] {
			if b != 0 {
				return h, nil, n, errf(errs.Corrupt, "padding before the payload is not zero")
			}
		}
		left -= c
	}
	buf, m, err := ReadBytes(r, int(h.PayloadLen))
	n += int64(m)
	if err != nil {
		return h, nil, n, readErr(err, "payload", m, int(h.PayloadLen))
	}
	if !opt.SkipPayloadCRC {
		if c := Checksum(buf); c != h.PayloadCRC {
			return h, nil, n, errf(errs.Checksum, "payload CRC-32C is %#08x, stored %#08x", c, h.PayloadCRC)
		}
	}
	return h, buf, n, nil
}

// ReadBytes reads exactly total bytes from r into a 64-byte-aligned buffer
// that grows only as input arrives (from 64 KiB, doubling), so a size
// claimed by a header costs nothing until the bytes are there. It returns
// the bytes read so far and the error of a short read.
func ReadBytes(r io.Reader, total int) ([]byte, int, error) {
	buf := mem.AlignedBytes(min(total, firstChunk))
	got := 0
	for got < total {
		if got == len(buf) {
			bigger := mem.AlignedBytes(min(total, 2*len(buf)))
			copy(bigger, buf)
			buf = bigger
		}
		m, err := io.ReadFull(r, buf[got:])
		got += m
		if err != nil {
			return buf[:got], got, err
		}
	}
	return buf[:total:total], total, nil
}

func readErr(err error, what string, got, want int) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errf(errs.Truncated, "%s: got %d of %d bytes", what, got, want)
	}
	return errs.Errorf("sift", []error{err}, "reading %s: %v", what, err)
}
