package blocked_test

import (
	"bytes"
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
	r := bytes.NewReader
	file := kindtest.TempFile(t)
	kindtest.CheckWrongKind(t, "blocked", map[format.Kind]map[string]func([]byte) error{
		format.KindBlocked: {
			"ReadFilter":                 func(b []byte) error { _, err := blocked.ReadFilter(r(b)); return err },
			"ReadConcurrent":             func(b []byte) error { _, err := blocked.ReadConcurrent(r(b)); return err },
			"FromBytes":                  func(b []byte) error { _, err := blocked.FromBytes(b); return err },
			"Open":                       func(b []byte) error { _, err := blocked.Open(file(b)); return err },
			"Load":                       func(b []byte) error { _, err := blocked.Load(file(b)); return err },
			"Filter.UnmarshalBinary":     func(b []byte) error { return new(blocked.Filter).UnmarshalBinary(b) },
			"Filter.ReadFrom":            func(b []byte) error { _, err := new(blocked.Filter).ReadFrom(r(b)); return err },
			"Concurrent.UnmarshalBinary": func(b []byte) error { return new(blocked.Concurrent).UnmarshalBinary(b) },
			"Concurrent.ReadFrom":        func(b []byte) error { _, err := new(blocked.Concurrent).ReadFrom(r(b)); return err },
		},
		format.KindScalable: {
			"ReadScalable":             func(b []byte) error { _, err := blocked.ReadScalable(r(b)); return err },
			"Scalable.UnmarshalBinary": func(b []byte) error { return new(blocked.Scalable).UnmarshalBinary(b) },
			"Scalable.ReadFrom":        func(b []byte) error { _, err := new(blocked.Scalable).ReadFrom(r(b)); return err },
		},
		format.KindWindow: {
			"ReadWindow":                       func(b []byte) error { _, err := blocked.ReadWindow(r(b)); return err },
			"ReadConcurrentWindow":             func(b []byte) error { _, err := blocked.ReadConcurrentWindow(r(b)); return err },
			"WindowFromBytes":                  func(b []byte) error { _, err := blocked.WindowFromBytes(b); return err },
			"ConcurrentWindowFromBytes":        func(b []byte) error { _, err := blocked.ConcurrentWindowFromBytes(b); return err },
			"Window.UnmarshalBinary":           func(b []byte) error { return new(blocked.Window).UnmarshalBinary(b) },
			"Window.ReadFrom":                  func(b []byte) error { _, err := new(blocked.Window).ReadFrom(r(b)); return err },
			"ConcurrentWindow.UnmarshalBinary": func(b []byte) error { return new(blocked.ConcurrentWindow).UnmarshalBinary(b) },
			"ConcurrentWindow.ReadFrom":        func(b []byte) error { _, err := new(blocked.ConcurrentWindow).ReadFrom(r(b)); return err },
		},
	})
}
