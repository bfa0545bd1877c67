package cuckoo_test

import (
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
	file := kindtest.TempFile(t)
	kindtest.CheckWrongKind(t, "cuckoo", map[format.Kind]map[string]func([]byte) error{
		format.KindCuckoo: {
			"ReadFilter":                 kindtest.Read(cuckoo.ReadFilter),
			"FromBytes":                  kindtest.Bytes(cuckoo.FromBytes),
			"Open":                       kindtest.Path(file, cuckoo.Open),
			"Load":                       kindtest.Path(file, cuckoo.Load),
			"Filter.UnmarshalBinary":     kindtest.Unmarshal[cuckoo.Filter](),
			"Filter.ReadFrom":            kindtest.ReadFrom[cuckoo.Filter](),
			"Concurrent.UnmarshalBinary": kindtest.Unmarshal[cuckoo.Concurrent](),
			"Concurrent.ReadFrom":        kindtest.ReadFrom[cuckoo.Concurrent](),
		},
	})
}
