package cuckoo

import (
	"errors"
	"fmt"
)

// Errors returned by New, Add and the mutating methods. Decoders (
// UnmarshalBinary, ReadFrom, Open, FromBytes) return errors that wrap the sift
// package's sentinels (sift.ErrTruncated, sift.ErrCorrupt, sift.ErrChecksum,
// ...) with a "cuckoo: " message; test every error with errors.Is.
var (
	// ErrFull is returned by Add (and its String, Uint64, Hash and batch
	// forms) when the filter holds a victim: an earlier insert ran out of
	// kicks and parked a homeless fingerprint in the victim slot. The
	// filter is unchanged by the failed Add, and every key added before is
	// still reported present. Removing keys re-homes the victim and makes
	// room again.
	ErrFull = errors.New("cuckoo: filter is full")
	// ErrInvalidArgument is returned by New and the options for a capacity
	// of 0 or one needing more than 2^32-1 buckets, a fingerprint width
	// other than 8 or 16, or a kick limit out of range. The wrapped message
	// says which.
	ErrInvalidArgument = errors.New("cuckoo: invalid argument")
	// ErrReadOnly is returned by Add on a filter obtained from Open or
	// FromBytes, which serve lookups straight from memory they must not
	// write. Clone such a filter to get a writable copy.
	ErrReadOnly = errors.New("cuckoo: filter is read-only")
)

func argError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...)
}

// decodeError wraps a sift sentinel with a package-prefixed message, so
// errors.Is(err, sift.ErrCorrupt) works and the text reads "cuckoo: ...".
type decodeError struct {
	sentinel error
	msg      string
}

func (e *decodeError) Error() string { return "cuckoo: " + e.msg }
func (e *decodeError) Unwrap() error { return e.sentinel }

func corrupt(sentinel error, format string, args ...any) error {
	return &decodeError{sentinel: sentinel, msg: fmt.Sprintf(format, args...)}
}

// wrapDecode prefixes an error from the format package with "cuckoo: ".
func wrapDecode(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("cuckoo: %w", err)
}
