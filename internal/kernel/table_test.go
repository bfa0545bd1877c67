package kernel

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sift-go/sift/internal/cpu"
)

var (
	intelAVX512 = []string{cpu.AVX512, cpu.AVX2, cpu.Generic}
	onlyAVX2    = []string{cpu.AVX2, cpu.Generic}
	onlyGeneric = []string{cpu.Generic}
)

// choices returns every operation's set for key on a CPU with avail.
func choices(key cpu.Key, avail []string) (sets [NumOps]string, reasons [NumOps]string) {
	e := lookup(key)
	for op := range NumOps {
		sets[op], reasons[op] = e.choose(op, avail)
	}
	return sets, reasons
}

func TestTableKnownCPUs(t *testing.T) {
	// The entry was measured on model 207; model 167 (issue #23's first
	// Intel) gets the same entry, its family's.
	for _, model := range []int{207, 167} {
		intel := cpu.Key{Vendor: "Intel", Family: 6, Model: model}
		got, why := choices(intel, intelAVX512)
		want := [NumOps]string{
			OpBlockedAdd1: cpu.AVX512, OpBlockedContains1: cpu.AVX512,
			OpBlockedAdd: cpu.AVX512, OpBlockedContains: cpu.AVX512,
			OpBlockedAddLarge: cpu.AVX2, OpBlockedContainsLarge: cpu.AVX2,
			OpCuckooContains: cpu.AVX512, OpCuckooAdd: cpu.AVX512,
			OpSBBFAdd1: cpu.AVX2, OpSBBFContains1: cpu.AVX2,
			OpSBBFAdd: cpu.AVX2, OpSBBFContains: cpu.AVX2,
			OpBlockedAddNew1: cpu.AVX512, OpBlockedAddNew: cpu.AVX512,
			OpBlockedAddNewLarge: cpu.AVX512, OpWindowContainsLarge: cpu.AVX512,
			OpWindowContains1: cpu.AVX512, OpWindowContains: cpu.AVX512,
			OpWindowAdd1: cpu.AVX512, OpWindowAddNew1: cpu.AVX512,
		}
		if got != want {
			t.Errorf("%v with AVX-512: got %v, want %v", intel, got, want)
		}
		if !strings.Contains(why[0], "Intel family 6") {
			t.Errorf("reason %q does not name the entry", why[0])
		}
	}
	for _, zen := range []cpu.Key{{Vendor: "AMD", Family: 25, Model: 17}, {Vendor: "AMD", Family: 26, Model: 2}} {
		got, _ := choices(zen, intelAVX512)
		for op, set := range got {
			w := cpu.AVX512
			if Op(op) == OpSBBFAdd1 || Op(op) == OpSBBFContains1 {
				w = cpu.AVX2 // no AVX-512 single-key split-block kernel
			}
			switch Op(op) {
			case OpSBBFAdd, OpSBBFContains:
				w = cpu.AVX2 // measured ahead on AMD EPYC Zen 4 (family 25 model 17) and Zen 5 (family 26 model 2)
			case OpBlockedContainsLarge, OpBlockedAddLarge, OpBlockedAddNewLarge:
				w = cpu.AVX2 // measured ahead at 1e7 (inside L3) on AMD EPYC Zen 4 (family 25 model 17) and Zen 5 (family 26 model 2)
			case OpBlockedContains1, OpBlockedAdd, OpWindowContains:
				if zen.Family == 25 {
					w = cpu.AVX2 // measured ahead on Zen 4
				}
			}
			if set != w {
				t.Errorf("%v: %v runs %s, want %s", zen, Op(op), set, w)
			}
		}
	}
}

// An Intel (or any) CPU without AVX-512 never gets avx512, whatever its
// entry prefers, and one without AVX2 runs the Go kernels.
func TestTableFallsBack(t *testing.T) {
	for _, key := range []cpu.Key{
		{Vendor: "Intel", Family: 6, Model: 158}, {Vendor: "AMD", Family: 25, Model: 33},
		{Vendor: "AMD", Family: 26, Model: 2}, {Vendor: "Zhaoxin", Family: 7, Model: 91},
	} {
		got, why := choices(key, onlyAVX2)
		for op, set := range got {
			if set != cpu.AVX2 {
				t.Errorf("%v with AVX2 only: %v runs %s", key, Op(op), set)
			}
		}
		if !strings.Contains(why[OpBlockedAdd1], "not on this CPU") {
			t.Errorf("%v: reason %q does not say avx512 is missing", key, why[OpBlockedAdd1])
		}
		got, _ = choices(key, onlyGeneric)
		for op, set := range got {
			if set != cpu.Generic {
				t.Errorf("%v without AVX2: %v runs %s", key, Op(op), set)
			}
		}
	}
}

