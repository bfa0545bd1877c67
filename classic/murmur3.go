package classic

import (
	"encoding/binary"
	"math/bits"
)

// MurmurHash3 x64_128 (Austin Appleby, public domain algorithm), as Guava's
// Hashing.murmur3_128() computes it with seed 0. The 128-bit result is the
// pair (h1, h2); Guava's HashCode holds it as the 16 bytes le64(h1) ||
// le64(h2), so HashCode.asLong() is h1 and BloomFilterStrategies' lowerEight
// and upperEight are h1 and h2.

const (
	murmurC1 = 0x87c37b91114253d5
	murmurC2 = 0x4cf5ad432745937f
)

// murmurFmix64 is MurmurHash3's 64-bit finalization mix.
func murmurFmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// murmurMixK1 and murmurMixK2 scramble one 8-byte lane before it is folded
// into h1 or h2.
func murmurMixK1(k uint64) uint64 {
	k *= murmurC1
	k = bits.RotateLeft64(k, 31)
	return k * murmurC2
}

func murmurMixK2(k uint64) uint64 {
	k *= murmurC2
	k = bits.RotateLeft64(k, 33)
	return k * murmurC1
}

// murmurBlock mixes one 16-byte block (k1 = bytes 0..7, k2 = bytes 8..15,
// little-endian) into the state.
func murmurBlock(h1, h2, k1, k2 uint64) (uint64, uint64) {
	h1 ^= murmurMixK1(k1)
	h1 = bits.RotateLeft64(h1, 27)
	h1 += h2
	h1 = h1*5 + 0x52dce729

	h2 ^= murmurMixK2(k2)
	h2 = bits.RotateLeft64(h2, 31)
	h2 += h1
	h2 = h2*5 + 0x38495ab5
	return h1, h2
}

// murmurFinish folds the length in and applies the final avalanche.
func murmurFinish(h1, h2 uint64, length int) (uint64, uint64) {
	h1 ^= uint64(length)
	h2 ^= uint64(length)
	h1 += h2
	h2 += h1
	h1 = murmurFmix64(h1)
	h2 = murmurFmix64(h2)
	h1 += h2
	h2 += h1
	return h1, h2
}

// murmur3Seeded returns MurmurHash3_x64_128(data, seed) as (h1, h2). The
// seed initialises both halves, as in the reference C code (a uint32 seed,
// zero-extended). Filters always use seed 0; other seeds exist for the
// reference verification test.
func murmur3Seeded(data []byte, seed uint32) (uint64, uint64) {
	return murmurFrom(uint64(seed), uint64(seed), data, len(data))
}

// murmurFrom hashes the last bytes p of a key of n bytes, given the state
// (h1, h2) after its first n-len(p) bytes (a multiple of 16), and finishes
// the hash. The whole blocks of p are mixed in turn; then the tail, up to 15
// bytes: bytes 0..7 little-endian into k1, the rest into k2.
func murmurFrom(h1, h2 uint64, p []byte, n int) (uint64, uint64) {
	for len(p) >= 16 {
		k1 := binary.LittleEndian.Uint64(p)
		k2 := binary.LittleEndian.Uint64(p[8:])
		p = p[16:]
		h1, h2 = murmurBlock(h1, h2, k1, k2)
	}
	if len(p) > 0 {
		var k1, k2 uint64
		if len(p) >= 8 {
			k1 = binary.LittleEndian.Uint64(p)
			for i := len(p) - 1; i >= 8; i-- {
				k2 = k2<<8 | uint64(p[i])
			}
			if len(p) > 8 {
				h2 ^= murmurMixK2(k2)
			}
		} else {
			for i := len(p) - 1; i >= 0; i-- {
				k1 = k1<<8 | uint64(p[i])
			}
		}
		h1 ^= murmurMixK1(k1)
	}
	return murmurFinish(h1, h2, n)
}

// murmur3 is MurmurHash3_x64_128 with seed 0, Guava's murmur3_128().
func murmur3(data []byte) (uint64, uint64) {
	return murmur3Seeded(data, 0)
}

// murmur3Int64 equals murmur3(le64(x)): Guava's Funnels.longFunnel(), which
// puts the long little-endian. Eight bytes are a tail-only input.
func murmur3Int64(x int64) (uint64, uint64) {
	return murmurFinish(murmurMixK1(uint64(x)), 0, 8)
}

// murmur3Int32 equals murmur3(le32(x)): Guava's Funnels.integerFunnel().
func murmur3Int32(x int32) (uint64, uint64) {
	return murmurFinish(murmurMixK1(uint64(uint32(x))), 0, 4)
}
