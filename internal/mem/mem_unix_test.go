//go:build unix

package mem

import (
	"testing"

	"github.com/sift-go/sift/internal/edgetest"
)

// TestOpenFIFO: MapFile and OpenRegular return at once, with an error, for
// a FIFO nobody writes to (a plain open blocks until a writer comes) and
// for a device.
func TestOpenFIFO(t *testing.T) {
	edgetest.SpecialFiles(t, "", func(path string) error { _, _, err := MapFile(path); return err })
	edgetest.SpecialFiles(t, "", func(path string) error {
		f, _, err := OpenRegular(path)
		if err == nil {
			f.Close()
		}
		return err
	})
}
