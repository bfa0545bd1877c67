package classic

import (
	"github.com/sift-go/sift/internal/errs"
	"github.com/sift-go/sift/internal/format"
)

// Errors returned by the constructors and by PutAll and Remove. Decoders
// return errors that wrap the sift package's sentinels (sift.ErrTruncated,
// sift.ErrCorrupt, sift.ErrTooLarge, ...), the constructors wrap
// sift.ErrTooLarge for sizes beyond their maximum or the machine, and a
// zero Filter or Counting returns (or panics with) errors wrapping
// sift.ErrClosed; test all of them with errors.Is. Every message reads
// "classic: ..." once.
var (
	// ErrInvalidArgument is returned by New and NewCounting when the
	// expected number of insertions is negative, the false positive
	// probability is not in (0, 1), the strategy is unknown, a seed is
	// given to New, or the resulting filter would be one Guava itself
	// refuses to build (no bits, more than 2^31-1 words (also
	// sift.ErrTooLarge), or more than 255 hash functions). The wrapped
	// message says which. It is sift.ErrInvalidArgument, the same value
	// blocked and cuckoo return for their arguments.
	ErrInvalidArgument = errs.InvalidArgument
	// ErrIncompatible is returned by PutAll and Counting.Union when the two
	// filters differ in strategy, number of hash functions, size or seed, or
	// are the same filter (Guava refuses to combine a filter with itself).
	// It is sift.ErrIncompatible, the same value blocked and cuckoo return.
	ErrIncompatible = errs.Incompatible
	// ErrNotPresent is returned by Counting.Remove when the key is not in
	// the filter (one of its counters is zero); the filter is unchanged.
	ErrNotPresent error = errs.New(pkg, "key not present")
)

// Errors returned by the decoders (UnmarshalBinary, ReadFrom, ReadFilter,
// ReadCounting, ReadGuava), by constructors asked for more than their maximum or than the machine can
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
const pkg = "classic"

// argError wraps ErrInvalidArgument with detail: "classic: invalid
// argument: <detail>".
func argError(format string, args ...any) error {
	return errs.Annotatef(pkg, []error{ErrInvalidArgument}, format, args...)
}

// incompatible wraps ErrIncompatible with detail: "classic: incompatible
// filters: <detail>".
func incompatible(format string, args ...any) error {
	return errs.Annotatef(pkg, []error{ErrIncompatible}, format, args...)
}

// decodeErr is what the decoders return: "classic: <detail>", wrapping one
// of the sift sentinels (ErrTruncated, ErrCorrupt, ...).
func decodeErr(sentinel error, format string, args ...any) error {
	return errs.Errorf(pkg, []error{sentinel}, format, args...)
}

// formatErr gives the error of format.Read or Decode, whose header h it
// returned with it, the package prefix, once, keeping its chain intact for
// errors.Is; a file of another kind (ErrKind, h.Kind its kind) also names
// the calls that read it ("file holds a blocked filter, want classic: read
// it with blocked.ReadFilter, blocked.ReadConcurrent or blocked.Open"):
// format.Err.
func formatErr(err error, h format.Header) error { return format.Err(pkg, err, h) }

// sizeErr is a constructor's error for a size it cannot make: it wraps
// ErrTooLarge or, when not nil, cause (the allocator's error, which wraps
// ErrTooLarge itself).
func sizeErr(cause error, format string, args ...any) error {
	match := []error{ErrTooLarge}
	if cause != nil {
		match = []error{cause}
	}
	return errs.Errorf(pkg, match, format, args...)
}

// tooLargeArg wraps ErrInvalidArgument and ErrTooLarge: a size Guava
// refuses for being too large ("classic: invalid argument: <detail>").
func tooLargeArg(format string, args ...any) error {
	return errs.Annotatef(pkg, []error{ErrInvalidArgument, ErrTooLarge}, format, args...)
}

// errZero is returned, or panicked with, by the methods of a zero Filter or
// Counting, which has no bits: it would otherwise answer true for every key.
var errZero error = errs.New(pkg, "use of a zero filter: make one with New, NewCounting or a decoder", ErrClosed)

// errNotPresent is Counting.Remove's error, preallocated so a failed
// Remove does not allocate.
var errNotPresent error = errs.New(pkg, errs.Detail(ErrNotPresent)+" (a counter is zero)", ErrNotPresent)
