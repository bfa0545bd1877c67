package cuckoo

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sift-go/sift"
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
	ErrFull = errors.New("cuckoo: filter is full")
	// ErrDuplicateLimit is returned by Add when both of the key's buckets
	// hold nothing but its fingerprint: 2 × 4 = 8 copies of the key (or of
	// keys sharing its buckets and fingerprint) are stored, and no
	// relocation can make room for a ninth. The filter is unchanged, and
	// other keys can still be added.
	ErrDuplicateLimit = errors.New("cuckoo: both of the key's buckets are full of its fingerprint (8 copies)")
	// ErrInvalidArgument is returned by New and the options for a capacity
	// of 0 or one needing more than 2^32-1 buckets (also sift.ErrTooLarge),
	// a fingerprint width other than 8 or 16, or a kick limit out of range.
	// The wrapped message says which.
	ErrInvalidArgument = errors.New("cuckoo: invalid argument")
	// ErrIncompatible is returned by Union when the two filters differ in
	// bucket count, fingerprint width or seed: their fingerprints and
	// buckets mean different things and cannot be combined.
	ErrIncompatible = errors.New("cuckoo: incompatible filters")
)

// Errors returned by the decoders (UnmarshalBinary, ReadFrom, ReadFilter,
// Open, FromBytes), by constructors asked for more than their maximum or than the machine can
// provide (ErrTooLarge), and by a closed or zero filter (ErrClosed). They
// are the sift package's sentinels, re-exported (as every filter package
// does) so callers of this package need not import sift; the messages are
// wrapped with detail.
var (
	ErrMagic     = sift.ErrMagic     // not a sift file
	ErrVersion   = sift.ErrVersion   // a format version this code does not read
	ErrKind      = sift.ErrKind      // a sift file holding another kind of filter
	ErrTruncated = sift.ErrTruncated // the input ends before the filter does
	ErrChecksum  = sift.ErrChecksum  // a CRC-32C mismatch: damaged bytes
	ErrCorrupt   = sift.ErrCorrupt   // a well-formed header with impossible values
	ErrTooLarge  = sift.ErrTooLarge  // a size beyond the limits, the caller's bound or the machine
	ErrClosed    = sift.ErrClosed    // a filter used after Close, or a zero value
)

// wrapErr is an error that reads "cuckoo: <msg>" and unwraps to its
// sentinels (or errors carrying them), so errors.Is works whichever layer
// produced it.
type wrapErr struct {
	errs []error
	msg  string
}

func (e *wrapErr) Error() string   { return "cuckoo: " + e.msg }
func (e *wrapErr) Unwrap() []error { return e.errs }

// sentinelMsg is a sentinel's message without its package prefix.
func sentinelMsg(err error) string {
	s := err.Error()
	if i := strings.Index(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// argError wraps ErrInvalidArgument: "cuckoo: invalid argument: <detail>".
func argError(format string, args ...any) error {
	return &wrapErr{errs: []error{ErrInvalidArgument}, msg: sentinelMsg(ErrInvalidArgument) + ": " + fmt.Sprintf(format, args...)}
}

// tooLargeArg wraps both ErrInvalidArgument and sift.ErrTooLarge: a size
// beyond what the design addresses.
func tooLargeArg(format string, args ...any) error {
	return &wrapErr{errs: []error{ErrInvalidArgument, sift.ErrTooLarge}, msg: sentinelMsg(ErrInvalidArgument) + ": " + fmt.Sprintf(format, args...)}
}

// corrupt wraps a sift sentinel with a package-prefixed message, so
// errors.Is(err, sift.ErrCorrupt) works and the text reads "cuckoo: ...".
func corrupt(sentinel error, format string, args ...any) error {
	return &wrapErr{errs: []error{sentinel}, msg: fmt.Sprintf(format, args...)}
}

// wrapDecode gives an error from the format reader, the memory allocator or
// the file system this package's prefix, once (dropping the "sift: " the
// format reader's sentinels start with), and keeps its chain.
func wrapDecode(err error) error {
	if err == nil {
		return nil
	}
	msg := strings.TrimPrefix(err.Error(), "sift: ")
	return &wrapErr{errs: []error{err}, msg: strings.TrimPrefix(msg, "cuckoo: ")}
}

// incompatible wraps ErrIncompatible: "cuckoo: incompatible filters: <detail>".
func incompatible(format string, args ...any) error {
	return &wrapErr{errs: []error{ErrIncompatible}, msg: sentinelMsg(ErrIncompatible) + ": " + fmt.Sprintf(format, args...)}
}

// unionFull is Union's error when other's fingerprints do not all fit:
// "cuckoo: union: <detail>", wrapping ErrFull or ErrDuplicateLimit.
func unionFull(sentinel error, format string, args ...any) error {
	return &wrapErr{errs: []error{sentinel}, msg: "union: " + sentinelMsg(sentinel) + ": " + fmt.Sprintf(format, args...)}
}

// errClosed is returned by the methods of a closed or zero filter that
// return errors; errUse is the panic value of those that do not.
var (
	errClosed = &wrapErr{errs: []error{sift.ErrClosed}, msg: "use of a closed filter, or of a zero value never made by New or a decoder"}
	errUse    = errClosed
)
