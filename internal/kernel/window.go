package kernel

import "runtime"

// # Windowed (multi-generation) blocked filters
//
// A windowed filter (package blocked's Window) keeps g generations of nb
// blocks each, interleaved: block i of generation j is blocks[i*g+j], so a
// key's g blocks (its block index i = BlockIndex(h, nb) in every
// generation) are adjacent, 64*g bytes from blocks[i*g]. A lookup probes
// the generations whose bits are set in live (bit j: generation j) with one
// mask and one address computation, and is true when the key is present in
// any of them. Callers guarantee len(blocks) == nb*g, 1 <= nb <= MaxBlocks,
// 1 <= g <= MaxGenerations and 1 <= k <= MaxK; bits of live at or above g
// are ignored.

// The kernel sets of the windowed operations (see impl.go's opVars).
var (
	windowContains1Set kernelSet // BlockedContainsGens1, BlockedContainsGensT (Window ContainsHash)
	windowContainsSet  kernelSet // BlockedContainsGens (Window ContainsHashes)
)

// MaxGenerations is the most generations the windowed kernels take.
const MaxGenerations = 64

// liveMask returns live without the bits at or above g.
func liveMask(g int, live uint64) uint64 {
	return live & (uint64(1)<<uint(g) - 1)
}

// BlockedContainsGens1 reports whether the key with hash h is present in
// any generation of live, using the kernel set in use (OpWindowContains1).
// It panics with ErrNoBlocks if blocks is empty.
func BlockedContainsGens1(blocks []Block, nb uint64, g int, live uint64, k int, h uint64) bool {
	checkGens(blocks, nb, g)
	live = liveMask(g, live)
	if live == 0 {
		return false
	}
	return blockedContainsGens1(blocks, nb, g, live, k, h)
}

// BlockedContainsGens probes every hash of hs in the generations of live,
// writes out[i] and returns the number present, using the kernel set in
// use (OpWindowContains). It panics if len(out) < len(hs).
func BlockedContainsGens(blocks []Block, nb uint64, g int, live uint64, k int, hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("kernel: BlockedContainsGens: len(out) < len(hs)")
	}
	checkGens(blocks, nb, g)
	out = out[:len(hs)]
	live = liveMask(g, live)
	if live == 0 || len(hs) == 0 {
		clear(out)
		return 0
	}
	return blockedContainsGens(blocks, nb, g, live, k, hs, out)
}

// WindowTable is a windowed filter's table for the single-key probe: the
// interleaved blocks of G generations of NB blocks each and k, side by side
// so that BlockedContainsGensT reads them through one pointer (every
// argument of an assembly call is a store and a load: see BlockedTable).
type WindowTable struct {
	Blocks []Block
	NB     uint64
	G      int
	K      int
}

// windowContains1Go is BlockedContainsGensT in Go: where there is no
// assembly, and where the amd64 kernel jumps when it does not run (the
// kernel set is generic, or t is not a valid table: checkGens panics). It
// keeps t alive to its end.
func windowContains1Go(t *WindowTable, live, h uint64) bool {
	checkGens(t.Blocks, t.NB, t.G)
	live = liveMask(t.G, live)
	r := live != 0 && BlockedContainsGens1Generic(t.Blocks, t.NB, t.G, live, t.K, h)
	runtime.KeepAlive(t)
	return r
}

// checkGens panics with ErrNoBlocks if blocks is empty (a closed filter's),
// and if len(blocks) is not nb*g, so that no kernel reads outside blocks.
func checkGens(blocks []Block, nb uint64, g int) {
	if len(blocks) == 0 {
		panic(ErrNoBlocks)
	}
	if uint64(len(blocks)) != nb*uint64(g) || g < 1 || g > MaxGenerations {
		panic("kernel: windowed probe: len(blocks) is not nb*g, or g is not in 1..64")
	}
}

// BlockedAddNewGens1 reports whether the key with hash h is absent from
// every generation of live, and sets its bits in generation cur (< g),
// computing its block index and mask once. It is Go on every
// architecture (adds are not the windowed filter's hot path). It panics
// with ErrNoBlocks if blocks is empty.
func BlockedAddNewGens1(blocks []Block, nb uint64, g int, live uint64, cur, k int, h uint64) bool {
	group := gensGroup(blocks, nb, g, h)
	m := BlockMask(h, k)
	seen := gensProbe(group, liveMask(g, live), &m)
	b := &group[cur]
	for w := range b {
		b[w] |= m[w]
	}
	return !seen
}

// BlockedAddGen1 sets the bits of the key with hash h in generation cur
// (< g): BlockedAdd1 on that generation's blocks. It panics with
// ErrNoBlocks if blocks is empty.
func BlockedAddGen1(blocks []Block, nb uint64, g int, cur, k int, h uint64) {
	group := gensGroup(blocks, nb, g, h)
	BlockedAdd1(&BlockedTable{Blocks: group[cur : cur+1], K: k}, h)
}

// GenBlock returns the index in blocks of the block of the key with hash h
// in generation j: BlockIndex(h, nb)*g + j.
func GenBlock(nb uint64, g, j int, h uint64) uint64 {
	return BlockIndex(h, nb)*uint64(g) + uint64(j)
}

// gensGroup returns the g blocks of h's block index, one per generation.
func gensGroup(blocks []Block, nb uint64, g int, h uint64) []Block {
	i := BlockIndex(h, nb) * uint64(g)
	if i >= uint64(len(blocks)) {
		panic(ErrNoBlocks)
	}
	return blocks[i : i+uint64(g) : i+uint64(g)]
}

// gensProbe reports whether every bit of m is set in a block of group
// whose bit is set in live.
func gensProbe(group []Block, live uint64, m *Block) bool {
	for ; live != 0; live &= live - 1 {
		b := &group[trailingZeros(live)]
		var miss uint64
		for w := range b {
			miss |= m[w] &^ b[w]
		}
		if miss == 0 {
			return true
		}
	}
	return false
}
