package kernel

// SBBFAsmAddN and SBBFAsmContainsN call the split-block assembly kernel in
// use directly with a block count that may exceed len(blocks), so tests
// can check the block index arithmetic up to SBBFMaxBlocks with hashes that
// only reach the first blocks. They are nil where the build has no
// assembly; they fall back to nothing when the kernel set in use is
// generic (tests skip then).
var (
	SBBFAsmAddN      func(blocks []SBBFBlock, nblocks uint64, hs []uint64)
	SBBFAsmContainsN func(blocks []SBBFBlock, nblocks uint64, hs []uint64, out []bool) int
)
