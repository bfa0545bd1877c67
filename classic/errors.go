package classic

import (
	"errors"
	"fmt"
)

// Errors returned by the constructors and by PutAll and Remove. Decoders
// return errors that wrap the sift package's sentinels (sift.ErrTruncated,
// sift.ErrCorrupt, sift.ErrTooLarge, ...); test all of them with errors.Is.
var (
	// ErrInvalidArgument is returned by New and NewCounting when the
	// expected number of insertions is negative, the false positive
	// probability is not in (0, 1), the strategy is unknown, or the
	// resulting filter would be one Guava itself refuses to build (no bits,
	// more than 2^31-1 words, or more than 255 hash functions). The wrapped
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
// reader, keeping its chain intact for errors.Is.
func prefixErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("classic: %w", err)
}
