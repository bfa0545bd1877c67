package fuzz

import (
	"testing"
)

// filterSeeds are hand-made scripts, each aimed at one behaviour; the
// corpus in testdata/fuzz/FuzzFilters holds more.
func filterSeeds() [][]byte {
	all := make([]byte, 0, smallKeys)
	for i := range smallKeys {
		all = append(all, byte(i))
	}
	return [][]byte{
		// Batches long enough for the kernels, then probes and a reload.
		newScript(7, 3, 40, 2, 0, 3, 20).
			batch(opAddBatch, all...).
			batch(opContainsBatch, all...).
			op(opReload, 0).op(opFill, 40).op(opReload, 3).
			batch(opContainsBatch, all...).bytes(),
		// A tiny cuckoo filter with no relocation fills up at once:
		// ErrFull, the victim, then removes that re-home it.
		newScript(15, 0, 0, 9, 1, 0, 1).
			op(opFill, 12).op(opAdd, 1).op(opAdd, 1).op(opRemove, 5).
			op(opRemove, 1).op(opAdd, 2).op(opReload, 1).op(opRemove, 2).bytes(),
		// Duplicates past the cuckoo limit of 2b = 8 copies.
		newScript(1, 1, 63, 0, 0, 0, 0).
			batch(opAddBatch, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3).
			op(opRemove, 3).op(opRemove, 3).op(opAdd, 3).op(opReload, 2).bytes(),
		// Union, incompatible union, reset, and the Guava stream reload.
		newScript(16, 23, 10, 5, 3, 0x85, 100).
			batch(opAddBatch, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18).
			batch(opUnion, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36).op(1).
			op(opReload, 4).op(opReset).op(opFill, 63).op(opFill, 63).op(opFill, 63).
			op(opReload, 5).bytes(),
		// Fresh keys (0xe0+n, then n%8+1 bytes).
		newScript(3, 5, 20, 1, 2, 7, 30).
			op(opAdd, 0xe7, 1, 2, 3, 4, 5, 6, 7, 8).op(opAdd, 0xe0, 0).
			op(opRemove, 0xe0, 0).op(opContains, 0xe7, 1, 2, 3, 4, 5, 6, 7, 8).
			op(opReload, 7).bytes(),
	}
}

// FuzzFilters runs a script of operations through every filter at once
// and checks the invariants after every step (see harness_test.go).
func FuzzFilters(f *testing.F) {
	for _, s := range filterSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := runScript(data); err != nil {
			t.Fatal(err)
		}
	})
}

// TestSeedScriptsReachTheirTargets keeps the hand-made seeds meaningful:
// together they must fill a cuckoo filter, remove, reload and run every
// operation.
func TestSeedScriptsReachTheirTargets(t *testing.T) {
	var total stats
	for i, s := range filterSeeds() {
		st, err := runScript(s)
		if err != nil {
			t.Fatalf("seed %d: %v", i, err)
		}
		for op, n := range st.ops {
			total.ops[op] += n
		}
		total.ckFull += st.ckFull
		total.removes += st.removes
		total.reloads += st.reloads
	}
	for op, n := range total.ops {
		if n == 0 {
			t.Errorf("no seed runs %s", opNames[op])
		}
	}
	if total.ckFull == 0 || total.removes == 0 || total.reloads == 0 {
		t.Errorf("seeds reach ErrFull %d times, remove %d, reload %d: want all > 0", total.ckFull, total.removes, total.reloads)
	}
}
