package blocked

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sift-go/sift/classic"
	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/sbbf"
)

// kindFiles returns an encoding of every kind of sift file, each with a
// run of the calls its wrong-kind errors name (format.Readers) on it.
func kindFiles(t *testing.T) map[format.Kind]kindFile {
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
	return map[format.Kind]kindFile{
		format.KindBlocked: {enc(New(100, 0.01)), "ReadFilter, ReadConcurrent or Open", func(b []byte) error {
			_, err1 := ReadFilter(r(b))
			_, err2 := FromBytes(b)
			_, err3 := ReadConcurrent(r(b))
			return errors.Join(err1, err2, err3)
		}},
		format.KindCuckoo: {enc(cuckoo.New(100)), "cuckoo.ReadFilter or cuckoo.Open", func(b []byte) error {
			_, err1 := cuckoo.ReadFilter(r(b))
			_, err2 := cuckoo.FromBytes(b)
			return errors.Join(err1, err2)
		}},
		format.KindScalable: {enc(NewScalable(100, 0.01)), "ReadScalable", func(b []byte) error {
			_, err := ReadScalable(r(b))
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
		format.KindWindow: {enc(NewWindow(100, 0.01, time.Minute)), "ReadWindow or ReadConcurrentWindow", func(b []byte) error {
			_, err1 := ReadWindow(r(b))
			_, err2 := ReadConcurrentWindow(r(b))
			return errors.Join(err1, err2)
		}},
	}
}

// kindFile is one kind's encoding, the calls that read it as the
// wrong-kind errors name them, and a run of those calls on bytes.
type kindFile struct {
	enc   []byte
	names string
	read  func([]byte) error
}

// TestWrongKindNamesLoader: every decoder of the package, given a sift file
// of another kind, returns ErrKind with a message that names the calls that
// read it ("file holds a window filter, want blocked: read it with
// ReadWindow or ReadConcurrentWindow"), and those calls do.
func TestWrongKindNamesLoader(t *testing.T) {
	files := kindFiles(t)
	r := bytes.NewReader
	dir := t.TempDir()
	file := func(b []byte) string {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	decoders := map[format.Kind]map[string]func([]byte) error{
		format.KindBlocked: {
			"ReadFilter":                 func(b []byte) error { _, err := ReadFilter(r(b)); return err },
			"ReadConcurrent":             func(b []byte) error { _, err := ReadConcurrent(r(b)); return err },
			"FromBytes":                  func(b []byte) error { _, err := FromBytes(b); return err },
			"Open":                       func(b []byte) error { _, err := Open(file(b)); return err },
			"Load":                       func(b []byte) error { _, err := Load(file(b)); return err },
			"Filter.UnmarshalBinary":     func(b []byte) error { return new(Filter).UnmarshalBinary(b) },
			"Filter.ReadFrom":            func(b []byte) error { _, err := new(Filter).ReadFrom(r(b)); return err },
			"Concurrent.UnmarshalBinary": func(b []byte) error { return new(Concurrent).UnmarshalBinary(b) },
			"Concurrent.ReadFrom":        func(b []byte) error { _, err := new(Concurrent).ReadFrom(r(b)); return err },
		},
		format.KindScalable: {
			"ReadScalable":             func(b []byte) error { _, err := ReadScalable(r(b)); return err },
			"Scalable.UnmarshalBinary": func(b []byte) error { return new(Scalable).UnmarshalBinary(b) },
			"Scalable.ReadFrom":        func(b []byte) error { _, err := new(Scalable).ReadFrom(r(b)); return err },
		},
		format.KindWindow: {
			"ReadWindow":                       func(b []byte) error { _, err := ReadWindow(r(b)); return err },
			"ReadConcurrentWindow":             func(b []byte) error { _, err := ReadConcurrentWindow(r(b)); return err },
			"WindowFromBytes":                  func(b []byte) error { _, err := WindowFromBytes(b); return err },
			"ConcurrentWindowFromBytes":        func(b []byte) error { _, err := ConcurrentWindowFromBytes(b); return err },
			"Window.UnmarshalBinary":           func(b []byte) error { return new(Window).UnmarshalBinary(b) },
			"Window.ReadFrom":                  func(b []byte) error { _, err := new(Window).ReadFrom(r(b)); return err },
			"ConcurrentWindow.UnmarshalBinary": func(b []byte) error { return new(ConcurrentWindow).UnmarshalBinary(b) },
			"ConcurrentWindow.ReadFrom":        func(b []byte) error { _, err := new(ConcurrentWindow).ReadFrom(r(b)); return err },
		},
	}
	for kind, f := range files {
		if format.Readers(kind, pkg) != f.names {
			t.Errorf("%v file: format.Readers names %q, want %q", kind, format.Readers(kind, pkg), f.names)
		}
		if err := f.read(f.enc); err != nil {
			t.Errorf("%v file: %s fail on it: %v", kind, f.names, err)
		}
	}
	for want, ds := range decoders {
		for name, decode := range ds {
			for kind, f := range files {
				if kind == want {
					continue
				}
				err := decode(f.enc)
				wantMsg := "blocked: wrong filter kind: file holds a " + kind.String() + " filter, want " + want.String() + ": read it with " + format.Readers(kind, pkg)
				if !errors.Is(err, ErrKind) || err.Error() != wantMsg {
					t.Errorf("%s of a %v file: %v\nwant %q (ErrKind)", name, kind, err, wantMsg)
				}
			}
		}
	}
}
