package cuckoo_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/cuckoo"
)

func Example() {
	f, err := cuckoo.New(1000) // 16-bit fingerprints by default
	if err != nil {
		panic(err)
	}
	defer f.Close()
	_ = f.AddString("apple")
	_ = f.AddString("banana")
	fmt.Println(f.ContainsString("apple"), f.ContainsString("cherry"))
	fmt.Println(f.RemoveString("apple"), f.ContainsString("apple"))
	fmt.Println(f.Count(), f.Capacity())
	// Output:
	// true false
	// true false
	// 1 1056
}

// When the filter is full, Add returns ErrFull and every key added before
// is still present.
func Example_full() {
	f, _ := cuckoo.New(100, cuckoo.WithFingerprintBits(8))
	var added uint64
	for ; ; added++ {
		if err := f.AddUint64(added); errors.Is(err, cuckoo.ErrFull) {
			break
		}
	}
	lost := 0
	for k := range added {
		if !f.ContainsUint64(k) {
			lost++
		}
	}
	fmt.Println(added >= 100, lost)
	// Output: true 0
}

func ExampleFilter_ContainsHashes() {
	f, _ := cuckoo.New(1000)
	keys := []uint64{1, 2, 3, 4}
	hs := make([]uint64, len(keys))
	for i, k := range keys {
		hs[i] = f.HashUint64(k)
	}
	_, _ = f.AddHashes(hs[:2])
	out := make([]bool, len(hs))
	n := f.ContainsHashes(hs, out)
	fmt.Println(n, out)
	// Output: 2 [true true false false]
}

// AddHashes stops at the first key it cannot add and says how many went
// in: here the ninth copy of one key, which meets the duplicate limit (two
// buckets of four slots), in a batch of ten.
func ExampleFilter_AddHashes() {
	f, _ := cuckoo.New(1000)
	h := f.HashUint64(42)
	hs := []uint64{h, h, h, h, h, h, h, h, h, f.HashUint64(43)}
	n, err := f.AddHashes(hs)
	fmt.Println(n, errors.Is(err, cuckoo.ErrDuplicateLimit))
	n, err = f.AddHashes(hs[n+1:]) // skip it and go on
	fmt.Println(n, err, f.Count())
	// Output:
	// 8 true
	// 1 <nil> 9
}

// AddNewString adds a key only the first time: a de-duplicating loop
// prints each line once, and repeats take no slots.
func ExampleFilter_AddNewString() {
	f, _ := cuckoo.New(1000)
	for _, line := range []string{"a", "b", "a", "c", "b", "a"} {
		isNew, err := f.AddNewString(line)
		if err != nil {
			panic(err) // ErrFull: no room for a new key
		}
		if isNew {
			fmt.Print(line, " ")
		}
	}
	fmt.Println(f.Count())
	// Output: a b c 3
}

// AddNewHashes answers for a batch what AddNewHash would one key at a
// time: a hash repeated in the batch is new once.
func ExampleFilter_AddNewHashes() {
	f, _ := cuckoo.New(1000)
	hs := []uint64{f.HashUint64(1), f.HashUint64(2), f.HashUint64(1), f.HashUint64(3)}
	out := make([]bool, len(hs))
	n, err := f.AddNewHashes(hs, out)
	fmt.Println(n, err, out, f.Count())
	// Output: 4 <nil> [true true false true] 3
}

func ExampleFilter_MarshalBinary() {
	f, _ := cuckoo.New(100, cuckoo.WithSeed(42))
	_ = f.AddString("k")
	b, _ := f.MarshalBinary()
	var g cuckoo.Filter
	if err := g.UnmarshalBinary(b); err != nil {
		panic(err)
	}
	fmt.Println(len(b), g.ContainsString("k"), g.Seed())
	// Output: 344 true 42
}

// Union merges filters built with the same capacity and options, for
// example the shards of one key set.
func ExampleFilter_Union() {
	a, _ := cuckoo.New(1000, cuckoo.WithSeed(7))
	b, _ := cuckoo.New(1000, cuckoo.WithSeed(7))
	_ = a.AddString("from a")
	_ = b.AddString("from b")
	if err := a.Union(b); err != nil {
		panic(err)
	}
	fmt.Println(a.ContainsString("from a"), a.ContainsString("from b"), a.Count())

	other, _ := cuckoo.New(1000, cuckoo.WithSeed(8))
	fmt.Println(errors.Is(a.Union(other), cuckoo.ErrIncompatible))
	// Output:
	// true true 2
	// true
}

// Open serves a file in place, read-only; options bound its size or skip
// the payload's checksum for trusted storage.
func ExampleOpen() {
	f, _ := cuckoo.New(1000)
	_ = f.AddString("cached")
	path := filepath.Join(os.TempDir(), "example-cuckoo.sift")
	defer os.Remove(path)
	out, _ := os.Create(path)
	_, _ = f.WriteTo(out)
	out.Close()

	v, err := cuckoo.Open(path, cuckoo.WithMaxSize(1<<20))
	if err != nil {
		panic(err)
	}
	defer v.Close()
	fmt.Println(v.ContainsString("cached"), v.Count())

	_, err = cuckoo.Open(path, cuckoo.WithMaxSize(64))
	fmt.Println(errors.Is(err, sift.ErrTooLarge))
	// Output:
	// true 1
	// true
}
