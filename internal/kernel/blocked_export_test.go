package kernel

// AsmAddN and AsmContainsN call the assembly kernel in use directly with a
// block count that may exceed len(blocks), so tests can check the block
// index arithmetic up to MaxBlocks (2^32) with hashes that only reach the
// first few blocks. They are nil where the build or the kernel set in use
// has no assembly.
var (
	AsmAddN      func(blocks []Block, nblocks uint64, k int, hs []uint64)
	AsmContainsN func(blocks []Block, nblocks uint64, k int, hs []uint64, out []bool) int
)