func TestTableUnknownCPUs(t *testing.T) {
	cases := []struct {
		key     cpu.Key
		nearest string // the entry it must get
	}{
		{cpu.Key{Vendor: "Intel", Family: 19, Model: 1}, "Intel family 6"}, // a new Intel family
		{cpu.Key{Vendor: "AMD", Family: 27, Model: 0}, "AMD Zen 5"},        // after Zen 5
		{cpu.Key{Vendor: "AMD", Family: 23, Model: 49}, "AMD Zen 4"},       // Zen 2: before Zen 4
		{cpu.Key{Vendor: "Hygon", Family: 24, Model: 4}, "AMD Zen 4"},      // AMD-derived cores
		{cpu.Key{Vendor: "Hygon", Family: 26, Model: 0}, "AMD Zen 5"},      // not AMD's own family 26
		{cpu.Key{Vendor: "Zhaoxin", Family: 7, Model: 91}, "Intel family 6"},
		{cpu.Key{Vendor: "VendorUnknown", Family: 0, Model: 0}, "Intel family 6"},
	}
	for _, c := range cases {
		e := lookup(c.key)
		if !strings.HasPrefix(e.name, "no entry for "+c.key.String()+"; nearest: "+c.nearest) {
			t.Errorf("lookup(%v) = %q, want the nearest entry %q", c.key, e.name, c.nearest)
		}
		var want tableEntry
		for _, w := range table {
			if strings.HasPrefix(w.name, c.nearest) {
				want = w
			}
		}
		if fmt.Sprint(e.order) != fmt.Sprint(want.order) {
			t.Errorf("lookup(%v): order differs from %q's", c.key, c.nearest)
		}
	}
	// Known keys get their own entry, named as it is.
	for _, e := range table {
		if got := lookup(cpu.Key{Vendor: e.vendor, Family: e.family, Model: 1}); got.name != e.name {
			t.Errorf("lookup of %s family %d = %q", e.vendor, e.family, got.name)
		}
	}
}

// Every entry lists, for each operation, only sets that have a kernel
// for it, and no set twice.
func TestTableEntries(t *testing.T) {
	for _, e := range table {
		for op, order := range e.order {
			if len(order) == 0 {
				t.Errorf("%s: no order for %v", e.name, Op(op))
			}
			for i, s := range order {
				if kernelFor(Op(op), s) != s || slices.Index(order, s) != i {
					t.Errorf("%s: %v lists %s, which it has no kernel of or lists twice", e.name, Op(op), s)
				}
			}
		}
	}
	for op := range NumOps {
		if op.String() == "unknown" || strings.Count(op.String(), ".") != 1 {
			t.Errorf("Op(%d) has name %q", op, op)
		}
	}
}

// SetImpl forces one set on every operation (or the nearest it has a
// kernel of), "auto" brings back the table, and restore undoes either.
func TestSetImplForcesEveryOp(t *testing.T) {
	start := choice
	for _, name := range cpu.Available() {
		restore, err := SetImpl(name)
		if err != nil {
			t.Fatal(err)
		}
		for op := range NumOps {
			set, why := Choice(op)
			if set != kernelFor(op, name) || why != "forced" || *opVars[op] != setNames[set] {
				t.Errorf("SetImpl(%q): %v runs %s (%s), variable %d", name, op, set, why, *opVars[op])
			}
		}
		if Impl() != name {
			t.Errorf("SetImpl(%q): Impl() = %q", name, Impl())
		}
		if name != cpu.Generic {
			r2, err := SetImpl(cpu.Auto)
			if err != nil {
				t.Fatal(err)
			}
			for op := range NumOps {
				if got, _ := Choice(op); got != func() string { s, _ := TableChoice(op); return s }() {
					t.Errorf("SetImpl(auto): %v runs %s, table says otherwise", op, got)
				}
			}
			r2()
			if Impl() != name {
				t.Errorf("restore after auto: Impl() = %q, want %q", Impl(), name)
			}
		}
		restore()
	}
	if choice != start {
		t.Errorf("after restores: %v, at start %v", choice, start)
	}
	if cpu.Available()[0] == cpu.Generic {
		if _, err := SetImpl(cpu.Auto); err == nil {
			t.Error(`SetImpl("auto") without assembly sets returned no error`)
		}
	}
}

