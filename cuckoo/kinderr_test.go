package cuckoo_test

import (
	"bytes"
	"testing"

	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/kindtest"
)

// TestWrongKindNamesLoader: every decoder of the package, given a sift file
// of another kind, returns ErrKind with a message that names the calls that
// read it ("file holds a blocked filter, want cuckoo: read it with
// blocked.ReadFilter or blocked.Open"), and those calls do.
func TestWrongKindNamesLoader(t *testing.T) {
	r := bytes.NewReader
	file := kindtest.TempFile(t)
	kindtest.CheckWrongKind(t, "cuckoo", map[format.Kind]map[string]func([]byte) error{
		format.KindCuckoo: {
			"ReadFilter":                 func(b []byte) error { _, err := cuckoo.ReadFilter(r(b)); return err },
			"FromBytes":                  func(b []byte) error { _, err := cuckoo.FromBytes(b); return err },
			"Open":                       func(b []byte) error { _, err := cuckoo.Open(file(b)); return err },
			"Load":                       func(b []byte) error { _, err := cuckoo.Load(file(b)); return err },
			"Filter.UnmarshalBinary":     func(b []byte) error { return new(cuckoo.Filter).UnmarshalBinary(b) },
			"Filter.ReadFrom":            func(b []byte) error { _, err := new(cuckoo.Filter).ReadFrom(r(b)); return err },
			"Concurrent.UnmarshalBinary": func(b []byte) error { return new(cuckoo.Concurrent).UnmarshalBinary(b) },
			"Concurrent.ReadFrom":        func(b []byte) error { _, err := new(cuckoo.Concurrent).ReadFrom(r(b)); return err },
		},
	})
}
