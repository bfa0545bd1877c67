package sift_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

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

// Open serves a filter file whatever its kind; the caller needs to know
// neither the kind nor the seed.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "sift-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "blocklist.sift")

	f, err := blocked.New(10_000, 0.01, blocked.WithSeed(42))
	if err != nil {
		panic(err)
	}
	f.AddString("10.0.0.1")
	if err := sift.WriteFile(path, f, 7); err != nil { // generation 7
		panic(err)
	}

	v, err := sift.Open(path)
	if err != nil {
		panic(err)
	}
	defer v.Close()
	fmt.Println(v.Kind(), v.Info().Generation, v.Info().Seed)
	fmt.Println(v.ContainsString("10.0.0.1"))

	// Batch lookups hash with the View's own hash.
	keys := []string{"10.0.0.1", "10.0.0.2"}
	hs := make([]uint64, len(keys))
	for i, k := range keys {
		hs[i] = v.HashString(k)
	}
	found := make([]bool, len(hs))
	v.ContainsHashes(hs, found)
	fmt.Println(found[0])

	// A file of a kind that has no in-place view is ErrKind.
	s, err := blocked.NewScalable(1000, 0.01)
	if err != nil {
		panic(err)
	}
	if err := sift.WriteFile(path, s, 8); err != nil {
		panic(err)
	}
	_, err = sift.Open(path)
	fmt.Println(errors.Is(err, sift.ErrKind))
	// Output:
	// blocked 7 42
	// true
	// true
	// true
}
