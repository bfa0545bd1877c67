package kernel

// # Split-block (Parquet) Bloom geometry
//
// The SBBF kernels implement Apache Parquet's split-block Bloom filter
// bit for bit: an array of SBBFBlocks of 256 bits, eight uint32 words each.
// A 64-bit key hash h is split in two, as for the blocked filter:
//
//   - the high half picks the block by multiply-shift,
//     BlockIndex(h, n) = (h>>32) * n >> 32, for any block count
//     1 <= n <= SBBFMaxBlocks;
//   - the low half x = uint32(h) sets one bit in every word: bit
//     (x*SBBFSalts[i]) >> 27 of word i, the product taken mod 2^32.
//
// A key is present when all eight of its bits are set. In memory a block is
// [8]uint32 in the machine's byte order; the Parquet bitset and sift's file
// are little-endian (package blocked converts where needed), so on a
// little-endian machine the memory image is the file's bytes.
//
// The batch contract is the blocked filter's: SBBFAdd(blocks, hs) inserts
// every hash; SBBFContains(blocks, hs, out) writes out[i] for every
// i < len(hs) and returns how many are true, panicking if len(out) <
// len(hs). Neither allocates nor retains its arguments; callers guarantee
// len(blocks) >= 1. The single-key SBBFAdd1 and SBBFContains1 take a
// pointer to the block slice and panic on an empty one.

// Split-block geometry.
const (
	// SBBFBlockWords is the number of 32-bit words in a block; SBBFBlockBytes
	// its size.
	SBBFBlockWords = 8
	SBBFBlockBytes = 32
	// SBBFMaxBlocks is the largest block count: the Parquet specification
	// bounds it below 2^31.
	SBBFMaxBlocks = 1<<31 - 1
)

// SBBFBlock is one 256-bit block of a split-block Bloom filter.
type SBBFBlock [SBBFBlockWords]uint32

// SBBFSalts are the specification's eight odd multipliers: word i's bit
// comes from x*SBBFSalts[i].
var SBBFSalts = [SBBFBlockWords]uint32{
	SBBFSalt0, SBBFSalt1, SBBFSalt2, SBBFSalt3, SBBFSalt4, SBBFSalt5, SBBFSalt6, SBBFSalt7,
}

// SBBFSalt0..SBBFSalt7 are SBBFSalts as constants, for the immediates of
// the unrolled Go probes.
const (
	SBBFSalt0 = 0x47b6137b
	SBBFSalt1 = 0x44974d91
	SBBFSalt2 = 0x8824ad5b
	SBBFSalt3 = 0xa2b7289d
	SBBFSalt4 = 0x705495c7
	SBBFSalt5 = 0x2df1424b
	SBBFSalt6 = 0x9efc4947
	SBBFSalt7 = 0x5c6bfb31
)

// SBBFMask returns the bits hash h sets in its block: the specification's
// mask of uint32(h), a loop written straight from its pseudocode (the
// reference the tests hold every kernel to).
func SBBFMask(h uint64) (m SBBFBlock) {
	x := uint32(h)
	for i := range m {
		m[i] = 1 << ((x * SBBFSalts[i]) >> 27)
	}
	return m
}

// SBBFAdd inserts every hash of hs into blocks with the kernel set in use
// (see the batch contract above).
func SBBFAdd(blocks []SBBFBlock, hs []uint64) {
	sbbfAdd(blocks, hs)
}

// SBBFContains probes every hash of hs, writes out[i] and returns the number
// present, with the kernel set in use. It panics if len(out) < len(hs).
func SBBFContains(blocks []SBBFBlock, hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("kernel: SBBFContains: len(out) < len(hs)")
	}
	return sbbfContains(blocks, hs, out)
}
