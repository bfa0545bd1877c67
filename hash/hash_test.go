package hash

import (
	"encoding/binary"
	"math/rand/v2"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/zeebo/xxh3"
)

func TestUint64EqualsBytes(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 50_000
	}
	r := rand.New(rand.NewPCG(1, 2))
	var buf [8]byte
	edge := []uint64{0, 1, 1<<32 - 1, 1 << 32, 1<<63 - 1, 1 << 63, ^uint64(0)}
	for i := 0; i < n; i++ {
		x, seed := r.Uint64(), r.Uint64()
		if i < len(edge)*len(edge) {
			x, seed = edge[i%len(edge)], edge[i/len(edge)]
		}
		binary.LittleEndian.PutUint64(buf[:], x)
		want := Bytes(buf[:], seed)
		if got := Uint64(x, seed); got != want {
			t.Fatalf("Uint64(%#x, %#x) = %#x, Bytes(le64) = %#x", x, seed, got, want)
		}
		if got := NewUint64Hasher(seed).Hash(x); got != want {
			t.Fatalf("NewUint64Hasher(%#x).Hash(%#x) = %#x, Bytes(le64) = %#x", seed, x, got, want)
		}
	}
}

func TestBytesIsXXH3(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 300; n++ {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		seed := r.Uint64()
		if n%7 == 0 {
			seed = 0
		}
		want := xxh3.HashSeed(b, seed)
		if got := Bytes(b, seed); got != want {
			t.Fatalf("len %d: Bytes = %#x, xxh3 = %#x", n, got, want)
		}
		if got := String(string(b), seed); got != want {
			t.Fatalf("len %d: String = %#x, xxh3 = %#x", n, got, want)
		}
	}
	// Known answer: XXH3-64 of the empty input with seed 0.
	if got := Bytes(nil, 0); got != 0x2d06800538d394c2 {
		t.Fatalf("Bytes(nil, 0) = %#x, want 0x2d06800538d394c2", got)
	}
}

func TestZeroAllocs(t *testing.T) {
	b := []byte("some key of moderate length, over sixteen bytes")
	s := string(b)
	var sink uint64
	if a := testing.AllocsPerRun(100, func() {
		sink += Bytes(b, 1) + String(s, 2) + Uint64(sink, 3) + NewUint64Hasher(4).Hash(sink)
	}); a != 0 {
		t.Fatalf("allocs per run = %v, want 0", a)
	}
}

func TestRandomSeedDiffers(t *testing.T) {
	if RandomSeed() == RandomSeed() {
		t.Fatal("two random seeds are equal")
	}
}

// TestInlining keeps Uint64 and the Uint64Hasher inlinable: filters' AddUint64/ContainsUint64 rely on it.
func TestInlining(t *testing.T) {
	if testing.Short() || runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skip("needs a native go toolchain run")
	}
	out, err := exec.Command("go", "build", "-gcflags=-m", ".").CombinedOutput()
	if err != nil {
		t.Skipf("go build -gcflags=-m: %v\n%s", err, out)
	}
	for _, fn := range []string{"Uint64", "String", "Bytes", "NewUint64Hasher", "Uint64Hasher.Hash"} {
		if !strings.Contains(string(out), "can inline "+fn+"\n") {
			t.Errorf("%s is not inlinable:\n%s", fn, out)
		}
	}
}

// TestUint64HasherZero checks the zero Uint64Hasher's seed as its doc
// states it.
func TestUint64HasherZero(t *testing.T) {
	var z Uint64Hasher
	for _, x := range []uint64{0, 1, 42, 1 << 63, ^uint64(0)} {
		if got, want := z.Hash(x), Uint64(x, 0x65ef5db1c5ecd5a2); got != want {
			t.Errorf("zero Uint64Hasher: Hash(%#x) = %#x, Uint64 with the documented seed %#x", x, got, want)
		}
	}
}
