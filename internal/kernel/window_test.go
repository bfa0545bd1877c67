package kernel_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// gensFilter returns a windowed table of g generations in nb groups, each
// generation holding about perGen random keys added with k probes, and the
// keys added to each generation.
func gensFilter(r *rand.Rand, nb uint64, g, k, perGen int) ([]kernel.Block, [][]uint64) {
	blocks := make([]kernel.Block, nb*uint64(kernel.WindowLines(g)))
	keys := make([][]uint64, g)
	for j := range g {
		keys[j] = randHashes(r, perGen)
		for _, h := range keys[j] {
			refAddLane(blocks, nb, g, j, k, h)
		}
	}
	return blocks, keys
}

// refLane is the definition of a key's lane mask for lanes of w words:
// probe p sets bit (uint32(h)*Salts[p])>>26 of word p%w.
func refLane(h uint64, k, w int) []uint64 {
	m := make([]uint64, w)
	for p := range k {
		m[p%w] |= 1 << (uint32(h) * kernel.Salts[p] >> 26)
	}
	return m
}

// refAddLane sets the key's lane mask in generation j's lane (GenLane).
func refAddLane(blocks []kernel.Block, nb uint64, g, j, k int, h uint64) {
	line, word := kernel.GenLane(nb, g, j, h)
	for i, x := range refLane(h, k, 8/kernel.WindowLanes(g)) {
		blocks[line][word+i] |= x
	}
}

// refInLane reports whether the key's lane mask is set in generation j's
// lane.
func refInLane(blocks []kernel.Block, nb uint64, g, j, k int, h uint64) bool {
	line, word := kernel.GenLane(nb, g, j, h)
	for i, x := range refLane(h, k, 8/kernel.WindowLanes(g)) {
		if x&^blocks[line][word+i] != 0 {
			return false
		}
	}
	return true
}

