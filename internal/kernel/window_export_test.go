package kernel

// UncheckedWindowTable builds a WindowTable without NewWindowTable's
// checks, for tests that show the kernels' entries still fall back safely
// on what they do check (an empty table, k out of 1..MaxK). Only tests
// can build one: outside this package every table is NewWindowTable's.
func UncheckedWindowTable(blocks []Block, nb uint64, g, k int) WindowTable {
	return WindowTable{blocks: blocks, nb: nb, g: g, k: k}
}

// BlockedContainsGensN calls the windowed batch probe of the set in use
// without BlockedContainsGens' check that blocks holds nb groups, so tests
// can check the group index up to MaxBlocks with hashes that only reach
// the first few groups (see AsmContainsN). live must be nonzero, below
// 1<<g, and hs non-empty.
var BlockedContainsGensN = blockedContainsGens
