package fuzz

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/sift-go/sift/internal/kernel"
)

// FuzzWindowKernel feeds fuzzed layouts, live masks, hashes and memory to
// the windowed (multi-generation) kernels of package internal/kernel:
// the single-key adds (BlockedAddGen1, BlockedAddGenT), the single-key
// add-if-new (BlockedAddNewGens1, BlockedAddNewGensT) and the lookups
// (BlockedContainsGens batch, BlockedContainsGens1, BlockedContainsGensT,
// with and without a live source), for the Go twins and every kernel set,
// and compares them with a model written here from the layout in the
// package doc of internal/kernel's window.go (so a bug the twins share is
// caught too).

// maxWindowLines bounds a fuzzed table (128 KiB), so that g = 64 does not
// make an input sixteen times as slow as g = 2.
const maxWindowLines = 2048

// windowInput is FuzzWindowKernel's input: an 8-byte header, the raw live
// mask (8 bytes, little-endian), then the hashes as decodeHashes reads
// them, grown by hdr[5]%8. The header:
//
//	hdr[0]  bits 0-2: g = 2<<(x%6); bits 3-6: k-1; bit 7: spread the adds
//	        over the generations instead of all into cur
//	hdr[1]  the group count's low byte
//	hdr[2]  bits 0-1: the group count's high bits; bits 2-3: repeats
//	        (repeatHashes); bits 4-6: the live mask's shape (windowLive);
//	        bit 7: a start of sparse random bits instead of zeros
//	hdr[3]  bits 0-2: the lines' misalignment in words; bits 3-5: the
//	        output's in bytes; bits 6-7: the batch mode (forceBatchMode)
//	hdr[4]  the split of the batch lookup, and the start's seed
//	hdr[5]  bits 0-2: decodeHashes' growth
//	hdr[6]  cur, mod g
//	hdr[7]  bit 0: make the random start dense (7/8 of the bits set), so
//	        that most keys are present or miss one bit
type windowInput struct {
	hdr    [8]byte
	live   uint64
	hashes []uint64
}

// decodeWindowInput decodes data as windowInput's doc says.
func decodeWindowInput(data []byte) windowInput {
	var in windowInput
	n := copy(in.hdr[:], data)
	data = data[n:]
	var w [8]byte
	n = copy(w[:], data)
	in.live = binary.LittleEndian.Uint64(w[:])
	in.hashes = decodeHashes(data[n:], int(in.hdr[5]%8))
	return in
}

// windowLive returns the live mask of shape for g generations and the
// current generation cur, from the fuzzed raw mask: raw itself, a
// Window's ring of live generations ending at cur (with raw's bits at or
// above g kept, which the kernels must ignore), raw with no bit below g
// (no live generation), every bit, one generation, or every generation
// but cur.
func windowLive(shape byte, g, cur int, raw uint64) uint64 {
	low := uint64(1)<<uint(g) - 1 // g = 64: all ones
	switch shape % 8 {
	case 2:
		var m uint64
		for a := range 1 + int(raw%uint64(g)) {
			m |= 1 << uint((cur-a+g)%g)
		}
		return m | raw&^low
	case 3:
		return raw &^ low
	case 4:
		return ^uint64(0)
	case 5:
		return 1 << (raw % uint64(g))
	case 6:
		return ^(uint64(1) << uint(cur))
	}
	return raw
}

// modelLanes is how many generations' lanes a 64-byte line holds: 2 (of
// 256 bits) for g = 2, else 4 (of 128 bits).
func modelLanes(g int) int {
	if g == 2 {
		return 2
	}
	return 4
}

// modelWindowLane is the package doc's layout: generation j's lane of the
// key with hash h in a table of nb groups of g generations is words
// [word, word+words) of line. A line holds 2 lanes for g = 2, else 4; a
// group is g/lanes lines; the group is the blocked filter's block index.
func modelWindowLane(nb uint64, g, j int, h uint64) (line uint64, word, words int) {
	lanes := modelLanes(g)
	words = kernel.BlockWords / lanes
	group := (h >> 32) * nb >> 32
	return group*uint64(g/lanes) + uint64(j/lanes), j % lanes * words, words
}