// mustWindowTable returns NewWindowTable(blocks, g, k), failing t on an
// error.
func mustWindowTable(t testing.TB, blocks []kernel.Block, g, k int) kernel.WindowTable {
	t.Helper()
	tab, err := kernel.NewWindowTable(blocks, g, k)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// windowGens is every generation count the windowed kernels take.
var windowGens = []int{2, 4, 8, 16, 32, 64}

// TestWindowLayout pins the layout: lanes, lines and where GenLane puts a
// generation, against the package doc's formulas.
func TestWindowLayout(t *testing.T) {
	for g := -1; g <= 130; g++ {
		if got, want := kernel.ValidGenerations(g), g >= 2 && g <= 64 && g&(g-1) == 0; got != want {
			t.Fatalf("ValidGenerations(%d) = %v", g, got)
		}
	}
	for _, g := range windowGens {
		l := 4
		if g == 2 {
			l = 2
		}
		if kernel.WindowLanes(g) != l || kernel.WindowLines(g) != g/l || kernel.LaneWords(g) != 8/l {
			t.Fatalf("g=%d: %d lanes, %d lines", g, kernel.WindowLanes(g), kernel.WindowLines(g))
		}
		seen := map[[2]uint64]bool{}
		const nb = 10
		h := uint64(7) << 32 // group 0
		for j := range g {
			line, word := kernel.GenLane(nb, g, j, h)
			if line != uint64(j/l) || word != j%l*(8/l) || seen[[2]uint64{line, uint64(word)}] {
				t.Fatalf("g=%d: generation %d at line %d word %d", g, j, line, word)
			}
			seen[[2]uint64{line, uint64(word)}] = true
		}
		for _, k := range []int{1, 5, 8, 9, 16} {
			m := kernel.WindowMask(h^0x9e3779b97f4a7c15, k, g)
			lane := refLane(h^0x9e3779b97f4a7c15, k, 8/l)
			for w := range m {
				if m[w] != lane[w%(8/l)] {
					t.Fatalf("g=%d k=%d: WindowMask word %d = %#x, want %#x", g, k, w, m[w], lane[w%(8/l)])
				}
			}
		}
	}
}

// gensProbes returns n hashes: about a third from the generations' keys,
// the rest random.
func gensProbes(r *rand.Rand, keys [][]uint64, n int) []uint64 {
	p := randHashes(r, n)
	for i := 0; i < n; i += 3 {
		gen := keys[r.IntN(len(keys))]
		if len(gen) > 0 {
			p[i] = gen[r.IntN(len(gen))]
		}
	}
	return p
}

// liveShapes returns the live masks every test covers for g generations:
// none, each single generation, all, the ring ranges a Window uses (every
// current generation and live count, wrapping around), and random masks.
func liveShapes(r *rand.Rand, g int) []uint64 {
	all := uint64(1)<<uint(g) - 1
	shapes := []uint64{0, all, all << 1, ^uint64(0)} // the last two have bits >= g
	for j := range g {
		shapes = append(shapes, 1<<uint(j))
	}
	for _, cur := range []int{0, g / 2, g - 1} {
		for live := 1; live <= g; live++ {
			shapes = append(shapes, ringMask(g, cur, live))
		}
	}
	for range 4 {
		shapes = append(shapes, r.Uint64())
	}
	return shapes
}

// ringMask is the mask of live generations cur, cur-1, ... mod g.
func ringMask(g, cur, live int) uint64 {
	var m uint64
	for a := range live {
		m |= 1 << uint((cur-a+g)%g)
	}
	return m
}

// checkGens compares the kernel in use with the generic twins on probes:
// the batch answers and count, and the single-key answer of every probe.
func checkGens(t *testing.T, blocks []kernel.Block, nb uint64, g int, live uint64, k int, probes []uint64, out []bool) {
	t.Helper()
	want := make([]bool, len(probes))
	wantN := kernel.BlockedContainsGensGeneric(blocks, nb, g, live, k, probes, want)
	gotN := kernel.BlockedContainsGens(blocks, nb, g, live, k, probes, out)
	for i, h := range probes {
		if out[i] != want[i] {
			t.Fatalf("nb=%d g=%d live=%#x k=%d len=%d: batch answer %d (hash %#x) is %v, generic %v", nb, g, live, k, len(probes), i, h, out[i], want[i])
		}
		if got := kernel.BlockedContainsGens1(blocks, nb, g, live, k, h); got != want[i] {
			t.Fatalf("nb=%d g=%d live=%#x k=%d: single-key answer (hash %#x) is %v, generic %v", nb, g, live, k, h, got, want[i])
		}
		tab := mustWindowTable(t, blocks, g, k)
		if got := kernel.BlockedContainsGensT(&tab, live, h); got != want[i] {
			t.Fatalf("nb=%d g=%d live=%#x k=%d: table single-key answer (hash %#x) is %v, generic %v", nb, g, live, k, h, got, want[i])
		}
	}
	if gotN != wantN {
		t.Fatalf("nb=%d g=%d live=%#x k=%d len=%d: count %d, generic %d", nb, g, live, k, len(probes), gotN, wantN)
	}
}

// TestWindowGenericReference checks the generic twins against the
// definition: present in some live generation j, its lane mask (refLane)
// set in that generation's lane (GenLane).
func TestWindowGenericReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, g := range windowGens {
		for _, k := range []int{1, 8, 9, 16} {
			nb := uint64(1 + r.IntN(50))
			blocks, keys := gensFilter(r, nb, g, k, int(nb)*3)
			probes := gensProbes(r, keys, 200)
			for _, live := range liveShapes(r, g) {
				out := make([]bool, len(probes))
				n := kernel.BlockedContainsGensGeneric(blocks, nb, g, live, k, probes, out)
				count := 0
				for i, h := range probes {
					want := false
					for j := range g {
						if live>>uint(j)&1 == 0 {
							continue
						}
						want = want || refInLane(blocks, nb, g, j, k, h)
					}
					if single := kernel.BlockedContainsGens1Generic(blocks, nb, g, live, k, h); out[i] != want || single != want {
						t.Fatalf("g=%d k=%d live=%#x: hash %#x: batch %v, single %v, want %v", g, k, live, h, out[i], single, want)
					}
					if want {
						count++
					}
				}
				if n != count {
					t.Fatalf("g=%d k=%d live=%#x: count %d, want %d", g, k, live, n, count)
				}
			}
		}
	}
}

