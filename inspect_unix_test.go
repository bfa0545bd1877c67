//go:build unix

package sift_test

import (
	"testing"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/internal/edgetest"
)

// TestInspectFileSpecial checks that InspectFile refuses a FIFO without a
// writer, and a device, at once.
func TestInspectFileSpecial(t *testing.T) {
	edgetest.SpecialFiles(t, "sift: ", func(path string) error {
		_, err := sift.InspectFile(path)
		return err
	})
}