// modelLaneMask is the key's lane mask for lanes of words words: its
// block mask folded onto the lane, probe p's bit (modelProbeBit) in word
// p%words.
func modelLaneMask(h uint64, k, words int) (m [4]uint64) {
	for p := 0; p < k; p++ {
		m[p%words] |= modelProbeBit(h, p)
	}
	return m
}

// modelWindowContains is the documented lookup: the key is present in
// some generation j < g whose bit is set in live (bits at or above g
// ignored), every bit of its lane mask set in j's lane.
func modelWindowContains(blocks []kernel.Block, nb uint64, g int, live uint64, k int, h uint64) bool {
	_, _, words := modelWindowLane(nb, g, 0, h)
	m := modelLaneMask(h, k, words)
	for j := 0; j < g; j++ {
		if live>>uint(j)&1 == 0 {
			continue
		}
		line, word, _ := modelWindowLane(nb, g, j, h)
		in := true
		for i := 0; i < words; i++ {
			in = in && m[i]&^blocks[line][word+i] == 0
		}
		if in {
			return true
		}
	}
	return false
}

// modelWindowAdd sets the key's lane mask in generation j's lane.
func modelWindowAdd(blocks []kernel.Block, nb uint64, g, j, k int, h uint64) {
	line, word, words := modelWindowLane(nb, g, j, h)
	m := modelLaneMask(h, k, words)
	for i := 0; i < words; i++ {
		blocks[line][word+i] |= m[i]
	}
}

// windowKernels is one kernel set's windowed calls, or their Go twins
// (table is nil for the twins: BlockedContainsGensT has no twin but its
// own Go path, which impl=generic runs).
type windowKernels struct {
	add      func(t *kernel.WindowTable, cur int, h uint64)
	addNew   func(t *kernel.WindowTable, live uint64, cur int, h uint64) bool
	contains func(blocks []kernel.Block, nb uint64, g int, live uint64, k int, hs []uint64, out []bool) int
	single   func(blocks []kernel.Block, nb uint64, g int, live uint64, k int, h uint64) bool
	table    func(t *kernel.WindowTable, live, h uint64) bool
}

// windowTwins are the Go twins, called with the table's fields.
var windowTwins = windowKernels{
	add: func(t *kernel.WindowTable, cur int, h uint64) {
		kernel.BlockedAddGen1(t.Blocks(), t.Groups(), t.Generations(), cur, t.K(), h)
	},
	addNew: func(t *kernel.WindowTable, live uint64, cur int, h uint64) bool {
		return kernel.BlockedAddNewGens1(t.Blocks(), t.Groups(), t.Generations(), live, cur, t.K(), h)
	},
	contains: kernel.BlockedContainsGensGeneric,
	single:   kernel.BlockedContainsGens1Generic,
}

// windowImpl is the kernel set in use.
var windowImpl = windowKernels{
	add:      kernel.BlockedAddGenT,
	addNew:   kernel.BlockedAddNewGensT,
	contains: kernel.BlockedContainsGens,
	single:   kernel.BlockedContainsGens1,
	table:    kernel.BlockedContainsGensT,
}

// windowSeed returns a seed input: hdr, the raw live mask, then n
// pseudo-random hashes.
func windowSeed(hdr [8]byte, live uint64, n int) []byte {
	return kernelSeed(binary.LittleEndian.AppendUint64(hdr[:], live), n)
}