// TestWindowKernelsLengths runs every batch length 0..600 (crossing the
// prologue, the prefetching loop and the tail for any prefetch distance
// below 300) on every kernel set, with a generation count, live mask and k
// drawn per length, outputs guarded and hashes misaligned.
func TestWindowKernelsLengths(t *testing.T) {
	eachKernelMode(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		maxN := 600
		if testing.Short() {
			maxN = 300
		}
		for n := 0; n <= maxN; n++ {
			g := windowGens[r.IntN(len(windowGens))]
			k := 1 + r.IntN(kernel.MaxK)
			nb := uint64(1 + r.IntN(40))
			blocks, keys := gensFilter(r, nb, g, k, int(nb)*2)
			shapes := liveShapes(r, g)
			live := shapes[r.IntN(len(shapes))]
			probes := offsetHashes(gensProbes(r, keys, n), n%8)
			out, guard := guardedOut(n, n%8)
			checkGens(t, blocks, nb, g, live, k, probes, out)
			guard(t)
		}
	})
}

// TestWindowKernelsShapes runs every k, every generation count and every
// live-mask shape on every kernel set, passed as the live argument and
// given by a table's live source (checkLiveSource).
func TestWindowKernelsShapes(t *testing.T) {
	gs := windowGens
	if testing.Short() {
		gs = []int{2, 4, 8, 64}
	}
	eachKernelMode(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		for _, g := range gs {
			for k := 1; k <= kernel.MaxK; k++ {
				nb := uint64(1 + r.IntN(30))
				// Saturated generations answer true, sparse ones mostly
				// false: both paths out of the generation loop are taken.
				blocks, keys := gensFilter(r, nb, g, k, int(nb)*(1+r.IntN(20)))
				probes := gensProbes(r, keys, 70)
				for _, live := range liveShapes(r, g) {
					out := make([]bool, len(probes))
					checkGens(t, blocks, nb, g, live, k, probes, out)
					checkLiveSource(t, blocks, nb, g, live, k, probes)
				}
			}
		}
	})
}

// checkLiveSource checks lookups that pass live = 0 to a table with a
// live source giving live (WindowTable.SetLiveNow, Window.ContainsHash by
// time): each answer is the reference lookup with live, and the source is
// called exactly for the keys found with every generation live (a miss
// reads no clock). Without the source, live = 0 answers false.
func checkLiveSource(t *testing.T, blocks []kernel.Block, nb uint64, g int, live uint64, k int, probes []uint64) {
	t.Helper()
	tab := mustWindowTable(t, blocks, g, k)
	calls := 0
	tab.SetLiveNow(func() uint64 { calls++; return live })
	for _, h := range probes {
		wantCalls := 0
		if kernel.BlockedContainsGens1Generic(blocks, nb, g, ^uint64(0), k, h) {
			wantCalls = 1
		}
		want := kernel.BlockedContainsGens1Generic(blocks, nb, g, live, k, h)
		calls = 0
		if got := kernel.BlockedContainsGensT(&tab, 0, h); got != want {
			t.Fatalf("g=%d k=%d source live %#x h=%#x: %v, want %v", g, k, live, h, got, want)
		}
		if calls != wantCalls {
			t.Fatalf("g=%d k=%d source live %#x h=%#x: the source was called %d times, want %d", g, k, live, h, calls, wantCalls)
		}
	}
	tab.SetLiveNow(nil)
	for _, h := range probes {
		if kernel.BlockedContainsGensT(&tab, 0, h) {
			t.Fatalf("g=%d k=%d h=%#x: live 0 without a source answered true", g, k, h)
		}
	}
}

