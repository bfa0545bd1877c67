package sift

import "github.com/sift-go/sift/internal/errs"

// Errors returned by the decoders of every filter (UnmarshalBinary, ReadFrom,
// Open, FromBytes), and ErrTooLarge also by the constructors. They are
// wrapped with detail, so test them with errors.Is.
var (
	// ErrMagic is returned when the input does not start with sift's magic
	// bytes: it is not a sift filter at all.
	ErrMagic = errs.Magic
	// ErrVersion is returned for a format version this code does not know.
	ErrVersion = errs.Version
	// ErrKind is returned when the encoded filter is of another kind than
	// the decoder reads (for example a cuckoo filter given to blocked.Open),
	// or, by Open, Load and FromBytes, of a kind that cannot be viewed in
	// place (the message names the function that reads it).
	ErrKind = errs.Kind
	// ErrTruncated is returned when the input ends before the encoded filter does.
	ErrTruncated = errs.Truncated
	// ErrChecksum is returned when a CRC-32C of the header or payload does
	// not match: the bytes were damaged.
	ErrChecksum = errs.Checksum
	// ErrCorrupt is returned when the header checks out but its values are
	// impossible (zero k, sizes that disagree, unknown hash). The wrapped
	// message says which.
	ErrCorrupt = errs.Corrupt
	// ErrTooLarge is returned when a size exceeds the caller's limit, the
	// filter's own maximum, what the platform can address or what the
	// machine's memory can hold: by decoders for a declared size, and by
	// constructors for the size they would allocate (never the Go
	// runtime's fatal out-of-memory error).
	ErrTooLarge = errs.TooLarge
)

// ErrClosed is returned (wrapped) by the methods of a filter that has been
// closed, or of a zero value that was never made by a constructor or a
// decoder, where they return errors; where they do not, they panic with an
// error wrapping it (see each type's Close for which is which). One
// exception: the single-key lookups of a closed or zero cuckoo.Filter or
// cuckoo.View (Contains, ContainsString, ContainsUint64, ContainsHash)
// panic with a runtime nil dereference instead, which never reads freed
// memory and costs their probe nothing (see package cuckoo, "Memory,
// closing and zero values").
var ErrClosed = errs.Closed

// Errors of the constructors and of the methods that combine two filters,
// in every filter package: blocked.ErrInvalidArgument,
// cuckoo.ErrInvalidArgument and classic.ErrInvalidArgument are this
// ErrInvalidArgument, and likewise ErrIncompatible, so one errors.Is test
// covers every package.
var (
	// ErrInvalidArgument is returned for an argument or option a
	// constructor cannot use (a false-positive rate outside (0, 1), a
	// capacity of 0, a k or fingerprint width out of range, ...). The
	// message says which, under the package's own prefix ("blocked: ...",
	// "cuckoo: invalid argument: ..."), and a package's finer sentinels
	// (blocked.ErrInvalidFPP, ...) match it too.
	ErrInvalidArgument = errs.InvalidArgument
	// ErrIncompatible is returned by Union, Intersect and PutAll when the
	// two filters differ in size, k, fingerprint width, strategy or seed:
	// their bits mean different things and cannot be combined.
	ErrIncompatible = errs.Incompatible
)

// Error is the type of every error the module's packages build: its message
// reads "<package>: <detail>" with the package's prefix once, and it
// unwraps to the sentinels it matches (ErrCorrupt, ErrInvalidArgument, a
// package's own ErrFull, ...) and to its cause, if any (an *fs.PathError,
// an I/O error). Test errors with errors.Is; errors.As to *Error gives the
// prefix (Pkg) and the detail without it (Msg).
type Error = errs.Error
