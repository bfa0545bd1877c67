// Package errs is the error model of the whole module: the sentinel values
// every package returns (package sift exports them as sift.ErrMagic,
// sift.ErrInvalidArgument, ...; the filter packages re-export the same
// values under the same names) and Error, the one error type that carries
// them.
//
// An Error reads "<package>: <message>": the prefix names the package whose
// API returned it, once, however many layers the error passed. It unwraps to
// its sentinels and its cause, so errors.Is and errors.As see through it.
// Wrapping an Error into another package's Error takes the inner message
// without its prefix from the struct (Detail), never by editing strings.
//
// It sits below every other package of the module (it imports only the
// standard library), so the internal packages (format, mem, kernel) and the
// filter packages use it without importing package sift, and package sift
// can import the filter packages.
package errs

import "fmt"

// Error is the one error type of the module. Its message is Pkg + ": " +
// Msg (Msg alone when Pkg is empty), and it matches (errors.Is, errors.As)
// each error it wraps: sentinels, and the cause where there is one.
type Error struct {
	// Pkg is the package the message speaks for ("blocked", "cuckoo",
	// "classic", "sift"), or "" for a message without a prefix.
	Pkg string
	// Msg is the message after the prefix.
	Msg  string
	errs []error
}

// Error returns "<Pkg>: <Msg>".
func (e *Error) Error() string {
	if e.Pkg == "" {
		return e.Msg
	}
	return e.Pkg + ": " + e.Msg
}

// Unwrap returns the sentinels and the cause e wraps, for errors.Is and
// errors.As.
func (e *Error) Unwrap() []error { return e.errs }

// New returns an Error reading "<pkg>: <msg>" that also matches each of
// match: a sentinel (match empty), or a sentinel that is a special case of
// others (blocked.ErrInvalidK matches ErrInvalidArgument).
func New(pkg, msg string, match ...error) *Error {
	return &Error{Pkg: pkg, Msg: msg, errs: match}
}

// Errorf returns an Error reading "<pkg>: <formatted message>" that matches
// each of match. Its arguments are formatted as fmt.Sprintf formats them;
// %w is not for here (pass the wrapped errors in match).
func Errorf(pkg string, match []error, format string, args ...any) *Error {
	return &Error{Pkg: pkg, Msg: fmt.Sprintf(format, args...), errs: match}
}

// Annotatef returns an Error reading "<pkg>: <match[0]'s message>:
// <formatted detail>" that matches each of match: the usual form of a
// sentinel with detail ("cuckoo: invalid argument: capacity 0"). match
// must not be empty.
func Annotatef(pkg string, match []error, format string, args ...any) *Error {
	return &Error{Pkg: pkg, Msg: Detail(match[0]) + ": " + fmt.Sprintf(format, args...), errs: match}
}

// Wrap returns err under pkg's prefix, once: "<pkg>: <err's message
// without its own prefix>", matching err and everything err matches. An
// error that is not an *Error (from the operating system, io, an
// fs.PathError) keeps its whole message. Wrap(pkg, nil) is nil.
func Wrap(pkg string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Pkg: pkg, Msg: Detail(err), errs: []error{err}}
}

// Detail returns err's message without its package prefix: the Msg of an
// *Error, the whole message of any other error. It is how one message
// nests another ("stage 3: truncated input: ...").
func Detail(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Msg
	}
	return err.Error()
}

// The sentinels shared by every package; their documentation is package
// sift's (errors.go), which exports each under the name Err<Name>. Each is
// an *Error (so Detail gives its message without the prefix) held as an
// error, the type the exported names have.
var (
	Magic     error = New("sift", "not a sift filter (bad magic)")
	Version   error = New("sift", "unsupported format version")
	Kind      error = New("sift", "wrong filter kind")
	Truncated error = New("sift", "truncated input")
	Checksum  error = New("sift", "checksum mismatch")
	Corrupt   error = New("sift", "corrupt filter")
	TooLarge  error = New("sift", "filter too large")
	Closed    error = New("sift", "filter is closed or was never made")

	InvalidArgument error = New("sift", "invalid argument")
	Incompatible    error = New("sift", "incompatible filters")
)
