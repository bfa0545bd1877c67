// Package hash turns keys into the 64-bit hashes every sift filter is built on.
//
// Bytes and String are XXH3-64 with a seed (github.com/zeebo/xxh3). Uint64 is
// defined as Bytes of the eight little-endian bytes of x, so a filter fed
// AddUint64(x) and one fed Add(le64(x)) hold the same key; it is written out
// (XXH3's 4–8-byte path: two multiplies) so that it inlines into callers.
// A Uint64Hasher folds the seed in once for loops over many keys; its zero
// value is NewUint64Hasher(0), the hasher of the filters' default seed.
//
// The hash is the contract between keys and filters: a filter stores its seed,
// and any code that hashes with the same function and seed can use the
// filters' *Hash methods and batch APIs directly, hashing each key once and
// probing many filters. The values are the same on every platform and
// build: they are part of every filter file (the seed is in its header), so
// a filter written on one machine answers the same on another.
//
// The seed is not a secret key: XXH3 is not a keyed PRF. For keys chosen by an
// adversary, use a random seed per deployment (see RandomSeed), which makes
// targeted collisions impractical without knowledge of the seed.
//
// Every function is safe for concurrent use and allocates nothing (a
// Uint64Hasher is a value). None returns an error; RandomSeed panics only
// if the system's random source fails. The build tag purego does not remove
// xxh3's own assembly, which has its own build tags; its Go and assembly
// paths give the same values.
package hash
