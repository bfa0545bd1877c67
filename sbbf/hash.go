package sbbf

import (
	"math"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// The split-block filter hashes a value's Parquet plain encoding with
// XXH64, seed 0: the raw bytes of BYTE_ARRAY (no length prefix),
// FIXED_LEN_BYTE_ARRAY and INT96 values, the four little-endian bytes of
// INT32 and FLOAT, the eight of INT64 and DOUBLE. XXH64 of bytes comes from
// github.com/cespare/xxhash/v2; the fixed 4- and 8-byte inputs of the
// numeric types are written out below (XXH64's short-input path, small
// enough to inline) and tested against it.

// XXH64's primes.
const (
	xxPrime1 = 0x9e3779b185ebca87
	xxPrime2 = 0xc2b2ae3d27d4eb4f
	xxPrime3 = 0x165667b19e3779f9
	xxPrime4 = 0x85ebca77c2b2ae63
	xxPrime5 = 0x27d4eb2f165667c5
)

// xxAvalanche is XXH64's final mix.
func xxAvalanche(h uint64) uint64 {
	h ^= h >> 33
	h *= xxPrime2
	h ^= h >> 29
	h *= xxPrime3
	return h ^ h>>32
}

// xxh64Uint64 is XXH64 (seed 0) of x's eight little-endian bytes.
func xxh64Uint64(x uint64) uint64 {
	k := bits.RotateLeft64(x*xxPrime2, 31) * xxPrime1
	h := (xxPrime5 + 8) ^ k
	return xxAvalanche(bits.RotateLeft64(h, 27)*xxPrime1 + xxPrime4)
}

// xxh64Uint32 is XXH64 (seed 0) of x's four little-endian bytes.
func xxh64Uint32(x uint32) uint64 {
	h := (xxPrime5 + 4) ^ uint64(x)*xxPrime1
	return xxAvalanche(bits.RotateLeft64(h, 23)*xxPrime2 + xxPrime3)
}

// Hash returns the hash the split-block filter uses for a BYTE_ARRAY,
// FIXED_LEN_BYTE_ARRAY or INT96 value: XXH64, seed 0, of its bytes.
// AddHash(Hash(v)) is Add(v).
func Hash(v []byte) uint64 { return xxhash.Sum64(v) }

// HashString is Hash for a string value (a UTF8 BYTE_ARRAY), without a
// copy.
func HashString(v string) uint64 { return xxhash.Sum64String(v) }

// HashInt32 returns the hash of an INT32 value (also the physical type of
// DATE, TIME_MILLIS, INT(8/16/32, signed or not) and DECIMAL up to 9
// digits): XXH64 of its four little-endian bytes.
func HashInt32(v int32) uint64 { return xxh64Uint32(uint32(v)) }

// HashInt64 returns the hash of an INT64 value (also the physical type of
// TIMESTAMP, TIME_MICROS/NANOS, INT(64) and DECIMAL up to 18 digits): XXH64
// of its eight little-endian bytes.
func HashInt64(v int64) uint64 { return xxh64Uint64(uint64(v)) }

// HashFloat32 returns the hash of a FLOAT value: XXH64 of the
// four little-endian bytes of its IEEE-754 bits, as Parquet writers hash
// it. The bits are hashed as they are: -0.0 and +0.0 are different keys, as
// are NaNs with different payloads; a query for a zero should ask for
// both.
func HashFloat32(v float32) uint64 { return xxh64Uint32(math.Float32bits(v)) }

// HashFloat64 is HashFloat32 for a DOUBLE value: XXH64 of the eight
// little-endian bytes of its bits. Mind NaN payloads: Go's math.NaN() is
// 0x7FF8000000000001, while Java, C++ and DuckDB write the canonical
// 0x7FF8000000000000, a different key
// (math.Float64frombits(0x7FF8000000000000) is theirs).
func HashFloat64(v float64) uint64 { return xxh64Uint64(math.Float64bits(v)) }
