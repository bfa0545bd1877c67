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

// TestUint64HasherZero checks that the zero Uint64Hasher hashes with seed 0,
// the filters' default seed, as NewUint64Hasher(0) does: before, it hashed
// with seed 0x65ef5db1c5ecd5a2, and a zero hasher's hashes missed keys added
// to a default filter.
func TestUint64HasherZero(t *testing.T) {
	var z Uint64Hasher
	if z != NewUint64Hasher(0) {
		t.Fatalf("zero Uint64Hasher %#x != NewUint64Hasher(0) %#x", z.k, NewUint64Hasher(0).k)
	}
	r := rand.New(rand.NewPCG(5, 6))
	var buf [8]byte
	for i := 0; i < 10_000; i++ {
		x := r.Uint64()
		if i < 64 {
			x = 1 << i
		}
		binary.LittleEndian.PutUint64(buf[:], x)
		if got, want := z.Hash(x), Bytes(buf[:], 0); got != want {
			t.Fatalf("zero Uint64Hasher: Hash(%#x) = %#x, want Bytes(le64, 0) = %#x", x, got, want)
		}
		if got, want := z.Hash(x), Uint64(x, 0); got != want {
			t.Fatalf("zero Uint64Hasher: Hash(%#x) = %#x, want Uint64(x, 0) = %#x", x, got, want)
		}
	}
}

// TestUint64Golden pins Uint64's values for a few seeds and keys, as they
// were before the Uint64Hasher's stored form changed: they are in every
// filter file, so they must never change.
func TestUint64Golden(t *testing.T) {
	for _, c := range []struct{ seed, x, want uint64 }{
		{0x0, 0x0, 0xc77b3abb6f87acd9},
		{0x0, 0x2a, 0xd5a6f8c838df27c8},
		{0x0, 0xffffffffffffffff, 0x5111c7e47d784413},
		{0x1, 0x0, 0x9e51ad6d2f3e695c},
		{0x1, 0x2a, 0x67572691c5abfc9c},
		{0x1, 0xffffffffffffffff, 0x7b016d4ccc01c9bf},
		{0x2a, 0x0, 0x4596708167f8eb2e},
		{0x2a, 0x2a, 0xbffc15058f956b16},
		{0x2a, 0xffffffffffffffff, 0x412b089853a0709e},
		{0x65ef5db1c5ecd5a2, 0x0, 0xfd90e3272dc8cba7},
		{0x65ef5db1c5ecd5a2, 0x2a, 0x208477cfe277ee35},
		{0x65ef5db1c5ecd5a2, 0xffffffffffffffff, 0x1d5b155ebfdd56d6},
		{0xdeadbeefcafef00d, 0x0, 0x6705cf98f4e5f6a4},
		{0xdeadbeefcafef00d, 0x2a, 0xf713212bd6786943},
		{0xdeadbeefcafef00d, 0xffffffffffffffff, 0x22fbf153bc769f75},
		{0xffffffffffffffff, 0x0, 0x278ee7fde0ba32cc},
		{0xffffffffffffffff, 0x2a, 0x16144a8220efda1b},
		{0xffffffffffffffff, 0xffffffffffffffff, 0xda8f77a4d5c399ea},
	} {
		if got := Uint64(c.x, c.seed); got != c.want {
			t.Errorf("Uint64(%#x, %#x) = %#x, want %#x", c.x, c.seed, got, c.want)
		}
		if got := NewUint64Hasher(c.seed).Hash(c.x); got != c.want {
			t.Errorf("NewUint64Hasher(%#x).Hash(%#x) = %#x, want %#x", c.seed, c.x, got, c.want)
		}
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], c.x)
		if got := Bytes(b[:], c.seed); got != c.want {
			t.Errorf("Bytes(le64(%#x), %#x) = %#x, want %#x", c.x, c.seed, got, c.want)
		}
	}
}
