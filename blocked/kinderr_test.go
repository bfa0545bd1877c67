package blocked_test

import (
	"testing"

	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/kindtest"
)

// TestWrongKindNamesLoader: every decoder of the package, given a sift file
// of another kind, returns ErrKind with a message that names the calls that
// read it ("file holds a window filter, want blocked: read it with
// ReadWindow or ReadConcurrentWindow"), and those calls do.
func TestWrongKindNamesLoader(t *testing.T) {
	file := kindtest.TempFile(t)
	kindtest.CheckWrongKind(t, "blocked", map[format.Kind]map[string]func([]byte) error{
		format.KindBlocked: {
			"ReadFilter":                 kindtest.Read(blocked.ReadFilter),
			"ReadConcurrent":             kindtest.Read(blocked.ReadConcurrent),
			"FromBytes":                  kindtest.Bytes(blocked.FromBytes),
			"Open":                       kindtest.Path(file, blocked.Open),
			"Load":                       kindtest.Path(file, blocked.Load),
			"Filter.UnmarshalBinary":     kindtest.Unmarshal[blocked.Filter](),
			"Filter.ReadFrom":            kindtest.ReadFrom[blocked.Filter](),
			"Concurrent.UnmarshalBinary": kindtest.Unmarshal[blocked.Concurrent](),
			"Concurrent.ReadFrom":        kindtest.ReadFrom[blocked.Concurrent](),
		},
		format.KindScalable: {
			"ReadScalable":             kindtest.Read(blocked.ReadScalable),
			"Scalable.UnmarshalBinary": kindtest.Unmarshal[blocked.Scalable](),
			"Scalable.ReadFrom":        kindtest.ReadFrom[blocked.Scalable](),
		},
		format.KindWindow: {
			"ReadWindow":                       kindtest.Read(blocked.ReadWindow),
			"ReadConcurrentWindow":             kindtest.Read(blocked.ReadConcurrentWindow),
			"WindowFromBytes":                  kindtest.Bytes(blocked.WindowFromBytes),
			"ConcurrentWindowFromBytes":        kindtest.Bytes(blocked.ConcurrentWindowFromBytes),
			"Window.UnmarshalBinary":           kindtest.Unmarshal[blocked.Window](),
			"Window.ReadFrom":                  kindtest.ReadFrom[blocked.Window](),
			"ConcurrentWindow.UnmarshalBinary": kindtest.Unmarshal[blocked.ConcurrentWindow](),
			"ConcurrentWindow.ReadFrom":        kindtest.ReadFrom[blocked.ConcurrentWindow](),
		},
	})
}
