package kernel

import (
	"fmt"
	"runtime"

	"github.com/sift-go/sift/internal/race"
)

// # Windowed (multi-generation) blocked filters
//
// A windowed filter (package blocked's Window) keeps g generations, g a
// power of two in 2..MaxGenerations, in one table of nb groups. A key's
// group is i = BlockIndex(h, nb), and the group holds one lane of the key
// for every generation, side by side: lanes are 512/WindowLanes(g) bits
// (256 bits for g = 2, 128 bits for g >= 4), WindowLanes(g) to a 64-byte
// line, and a group is WindowLines(g) = g/WindowLanes(g) lines, so
// blocks[i*WindowLines(g) + j/WindowLanes(g)] holds generation j's lane,
// lane number j%WindowLanes(g) of that line. At g = 2 and g = 4 a key's
// generations are one cache line: a lookup of every generation reads one
// line, as a lookup of a Filter does.
//
// A key's lane mask is its block mask (BlockMask: probe p sets one bit of
// word p%8) folded onto the lane's words, probe p into word p%(8/L) for L
// lanes a line; WindowMask repeats it in every lane of a line, so a kernel
// tests all the lanes of a line with one AND. A key is present in
// generation j when every bit of its lane mask is set in lane j. A lookup
// probes the generations whose bits are set in live (bit j: generation j)
// and is true when the key is present in any of them. Callers guarantee
// len(blocks) == nb*WindowLines(g), 1 <= nb <= MaxBlocks, ValidGenerations(g)
// and 1 <= k <= MaxK; bits of live at or above g are ignored.

// The kernel sets of the windowed operations (see impl.go's opVars).
var (
	windowContains1Set kernelSet // BlockedContainsGens1, BlockedContainsGensT (Window ContainsHash)
	windowContainsSet  kernelSet // BlockedContainsGens (Window ContainsHashes and AddNewHashes' lookup) under LargeBlocks lines
	windowAdd1Set      kernelSet // BlockedAddGenT (Window AddHash)
	windowAddNew1Set   kernelSet // BlockedAddNewGensT (Window AddNewHash, AddNewHashes)
)

// MaxGenerations is the most generations the windowed kernels take.
const MaxGenerations = 64

// ValidGenerations reports whether g is a generation count the windowed
// kernels take: a power of two in 2..MaxGenerations.
func ValidGenerations(g int) bool {
	return g >= 2 && g <= MaxGenerations && g&(g-1) == 0
}

// WindowLanes returns the lanes of one 64-byte line for g generations: 2
// lanes of 256 bits for g = 2, else 4 of 128 bits. Narrower lanes would
// cost more memory for the same rate than they save (by a Poisson-load
// form of package blocked's block model, without its margin, a 64-bit lane
// needs 18.0 bits a key at 0.25% where a 128-bit lane needs 15.3 and a
// 512-bit block 13.3).
func WindowLanes(g int) int { return 1 << laneShift(g) }

// laneShift is log2(WindowLanes(g)). The layout's arithmetic is shifts and
// masks by it: the lane counts are not constants, and a division by one
// (an integer DIV, tens of cycles) made an add cost several times a
// Filter's.
func laneShift(g int) uint {
	if g == 2 {
		return 1
	}
	return 2
}

// LaneWords returns the 64-bit words of a lane for g generations: 4 for
// g = 2, else 2.
func LaneWords(g int) int { return BlockWords >> laneShift(g) }

// WindowLines returns the lines of a group for g generations: 1 for g <= 4,
// g/4 above.
func WindowLines(g int) int { return g >> laneShift(g) }

// WindowMask returns the mask of hash h with k probes for a table of g
// generations: its block mask folded onto one lane (probe p in the lane's
// word p%(8/WindowLanes(g))) and repeated in every lane of the line.
func WindowMask(h uint64, k, g int) Block {
	if g == 2 {
		a, b, c, d := laneMask4(uint32(h), k)
		return Block{a, b, c, d, a, b, c, d}
	}
	a, b := laneMask2(uint32(h), k)
	return Block{a, b, a, b, a, b, a, b}
}

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
// use (OpWindowContains, or OpWindowContainsLarge on a table of
// LargeBlocks lines or more). It panics if len(out) < len(hs).
func BlockedContainsGens(blocks []Block, nb uint64, g int, live uint64, k int, hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("kernel: BlockedContainsGens: len(out) < len(hs)")
	}
	checkGens(blocks, nb, g)
	out = out[:len(hs)]
	live = liveMask(g, live)
	if live == 0 || len(hs) == 0 {
		race.Clear(out)
		return 0
	}
	return blockedContainsGens(blocks, nb, g, live, k, hs, out)
}