// TestWindowKernelsOneGeneration checks that a key present in exactly one
// generation is found by every kernel exactly when that generation is
// live: the answer of each generation counts on its own.
func TestWindowKernelsOneGeneration(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(5, 6))
		for _, g := range []int{2, 4, 8, 64} {
			for _, k := range []int{1, 7, 8, 9, 16} {
				nb := uint64(64)
				blocks := make([]kernel.Block, nb*uint64(kernel.WindowLines(g)))
				hs := randHashes(r, 40)
				for i, h := range hs {
					refAddLane(blocks, nb, g, i%g, k, h)
				}
				for i, h := range hs {
					j := i % g
					for _, live := range []uint64{1 << uint(j), ^uint64(1 << uint(j)), ringMask(g, j, 1), ringMask(g, (j+1)%g, g-1)} {
						want := live>>uint(j)&1 != 0 || kernel.BlockedContainsGens1Generic(blocks, nb, g, live, k, h)
						if got := kernel.BlockedContainsGens1(blocks, nb, g, live, k, h); got != want {
							t.Fatalf("g=%d k=%d key in generation %d, live %#x: single %v, want %v", g, k, j, live, got, want)
						}
						tab := mustWindowTable(t, blocks, g, k)
						if got := kernel.BlockedContainsGensT(&tab, live, h); got != want {
							t.Fatalf("g=%d k=%d key in generation %d, live %#x: table single %v, want %v", g, k, j, live, got, want)
						}
						out := []bool{false}
						if kernel.BlockedContainsGens(blocks, nb, g, live, k, hs[i:i+1], out); out[0] != want {
							t.Fatalf("g=%d k=%d key in generation %d, live %#x: batch %v, want %v", g, k, j, live, out[0], want)
						}
					}
				}
			}
		}
	})
}

// TestWindowKernelsAllocs checks that no windowed probe allocates.
func TestWindowKernelsAllocs(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(11, 12))
		blocks, keys := gensFilter(r, 100, 4, 8, 100)
		probes := gensProbes(r, keys, 256)
		out := make([]bool, len(probes))
		tab := mustWindowTable(t, blocks, 4, 8)
		if a := testing.AllocsPerRun(10, func() {
			kernel.BlockedContainsGens(blocks, 100, 4, 0b1011, 8, probes, out)
			kernel.BlockedContainsGens1(blocks, 100, 4, 0b1011, 8, probes[0])
			kernel.BlockedContainsGensT(&tab, 0b1011, probes[0])
		}); a != 0 {
			t.Fatalf("%v allocations a call", a)
		}
	})
}

// TestWindowKernelsMisuse checks the panics of the contract: a short out,
// an empty (closed) table, a length that is not nb*WindowLines(g), a
// generation count that is not a power of two; and that NewWindowTable
// refuses every table the single-key entries no longer check.
func TestWindowKernelsMisuse(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	blocks := make([]kernel.Block, 3)
	mustPanic("short out", func() { kernel.BlockedContainsGens(blocks, 3, 4, 1, 8, make([]uint64, 3), make([]bool, 2)) })
	mustPanic("empty batch", func() { kernel.BlockedContainsGens(nil, 3, 4, 1, 8, make([]uint64, 3), make([]bool, 3)) })
	mustPanic("empty single", func() { kernel.BlockedContainsGens1(nil, 3, 4, 1, 8, 1) })
	mustPanic("length", func() { kernel.BlockedContainsGens1(blocks, 4, 4, 1, 8, 1) })
	var closed kernel.WindowTable
	mustPanic("table, zero value", func() { kernel.BlockedContainsGensT(&closed, 1, 1) })
	tab := mustWindowTable(t, blocks, 4, 8)
	tab.Close()
	mustPanic("table, closed", func() { kernel.BlockedContainsGensT(&tab, 1, 1) })
	// A table that does not hold a valid layout cannot be built: every
	// bad layout is NewWindowTable's error, so the kernels need not check
	// it on every call (window_internal_test.go builds bad tables inside
	// the package to show the entries still fall back safely).
	for _, c := range []struct {
		name   string
		blocks []kernel.Block
		g, k   int
	}{
		{"empty", nil, 4, 8},
		{"three generations", blocks, 3, 8},
		{"zero generations", blocks, 0, 8},
		{"128 generations", make([]kernel.Block, 64), 128, 8},
		{"length", blocks, 8, 8}, // 3 lines are not whole groups of 2
		{"k = 0", blocks, 4, 0},
		{"k = 17", blocks, 4, 17},
		{"k < 0", blocks, 4, -1},
	} {
		if _, err := kernel.NewWindowTable(c.blocks, c.g, c.k); err == nil {
			t.Errorf("NewWindowTable, %s: no error", c.name)
		}
	}
	// A k outside 1..16, which NewWindowTable refuses, is still checked
	// by the assembly entries (off the k = 8 path, as the blocked
	// single-key kernels do): a table built inside the package goes to
	// the Go twin, whose answer the assembly must not contradict.
	for _, k := range []int{0, -1, 17, 1 << 30} {
		for _, h := range []uint64{1, 0x9e3779b97f4a7c15} {
			want := kernel.BlockedContainsGens1Generic(blocks, 3, 4, 0b1111, k, h)
			bad := kernel.UncheckedWindowTable(blocks, 3, 4, k)
			if got := kernel.BlockedContainsGensT(&bad, 0b1111, h); got != want {
				t.Errorf("table with k = %d: %v, the Go twin %v", k, got, want)
			}
		}
	}
	mustPanic("three generations", func() { kernel.BlockedContainsGens1(blocks, 1, 3, 1, 8, 1) })
	mustPanic("three generations, batch", func() { kernel.BlockedContainsGens(blocks, 1, 3, 1, 8, make([]uint64, 3), make([]bool, 3)) })
	mustPanic("add new, empty", func() { kernel.BlockedAddNewGens1(nil, 3, 4, 1, 0, 8, 1) })
}

