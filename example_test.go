package sift_test

import (
	"errors"
	"fmt"

	"github.com/sift-go/sift"
)

func Example() {
	// Decoders wrap these values with detail; errors.Is finds them.
	err := fmt.Errorf("%w: payload", sift.ErrChecksum)
	fmt.Println(errors.Is(err, sift.ErrChecksum))
	// Output: true
}
