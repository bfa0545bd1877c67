package sbbf_test

import (
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
	file := kindtest.TempFile(t)
	kindtest.CheckWrongKind(t, "sbbf", map[format.Kind]map[string]func([]byte) error{
		format.KindSplitBlock: {
			"ReadFilter":             kindtest.Read(sbbf.ReadFilter),
			"FromBytes":              kindtest.Bytes(sbbf.FromBytes),
			"Open":                   kindtest.Path(file, sbbf.Open),
			"Load":                   kindtest.Path(file, sbbf.Load),
			"Filter.UnmarshalBinary": kindtest.Unmarshal[sbbf.Filter](),
			"Filter.ReadFrom":        kindtest.ReadFrom[sbbf.Filter](),
		},
	})
}
