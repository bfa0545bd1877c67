package sbbf_test

import (
	"bytes"
	"testing"

	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/kindtest"
	"github.com/sift-go/sift/sbbf"
)

// TestWrongKindNamesLoader: every decoder of the package, given a sift file
// of another kind, returns ErrKind with a message that names the calls that
// read it ("file holds a blocked filter, want sbbf: read it with
// blocked.ReadFilter or blocked.Open"), and those calls do.
func TestWrongKindNamesLoader(t *testing.T) {
	r := bytes.NewReader
	file := kindtest.TempFile(t)
	kindtest.CheckWrongKind(t, "sbbf", map[format.Kind]map[string]func([]byte) error{
		format.KindSplitBlock: {
			"ReadFilter":             func(b []byte) error { _, err := sbbf.ReadFilter(r(b)); return err },
			"FromBytes":              func(b []byte) error { _, err := sbbf.FromBytes(b); return err },
			"Open":                   func(b []byte) error { _, err := sbbf.Open(file(b)); return err },
			"Load":                   func(b []byte) error { _, err := sbbf.Load(file(b)); return err },
			"Filter.UnmarshalBinary": func(b []byte) error { return new(sbbf.Filter).UnmarshalBinary(b) },
			"Filter.ReadFrom":        func(b []byte) error { _, err := new(sbbf.Filter).ReadFrom(r(b)); return err },
		},
	})
}
