package sift_test

import (
	"errors"
	"fmt"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
)

func Example() {
	// Decoders wrap these values with detail; errors.Is finds them.
	err := fmt.Errorf("%w: payload", sift.ErrChecksum)
	fmt.Println(errors.Is(err, sift.ErrChecksum))
	// Output: true
}

// Inspect tells what a file holds before choosing its decoder.
func ExampleInspect() {
	f, err := blocked.New(10_000, 0.01, blocked.WithSeed(42))
	if err != nil {
		panic(err)
	}
	data, err := f.MarshalBinary()
	if err != nil {
		panic(err)
	}

	info, err := sift.Inspect(data) // or sift.InspectFile(path)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v filter, %d blocks, k=%d, seed %d, %d bytes\n", info.Kind, info.Blocks, info.K, info.Seed, info.Size)
	switch info.Kind {
	case sift.KindBlocked:
		v, err := blocked.FromBytes(data)
		fmt.Println(v.K() == info.K, err)
	}

	// A damaged file fails Verify, whatever its kind.
	data[len(data)-1] ^= 1
	_, err = sift.Verify(data)
	fmt.Println(errors.Is(err, sift.ErrChecksum))
	// Output:
	// blocked filter, 204 blocks, k=8, seed 42, 13184 bytes
	// true <nil>
	// true
}
