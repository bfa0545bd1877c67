// Package kernel holds sift's hot loops: batch insert and probe for the
// blocked Bloom filter (and the cuckoo filter's batch lookup), each as a
// portable Go reference (names ending in Generic, always compiled) and, on
// amd64 and arm64, assembly twins chosen once at start-up (see impl.go and
// package internal/cpu).
//
// # Blocked Bloom geometry
//
// A filter is an array of Blocks, one 64-byte cache line each (8 uint64
// words, word w at byte offset 8*w, little-endian). A 64-bit key hash h is
// split in two halves:
//
//   - the high half picks the block by multiply-shift:
//     BlockIndex(h, n) = (h>>32) * n >> 32, for any block count 1 <= n <= 2^32;
//   - the low half h32 = uint32(h) picks the bits: probe j (0 <= j < k,
//     1 <= k <= 16) is bit (h32*Salts[j]) >> 26 of word j mod 8, where the
//     product is taken mod 2^32 and Salts are fixed odd constants.
//
// So k <= 8 sets at most one bit in each of k words, and k in 9..16 at most
// two bits in each word. A key is present when all its probe bits are set.
// Every kernel, in every architecture, must produce the identical memory
// image and answers as the Generic functions: tests compare them bit for bit.
//
// # Batch contract
//
// BlockedAdd(blocks, k, hs) inserts every hash of hs. BlockedContains(blocks,
// k, hs, out) writes out[i] for every i < len(hs) and returns how many are
// true; it panics if len(out) < len(hs). Neither allocates nor retains its
// arguments. Callers guarantee len(blocks) >= 1 and 1 <= k <= MaxK.
//
// # Cuckoo geometry
//
// The cuckoo filter's bucket, fingerprint and alternate-bucket functions and
// its batch lookup contract are documented in cuckoo.go.
package kernel

// BlockWords is the number of 64-bit words in a block; BlockBytes its size.
const (
	BlockWords = 8
	BlockBytes = 64
	// MaxK is the largest number of probes per key.
	MaxK = 16
	// MaxBlocks is the largest block count BlockIndex can address.
	MaxBlocks = 1 << 32
)

// Block is one cache line of a blocked Bloom filter.
type Block [BlockWords]uint64

// BlockedTable is a blocked filter's block array and probe count, side by
// side so that the single-key calls (BlockedContains1, BlockedAdd1) take
// both through one pointer: every argument of an assembly call is a store
// and a load, and one argument fewer measured 0.1-0.2 ns a lookup, about
// 4% (see blocked_amd64.go). Callers keep 1 <= K <= MaxK.
type BlockedTable struct {
	Blocks []Block
	K      int
}

// Salts are the odd multipliers of the in-block probes: probe j uses Salts[j].
// They are part of the file format and must never change.
var Salts = [MaxK]uint32{
	0xe56cc05b, 0xb97e54ed, 0xd11029a5, 0xf0594b3f, 0x3ef0d3f7, 0xdcec8bc1, 0xd24e2077, 0x2e6eab13,
	0x36dfad11, 0xde4a21f9, 0x14d0d1a5, 0xc8e0e113, 0x141ce343, 0xa4792a01, 0x067fad21, 0xd415c1a5,
}

// BlockIndex maps h to a block in [0, n) by multiply-shift of its high half.
// n must be at most MaxBlocks.
func BlockIndex(h, n uint64) uint64 {
	return (h >> 32) * n >> 32
}

// BlockMask returns the bits key hash h sets in its block with k probes.
func BlockMask(h uint64, k int) (m Block) {
	h32 := uint32(h)
	for j := 0; j < k && j < MaxK; j++ {
		m[j&7] |= 1 << ((h32 * Salts[j]) >> 26)
	}
	return m
}
