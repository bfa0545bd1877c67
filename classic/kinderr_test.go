package classic_test

import (
	"bytes"
	"testing"

	"github.com/sift-go/sift/classic"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/kindtest"
)

// TestWrongKindNamesLoader: every decoder of the package, given a sift file
// of another kind, returns ErrKind with a message that names the calls that
// read it ("file holds a counting filter, want classic: read it with
// ReadCounting"), and those calls do.
func TestWrongKindNamesLoader(t *testing.T) {
	r := bytes.NewReader
	kindtest.CheckWrongKind(t, "classic", map[format.Kind]map[string]func([]byte) error{
		format.KindClassic: {
			"ReadFilter":             func(b []byte) error { _, err := classic.ReadFilter(r(b)); return err },
			"Filter.UnmarshalBinary": func(b []byte) error { return new(classic.Filter).UnmarshalBinary(b) },
			"Filter.ReadFrom":        func(b []byte) error { _, err := new(classic.Filter).ReadFrom(r(b)); return err },
		},
		format.KindCounting: {
			"ReadCounting":             func(b []byte) error { _, err := classic.ReadCounting(r(b)); return err },
			"Counting.UnmarshalBinary": func(b []byte) error { return new(classic.Counting).UnmarshalBinary(b) },
			"Counting.ReadFrom":        func(b []byte) error { _, err := new(classic.Counting).ReadFrom(r(b)); return err },
		},
	})
}
