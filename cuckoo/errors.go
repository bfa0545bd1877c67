package cuckoo

import (
	"github.com/sift-go/sift/internal/errs"
	"github.com/sift-go/sift/internal/format"
)

// Errors returned by New, Add and the mutating methods. The decoders
// (UnmarshalBinary, ReadFrom, Open, FromBytes), and New for sizes it cannot
// make, return errors that wrap the sift package's sentinels
// (sift.ErrTruncated, sift.ErrCorrupt, sift.ErrChecksum, sift.ErrTooLarge,
// ...); a closed or zero filter returns (or panics with) errors wrapping
// sift.ErrClosed. Every message reads "cuckoo: ..." once; test every error
// with errors.Is.
var (
	// ErrFull is returned by Add (and its String, Uint64, Hash and batch
	// forms) when the filter holds a victim: an earlier insert ran out of
	// relocations and parked a homeless fingerprint in the victim slot. The
	// filter is unchanged by the failed Add, and every key added before is
	// still reported present. A Remove re-homes the victim when the table
	// has room for it, searching for a chain of relocations to a free slot
	// anywhere near its buckets, so removing a few keys makes room again.
	// ErrNoSlot, one key's refusal below 90% load, matches it too.
	ErrFull error = errs.New(pkg, "filter is full")
	// ErrNoSlot is returned by Add (and its other forms) for a key that
	// found no slot while the filter is less than 90% full: both of its
	// buckets are full and the relocations ran out of kicks, usually
	// because fingerprints that cannot move (a repeated key's copies fill
	// both of their buckets) wall its buckets in, or because MaxKicks is
	// small. The relocations are undone: the filter is unchanged, no
	// victim is parked, and other keys can still be added. It matches
	// ErrFull (errors.Is(err, ErrFull) is true), so code that stops at a
	// full filter stops here too; test for ErrNoSlot first to go on with
	// other keys. From 90% load on, the walk parks its homeless
	// fingerprint in the victim slot instead (ErrFull for later Adds).
	ErrNoSlot error = errs.New(pkg, "no free slot found for the key below 90% load: its relocations ran out of kicks (its buckets are usually walled in by fingerprints that cannot move) and were undone", ErrFull)
	// ErrDuplicateLimit is returned by Add when both of the key's buckets
	// hold nothing but its fingerprint: 2 × 4 = 8 copies of the key (or of
	// keys sharing its buckets and fingerprint) are stored, and no
	// relocation can make room for a ninth; 4 copies when the key's two
	// buckets are the same bucket. The filter is unchanged, and other keys
	// can still be added.
	ErrDuplicateLimit error = errs.New(pkg, "both of the key's buckets are full of its fingerprint (8 copies, 4 if they are one bucket)")
	// ErrInvalidArgument is returned by New and the options for a capacity
	// of 0 or one needing more than 2^32-1 buckets (also sift.ErrTooLarge),
	// a fingerprint width other than 8 or 16, or a kick limit out of range.
	// The wrapped message says which. It is sift.ErrInvalidArgument, the
	// same value blocked and classic return for their arguments.
	ErrInvalidArgument = errs.InvalidArgument
	// ErrIncompatible is returned by Union when the two filters differ in
	// bucket count, fingerprint width or seed: their fingerprints and
	// buckets mean different things and cannot be combined. It is
	// sift.ErrIncompatible, the same value blocked and classic return.
	ErrIncompatible = errs.Incompatible
)

// Errors returned by the decoders (UnmarshalBinary, ReadFrom, ReadFilter,
// Open, FromBytes), by constructors asked for more than their maximum or than the machine can
// provide (ErrTooLarge), and by a closed or zero filter (ErrClosed). They
// are the sift package's sentinels, re-exported (as every filter package
// does) so callers of this package need not import sift; the messages are
// wrapped with detail.
var (
	ErrMagic     = errs.Magic     // not a sift file
	ErrVersion   = errs.Version   // a format version this code does not read
	ErrKind      = errs.Kind      // a sift file of another kind (the message names its loader)
	ErrTruncated = errs.Truncated // the input ends before the filter does
	ErrChecksum  = errs.Checksum  // a CRC-32C mismatch: damaged bytes
	ErrCorrupt   = errs.Corrupt   // a well-formed header with impossible values
	ErrTooLarge  = errs.TooLarge  // a size beyond the limits, the caller's bound or the machine
	ErrClosed    = errs.Closed    // a filter used after Close, or a zero value
)

// pkg is the prefix of this package's messages.
const pkg = "cuckoo"

// argError wraps ErrInvalidArgument: "cuckoo: invalid argument: <detail>".
func argError(format string, args ...any) error {
	return errs.Annotatef(pkg, []error{ErrInvalidArgument}, format, args...)
}

// tooLargeArg wraps both ErrInvalidArgument and ErrTooLarge: a size beyond
// what the design addresses ("cuckoo: invalid argument: <detail>").
func tooLargeArg(format string, args ...any) error {
	return errs.Annotatef(pkg, []error{ErrInvalidArgument, ErrTooLarge}, format, args...)
}

// corrupt wraps a sentinel (ErrCorrupt, ErrTooLarge, ...) with a
// package-prefixed message: "cuckoo: <detail>".
func corrupt(sentinel error, format string, args ...any) error {
	return errs.Errorf(pkg, []error{sentinel}, format, args...)
}

// wrapDecode gives an error from the format reader, the memory allocator or
// the file system this package's prefix, once, and keeps its chain
// (errs.Wrap).
func wrapDecode(err error) error { return errs.Wrap(pkg, err) }

// formatErr is wrapDecode for the error of format.Read or Decode, whose
// header h it returned with it: a file of another kind (ErrKind, h.Kind
// its kind) also names the calls that read it ("file holds a blocked
// filter, want cuckoo: read it with blocked.ReadFilter,
// blocked.ReadConcurrent or blocked.Open"): format.Err.
func formatErr(err error, h format.Header) error { return format.Err(pkg, err, h) }

// incompatible wraps ErrIncompatible: "cuckoo: incompatible filters: <detail>".
func incompatible(format string, args ...any) error {
	return errs.Annotatef(pkg, []error{ErrIncompatible}, format, args...)
}

// unionFull is Union's error when other's fingerprints do not all fit:
// "cuckoo: union: <sentinel's message>: <detail>", wrapping ErrFull or
// ErrDuplicateLimit.
func unionFull(sentinel error, format string, args ...any) error {
	e := errs.Annotatef(pkg, []error{sentinel}, format, args...)
	e.Msg = "union: " + e.Msg
	return e
}

// errClosed is returned by the methods of a closed or zero filter that
// return errors; errUse is the panic value of those that do not.
var (
	errClosed error = errs.New(pkg, "use of a closed filter, or of a zero value never made by New or a decoder", ErrClosed)
	errUse          = errClosed
)
