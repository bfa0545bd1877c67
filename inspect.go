package sift

import (
	"encoding/binary"
	"errors"
	"io"
	"math"

	"github.com/sift-go/sift/internal/errs"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/mem"
)

// Kind is the type of filter a sift file holds (the header's byte 10, see
// FORMAT.md). The values are part of the file format and never change.
type Kind uint8

// The kinds of filter a sift file can hold.
const (
	KindBlocked  Kind = 1 // blocked.Filter, Concurrent or View
	KindCuckoo   Kind = 2 // cuckoo.Filter, Concurrent or View
	KindScalable Kind = 3 // blocked.Scalable: a chain of blocked filters
	KindCounting Kind = 4 // classic.Counting
	KindClassic  Kind = 5 // classic.Filter, in sift's format (not Guava's stream)
	// KindSplitBlock is sbbf.Filter or sbbf.View: Parquet's
	// split-block Bloom filter (256-bit blocks of eight 32-bit words).
	KindSplitBlock Kind = 6
	// KindWindow is blocked.Window: blocked generations that forget keys
	// after a window. Open and FromBytes copy it (blocked.WindowFromBytes)
	// and its lookups go on forgetting by blocked.WithClock's default
	// clock (the wall clock at the program's start, advanced by the
	// monotonic clock: a step of the system clock does not move it).
	KindWindow Kind = 9
)

// String returns the kind's name ("blocked", "cuckoo", ...), as the sift
// command prints it, or "kind(N)" for a value no kind has.
func (k Kind) String() string { return format.Kind(k).String() }

// Hash is how the keys of a filter file are hashed (the header's byte 11).
// The values are part of the file format and never change.
type Hash uint8

// The hash functions a sift file can name.
const (
	// HashXXH3 is package hash: XXH3-64 with the seed in the header.
	HashXXH3 Hash = 1
	// HashMurmur3 is murmur3_x64_128 with seed 0 of the key's bytes as
	// Guava's funnels write them (classic.Filter).
	HashMurmur3 Hash = 2
	// HashXXH64 is XXH64 with seed 0 of a value's Parquet plain encoding,
	// as Parquet hashes it (sbbf.Filter).
	HashXXH64 Hash = 3
)

// String returns the hash function's name ("xxh3-64", "murmur3_x64_128",
// "xxh64").
func (h Hash) String() string { return format.Hash(h).String() }

// Info is what the header of a sift file says about the filter it holds:
// enough to tell the kind and size of a file without knowing them in
// advance, and to choose its decoder. Inspect, InspectAt and InspectFile
// return it after checking the header as every decoder checks it first
// (magic, version, header CRC-32C, known kind and hash, offsets, a payload
// size the platform can address); Verify also checks the payload. The
// kind's own parameters are reported as stored: only the kind's decoder
// (Open, FromBytes, UnmarshalBinary, ReadFrom) checks them against each
// other and against the payload.
type Info struct {
	Kind    Kind   // the filter type
	Version int    // the format version: 1, or 2 when the header records a generation
	Hash    Hash   // how keys are hashed
	Seed    uint64 // the hash seed (0 for classic filters)
	// Generation is the sequence number the writer recorded (WriteFile,
	// SetGeneration, sift build -generation), or 0 when it recorded none
	// (a version 1 header). With HeaderCRC it names the exact file a
	// server holds.
	Generation uint64

	// Size is the length of the whole encoding in bytes: header, padding
	// and payload. A decoder given a buffer or file of another length
	// rejects it; a stream decoder reads exactly Size bytes.
	Size uint64
	// PayloadOffset is where the payload starts, a multiple of 64 (128 as
	// sift writes it), and PayloadSize its length in bytes.
	PayloadOffset, PayloadSize uint64
	// HeaderCRC is the CRC-32C of the header's first 124 bytes, which
	// matched. PayloadCRC is the stored CRC-32C of the payload, which only
	// Verify (and the decoders, unless told not to) compare with the data.
	HeaderCRC, PayloadCRC uint32

	// Params are the kind's eight parameters as stored (FORMAT.md lists
	// them for every kind). The fields below decode the usual ones; each
	// is zero for the kinds it does not apply to.
	Params [8]uint64

	Blocks          uint64 // blocked, window: 64-byte blocks (lines); split-block: 32-byte blocks
	Buckets         uint64 // cuckoo: buckets of four slots
	Counters        uint64 // counting: 4-bit counters
	Words           uint64 // classic: 64-bit words (the filter has 64*Words bits)
	Stages          uint64 // scalable: the number of stages
	K               int    // blocked, counting, classic, split-block (8): bits or counters per key
	FingerprintBits int    // cuckoo: 8 or 16
	// Count is the number of keys where the file records it: a cuckoo
	// filter's stored fingerprints (the victim included), a scalable
	// filter's keys added. Bloom filters record none (their
	// EstimatedCount methods estimate it from the bits): 0.
	Count uint64
}

