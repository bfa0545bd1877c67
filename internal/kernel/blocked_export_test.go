package kernel

// SetAsmMinBatch sets the smallest batch the assembly kernels take (0 sends
// every batch, empty included, to them) and returns a restore function. On
// builds without assembly it does nothing.
var SetAsmMinBatch = func(n int) (restore func()) { return func() {} }

// AsmAddN and AsmContainsN call the assembly kernel in use directly with a
// block count that may exceed len(blocks), so tests can check the block
// index arithmetic up to MaxBlocks (2^32) with hashes that only reach the
// first few blocks. They are nil where the build or the kernel set in use
// has no assembly.
var (
	AsmAddN      func(blocks []Block, nblocks uint64, k int, hs []uint64)
	AsmContainsN func(blocks []Block, nblocks uint64, k int, hs []uint64, out []bool) int
)
