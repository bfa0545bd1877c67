package blocked_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sift-go/sift/blocked"
)

func Example() {
	// A filter for a million keys at 1% false positives.
	f, err := blocked.New(1_000_000, 0.01)
	if err != nil {
		panic(err)
	}
	defer f.Close()

	f.AddString("alice")
	f.AddUint64(42)

	fmt.Println(f.ContainsString("alice")) // added: always true
	fmt.Println(f.ContainsUint64(42))
	fmt.Println(f.ContainsString("mallory")) // not added: false, except at the 1% rate
	fmt.Printf("%.1f bits per key, k = %d\n", float64(f.Bits())/1e6, f.K())
	// Output:
	// true
	// true
	// false
	// 10.1 bits per key, k = 8
}

func ExampleFilter_ContainsHashes() {
	f, _ := blocked.New(1000, 0.001)
	keys := []string{"a", "b", "c", "d"}
	// Hash once; the hashes serve AddHashes, ContainsHashes and any other
	// filter with the same seed.
	hs := make([]uint64, len(keys))
	for i, k := range keys {
		hs[i] = f.HashString(k)
	}
	f.AddHashes(hs[:2])
	out := make([]bool, len(hs))
	n := f.ContainsHashes(hs, out)
	fmt.Println(n, out)
	// Output: 2 [true true false false]
}

func ExampleFalsePositiveRate() {
	bits, k, _ := blocked.OptimalSize(1e6, 0.001)
	fmt.Printf("%d bits, k = %d\n", bits, k)
	fmt.Printf("expected rate after 1e6 keys: %.5f\n", blocked.FalsePositiveRate(bits, k, 1e6))
	fmt.Printf("after 2e6 keys: %.4f\n", blocked.FalsePositiveRate(bits, k, 2e6))
	// Output:
	// 15780352 bits, k = 8
	// expected rate after 1e6 keys: 0.00098
	// after 2e6 keys: 0.0311
}

func ExampleScalable() {
	// Start small; the chain grows as keys arrive and the false-positive
	// rate stays under 1% however many there are.
	s, _ := blocked.NewScalable(1000, 0.01)
	defer s.Close()
	for i := range uint64(100_000) {
		if err := s.AddUint64(i); err != nil {
			panic(err) // only when a stage would exceed MaxBits
		}
	}
	fmt.Println(s.Stages(), s.ContainsUint64(99_999), s.FPP() < 0.01)
	// Output: 7 true true
}

func ExampleOpen() {
	f, _ := blocked.New(10_000, 0.01, blocked.WithSeed(7))
	f.AddString("cached")
	path := filepath.Join(os.TempDir(), "example.sift")
	defer os.Remove(path)
	out, _ := os.Create(path)
	f.WriteTo(out)
	out.Close()

	// Map the file read-only and serve lookups from it; no copy, no decode.
	v, err := blocked.Open(path)
	if err != nil {
		panic(err)
	}
	defer v.Close()
	fmt.Println(v.ContainsString("cached"), v.ContainsString("other"), v.Seed())
	// Output: true false 7
}

func ExampleFilter_MarshalBinary() {
	f, _ := blocked.NewWithSize(4096, 6)
	f.AddString("x")
	b, _ := f.MarshalBinary()

	var g blocked.Filter
	if err := g.UnmarshalBinary(b); err != nil {
		panic(err)
	}
	fmt.Println(len(b), g.ContainsString("x"))

	// Damaged bytes are reported, never trusted.
	b[len(b)-1] ^= 1
	err := g.UnmarshalBinary(b)
	fmt.Println(err != nil, bytes.Contains([]byte(err.Error()), []byte("checksum")))
	// Output:
	// 640 true
	// true true
}

func ExampleConcurrent() {
	c, _ := blocked.NewConcurrent(1000, 0.01)
	defer c.Close()
	done := make(chan bool)
	for g := range 4 {
		go func() {
			for i := range 100 {
				c.AddUint64(uint64(g*100 + i)) // lock-free, from any goroutine
			}
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
	all := true
	for i := range 400 {
		all = all && c.ContainsUint64(uint64(i))
	}
	fmt.Println(all)
	// Output: true
}

// Union merges Scalable chains made with the same parameters, stage by
// stage.
func ExampleScalable_Union() {
	a, _ := blocked.NewScalable(100, 0.01)
	b, _ := blocked.NewScalable(100, 0.01)
	for i := range uint64(300) {
		_ = a.AddUint64(i) // two stages each: 100 keys, then 200
		_ = b.AddUint64(i + 1e6)
	}
	if err := a.Union(b); err != nil {
		panic(err)
	}
	fmt.Println(a.Stages(), a.ContainsUint64(5), a.ContainsUint64(1e6+5))
	// Output: 2 true true
}

// ReadFilter decodes a stream with a bound on the filter's size, refused
// before anything is read.
func ExampleReadFilter() {
	f, _ := blocked.New(10_000, 0.01)
	var buf bytes.Buffer
	_, _ = f.WriteTo(&buf)

	_, err := blocked.ReadFilter(bytes.NewReader(buf.Bytes()), blocked.WithMaxSize(4096))
	fmt.Println(errors.Is(err, blocked.ErrTooLarge))
	g, err := blocked.ReadFilter(&buf, blocked.WithMaxSize(1<<20))
	fmt.Println(g.SizeBytes(), err)
	// Output:
	// true
	// 13056 <nil>
}