// TestAddNewGens1 checks the fused add-if-new against a lookup then an add.
func TestAddNewGens1(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, g := range []int{2, 4, 64} {
		for _, k := range []int{1, 8, 16} {
			nb := uint64(20)
			a, _ := gensFilter(r, nb, g, k, 40)
			b := append([]kernel.Block(nil), a...)
			for range 300 {
				h := r.Uint64()
				if r.IntN(4) == 0 {
					h &= 0xffffffff00000000 | uint64(r.IntN(4)) // repeats
				}
				cur := r.IntN(g)
				live := ringMask(g, cur, 1+r.IntN(g))
				want := !kernel.BlockedContainsGens1Generic(a, nb, g, live, k, h)
				kernel.BlockedAddGen1(a, nb, g, cur, k, h)
				if got := kernel.BlockedAddNewGens1(b, nb, g, live, cur, k, h); got != want {
					t.Fatalf("g=%d k=%d: AddNew %v, want %v", g, k, got, want)
				}
				for i := range a {
					if a[i] != b[i] {
						t.Fatalf("g=%d k=%d: block %d differs after add", g, k, i)
					}
				}
			}
		}
	}
}

// TestWindowAddKernels checks the single-key adds through the table
// (BlockedAddGenT, BlockedAddNewGensT) on every kernel set against their
// Go twins (BlockedAddGen1, BlockedAddNewGens1), bit for bit on the table
// after every add and on every answer: every valid G, every k, every
// current generation, every live shape, random tables.
func TestWindowAddKernels(t *testing.T) {
	gs := windowGens
	if testing.Short() {
		gs = []int{2, 4, 8, 64}
	}
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(21, 22))
		for _, g := range gs {
			for k := 1; k <= kernel.MaxK; k++ {
				nb := uint64(1 + r.IntN(20))
				// Saturated and sparse tables: both answers are taken.
				want, keys := gensFilter(r, nb, g, k, int(nb)*(1+r.IntN(16)))
				got := append([]kernel.Block(nil), want...)
				tab := mustWindowTable(t, got, g, k)
				probes := gensProbes(r, keys, 64)
				shapes := liveShapes(r, g)
				lines := uint64(kernel.WindowLines(g))
				step := 0
				for cur := range g {
					for _, live := range shapes {
						h := probes[step%len(probes)]
						step++
						wantNew := kernel.BlockedAddNewGens1(want, nb, g, live, cur, k, h)
						if gotNew := kernel.BlockedAddNewGensT(&tab, live, cur, h); gotNew != wantNew {
							t.Fatalf("g=%d k=%d cur=%d live=%#x hash %#x: add-if-new %v, Go twin %v", g, k, cur, live, h, gotNew, wantNew)
						}
						i := kernel.BlockIndex(h, nb) * lines
						for j := i; j < i+lines; j++ {
							if got[j] != want[j] {
								t.Fatalf("g=%d k=%d cur=%d live=%#x hash %#x: add-if-new: line %d is %#x, Go twin %#x", g, k, cur, live, h, j, got[j], want[j])
							}
						}
						h2 := r.Uint64()
						kernel.BlockedAddGen1(want, nb, g, cur, k, h2)
						kernel.BlockedAddGenT(&tab, cur, h2)
						i = kernel.BlockIndex(h2, nb) * lines
						for j := i; j < i+lines; j++ {
							if got[j] != want[j] {
								t.Fatalf("g=%d k=%d cur=%d hash %#x: add: line %d is %#x, Go twin %#x", g, k, cur, h2, j, got[j], want[j])
							}
						}
					}
					for j := range want {
						if got[j] != want[j] {
							t.Fatalf("g=%d k=%d cur=%d: line %d is %#x, Go twin %#x", g, k, cur, j, got[j], want[j])
						}
					}
				}
			}
		}
	})
}

