package classic_test

import (
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
	kindtest.CheckWrongKind(t, "classic", map[format.Kind]map[string]func([]byte) error{
		format.KindClassic: {
			"ReadFilter":             kindtest.Read(classic.ReadFilter),
			"Filter.UnmarshalBinary": kindtest.Unmarshal[classic.Filter](),
			"Filter.ReadFrom":        kindtest.ReadFrom[classic.Filter](),
		},
		format.KindCounting: {
			"ReadCounting":             kindtest.Read(classic.ReadCounting),
			"Counting.UnmarshalBinary": kindtest.Unmarshal[classic.Counting](),
			"Counting.ReadFrom":        kindtest.ReadFrom[classic.Counting](),
		},
	})
}