// FuzzWindowKernel: the input is windowInput's. Every set's adds,
// add-if-new and lookups must match the model, which the Go twins must
// match too.
func FuzzWindowKernel(f *testing.F) {
	for _, s := range modeSeeds([][]byte{
		{},
		// g = 2, k = 1: one group, both generations live, repeats; three
		// groups, a Window's ring, adds spread over the generations.
		windowSeed([8]byte{0x00, 0, 0x0c, 0x80, 3, 7, 1}, 0b11, 9),
		windowSeed([8]byte{0x80, 2, 0x2c, 0x0a, 40, 3, 0}, 1, 20),
		// g = 4, k = 16: a ring with bits above g, a random start.
		windowSeed([8]byte{0xf9, 5, 0xa4, 0x13, 17, 5, 2}, 0xfff0, 12),
		// g = 8, k = 9 and 8: every generation but cur; no bit below g.
		windowSeed([8]byte{0xc2, 200, 0xe9, 0x2d, 90, 2, 5}, 0x5a, 30),
		windowSeed([8]byte{0xba, 1, 0xbc, 0x06, 8, 1, 7}, 0xff00, 60),
		// g = 64, k = 1 and 16: a raw mask; one generation.
		windowSeed([8]byte{0x05, 7, 0x8c, 0x38, 33, 4, 63}, 0x8000000180000001, 15),
		windowSeed([8]byte{0xfd, 100, 0xd0, 0x21, 0, 6, 31}, 0x123456789abcdef, 70),
		// g = 16 and 32 (several lines a group): a ring; no live
		// generation.
		windowSeed([8]byte{0x33, 3, 0xa8, 0x1f, 5, 3, 9}, 3, 40),
		windowSeed([8]byte{0x4c, 1, 0x8e, 0x07, 64, 7, 30}, 0, 25),
		// Dense starts (g = 8, k = 16; g = 2, k = 12): most keys present
		// or one bit short.
		windowSeed([8]byte{0x7a, 9, 0x8c, 0x11, 7, 3, 3, 1}, 0xff, 50),
		windowSeed([8]byte{0xd8, 0, 0xac, 0x2b, 99, 5, 1, 1}, 2, 30),
	}, 3, 6) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := decodeWindowInput(data)
		t.Logf("batch mode %q", forceBatchMode(t, in.hdr[3]>>6))
		g := 2 << (in.hdr[0] % 8 % 6)
		k := 1 + int(in.hdr[0]>>3%16)
		spread := in.hdr[0]&0x80 != 0
		lanes := modelLanes(g)
		perGroup := g / lanes
		nb := 1 + (int(in.hdr[1])+int(in.hdr[2]%4)*256)%(maxWindowLines/perGroup)
		lines := nb * perGroup
		cur := int(in.hdr[6]) % g
		live := windowLive(in.hdr[2]>>4%8, g, cur, in.live)
		lineOff := int(in.hdr[3] % 8)
		outOff := int(in.hdr[3] >> 3 % 8)
		split := int(in.hdr[4])
		hs := in.hashes
		if len(hs) == 0 {
			hs = []uint64{}
		}
		repeatHashes(hs, in.hdr[2]>>2%4, uint64(in.hdr[4])<<8|uint64(in.hdr[2]))
		// The generation key i is added to.
		gen := func(i int) int {
			if spread {
				return (cur + i) % g
			}
			return cur
		}
		start := make([]kernel.Block, lines)
		if in.hdr[2]&0x80 != 0 {
			fill := splitmix(uint64(in.hdr[4]))
			for i := range start {
				for w := range start[i] {
					start[i][w] = fill() & fill() & fill()
					if in.hdr[7]&1 != 0 {
						start[i][w] = ^start[i][w]
					}
				}
			}
		}
		u := uint64(nb)
		want := append([]kernel.Block(nil), start...)
		for i, h := range hs {
			modelWindowAdd(want, u, g, gen(i), k, h)
		}
		// Probes: the added keys and their neighbours one bit away.
		probes := make([]uint64, 0, 2*len(hs))
		for i, h := range hs {
			probes = append(probes, h, h^1<<(i%64))
		}
		found := make([]bool, len(probes)) // in a generation of live
		inAny := make([]bool, len(probes)) // in any generation
		found1 := 0
		for i, p := range probes {
			found[i] = modelWindowContains(want, u, g, live, k, p)
			inAny[i] = modelWindowContains(want, u, g, ^uint64(0), k, p)
			if found[i] {
				found1++
			}
		}
		// The add-if-new of the probes, in order, after the adds.
		afterNew := append([]kernel.Block(nil), want...)
		isNew := make([]bool, len(probes))
		for i, p := range probes {
			isNew[i] = !modelWindowContains(afterNew, u, g, live, k, p)
			modelWindowAdd(afterNew, u, g, cur, k, p)
		}
		probes = guardedHashes(t, probes)
		gh := guardedHashes(t, hs)
		where := func() string {
			return fmt.Sprintf("g=%d k=%d groups=%d live=%#x cur=%d spread=%v", g, k, nb, live, cur, spread)
		}
		sameImage := func(name, call string, b, want []kernel.Block) {
			for i := range b {
				if b[i] != want[i] {
					t.Fatalf("%s: %s, %s, %d keys: line %d is %x, want %x", name, call, where(), len(hs), i, b[i], want[i])
				}
			}
		}

		check := func(name string, kn windowKernels) {
			b := guardedBlocks(t, lines, lineOff)
			copy(b, start)
			tab, err := kernel.NewWindowTable(b, g, k)
			if err != nil {
				t.Fatal(err)
			}
			for i, h := range gh {
				kn.add(&tab, gen(i), h)
			}
			sameImage(name, "add", b, want)

			// The batch lookup in two calls split at a fuzzed point.
			out, guards := guardedOut(len(probes), outOff)
			for i := range out {
				out[i] = i%3 == 0 // stale values the kernel must overwrite
			}
			cut := min(split, len(probes))
			n := kn.contains(b, u, g, live, k, probes[:cut], out[:cut])
			n += kn.contains(b, u, g, live, k, probes[cut:], out[cut:])
			if msg := guards(); msg != "" {
				t.Fatalf("%s: batch lookup: %s", name, msg)
			}
			for i, p := range probes {
				if out[i] != found[i] {
					t.Fatalf("%s: batch lookup, %s, %d probes (cut %d): probe %d (hash %#x) answers %v, want %v", name, where(), len(probes), cut, i, p, out[i], found[i])
				}
				if got := kn.single(b, u, g, live, k, p); got != found[i] {
					t.Fatalf("%s: single-key lookup, %s: probe %d (hash %#x) answers %v, want %v", name, where(), i, p, got, found[i])
				}
				if kn.table == nil {
					continue
				}
				if got := kn.table(&tab, live, p); got != found[i] {
					t.Fatalf("%s: table lookup, %s: probe %d (hash %#x) answers %v, want %v", name, where(), i, p, got, found[i])
				}
			}
			if n != found1 {
				t.Fatalf("%s: batch lookup, %s: returned %d, %d are present", name, where(), n, found1)
			}
			if kn.table != nil {
				checkLiveNow(t, name+", "+where(), &tab, kn.table, live, g, probes, found, inAny)
			}
			sameImage(name, "lookups", b, want)

			// The single-key add-if-new of the probes, from the adds' image.
			copy(b, want)
			for i, p := range probes {
				if got := kn.addNew(&tab, live, cur, p); got != isNew[i] {
					t.Fatalf("%s: add-if-new, %s: probe %d (hash %#x) answers new=%v, want %v", name, where(), i, p, got, isNew[i])
				}
			}
			sameImage(name, "add-if-new", b, afterNew)
		}
		check("generic", windowTwins)
		eachImpl(t, func(impl string) { check("impl="+impl, windowImpl) })
	})
}

