package classic_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/classic"
)

func Example() {
	// The same filter Guava builds with
	// BloomFilter.create(Funnels.stringFunnel(UTF_8), 1000, 0.01).
	f, err := classic.New(1000, 0.01)
	if err != nil {
		panic(err)
	}
	fmt.Println(f.BitSize(), f.NumHashFunctions())

	fmt.Println(f.PutString("alice"))
	fmt.Println(f.PutString("alice")) // no bit changed: already present
	fmt.Println(f.MightContainString("alice"), f.MightContainString("bob"))
	fmt.Println(f.ApproximateElementCount())
	// Output:
	// 9600 7
	// true
	// false
	// true false
	// 1
}

// A filter serialized by Guava's BloomFilter.writeTo reads directly, and
// WriteGuava produces the bytes Guava writes.
func ExampleReadGuava() {
	// From Guava 31.1: BloomFilter.create(Funnels.integerFunnel(), 3, 0.1),
	// put(1), put(2), put(3), writeTo(out).
	fromJava, _ := hex.DecodeString("0103000000014820000900000c00")

	g, err := classic.ReadGuava(bytes.NewReader(fromJava), classic.WithMaxSize(1<<20))
	if err != nil {
		panic(err)
	}
	fmt.Println(g.Strategy(), g.NumHashFunctions(), g.MightContainInt32(2), g.MightContainInt32(4))

	// The same filter built in Go serializes to the same bytes.
	f, _ := classic.New(3, 0.1)
	for _, x := range []int32{1, 2, 3} {
		f.PutInt32(x)
	}
	var buf bytes.Buffer
	if _, err := f.WriteGuava(&buf); err != nil {
		panic(err)
	}
	fmt.Println(bytes.Equal(buf.Bytes(), fromJava))
	// Output:
	// MURMUR128_MITZ_64 3 true false
	// true
}

func ExampleCounting() {
	c, err := classic.NewCounting(1000, 0.01)
	if err != nil {
		panic(err)
	}
	c.AddString("session-1")
	c.AddString("session-2")
	fmt.Println(c.ContainsString("session-1"))

	if err := c.RemoveString("session-1"); err != nil {
		panic(err)
	}
	fmt.Println(c.ContainsString("session-1"), c.ContainsString("session-2"))

	err = c.RemoveString("never-added")
	fmt.Println(errors.Is(err, classic.ErrNotPresent))
	// Output:
	// true
	// false true
	// true
}

func ExampleFilter_MarshalBinary() {
	f, _ := classic.New(100, 0.01)
	f.PutString("x")
	b, _ := f.MarshalBinary() // sift's checksummed format; AppendGuava for Guava's

	var g classic.Filter
	if err := g.UnmarshalBinary(b); err != nil {
		panic(err)
	}
	fmt.Println(len(b), g.MightContainString("x"), g.Equal(f))

	b[len(b)-1] ^= 1 // damage the payload
	err := g.UnmarshalBinary(b)
	fmt.Println(errors.Is(err, sift.ErrChecksum))
	// Output:
	// 248 true true
	// true
}

// Java code often keys a filter by strings through
// Funnels.unencodedCharsFunnel() (their UTF-16 code units) rather than
// Funnels.stringFunnel(UTF_8); the UnencodedChars methods hash Go strings
// the same way, and PutUTF16 takes code units directly.
func ExampleFilter_PutUnencodedChars() {
	// From Guava 31.1: BloomFilter.create(Funnels.unencodedCharsFunnel(),
	// 3, 0.1), put("alice"), put("Grüße"), put("😀"), writeTo(out).
	fromJava, _ := hex.DecodeString("0103000000010115080410000041")

	f, _ := classic.New(3, 0.1)
	for _, s := range []string{"alice", "Grüße", "😀"} {
		f.PutUnencodedChars(s)
	}
	b, err := f.AppendGuava(nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(bytes.Equal(b, fromJava))
	fmt.Println(f.MightContainUnencodedChars("alice"), f.MightContainUnencodedChars("bob"))
	fmt.Println(f.MightContainUTF16([]uint16{0xd83d, 0xde00})) // "😀" as Java holds it
	// Output:
	// true
	// true false
	// true
}

// Reset empties a filter for reuse without allocating a new one.
func ExampleFilter_Reset() {
	f, _ := classic.New(1000, 0.01)
	f.PutString("old")
	f.Reset()
	fmt.Println(f.MightContainString("old"), f.BitCount(), f.BitSize())
	// Output:
	// false 0 9600
}
