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
	// ErrInvalidFPP is returned when a false-positive rate is not in the
	// open interval (0, 1) or is NaN.
	ErrInvalidFPP = errors.New("blocked: false-positive rate must be in (0, 1)")
	// ErrInvalidK is returned when the number of probes per key is not in
	// 1..MaxK.
	ErrInvalidK = errors.New("blocked: k must be in 1..16")
	// ErrInvalidOption is returned when an option's value is out of range
	// (a growth factor below 2, a tightening ratio outside (0, 1)).
	ErrInvalidOption = errors.New("blocked: invalid option")
	// ErrIncompatible is returned by Union and Intersect when the two
	// filters differ in block count, k or seed: their bits mean different
	// things and cannot be combined.
	ErrIncompatible = errors.New("blocked: incompatible filters")
)

// Errors returned by the decoders (UnmarshalBinary, ReadFrom, Open,
// FromBytes) and, for ErrTooLarge, by constructors asked for more than
// MaxBits. They are the sift package's sentinels, re-exported so callers of
// this package need not import sift; the messages are wrapped with detail.
var (
	ErrMagic     = sift.ErrMagic     // not a sift file
	ErrVersion   = sift.ErrVersion   // a format version this code does not read
	ErrKind      = sift.ErrKind      // a sift file holding another kind of filter
	ErrTruncated = sift.ErrTruncated // the input ends before the filter does
	ErrChecksum  = sift.ErrChecksum  // a CRC-32C mismatch: damaged bytes
	ErrCorrupt   = sift.ErrCorrupt   // a well-formed header with impossible values
	ErrTooLarge  = sift.ErrTooLarge  // a size beyond MaxBits or the caller's limit
)

// wrapErr is an error that reads "blocked: <detail>" and unwraps to a
// sentinel, so errors.Is works whichever layer produced it.
type wrapErr struct {
	sentinel error
	msg      string
}

func (e *wrapErr) Error() string { return "blocked: " + e.msg }
func (e *wrapErr) Unwrap() error { return e.sentinel }

func errorf(sentinel error, format string, args ...any) error {
	return &wrapErr{sentinel: sentinel, msg: fmt.Sprintf(format, args...)}
}

// prefix gives errors from the shared format reader this package's prefix
// while keeping their sentinel.
func prefix(err error) error {
	if err == nil {
		return nil
	}
	return &wrapErr{sentinel: err, msg: strings.TrimPrefix(err.Error(), "sift: ")}
}
