package classic

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"testing"
)

// TestMurmur3Verification runs SMHasher's verification for
// MurmurHash3_x64_128: hash the keys {}, {0}, {0,1}, ..., {0..254} with
// seeds 256, 255, ..., 2, hash the concatenated 16-byte results with seed 0,
// and compare the first four bytes, little-endian, with 0x6384BA69.
func TestMurmur3Verification(t *testing.T) {
	key := make([]byte, 256)
	hashes := make([]byte, 0, 256*16)
	for i := 0; i < 256; i++ {
		key[i] = byte(i)
		h1, h2 := murmur3Seeded(key[:i], uint32(256-i))
		hashes = binary.LittleEndian.AppendUint64(hashes, h1)
		hashes = binary.LittleEndian.AppendUint64(hashes, h2)
	}
	h1, _ := murmur3Seeded(hashes, 0)
	if got := uint32(h1); got != 0x6384BA69 {
		t.Fatalf("verification value %#08x, want 0x6384ba69", got)
	}
}

// Known answers of MurmurHash3_x64_128 with seed 0, as the 16 bytes
// le64(h1) || le64(h2) (the byte order Guava's HashCode.toString prints).
func TestMurmur3KnownAnswers(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "00000000000000000000000000000000"},
		{"The quick brown fox jumps over the lazy dog", "6c1b07bc7bbc4be347939ac4a93c437a"},
	} {
		h1, h2 := murmur3([]byte(c.in))
		got := hex.EncodeToString(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, h1), h2))
		if got != c.want {
			t.Errorf("murmur3(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestMurmur3IntPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 10000; i++ {
		x := int64(r.Uint64())
		a1, a2 := murmur3Int64(x)
		b1, b2 := murmur3(binary.LittleEndian.AppendUint64(nil, uint64(x)))
		if a1 != b1 || a2 != b2 {
			t.Fatalf("murmur3Int64(%d) differs from murmur3(le64)", x)
		}
		y := int32(x)
		a1, a2 = murmur3Int32(y)
		b1, b2 = murmur3(binary.LittleEndian.AppendUint32(nil, uint32(y)))
		if a1 != b1 || a2 != b2 {
			t.Fatalf("murmur3Int32(%d) differs from murmur3(le32)", y)
		}
	}
}

// TestMurmur3Streaming checks that hashing does not depend on the slice's
// alignment or on bytes beyond its end.
func TestMurmur3Streaming(t *testing.T) {
	buf := make([]byte, 200)
	for i := range buf {
		buf[i] = byte(i*7 + 3)
	}
	for n := 0; n <= 64; n++ {
		want1, want2 := murmur3(append([]byte(nil), buf[:n]...))
		for off := 1; off < 16; off++ {
			b := make([]byte, off+n+8)
			copy(b[off:], buf[:n])
			for j := off + n; j < len(b); j++ {
				b[j] = 0xff
			}
			if h1, h2 := murmur3(b[off : off+n]); h1 != want1 || h2 != want2 {
				t.Fatalf("len %d offset %d: hash depends on alignment or trailing bytes", n, off)
			}
		}
	}
}