// Inspect reads the header at the start of b, which may be a whole encoding
// or only its first 128 bytes, and describes the filter. It allocates
// nothing but an error, and reads nothing past the header. Errors wrap
// ErrTruncated (fewer than 128 bytes), ErrMagic, ErrVersion, ErrChecksum,
// ErrCorrupt, ErrTooLarge (a payload declared past the int64 range; on a
// 32-bit platform too, Inspect describes a header that only a 64-bit one
// can load), or ErrKind for kinds 7 and 8 (windowed layouts retired
// before sift's first release, which no version reads).
func Inspect(b []byte) (Info, error) {
	h, off, err := format.ParseHeader(b, 0, format.Options{HeaderOnly: true})
	if err != nil {
		return Info{}, err
	}
	return infoOf(h, off, headerCRC(b)), nil
}

// InspectAt is Inspect for the encoding that starts at offset off of r: it
// reads exactly the header's 128 bytes there (into a buffer that escapes
// to the heap through r: one allocation).
func InspectAt(r io.ReaderAt, off int64) (Info, error) {
	var b [format.HeaderSize]byte
	n, err := r.ReadAt(b[:], off)
	if n < len(b) {
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return Info{}, errs.Errorf("sift", []error{err}, "reading the header: %v", err)
		}
		// A short header: ErrMagic if what there is is not sift's,
		// else ErrTruncated.
		_, _, err := format.ParseHeader(b[:n], 0, format.Options{})
		return Info{}, err
	}
	return Inspect(b[:])
}

// InspectFile is Inspect for the file at path: it reads the file's first
// 128 bytes. A path that names no regular file (a directory, a FIFO, a
// device) is an error wrapping *fs.PathError, returned at once without
// waiting for a FIFO's writer; like every error of this package it is a
// *Error, as Open's for the same path.
func InspectFile(path string) (Info, error) {
	f, _, err := mem.OpenRegular(path)
	if err != nil {
		return Info{}, errs.Wrap("sift", err)
	}
	defer f.Close()
	return InspectAt(f, 0)
}

// Verify checks that b holds exactly one complete encoding whose payload
// matches its checksum, whatever the kind, and describes it. It is the
// check a decoder makes before it reads the kind's parameters, without
// decoding anything or allocating memory for the filter: a file damaged in
// storage or transfer fails here. Errors wrap ErrTruncated (the payload is
// cut off), ErrChecksum (either CRC-32C does not match), ErrCorrupt
// (non-zero padding, or bytes after the encoding), and Inspect's errors.
// Info describes the header whenever the header itself is sound: with no
// error, and with every error but Inspect's.
func Verify(b []byte) (Info, error) {
	info, err := Inspect(b)
	if err != nil {
		return info, err
	}
	_, _, n, err := format.Decode(b, 0, format.Options{})
	if err != nil {
		return info, err
	}
	if n != len(b) {
		return info, errs.Annotatef("sift", []error{ErrCorrupt}, "%d bytes after the end of the filter", len(b)-n)
	}
	return info, nil
}

func infoOf(h format.Header, off uint64, headerCRC uint32) Info {
	p := h.Params
	info := Info{
		Kind:          Kind(h.Kind),
		Version:       h.Version,
		Generation:    h.Generation,
		Hash:          Hash(h.Hash),
		Seed:          h.Seed,
		Size:          off + h.PayloadLen, // ParseHeader bounds both
		PayloadOffset: off,
		PayloadSize:   h.PayloadLen,
		HeaderCRC:     headerCRC,
		PayloadCRC:    h.PayloadCRC,
		Params:        p,
	}
	// Each kind's parameters, as FORMAT.md defines them (internal/format's
	// table of kinds).
	g := h.Geometry()
	info.Blocks, info.Buckets, info.Counters, info.Words, info.Stages, info.Count = g.Blocks, g.Buckets, g.Counters, g.Words, g.Stages, g.Count
	info.K, info.FingerprintBits = smallInt(g.K), smallInt(g.FingerprintBits)
	return info
}

// headerCRC returns the header's stored CRC-32C (its last four bytes); b
// holds a header ParseHeader accepted.
func headerCRC(b []byte) uint32 { return binary.LittleEndian.Uint32(b[format.HeaderSize-4:]) }

// smallInt returns p as an int, capped at MaxInt32 (a damaged header may
// store anything; the kind's decoder rejects out-of-range values).
func smallInt(p uint64) int { return int(min(p, math.MaxInt32)) }
