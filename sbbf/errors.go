package sbbf

import (
	"github.com/sift-go/sift/internal/errs"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/kernel"
)

// Errors returned by the constructors, the sizing functions, Fold, FoldN
// and Union. Each is wrapped with detail: test with errors.Is.
var (
	// ErrInvalidArgument is returned for an argument a call cannot use;
	// ErrInvalidFPP, which says which, matches it too (errors.Is). It is
	// sift.ErrInvalidArgument, the same value every filter package
	// returns for its arguments.
	ErrInvalidArgument = errs.InvalidArgument
	// ErrInvalidFPP is returned when a false-positive rate is not in the
	// open interval (0, 1) or is NaN.
	ErrInvalidFPP error = errs.New(pkg, "false-positive rate must be in (0, 1)", ErrInvalidArgument)
	// ErrIncompatible is returned by Union when the two filters differ in
	// block count, and by FoldN when the block count cannot be halved that
	// many times. It is sift.ErrIncompatible, the same value every filter
	// package returns.
	ErrIncompatible = errs.Incompatible
	// ErrUnsupported is returned by the Parquet decoders (ParseParquet,
	// ReadParquet, ViewParquet, DecodeParquetHeader, UnmarshalParquet)
	// when a well-formed BloomFilterHeader names an algorithm, hash or
	// compression other than the specification's split-block, XXH64 and
	// uncompressed: not damage, but a filter this package cannot use (a
	// Parquet reader skips it).
	ErrUnsupported error = errs.New(pkg, "unsupported Parquet Bloom filter")
)

// Errors returned by the decoders (UnmarshalBinary, ReadFrom, Open,
// FromBytes and the Parquet decoders); ErrTooLarge also by constructors
// asked for more than MaxBlocks, WithMaxSize or the machine can provide,
// and ErrClosed by a closed or zero filter. They are the sift package's
// sentinels, re-exported (as every filter package does) so callers of this
// package need not import sift; the messages are wrapped with detail.
var (
	ErrMagic     = errs.Magic     // not a sift file
	ErrVersion   = errs.Version   // a format version this code does not read
	ErrKind      = errs.Kind      // a sift file of another kind (the message names its loader)
	ErrTruncated = errs.Truncated // the input ends before the filter does
	ErrChecksum  = errs.Checksum  // a CRC-32C mismatch: damaged bytes
	ErrCorrupt   = errs.Corrupt   // a well-formed header with impossible values
	ErrTooLarge  = errs.TooLarge  // a size beyond MaxBlocks, the caller's limit or the machine
	ErrClosed    = errs.Closed    // a filter used after Close, or a zero value
)

// pkg is the prefix of this package's messages.
const pkg = "sbbf"

// errorf is an error reading "sbbf: <detail>" that matches sentinel (and
// whatever sentinel matches).
func errorf(sentinel error, format string, args ...any) error {
	return errs.Errorf(pkg, []error{sentinel}, format, args...)
}

// prefix gives errors from the shared format reader, the memory allocator
// and the file system this package's prefix, once, while keeping their
// chain (errs.Wrap).
func prefix(err error) error { return errs.Wrap(pkg, err) }

// formatErr is prefix for the error of format.Read or Decode, whose
// header h it returned with it: a file of another kind (ErrKind, h.Kind
// its kind) also names the calls that read it ("file holds a blocked
// filter, want sbbf: read it with blocked.ReadFilter, blocked.ReadConcurrent
// or blocked.Open"): format.Err.
func formatErr(err error, h format.Header) error { return format.Err(pkg, err, h) }

// errUse is the panic value of a method that cannot return an error when
// it is called on a closed or zero filter: the kernels' own (the
// single-key calls panic in them), so every such panic reads the same.
var errUse = kernel.ErrNoSBBFBlocks