// WindowTable is a windowed filter's table for the single-key kernels: the
// interleaved blocks of g generations of nb groups each and k, side by
// side so that BlockedContainsGensT and the single-key adds read them
// through one pointer (every argument of an assembly call is a store and
// a load: see BlockedTable).
//
// Its fields are unexported so that no code outside this package can
// build an invalid one: NewWindowTable checks the layout once, and Close
// empties it. The amd64 entries trust it (they check only the kernel set,
// an empty table and k, as blockedContains1AVX2 does) instead of
// validating the layout on every call. The zero value is a closed table.
type WindowTable struct {
	blocks []Block
	nb     uint64
	g      int
	k      int
	// liveNow, if set (SetLiveNow), gives BlockedContainsGensT the live
	// mask for a live argument with no bit below G. The amd64 entries
	// never read it: they jump to windowContains1Go for such a mask.
	liveNow func() uint64
}

// NewWindowTable returns the table of blocks laid out for g generations
// (len(blocks) = nb*WindowLines(g) for nb groups) with k probes a key. It
// returns an error unless g is a valid generation count, blocks is a
// nonzero whole number of groups, nb <= MaxBlocks and 1 <= k <= MaxK.
func NewWindowTable(blocks []Block, g, k int) (WindowTable, error) {
	if !ValidGenerations(g) {
		return WindowTable{}, fmt.Errorf("kernel: NewWindowTable: %d generations is not a power of two in 2..%d", g, MaxGenerations)
	}
	if k < 1 || k > MaxK {
		return WindowTable{}, fmt.Errorf("kernel: NewWindowTable: k = %d is not in 1..%d", k, MaxK)
	}
	p := uint64(WindowLines(g))
	n := uint64(len(blocks))
	if n == 0 || n%p != 0 || n/p > MaxBlocks {
		return WindowTable{}, fmt.Errorf("kernel: NewWindowTable: %d lines is not 1..%d groups of %d", n, uint64(MaxBlocks), p)
	}
	return WindowTable{blocks: blocks, nb: n / p, g: g, k: k}, nil
}

// SetLiveNow makes f the live mask's source for the lookups
// (BlockedContainsGensT) that pass a live argument with no bit below G:
// a caller whose live mask has to be read from a clock passes 0. Such a
// lookup probes every generation; a key in none is absent, and f is not
// called; on a hit it calls f and probes the generations of f's mask
// (none, if it has no bit below G). Window.ContainsHash does so in time
// mode, so that it inlines to one assembly call, and a miss reads no
// clock. A nil f restores the default: such a mask has no live generation
// and the lookup answers false.
func (t *WindowTable) SetLiveNow(f func() uint64) { t.liveNow = f }

// Close empties t: a kernel called with it afterwards panics with
// ErrNoBlocks. g, k and the live source are kept.
func (t *WindowTable) Close() {
	t.blocks, t.nb = nil, 0
}

// Blocks returns the table's lines (nil once closed).
func (t *WindowTable) Blocks() []Block { return t.blocks }

// Groups returns the table's group count (0 once closed).
func (t *WindowTable) Groups() uint64 { return t.nb }

// Generations returns G.
func (t *WindowTable) Generations() int { return t.g }

// K returns the probes a key.
func (t *WindowTable) K() int { return t.k }

// windowContains1Go is BlockedContainsGensT in Go: where there is no
// assembly, and where the amd64 kernel jumps when it does not run (the
// kernel set is generic, t is empty: checkGens panics, or k is out of
// range). It keeps t alive to its end.
func windowContains1Go(t *WindowTable, live, h uint64) bool {
	if t.liveNow != nil && t.nb != 0 && liveMask(t.g, live) == 0 {
		// A Window by time: as the assembly entries do, every
		// generation first, the clock only for a hit.
		if !BlockedContainsGens1Generic(t.blocks, t.nb, t.g, liveMask(t.g, ^uint64(0)), t.k, h) {
			return false
		}
		return windowContains1Hit(t, 0, h)
	}
	checkGens(t.blocks, t.nb, t.g)
	live = liveMask(t.g, live)
	r := live != 0 && BlockedContainsGens1Generic(t.blocks, t.nb, t.g, live, t.k, h)
	runtime.KeepAlive(t)
	return r
}

// windowContains1Hit answers a lookup of h that hit with every generation
// live, in a table with a live source (time mode): it reads the source;
// if every generation is live (a Window inside its current slice) the hit
// stands, else it probes the generations of the mask through the kernel
// in use (BlockedContainsGensT with a mask that has a live bit). The
// amd64 entries tail-jump here (with their arguments, live zeroed) after
// such a hit, so a miss never reads the clock.
func windowContains1Hit(t *WindowTable, _, h uint64) bool {
	all := liveMask(t.g, ^uint64(0))
	switch live := liveMask(t.g, t.liveNow()); live {
	case all: // the usual answer inside the current slice: the hit stands
		return true
	case 0:
		return false
	default:
		return BlockedContainsGensT(t, live, h) // live has a bit below G: no jump back here
	}
}

// windowAdd1Go is BlockedAddGenT in Go: where there is no assembly, and
// where the amd64 entry jumps when it does not run (the kernel set is
// generic, t is empty: checkGens panics, cur is not below G or k is out
// of range). It keeps t alive to its end.
func windowAdd1Go(t *WindowTable, cur int, h uint64) {
	checkGens(t.blocks, t.nb, t.g)
	BlockedAddGen1(t.blocks, t.nb, t.g, cur, t.k, h)
	runtime.KeepAlive(t)
}

