package blocked

import (
	"github.com/sift-go/sift/internal/errs"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/kernel"
)

// Errors returned by the constructors and by Union, Intersect and
// Scalable's adds. Each is wrapped with detail: test with errors.Is.
var (
	// ErrInvalidArgument is returned for an argument or option a
	// constructor cannot use. The errors after it say which, and each of
	// ErrInvalidFPP, ErrInvalidK and ErrInvalidOption matches
	// ErrInvalidArgument too (errors.Is); so does ErrFPPTooLow where it is
	// the constructor's argument (not when a Scalable's new stage would
	// need such a rate). It is sift.ErrInvalidArgument, the same value
	// cuckoo and classic return for their arguments.
	ErrInvalidArgument = errs.InvalidArgument
	// ErrInvalidFPP is returned when a false-positive rate is not in the
	// open interval (0, 1) or is NaN.
	ErrInvalidFPP error = errs.New("blocked", "false-positive rate must be in (0, 1)", ErrInvalidArgument)
	// ErrFPPTooLow is returned by New, NewConcurrent, OptimalSize and
	// NewScalable (and by Scalable's adds, for a new stage) for a
	// false-positive rate below MinFPP, which this design cannot reach at a
	// sane cost (see "Supported rates" in the package documentation). The
	// wrapped message says what a classic Bloom filter (package classic),
	// which serves such rates, needs.
	ErrFPPTooLow error = errs.New("blocked", "false-positive rate below MinFPP: use a classic Bloom filter (package classic)")
	// ErrInvalidK is returned when the number of probes per key is not in
	// 1..MaxK.
	ErrInvalidK error = errs.New("blocked", "k must be in 1..16", ErrInvalidArgument)
	// ErrInvalidOption is returned when an option's value is out of range
	// (a growth factor below 2, a tightening ratio outside (0, 1)).
	ErrInvalidOption error = errs.New("blocked", "invalid option", ErrInvalidArgument)
	// ErrIncompatible is returned by Union and Intersect when the two
	// filters differ in block count, k or seed: their bits mean different
	// things and cannot be combined. It is sift.ErrIncompatible, the same
	// value cuckoo and classic return.
	ErrIncompatible = errs.Incompatible
)

// Errors returned by the decoders (UnmarshalBinary, ReadFrom, Open,
// FromBytes); ErrTooLarge also by constructors asked for more than their
// maximum (MaxBits, WithMaxSize) or than the machine can provide, and
// ErrClosed by a closed or zero filter. They are the sift package's
// sentinels, re-exported (as every filter package does) so callers of this
// package need not import sift; the messages are wrapped with detail.
var (
	ErrMagic     = errs.Magic     // not a sift file
	ErrVersion   = errs.Version   // a format version this code does not read
	ErrKind      = errs.Kind      // a sift file of another kind (the message names its loader)
	ErrTruncated = errs.Truncated // the input ends before the filter does
	ErrChecksum  = errs.Checksum  // a CRC-32C mismatch: damaged bytes
	ErrCorrupt   = errs.Corrupt   // a well-formed header with impossible values
	ErrTooLarge  = errs.TooLarge  // a size beyond MaxBits, the caller's limit or the machine
	ErrClosed    = errs.Closed    // a filter used after Close, or a zero value
)

// pkg is the prefix of this package's messages.
const pkg = "blocked"

// errorf is an error reading "blocked: <detail>" that matches sentinel
// (and whatever sentinel matches).
func errorf(sentinel error, format string, args ...any) error {
	return errs.Errorf(pkg, []error{sentinel}, format, args...)
}

// errorf2 is errorf for an error that matches two sentinels.
func errorf2(s1, s2 error, format string, args ...any) error {
	return errs.Errorf(pkg, []error{s1, s2}, format, args...)
}

// prefix gives errors from the shared format reader, the memory allocator
// and the file system this package's prefix, once, while keeping their
// chain (errs.Wrap).
func prefix(err error) error { return errs.Wrap(pkg, err) }

// formatErr is prefix for the error of format.Read or Decode, whose header
// h it returned with it: a file of another kind (ErrKind, h.Kind its kind)
// also names the calls that read it ("file holds a window filter, want
// blocked: read it with ReadWindow or ReadConcurrentWindow"): format.Err.
func formatErr(err error, h format.Header) error { return format.Err(pkg, err, h) }

// errUse is the panic value of a method that cannot return an error when
// it is called on a closed or zero filter: the kernels' own (the
// single-key calls panic in them), so every such panic reads the same.
var errUse = kernel.ErrNoBlocks

// trimPrefix returns err's message without its package prefix, to nest it
// in another message of this package.
func trimPrefix(err error) string { return errs.Detail(err) }
