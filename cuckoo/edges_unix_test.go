//go:build unix

package cuckoo

import (
	"testing"

	"github.com/sift-go/sift/internal/edgetest"
)

// TestOpenFIFO: Open of a FIFO (or a device) returns at once with an
// error; before, it waited forever in open(2) for a writer.
func TestOpenFIFO(t *testing.T) {
	edgetest.SpecialFiles(t, "cuckoo: ", func(path string) error {
		v, err := Open(path)
		if err == nil {
			v.Close()
		}
		return err
	})
}