// TestMixedSets gives every operation its own set, at random among those
// the CPU has, as the table does (say, blocked inserts by avx2 and lookups
// by avx512 on one filter), and checks the memory images and answers
// against the Go twins. (Which variable a wrapper reads cannot show in
// its results, every set being bit-identical; asmcheck_test.go checks that
// an assembly entry compares its own operation's set before it jumps to
// AVX-512 code.)
func TestMixedSets(t *testing.T) {
	defer saved()()
	avail := cpu.Available()
	r := rand.New(rand.NewPCG(91, 92))
	for trial := range 24 {
		var sets [NumOps]string
		for op := range NumOps {
			sets[op] = kernelFor(op, avail[r.IntN(len(avail))])
			*opVars[op] = setNames[sets[op]]
		}
		hs := make([]uint64, 100+trial)
		for i := range hs {
			hs[i] = r.Uint64()
		}
		out, want := make([]bool, len(hs)), make([]bool, len(hs))

		for _, k := range []int{7, 8, 12} {
			got, ref := make([]Block, 37), make([]Block, 37)
			tab := &BlockedTable{Blocks: got, K: k}
			for _, h := range hs[:40] {
				BlockedAdd1(tab, h)
				BlockedAdd1Generic(ref, k, h)
			}
			BlockedAdd(got, k, hs[40:70])
			BlockedAddGeneric(ref, k, hs[40:70])
			if !slices.Equal(got, ref) {
				t.Fatalf("%v: blocked k=%d: memory image differs", sets, k)
			}
			n, m := BlockedContains(got, k, hs, out), BlockedContainsGeneric(ref, k, hs, want)
			if n != m || !slices.Equal(out, want) {
				t.Fatalf("%v: blocked k=%d: BlockedContains differs", sets, k)
			}
			for i, h := range hs {
				if BlockedContains1(tab, h) != want[i] {
					t.Fatalf("%v: blocked k=%d: BlockedContains1(%#x) differs", sets, k, h)
				}
			}
		}
		if trial%8 == 0 {
			// A filter of LargeBlocks blocks runs the large filters' sets
			// (OpBlockedAddLarge, OpBlockedContainsLarge,
			// OpBlockedAddNewLarge), which the table may pick apart from
			// the small ones' (Intel's and Zen 4's do).
			got, ref := make([]Block, LargeBlocks), make([]Block, LargeBlocks)
			BlockedAdd(got, 8, hs[:70])
			BlockedAddGeneric(ref, 8, hs[:70])
			if !slices.Equal(got, ref) {
				t.Fatalf("%v: blocked, %d blocks: memory image differs", sets, LargeBlocks)
			}
			isNew, wantNew := make([]bool, 100), make([]bool, 100)
			n, m := BlockedAddNew(got, 8, hs[:100], isNew), BlockedAddNewGeneric(ref, 8, hs[:100], wantNew)
			if n != m || !slices.Equal(isNew, wantNew) || !slices.Equal(got, ref) {
				t.Fatalf("%v: blocked, %d blocks: BlockedAddNew differs", sets, LargeBlocks)
			}
			n, m = BlockedContains(got, 8, hs, out), BlockedContainsGeneric(ref, 8, hs, want)
			if n != m || !slices.Equal(out, want) {
				t.Fatalf("%v: blocked, %d blocks: BlockedContains differs", sets, LargeBlocks)
			}
			// The same lines read as a window of 4 generations, one line
			// a group: OpWindowContainsLarge's set.
			n, m = BlockedContainsGens(got, LargeBlocks, 4, 15, 8, hs, out), BlockedContainsGensGeneric(ref, LargeBlocks, 4, 15, 8, hs, want)
			if n != m || !slices.Equal(out, want) {
				t.Fatalf("%v: window, %d lines: BlockedContainsGens differs", sets, LargeBlocks)
			}
		}

		got, ref := make([]SBBFBlock, 29), make([]SBBFBlock, 29)
		for _, h := range hs[:40] {
			SBBFAdd1(&got, h)
			SBBFAdd1Generic(ref, h)
		}
		SBBFAdd(got, hs[40:70])
		SBBFAddGeneric(ref, hs[40:70])
		if !slices.Equal(got, ref) {
			t.Fatalf("%v: split-block memory image differs", sets)
		}
		n, m := SBBFContains(got, hs, out), SBBFContainsGeneric(ref, hs, want)
		if n != m || !slices.Equal(out, want) {
			t.Fatalf("%v: SBBFContains differs", sets)
		}
		for i, h := range hs {
			if SBBFContains1(&got, h) != want[i] {
				t.Fatalf("%v: SBBFContains1(%#x) differs", sets, h)
			}
		}

		for _, fp := range []uint{8, 16} {
			const buckets = 53
			ct := &CuckooTable{Words: make([]uint64, CuckooWords(buckets, fp)), Buckets: buckets, FPBits: fp}
			for i := range ct.Words {
				ct.Words[i] = r.Uint64() & r.Uint64() & r.Uint64()
			}
			n, m := CuckooContains(ct, hs, out), CuckooContainsGeneric(ct, hs, want)
			if n != m || !slices.Equal(out, want) {
				t.Fatalf("%v: CuckooContains fp=%d differs", sets, fp)
			}
			locs, wantLocs := make([]uint64, len(hs)), make([]uint64, len(hs))
			CuckooLocate(ct, hs, locs)
			CuckooLocateGeneric(ct, hs, wantLocs)
			if !slices.Equal(locs, wantLocs) {
				t.Fatalf("%v: CuckooLocate fp=%d differs", sets, fp)
			}
		}
	}
}

