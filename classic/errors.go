package classic

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sift-go/sift"
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
	// message says which.
	ErrInvalidArgument = errors.New("classic: invalid argument")
	// ErrIncompatible is returned by PutAll and Counting.Union when the two
	// filters differ in strategy, number of hash functions, size or seed, or
	// are the same filter (Guava refuses to combine a filter with itself).
	ErrIncompatible = errors.New("classic: incompatible filters")
	// ErrNotPresent is returned by Counting.Remove when the key is not in
	// the filter (one of its counters is zero); the filter is unchanged.
	ErrNotPresent = errors.New("classic: key not present")
)

// Errors returned by the decoders (UnmarshalBinary, ReadFrom, ReadFilter,
// ReadCounting, ReadGuava), by constructors asked for more than their maximum or than the machine can
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

// argError wraps ErrInvalidArgument with detail.
func argError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...)
}

// decodeError is what the decoders return: a package-prefixed message that
// wraps one of the sift sentinels, so errors.Is(err, sift.ErrTruncated)
// works and the text reads "classic: ...".
type decodeError struct {
	sentinel error
	msg      string
}

func (e *decodeError) Error() string { return "classic: " + e.msg }
func (e *decodeError) Unwrap() error { return e.sentinel }

func decodeErr(sentinel error, format string, args ...any) error {
	return &decodeError{sentinel: sentinel, msg: fmt.Sprintf(format, args...)}
}

// prefixErr adds the package prefix to an error from the shared format
// reader, once (dropping the "sift: " its sentinels start with), keeping
// its chain intact for errors.Is.
func prefixErr(err error) error {
	if err == nil {
		return nil
	}
	return &decodeError{sentinel: err, msg: strings.TrimPrefix(strings.TrimPrefix(err.Error(), "sift: "), "classic: ")}
}

// multiError reads "classic: <msg>" and matches each of errs.
type multiError struct {
	errs []error
	msg  string
}

func (e *multiError) Error() string   { return "classic: " + e.msg }
func (e *multiError) Unwrap() []error { return e.errs }

// sizeErr is a constructor's error for a size it cannot make: it wraps
// sift.ErrTooLarge and, when not nil, cause (the allocator's error).
func sizeErr(cause error, format string, args ...any) error {
	errs := []error{sift.ErrTooLarge}
	if cause != nil {
		errs = []error{cause}
	}
	return &multiError{errs: errs, msg: fmt.Sprintf(format, args...)}
}

// tooLargeArg wraps ErrInvalidArgument and sift.ErrTooLarge: a size Guava
// refuses for being too large.
func tooLargeArg(format string, args ...any) error {
	return &multiError{errs: []error{ErrInvalidArgument, sift.ErrTooLarge}, msg: "invalid argument: " + fmt.Sprintf(format, args...)}
}

// errZero is returned, or panicked with, by the methods of a zero Filter or
// Counting, which has no bits: it would otherwise answer true for every key.
var errZero error = &decodeError{sentinel: sift.ErrClosed, msg: "use of a zero filter: make one with New, NewCounting or a decoder"}
