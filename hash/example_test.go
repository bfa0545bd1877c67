package hash_test

import (
	"encoding/binary"
	"fmt"

	"github.com/sift-go/sift/hash"
)

func Example() {
	var le [8]byte
	binary.LittleEndian.PutUint64(le[:], 42)
	fmt.Println(hash.Uint64(42, 7) == hash.Bytes(le[:], 7))
	fmt.Println(hash.String("hello", 0) == hash.Bytes([]byte("hello"), 0))
	// Output:
	// true
	// true
}
