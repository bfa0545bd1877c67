package cuckoo

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/classic"
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
		format.KindBlocked: {enc(blocked.New(100, 0.01)), "blocked.ReadFilter, blocked.ReadConcurrent or blocked.Open", func(b []byte) error {
			_, err1 := blocked.ReadFilter(r(b))
			_, err2 := blocked.FromBytes(b)
			return errors.Join(err1, err2)
		}},
		format.KindCuckoo: {enc(New(100)), "ReadFilter or Open", func(b []byte) error {
			_, err1 := ReadFilter(r(b))
			_, err2 := FromBytes(b)
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

// kindFile is one kind's encoding, the calls that read it as the
// wrong-kind errors name them, and a run of those calls on bytes.
type kindFile struct {
	enc   []byte
	names string
	read  func([]byte) error
}

// TestWrongKindNamesLoader: every decoder of the package, given a sift file
// of another kind, returns ErrKind with a message that names the calls that
// read it ("file holds a blocked filter, want cuckoo: read it with
// blocked.ReadFilter or blocked.Open"), and those calls do.
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
		format.KindCuckoo: {
			"ReadFilter":                 func(b []byte) error { _, err := ReadFilter(r(b)); return err },
			"FromBytes":                  func(b []byte) error { _, err := FromBytes(b); return err },
			"Open":                       func(b []byte) error { _, err := Open(file(b)); return err },
			"Load":                       func(b []byte) error { _, err := Load(file(b)); return err },
			"Filter.UnmarshalBinary":     func(b []byte) error { return new(Filter).UnmarshalBinary(b) },
			"Filter.ReadFrom":            func(b []byte) error { _, err := new(Filter).ReadFrom(r(b)); return err },
			"Concurrent.UnmarshalBinary": func(b []byte) error { return new(Concurrent).UnmarshalBinary(b) },
			"Concurrent.ReadFrom":        func(b []byte) error { _, err := new(Concurrent).ReadFrom(r(b)); return err },
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
				wantMsg := "cuckoo: wrong filter kind: file holds a " + kind.String() + " filter, want " + want.String() + ": read it with " + format.Readers(kind, pkg)
				if !errors.Is(err, ErrKind) || err.Error() != wantMsg {
					t.Errorf("%s of a %v file: %v\nwant %q (ErrKind)", name, kind, err, wantMsg)
				}
			}
		}
	}
}
