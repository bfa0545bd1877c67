package bench

import (
	"encoding/binary"

	"github.com/zeebo/xxh3"
)

// KeySize is the length in bytes of every benchmark key.
const KeySize = 8

// Keys is a deterministic set of distinct 8-byte keys, stored flat (key i is
// Raw[8*i : 8*i+8]) so that a hundred million keys cost 800 MB and no slice
// headers, with Hashes[i] the XXH3-64 (seed 0) of key i.
type Keys struct {
	Raw    []byte
	Hashes []uint64
}

// Len returns the number of keys.
func (k *Keys) Len() int { return len(k.Hashes) }

// Key returns key i, aliasing Raw.
func (k *Keys) Key(i int) []byte { return k.Raw[KeySize*i : KeySize*i+KeySize : KeySize*i+KeySize] }

// splitmix64 is the output function of Vigna's SplitMix64 generator: a
// bijection of uint64, so distinct counters give distinct keys.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Present and Absent name the two disjoint key streams.
const (
	Present = 0
	Absent  = 1
)

// MakeKeys returns n keys of the given stream (Present or Absent). Key i of
// stream s is splitmix64(2*i+s) in little-endian order: deterministic,
// pairwise distinct, and never shared between the two streams.
func MakeKeys(n int, stream uint64) *Keys {
	k := &Keys{Raw: make([]byte, KeySize*n), Hashes: make([]uint64, n)}
	for i := range n {
		binary.LittleEndian.PutUint64(k.Raw[KeySize*i:], splitmix64(2*uint64(i)+stream))
	}
	HashAll(k.Hashes, k.Raw)
	return k
}

// HashAll writes into hs the XXH3-64 (seed 0) of each KeySize-byte key of
// raw: the hashing cost the hash-input filters are spared, measured on its
// own by BenchmarkHash.
func HashAll(hs []uint64, raw []byte) {
	for i := range hs {
		hs[i] = xxh3.Hash(raw[KeySize*i : KeySize*i+KeySize])
	}
}