// checkLiveNow checks table lookups that take their live mask from the
// table's source (WindowTable.SetLiveNow, a Window by time): passed a
// mask with no bit below g (live's bits at or above g), each probe must
// answer found (the lookup with live), and the source must be called
// once for a probe in some generation (inAny) and never for one in none.
// Without a source the same lookups answer false.
func checkLiveNow(t *testing.T, where string, tab *kernel.WindowTable, table func(*kernel.WindowTable, uint64, uint64) bool, live uint64, g int, probes []uint64, found, inAny []bool) {
	t.Helper()
	high := live &^ (uint64(1)<<uint(g) - 1)
	calls := 0
	tab.SetLiveNow(func() uint64 { calls++; return live })
	for i, p := range probes {
		calls = 0
		got := table(tab, high, p)
		if got != found[i] {
			t.Fatalf("%s: lookup by the live source (argument %#x): probe %d (hash %#x) answers %v, want %v", where, high, i, p, got, found[i])
		}
		wantCalls := 0
		if inAny[i] {
			wantCalls = 1
		}
		if calls != wantCalls {
			t.Fatalf("%s: lookup by the live source: probe %d (hash %#x, in some generation: %v) called the source %d times, want %d", where, i, p, inAny[i], calls, wantCalls)
		}
	}
	tab.SetLiveNow(nil)
	for i, p := range probes {
		if table(tab, high, p) {
			t.Fatalf("%s: lookup with no live generation and no source (argument %#x): probe %d (hash %#x) answers true", where, high, i, p)
		}
	}
}
