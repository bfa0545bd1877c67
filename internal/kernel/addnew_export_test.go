package kernel

// AsmAddNewN calls the add-if-new assembly kernel in use directly with a
// block count that may exceed len(blocks) (see AsmAddN). It is nil where
// the build has no assembly.
var AsmAddNewN func(blocks []Block, nblocks uint64, k int, hs []uint64, out []bool) int
