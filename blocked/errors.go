package blocked

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sift-go/sift"
)

// Errors returned by the constructors and by Union, Intersect and
// Scalable's adds. Each is wrapped with detail: test with errors.Is.
var (
	// ErrInvalidArgument is returned for an argument or option a
	// constructor cannot use. The errors after it say which, and each of
	// ErrInvalidFPP, ErrInvalidK and ErrInvalidOption matches
	// ErrInvalidArgument too (errors.Is), as the same mistakes do in
	// packages cuckoo and classic; so does ErrFPPTooLow where it is the
	// constructor's argument (not when a Scalable's new stage would need
	// such a rate).
	ErrInvalidArgument = errors.New("blocked: invalid argument")
	// ErrInvalidFPP is returned when a false-positive rate is not in the
	// open interval (0, 1) or is NaN.
	ErrInvalidFPP error = &argSentinel{"blocked: false-positive rate must be in (0, 1)"}
	// ErrFPPTooLow is returned by New, NewConcurrent, OptimalSize and
	// NewScalable (and by Scalable's adds, for a new stage) for a
	// false-positive rate below MinFPP, which this design cannot reach at a
	// sane cost (see "Supported rates" in the package documentation). The
	// wrapped message says what a classic Bloom filter (package classic),
	// which serves such rates, needs.
	ErrFPPTooLow = errors.New("blocked: false-positive rate below MinFPP: use a classic Bloom filter (package classic)")
	// ErrInvalidK is returned when the number of probes per key is not in
	// 1..MaxK.
	ErrInvalidK error = &argSentinel{"blocked: k must be in 1..16"}
	// ErrInvalidOption is returned when an option's value is out of range
	// (a growth factor below 2, a tightening ratio outside (0, 1)).
	ErrInvalidOption error = &argSentinel{"blocked: invalid option"}
	// ErrIncompatible is returned by Union and Intersect when the two
	// filters differ in block count, k or seed: their bits mean different
	// things and cannot be combined.
	ErrIncompatible = errors.New("blocked: incompatible filters")
)

// Errors returned by the decoders (UnmarshalBinary, ReadFrom, Open,
// FromBytes); ErrTooLarge also by constructors asked for more than their
// maximum (MaxBits, WithMaxSize) or than the machine can provide, and
// ErrClosed by a closed or zero filter. They are the sift package's
// sentinels, re-exported (as every filter package does) so callers of this
// package need not import sift; the messages are wrapped with detail.
var (
	ErrMagic     = sift.ErrMagic     // not a sift file
	ErrVersion   = sift.ErrVersion   // a format version this code does not read
	ErrKind      = sift.ErrKind      // a sift file holding another kind of filter
	ErrTruncated = sift.ErrTruncated // the input ends before the filter does
	ErrChecksum  = sift.ErrChecksum  // a CRC-32C mismatch: damaged bytes
	ErrCorrupt   = sift.ErrCorrupt   // a well-formed header with impossible values
	ErrTooLarge  = sift.ErrTooLarge  // a size beyond MaxBits, the caller's limit or the machine
	ErrClosed    = sift.ErrClosed    // a filter used after Close, or a zero value
)

// argSentinel is a sentinel that also matches ErrInvalidArgument.
type argSentinel struct{ msg string }

func (e *argSentinel) Error() string { return e.msg }
func (e *argSentinel) Unwrap() error { return ErrInvalidArgument }

// wrapErr is an error that reads "blocked: <detail>" and unwraps to one or
// more sentinels (or errors carrying them), so errors.Is works whichever
// layer produced it.
type wrapErr struct {
	sentinels []error
	msg       string
}

func (e *wrapErr) Error() string   { return "blocked: " + e.msg }
func (e *wrapErr) Unwrap() []error { return e.sentinels }

func errorf(sentinel error, format string, args ...any) error {
	return &wrapErr{sentinels: []error{sentinel}, msg: fmt.Sprintf(format, args...)}
}

// errorf2 is errorf for an error that matches two sentinels.
func errorf2(s1, s2 error, format string, args ...any) error {
	return &wrapErr{sentinels: []error{s1, s2}, msg: fmt.Sprintf(format, args...)}
}

// prefix gives errors from the shared format reader, the memory allocator
// and the file system this package's prefix (once: a "sift: " or
// "blocked: " already there is dropped) while keeping their chain.
func prefix(err error) error {
	if err == nil {
		return nil
	}
	msg := strings.TrimPrefix(err.Error(), "sift: ")
	msg = strings.TrimPrefix(msg, "blocked: ")
	return &wrapErr{sentinels: []error{err}, msg: msg}
}

// errUse is the panic value of a method that cannot return an error when
// it is called on a closed or zero filter.
var errUse = errorf(ErrClosed, "use of a closed filter, or of a zero value never made by a constructor, UnmarshalBinary or ReadFrom")

// trimPrefix returns err's message without this package's prefix, to nest
// it in another message of this package.
func trimPrefix(err error) string {
	return strings.TrimPrefix(err.Error(), "blocked: ")
}
