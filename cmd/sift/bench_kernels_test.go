package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/sift-go/sift/internal/kernel"
)

// TestBenchKernels: -kernels measures every set the build and CPU have for
// every operation, marks the table's choice on each row and exits 0; with
// one set (purego) it says there is nothing to compare. It runs a tiny
// filter: the figures are not checked, only the table's shape.
func TestBenchKernels(t *testing.T) {
	needBinary(t)
	if len(kernel.Impls()) < 2 {
		r := runSift(t, nil, "bench", "-kernels", "-n", "1000")
		if r.code == 0 || !strings.Contains(r.stderr, "nothing to compare") {
			t.Fatalf("one kernel set: exit %d, stderr %q", r.code, r.stderr)
		}
		return
	}
	if testing.Short() && slowBinary() {
		t.Skip("-kernels runs 2^20 keys per measurement: slow under race or an emulator")
	}
	r := mustRun(t, nil, "bench", "-kernels", "-n", "1000")
	for _, want := range append([]string{"cpu:", "table:"}, kernel.Impls()...) {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in\n%s", want, r.stdout)
		}
	}
	for op := range kernel.NumOps {
		// A filter of 1000 keys is under kernel.LargeBlocks: no row for
		// the large filters' lookups, inserts and add-if-new, nor for
		// the large window's lookups (TestKernelApplies has both sizes).
		want := op != kernel.OpBlockedContainsLarge && op != kernel.OpBlockedAddLarge && op != kernel.OpBlockedAddNewLarge && op != kernel.OpWindowContainsLarge
		found := false
		for _, line := range strings.Split(r.stdout, "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] == op.String() {
				found = true
				if !strings.Contains(line, "*") {
					t.Errorf("%s: the table's choice is not marked: %q", op, line)
				}
			}
		}
		if found != want {
			t.Errorf("row for %s: %v, want %v, in\n%s", op, found, want, r.stdout)
		}
	}
	for _, args := range [][]string{{"-kernels", "-fpp", "0.1"}, {"-kernels", "-kind", "blocked"}} {
		r := runSift(t, nil, append([]string{"bench"}, args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, "-kernels takes only") {
			t.Errorf("bench %v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

// TestKernelApplies: blocked ContainsHashes, AddHashes and AddNewHashes
// are measured as OpBlockedContains, OpBlockedAdd and OpBlockedAddNew
// under kernel.LargeBlocks blocks and as their Large operations from
// there on, the window's ContainsHashes likewise by the window's own
// lines; every other op at every size.
func TestKernelApplies(t *testing.T) {
	sizes := []uint64{1, kernel.LargeBlocks - 1, kernel.LargeBlocks}
	for _, blocks := range sizes {
		for _, lines := range sizes {
			for op := range kernel.NumOps {
				want := true
				switch op {
				case kernel.OpBlockedContains, kernel.OpBlockedAdd, kernel.OpBlockedAddNew:
					want = blocks < kernel.LargeBlocks
				case kernel.OpBlockedContainsLarge, kernel.OpBlockedAddLarge, kernel.OpBlockedAddNewLarge:
					want = blocks >= kernel.LargeBlocks
				case kernel.OpWindowContains:
					want = lines < kernel.LargeBlocks
				case kernel.OpWindowContainsLarge:
					want = lines >= kernel.LargeBlocks
				}
				if got := kernelApplies(op, blocks, lines); got != want {
					t.Errorf("%d blocks, a window of %d lines: %s applies %v, want %v", blocks, lines, op, got, want)
				}
			}
		}
	}
}

// TestVersionKernels: sift version prints the CPU key and a line per
// operation with the set it runs; SIFT_KERNEL=generic forces every one.
func TestVersionKernels(t *testing.T) {
	needBinary(t)
	r := mustRun(t, nil, "version")
	if !strings.Contains(r.stdout, "family") {
		t.Errorf("version: no CPU key in\n%s", r.stdout)
	}
	for op := range kernel.NumOps {
		if !slices.ContainsFunc(strings.Split(r.stdout, "\n"), func(line string) bool {
			f := strings.Fields(line)
			return len(f) > 0 && f[0] == op.String()
		}) {
			t.Errorf("version: no line for %s in\n%s", op, r.stdout)
		}
	}
	t.Setenv("SIFT_KERNEL", "generic")
	r = mustRun(t, nil, "version")
	for _, line := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && strings.Contains(f[0], ".") && f[1] != "generic" {
			t.Errorf("SIFT_KERNEL=generic: %q", line)
		}
	}
}

// Every round measures each set once, and no set always follows the same
// one: the order bias measureWarm's comment describes. Up to three sets,
// what a CPU has (avx512, avx2, generic; neon, generic on arm64).
func TestRoundOrder(t *testing.T) {
	for sets := 1; sets <= 3; sets++ {
		follows := map[[2]int]bool{}
		for round := range kernelRounds {
			seen := make([]bool, sets)
			prev := -1
			for j := range sets {
				s := roundOrder(j, round, sets)
				if s < 0 || s >= sets || seen[s] {
					t.Fatalf("sets=%d round %d: position %d gives set %d (seen %v)", sets, round, j, s, seen)
				}
				seen[s] = true
				if prev >= 0 {
					follows[[2]int{prev, s}] = true
				}
				prev = s
			}
		}
		if sets >= 2 {
			for a := range sets {
				for b := range sets {
					if a != b && !follows[[2]int{a, b}] {
						t.Errorf("sets=%d: set %d never runs right after set %d in %d rounds", sets, b, a, kernelRounds)
					}
				}
			}
		}
	}
}

// TestRepeatSample: the sample -kernels measures is the keys repeated in
// order to its length, made with one allocation (a copy per repetition
// made -n 10 take 105 s on the AMD EPYC family 26 model 2, Zen 5, VM).
func TestRepeatSample(t *testing.T) {
	for _, n := range []int{0, 1, 3, 10, 1000, 1 << 12, 5000} {
		hs := make([]uint64, n)
		for i := range hs {
			hs[i] = uint64(i) + 100
		}
		const m = 1 << 12
		s := repeatSample(hs, m)
		if want := min(m, n*m); len(s) != want {
			t.Fatalf("n = %d: %d keys, want %d", n, len(s), want)
		}
		for i, h := range s {
			if h != hs[i%n] {
				t.Fatalf("n = %d: key %d is %d, want %d", n, i, h, hs[i%n])
			}
		}
		want := 0.0
		if n > 0 && n < m {
			want = 1
		}
		if a := testing.AllocsPerRun(5, func() { sampleSink = repeatSample(hs, m) }); a != want {
			t.Errorf("n = %d: %v allocations, want %v", n, a, want)
		}
	}
}

// sampleSink keeps TestRepeatSample's samples on the heap, as the
// fixture's are.
var sampleSink []uint64