// TestWindowAddKernelsMisuse checks that the single-key adds through the
// table fall back to their Go twins on what they check: a closed table
// panics (ErrNoBlocks), a cur out of 0..G-1 panics (it would name a lane
// of another group), and a k out of 1..16 (a table built inside the
// package) does what the Go twin does, to the bit.
func TestWindowAddKernelsMisuse(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		panics := func(f func()) (p bool) {
			defer func() { p = recover() != nil }()
			f()
			return false
		}
		var closed kernel.WindowTable
		if !panics(func() { kernel.BlockedAddGenT(&closed, 0, 1) }) || !panics(func() { kernel.BlockedAddNewGensT(&closed, 1, 0, 1) }) {
			t.Fatal("an add to a closed table did not panic")
		}
		r := rand.New(rand.NewPCG(23, 24))
		for _, g := range []int{2, 4, 8} {
			for _, k := range []int{0, -1, 8, 9, 17} {
				for _, cur := range []int{-1, 0, g - 1, g, g + 3, math.MaxInt} {
					for _, live := range []uint64{0, 1, ^uint64(0)} {
						nb := uint64(5)
						want, _ := gensFilter(r, nb, g, min(max(k, 1), kernel.MaxK), 10)
						got := append([]kernel.Block(nil), want...)
						tg := kernel.UncheckedWindowTable(got, nb, g, k)
						for _, h := range []uint64{1, 0x9e3779b97f4a7c15, ^uint64(0)} {
							var wantNew, gotNew bool
							wp := panics(func() { wantNew = kernel.BlockedAddNewGens1(want, nb, g, live, cur, k, h) })
							gp := panics(func() { gotNew = kernel.BlockedAddNewGensT(&tg, live, cur, h) })
							if wp != gp || wantNew != gotNew {
								t.Fatalf("g=%d k=%d cur=%d live=%#x: add-if-new panics %v, answers %v; Go twin %v, %v", g, k, cur, live, gp, gotNew, wp, wantNew)
							}
							outside := cur < 0 || cur >= g // a lane of another group, or past blocks
							if outside && !wp {
								t.Fatalf("g=%d k=%d cur=%d: add-if-new did not panic", g, k, cur)
							}
							wp = panics(func() { kernel.BlockedAddGen1(want, nb, g, cur, k, h) })
							gp = panics(func() { kernel.BlockedAddGenT(&tg, cur, h) })
							if wp != gp || outside && !wp {
								t.Fatalf("g=%d k=%d cur=%d: add panics %v, Go twin %v", g, k, cur, gp, wp)
							}
						}
						for j := range want {
							if got[j] != want[j] {
								t.Fatalf("g=%d k=%d cur=%d live=%#x: line %d is %#x, Go twin %#x", g, k, cur, live, j, got[j], want[j])
							}
						}
					}
				}
			}
		}
	})
}
