package hash

import (
	"crypto/rand"
	"encoding/binary"
	"math/bits"

	"github.com/zeebo/xxh3"
)

// Bytes returns the XXH3-64 hash of b with the given seed.
func Bytes(b []byte, seed uint64) uint64 {
	return xxh3.HashSeed(b, seed)
}

// String returns the XXH3-64 hash of s with the given seed. It equals
// Bytes([]byte(s), seed) and does not allocate.
func String(s string, seed uint64) uint64 {
	return xxh3.HashStringSeed(s, seed)
}

// XXH3's default secret, bytes 8..15 and 16..23, read little-endian: the two
// words its 4–8-byte path folds into the input.
const (
	secret8  = 0x1cad21f72c81017c
	secret16 = 0xdb979083e96dd4de
	rrmxmxM  = 0x9fb21c651e98df25
)

// Uint64 returns Bytes(le64(x), seed), where le64(x) is the eight bytes of x in
// little-endian order, without building the byte slice. It is small enough to
// be inlined. A loop hashing many keys with one seed can use a Uint64Hasher,
// which folds the seed in advance.
func Uint64(x, seed uint64) uint64 {
	return NewUint64Hasher(seed).Hash(x)
}

// Uint64Hasher computes Uint64 for one seed, with the seed's part of the work
// (a byte swap and a subtraction, about a fifth of Uint64's instructions)
// done once by NewUint64Hasher. The zero value hashes as Uint64 with seed 0,
// the seed every filter defaults to: it equals NewUint64Hasher(0).
type Uint64Hasher struct {
	// k is XXH3's secret words 8 and 16, xored, minus the folded seed, all
	// xored with kZero, so that seed 0 (whose folded seed is 0) stores 0.
	k uint64
}

// kZero is the k of seed 0 before Uint64Hasher stores it: NewUint64Hasher
// xors it in and Hash xors it out, so the zero Uint64Hasher is seed 0's.
const kZero = secret8 ^ secret16

// NewUint64Hasher returns the hasher for seed: NewUint64Hasher(seed).Hash(x)
// equals Uint64(x, seed) for every x.
func NewUint64Hasher(seed uint64) Uint64Hasher {
	seed ^= uint64(bits.ReverseBytes32(uint32(seed))) << 32
	return Uint64Hasher{((secret8 ^ secret16) - seed) ^ kZero}
}

// Hash returns Uint64(x, seed) for the hasher's seed. It is small enough to
// be inlined.
func (u Uint64Hasher) Hash(x uint64) uint64 {
	// The first four bytes of le64(x) are the low half of x: XXH3 puts them
	// in the high half of its 64-bit input, the last four in the low half.
	h := bits.RotateLeft64(x, 32) ^ u.k ^ kZero
	h ^= bits.RotateLeft64(h, 49) ^ bits.RotateLeft64(h, 24)
	h *= rrmxmxM
	h ^= (h >> 35) + 8
	h *= rrmxmxM
	return h ^ (h >> 28)
}

// RandomSeed returns a seed read from the operating system's cryptographic
// random source. Use it for filters whose keys an attacker can choose, so the
// attacker cannot precompute keys that collide. It panics only if the system
// random source fails, which crypto/rand documents as unrecoverable.
func RandomSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("sift/hash: crypto/rand failed: " + err.Error())
	}
	return binary.LittleEndian.Uint64(b[:])
}