// Blocked ContainsHashes, AddHashes and AddNewHashes run the Large
// operations' sets from LargeBlocks blocks on and the others' below,
// whatever they are.
func TestBlockedSetBySize(t *testing.T) {
	for _, op := range []struct {
		name         string
		small, large *kernelSet
		setFor       func(uint64) kernelSet
	}{
		{"ContainsHashes", &blockedContainsSet, &blockedContainsLargeSet, blockedContainsSetFor},
		{"AddHashes", &blockedAddSet, &blockedAddLargeSet, blockedAddSetFor},
		{"AddNewHashes", &blockedAddNewSet, &blockedAddNewLargeSet, blockedAddNewSetFor},
		// A window of 4 generations has one line a group.
		{"window ContainsHashes", &windowContainsSet, &windowContainsLargeSet, func(nb uint64) kernelSet { return windowContainsSetFor(nb, 4) }},
	} {
		small, large := *op.small, *op.large
		for _, c := range []struct{ small, large kernelSet }{{setAVX512, setAVX2}, {setAVX2, setAVX512}, {setGeneric, setNEON}} {
			*op.small, *op.large = c.small, c.large
			for _, n := range []uint64{1, LargeBlocks - 1} {
				if got := op.setFor(n); got != c.small {
					t.Errorf("%s, %d blocks: set %d, want %d (the small filters')", op.name, n, got, c.small)
				}
			}
			for _, n := range []uint64{LargeBlocks, LargeBlocks + 1, MaxBlocks + 1} {
				if got := op.setFor(n); got != c.large {
					t.Errorf("%s, %d blocks: set %d, want %d (the large filters')", op.name, n, got, c.large)
				}
			}
		}
		*op.small, *op.large = small, large
	}
	// A window's size is its lines, WindowLines(g) a group: LargeBlocks/4
	// groups of 64 generations (16 lines each) are a large table, the
	// same groups of 4 generations a small one.
	small, large := windowContainsSet, windowContainsLargeSet
	windowContainsSet, windowContainsLargeSet = setAVX2, setAVX512
	for _, c := range []struct {
		nb   uint64
		g    int
		want kernelSet
	}{{LargeBlocks / 4, 4, setAVX2}, {LargeBlocks / 4, 64, setAVX512}, {LargeBlocks/2 - 1, 8, setAVX2}, {LargeBlocks / 2, 8, setAVX512}} {
		if got := windowContainsSetFor(c.nb, c.g); got != c.want {
			t.Errorf("window of %d groups, G = %d: set %d, want %d", c.nb, c.g, got, c.want)
		}
	}
	windowContainsSet, windowContainsLargeSet = small, large
	// SetImpl and the table set both.
	restore, err := SetImpl(cpu.Generic)
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	for _, set := range []kernelSet{blockedContainsSet, blockedContainsLargeSet, blockedAddSet, blockedAddLargeSet, blockedAddNewSet, blockedAddNewLargeSet, windowContainsSet, windowContainsLargeSet} {
		if set != setGeneric {
			t.Errorf("SetImpl(generic): the size-split sets are %d %d %d %d %d %d %d %d", blockedContainsSet, blockedContainsLargeSet, blockedAddSet, blockedAddLargeSet, blockedAddNewSet, blockedAddNewLargeSet, windowContainsSet, windowContainsLargeSet)
			break
		}
	}
}

// TestChoiceReasonUnforced: the start-up selection of one set for every
// operation says "the only set" where generic is all the build and CPU
// run (purego, other architectures, a CPU without AVX2), "forced" where
// SIFT_KERNEL chose among several, and a fallback where it named a set
// this CPU or build lacks (nobody forced generic); SetImpl always says
// "forced".
func TestChoiceReasonUnforced(t *testing.T) {
	defer saved()()
	fb := fallback
	defer func() { fallback = fb }()
	for _, fellBack := range []bool{false, true} {
		fallback = func() bool { return fellBack }
		want := "forced"
		if fellBack {
			want = "fallback: SIFT_KERNEL names no set of this CPU"
		}
		if cpu.Available()[0] == cpu.Generic {
			want = "the only set"
		}
		apply(cpu.Generic, false)
		for op := range NumOps {
			if set, reason := Choice(op); set != cpu.Generic || reason != want {
				t.Errorf("%v: %s (%s), want generic (%s)", op, set, reason, want)
			}
		}
	}
	restore, err := SetImpl(cpu.Generic)
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	for op := range NumOps {
		if _, reason := Choice(op); reason != "forced" {
			t.Errorf("%v after SetImpl: %s", op, reason)
		}
	}
}