// windowAddNew1Go is BlockedAddNewGensT in Go, as windowAdd1Go is
// BlockedAddGenT (the amd64 entry also jumps here for a live mask with no
// bit below G).
func windowAddNew1Go(t *WindowTable, live uint64, cur int, h uint64) bool {
	checkGens(t.blocks, t.nb, t.g)
	r := BlockedAddNewGens1(t.blocks, t.nb, t.g, live, cur, t.k, h)
	runtime.KeepAlive(t)
	return r
}

// checkGens panics with ErrNoBlocks if blocks is empty (a closed filter's),
// and if g is not a valid generation count, nb is above MaxBlocks or
// len(blocks) is not nb*WindowLines(g), so that no kernel reads outside
// blocks.
func checkGens(blocks []Block, nb uint64, g int) {
	if len(blocks) == 0 {
		panic(ErrNoBlocks)
	}
	if !ValidGenerations(g) || nb > MaxBlocks || uint64(len(blocks)) != nb*uint64(WindowLines(g)) {
		panic("kernel: windowed probe: g is not a power of two in 2..64, or len(blocks) is not nb*WindowLines(g)")
	}
}

// BlockedAddNewGens1 reports whether the key with hash h is absent from
// every generation of live, and sets its bits in generation cur (< g),
// computing its group and mask once: the reference (Go) single-key
// add-if-new, which BlockedAddNewGensT runs in assembly on amd64. A live
// with no bit below g makes every key new (a table's live source,
// SetLiveNow, serves the lookups only). It panics with ErrNoBlocks if
// blocks is empty.
func BlockedAddNewGens1(blocks []Block, nb uint64, g int, live uint64, cur, k int, h uint64) bool {
	checkCur(g, cur)
	group := gensGroup(blocks, nb, g, h)
	m := WindowMask(h, k, g)
	seen := gensProbe(group, g, liveMask(g, live), &m)
	orLane(group, g, cur, &m)
	return !seen
}

// BlockedAddGen1 sets the bits of the key with hash h in generation cur
// (< g): the reference (Go) single-key add, which BlockedAddGenT runs in
// assembly on amd64. It panics with ErrNoBlocks if blocks is empty.
func BlockedAddGen1(blocks []Block, nb uint64, g int, cur, k int, h uint64) {
	checkCur(g, cur)
	line, o := GenLane(nb, g, cur, h)
	if line >= uint64(len(blocks)) {
		panic(ErrNoBlocks)
	}
	b := &blocks[line]
	if g == 2 {
		x0, x1, x2, x3 := laneMask4(uint32(h), k)
		o &= 4
		b[o] |= x0
		b[o+1] |= x1
		b[o+2] |= x2
		b[o+3] |= x3
		return
	}
	x0, x1 := laneMask2(uint32(h), k)
	o &= 6
	b[o] |= x0
	b[o+1] |= x1
}

// checkCur panics unless generation cur is below g: a lane past the last
// generation would be one of the next group's, or outside blocks.
func checkCur(g, cur int) {
	if uint(cur) >= uint(g) {
		panic("kernel: windowed add: the generation is not below g")
	}
}

// GenLane returns where generation j's lane of the key with hash h lies:
// the index in blocks of its line and the index of its first word in that
// line; the lane is 8/WindowLanes(g) words from there.
func GenLane(nb uint64, g, j int, h uint64) (line uint64, word int) {
	s := laneShift(g)
	return BlockIndex(h, nb)*uint64(g>>s) + uint64(j>>s), j & (1<<s - 1) << (3 - s)
}

// gensGroup returns the lines of h's group.
func gensGroup(blocks []Block, nb uint64, g int, h uint64) []Block {
	p := uint64(WindowLines(g))
	i := BlockIndex(h, nb) * p
	if i >= uint64(len(blocks)) {
		panic(ErrNoBlocks)
	}
	return blocks[i : i+p : i+p]
}

// orLane ORs the lane of m (a WindowMask) into generation j's lane of group.
func orLane(group []Block, g, j int, m *Block) {
	s := laneShift(g)
	b := &group[j>>s]
	o := j & (1<<s - 1) << (3 - s)
	for i := o; i < o+1<<(3-s); i++ {
		b[i] |= m[i]
	}
}

// gensProbe reports whether every bit of the lane mask m (a WindowMask) is
// set in the lane of a generation of group whose bit is set in live.
func gensProbe(group []Block, g int, live uint64, m *Block) bool {
	s := laneShift(g)
	w := 1 << (3 - s)
	for ; live != 0; live &= live - 1 {
		j := trailingZeros(live)
		b := &group[j>>s]
		o := j & (1<<s - 1) << (3 - s)
		var miss uint64
		for i := o; i < o+w; i++ {
			miss |= m[i] &^ b[i]
		}
		if miss == 0 {
			return true
		}
	}
	return false
}
