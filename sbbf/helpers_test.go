package sbbf

import (
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// What this package's tests share (copied from package blocked's tests when
// the split-block filter moved here).

// benchSizes are the key counts the benchmarks run at.
var benchSizes = []struct {
	name string
	n    uint64
}{{"1e5", 1e5}, {"1e6", 1e6}, {"1e7", 1e7}}

// poolSize is the number of hashes a benchmark cycles through.
const poolSize = 1 << 20

// hashes returns n pseudo-random hashes from a fixed seed.
func hashes(n int, seed uint64) []uint64 {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	hs := make([]uint64, n)
	for i := range hs {
		hs[i] = r.Uint64()
	}
	return hs
}

// writeFile writes w's bytes to a new file at path.
func writeFile(t testing.TB, path string, w io.WriterTo) {
	t.Helper()
	file, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteTo(file); err != nil {
		t.Fatal(err)
	}
	if err := file.Close(); err != nil {
		t.Fatal(err)
	}
}

func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// ftoa formats x with two decimals. (itoa, built on it, writes the golden
// filter's string keys: "key-7.00". The testdata depend on it.)
func ftoa(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

// methodLine returns the line number of the line of file starting with
// prefix.
func methodLine(t *testing.T, file, prefix string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, prefix) {
			return strconv.Itoa(i + 1)
		}
	}
	t.Fatalf("%s: no line starting %q", file, prefix)
	return ""
}
