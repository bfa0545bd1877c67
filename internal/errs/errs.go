// Package errs defines the error values that package sift exports (as
// sift.ErrMagic, sift.ErrTooLarge, ...), below every other package of the
// module, so that the internal packages that return them (format, mem) and
// package sift, which reads file headers with package format, do not import
// each other in a cycle. Filter packages use them through package sift.
package errs

import "errors"

// The values behind package sift's sentinels; their documentation is there.
var (
	Magic     = errors.New("sift: not a sift filter (bad magic)")
	Version   = errors.New("sift: unsupported format version")
	Kind      = errors.New("sift: wrong filter kind")
	Truncated = errors.New("sift: truncated input")
	Checksum  = errors.New("sift: checksum mismatch")
	Corrupt   = errors.New("sift: corrupt filter")
	TooLarge  = errors.New("sift: filter too large")
	Closed    = errors.New("sift: filter is closed or was never made")
)
