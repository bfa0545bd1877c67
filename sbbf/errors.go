package sbbf

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sift-go/sift"
)

// Errors returned by the constructors, the sizing functions, Fold, FoldN
// and Union. Each is wrapped with detail: test with errors.Is.
var (
	// ErrInvalidArgument is returned for an argument a call cannot use;
	// ErrInvalidFPP, which says which, matches it too (errors.Is).
	ErrInvalidArgument = errors.New("sbbf: invalid argument")
	// ErrInvalidFPP is returned when a false-positive rate is not in the
	// open interval (0, 1) or is NaN.
	ErrInvalidFPP error = &argSentinel{"sbbf: false-positive rate must be in (0, 1)"}
	// ErrIncompatible is returned by Union when the two filters differ in
	// block count, and by FoldN when the block count cannot be halved that
	// many times.
	ErrIncompatible = errors.New("sbbf: incompatible filters")
	// ErrUnsupported is returned by the Parquet decoders (ParseParquet,
	// ReadParquet, ViewParquet, DecodeParquetHeader, UnmarshalParquet)
	// when a well-formed BloomFilterHeader names an algorithm, hash or
	// compression other than the specification's split-block, XXH64 and
	// uncompressed: not damage, but a filter this package cannot use (a
	// Parquet reader skips it).
	ErrUnsupported = errors.New("sbbf: unsupported Parquet Bloom filter")
)

// Errors returned by the decoders (UnmarshalBinary, ReadFrom, Open,
// FromBytes and the Parquet decoders); ErrTooLarge also by constructors
// asked for more than MaxBlocks, WithMaxSize or the machine can provide,
// and ErrClosed by a closed or zero filter. They are the sift package's
// sentinels, re-exported (as every filter package does) so callers of this
// package need not import sift; the messages are wrapped with detail.
var (
	ErrMagic     = sift.ErrMagic     // not a sift file
	ErrVersion   = sift.ErrVersion   // a format version this code does not read
	ErrKind      = sift.ErrKind      // a sift file holding another kind of filter
	ErrTruncated = sift.ErrTruncated // the input ends before the filter does
	ErrChecksum  = sift.ErrChecksum  // a CRC-32C mismatch: damaged bytes
	ErrCorrupt   = sift.ErrCorrupt   // a well-formed header with impossible values
	ErrTooLarge  = sift.ErrTooLarge  // a size beyond MaxBlocks, the caller's limit or the machine
	ErrClosed    = sift.ErrClosed    // a filter used after Close, or a zero value
)

// argSentinel is a sentinel that also matches ErrInvalidArgument.
type argSentinel struct{ msg string }

func (e *argSentinel) Error() string { return e.msg }
func (e *argSentinel) Unwrap() error { return ErrInvalidArgument }

// wrapErr is an error that reads "sbbf: <detail>" and unwraps to its
// sentinel (or an error carrying one), so errors.Is works whichever layer
// produced it.
type wrapErr struct {
	sentinel error
	msg      string
}

func (e *wrapErr) Error() string { return "sbbf: " + e.msg }
func (e *wrapErr) Unwrap() error { return e.sentinel }

func errorf(sentinel error, format string, args ...any) error {
	return &wrapErr{sentinel: sentinel, msg: fmt.Sprintf(format, args...)}
}

// prefix gives errors from the shared format reader, the memory allocator
// and the file system this package's prefix (once: a "sift: " or "sbbf: "
// already there is dropped) while keeping their chain.
func prefix(err error) error {
	if err == nil {
		return nil
	}
	msg := strings.TrimPrefix(err.Error(), "sift: ")
	msg = strings.TrimPrefix(msg, "sbbf: ")
	return &wrapErr{sentinel: err, msg: msg}
}

// errUse is the panic value of a method that cannot return an error when
// it is called on a closed or zero filter.
var errUse = errorf(ErrClosed, "use of a closed filter, or of a zero value never made by a constructor, UnmarshalBinary, ReadFrom or UnmarshalParquet")
