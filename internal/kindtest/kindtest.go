// Package kindtest holds what the filter packages' tests of their
// wrong-kind errors share: a sift file of every kind, with the calls that
// read it, and the check that a package's decoders refuse every other
// kind with ErrKind and a message that names those calls
// (format.WrongKind). Its importers' tests are external test packages
// (package blocked_test, ...): it imports every filter package.
package kindtest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/classic"
	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/internal/errs"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/sbbf"
)

// File is one kind's encoding, the calls that read it as another package
// than theirs names them (format.Readers), and a run of those calls on
// bytes.
type File struct {
	Enc   []byte
	Names string
	Read  func([]byte) error
}

// Files returns a File of every kind of sift file.
func Files(t testing.TB) map[format.Kind]File {
	t.Helper()
	enc := func(m interface{ MarshalBinary() ([]byte, error) }, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	r := bytes.NewReader
	return map[format.Kind]File{
		format.KindBlocked: {enc(blocked.New(100, 0.01)), "blocked.ReadFilter, blocked.ReadConcurrent or blocked.Open", func(b []byte) error {
			_, err1 := blocked.ReadFilter(r(b))
			_, err2 := blocked.FromBytes(b)
			_, err3 := blocked.ReadConcurrent(r(b))
			return errors.Join(err1, err2, err3)
		}},
		format.KindCuckoo: {enc(cuckoo.New(100)), "cuckoo.ReadFilter or cuckoo.Open", func(b []byte) error {
			_, err1 := cuckoo.ReadFilter(r(b))
			_, err2 := cuckoo.FromBytes(b)
			return errors.Join(err1, err2)
		}},
		format.KindScalable: {enc(blocked.NewScalable(100, 0.01)), "blocked.ReadScalable", func(b []byte) error {
			_, err := blocked.ReadScalable(r(b))
			return err
		}},
		format.KindCounting: {enc(classic.NewCounting(100, 0.01)), "classic.ReadCounting", func(b []byte) error {
			_, err := classic.ReadCounting(r(b))
			return err
		}},
		format.KindClassic: {enc(classic.New(100, 0.01)), "classic.ReadFilter", func(b []byte) error {
			_, err := classic.ReadFilter(r(b))
			return err
		}},
		format.KindSplitBlock: {enc(sbbf.New(100, 0.01)), "sbbf.ReadFilter or sbbf.Open", func(b []byte) error {
			_, err1 := sbbf.ReadFilter(r(b))
			_, err2 := sbbf.FromBytes(b)
			return errors.Join(err1, err2)
		}},
		format.KindWindow: {enc(blocked.NewWindow(100, 0.01, time.Minute)), "blocked.ReadWindow or blocked.ReadConcurrentWindow", func(b []byte) error {
			_, err1 := blocked.ReadWindow(r(b))
			_, err2 := blocked.ReadConcurrentWindow(r(b))
			return errors.Join(err1, err2)
		}},
	}
}

// TempFile returns a function that writes its bytes to a file in a
// temporary directory of t (the same file every call) and returns its
// path, for the decoders that take a path (Open, Load).
func TempFile(t testing.TB) func([]byte) string {
	p := filepath.Join(t.TempDir(), "f")
	return func(b []byte) string {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// Read adapts a package's Read call (ReadFilter, ReadWindow, ...) to a
// decoder of CheckWrongKind's table: it reads its bytes through a reader.
func Read[T, O any](read func(io.Reader, ...O) (T, error)) func([]byte) error {
	return func(b []byte) error { _, err := read(bytes.NewReader(b)); return err }
}

// Bytes adapts a package's FromBytes call to a decoder of CheckWrongKind's
// table.
func Bytes[T, O any](from func([]byte, ...O) (T, error)) func([]byte) error {
	return func(b []byte) error { _, err := from(b); return err }
}

// Path adapts a package's Open or Load call to a decoder of
// CheckWrongKind's table: it writes its bytes with file (TempFile) and
// opens the path.
func Path[T, O any](file func([]byte) string, open func(string, ...O) (T, error)) func([]byte) error {
	return func(b []byte) error { _, err := open(file(b)); return err }
}

// Unmarshal is a decoder of CheckWrongKind's table that calls
// UnmarshalBinary on a new T.
func Unmarshal[T any, P interface {
	*T
	UnmarshalBinary([]byte) error
}]() func([]byte) error {
	return func(b []byte) error { return P(new(T)).UnmarshalBinary(b) }
}

// ReadFrom is a decoder of CheckWrongKind's table that calls ReadFrom on a
// new T.
func ReadFrom[T any, P interface {
	*T
	io.ReaderFrom
}]() func([]byte) error {
	return func(b []byte) error { _, err := P(new(T)).ReadFrom(bytes.NewReader(b)); return err }
}

// CheckWrongKind checks the wrong-kind errors of package pkg, whose
// decoders of each kind it reads are decoders[kind][name]: given the file
// of any other kind, each returns an error wrapping ErrKind whose message
// is "PKG: wrong filter kind: file holds a KIND filter, want WANT: read it
// with CALLS", with CALLS the calls that read KIND as pkg names them
// (format.Readers). It also checks that format.Readers names every kind's
// calls as Files does, and that those calls read the kind's file.
func CheckWrongKind(t *testing.T, pkg string, decoders map[format.Kind]map[string]func([]byte) error) {
	t.Helper()
	files := Files(t)
	for kind, f := range files {
		if got := format.Readers(kind, "kindtest"); got != f.Names {
			t.Errorf("%v file: format.Readers names %q, want %q", kind, got, f.Names)
		}
		if err := f.Read(f.Enc); err != nil {
			t.Errorf("%v file: %s fail on it: %v", kind, f.Names, err)
		}
	}
	for want, ds := range decoders {
		for name, decode := range ds {
			for kind, f := range files {
				if kind == want {
					continue
				}
				err := decode(f.Enc)
				wantMsg := pkg + ": wrong filter kind: file holds a " + kind.String() + " filter, want " + want.String() + ": read it with " + format.Readers(kind, pkg)
				if !errors.Is(err, errs.Kind) || err.Error() != wantMsg {
					t.Errorf("%s of a %v file: %v\nwant %q (ErrKind)", name, kind, err, wantMsg)
				}
			}
		}
	}
}
