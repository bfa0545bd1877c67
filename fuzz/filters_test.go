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
		// Add-if-new in a tiny filter: one block, so every key shares it;
		// a one-bucket cuckoo filter with no relocation, which parks the
		// victim at its fifth key. The first batch repeats keys (new at
		// most once) and has the victim parked in its middle, then meets
		// present keys, (false, nil), and an absent one, ErrFull. Single
		// add-if-new ops of present keys and of an absent key with the
		// victim in use, and a batch that stops at the absent key; removes
		// that re-home the victim and make room, a key added and found
		// present; after a reload, a batch whose first key parks the
		// victim, whose repeat is found there, and whose next key is
		// ErrFull; a batch of keys added before.
		newScript(5, 0, 0, 4, 1, 2, 10).
			op(opAdd, 7).
			batch(opAddNewBatch, 1, 2, 1, 3, 7, 2, 4, 1, 7, 2, 5, 6, 8, 9, 10).
			op(opAddNew, 1).op(opAddNew, 30).op(opAddNew, 7).
			batch(opAddNewBatch, 7, 1, 30, 2).
			op(opRemove, 1).op(opRemove, 2).op(opAddNew, 1).op(opAddNew, 1).op(opReload, 1).
			batch(opAddNewBatch, 30, 30, 31, 7).
			batch(opAddNewBatch, 1, 2, 3, 4, 5, 6, 7, 8).bytes(),
		// Add-if-new batches long enough for the kernels, half of their
		// keys added before, into filters that fill up (3 blocks, a
		// 40-key cuckoo filter): then a fill, and the same again.
		newScript(7, 2, 39, 6, 0, 3, 20).
			batch(opAddBatch, all[:20]...).
			batch(opAddNewBatch, append(append([]byte{}, all[10:]...), all[:15]...)...).
			batch(opAddNewBatch, all...).
			op(opFill, 20).
			batch(opAddNewBatch, append(append([]byte{}, all...), all[:30]...)...).bytes(),
		// cuckoo.Concurrent in a one-bucket filter with no relocation
		// (the other filters run along): a fresh key of 8 bytes, which
		// the Concurrent's single-key calls take through their Uint64
		// forms in turn; an add-if-new batch that parks the victim at
		// its fourth small key, finds that key again in the victim slot,
		// then a present key, and stops at an absent one, ErrFull; the
		// victim's key by itself. A reload into the Concurrents
		// themselves (UnmarshalBinary), a remove of the victim's key
		// (the victim slot frees) and an add that parks it again; a
		// remove that re-homes the victim, an add batch that parks it
		// at its first key and stops at its second; a reload with
		// ReadFrom in place, removes, a union (through a snapshot), a
		// reset and a batch past the prefetch distance.
		newScript(2, 0, 0, 2, 1, 1, 8).
			op(opAdd, 0xe6, 1, 2, 3, 4, 5, 6, 7).
			batch(opAddNewBatch, 1, 2, 3, 4, 4, 3, 5, 6).
			op(opAddNew, 4).op(opContains, 0xe6, 1, 2, 3, 4, 5, 6, 7).
			op(opReload, 8).op(opRemove, 4).op(opAdd, 4).
			op(opAddNew, 0xe6, 1, 2, 3, 4, 5, 6, 7).op(opRemove, 1).
			batch(opAddBatch, 8, 9, 10, 11).
			op(opReload, 9).op(opRemove, 0xe6, 1, 2, 3, 4, 5, 6, 7).op(opRemove, 2).
			op(opRemove, 0xe6, 1, 2, 3, 4, 5, 6, 7).
			batch(opUnion, 12, 13).op(1).op(opReload, 10).op(opReset).
			batch(opAddNewBatch, all[:36]...).batch(opContainsBatch, all...).bytes(),
		// A batch whose ninth copy of a key fails (ErrDuplicateLimit)
		// and whose keys after it must stay out, though they would fit.
		newScript(1, 1, 63, 0, 0, 0, 0).
			batch(opAddBatch, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 5, 6).
			batch(opContainsBatch, 3, 4, 5, 6).bytes(),
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
// operation, and give add-if-new a key repeated in its batch, keys sharing
// a block, present cuckoo keys (with the victim slot in use too, and the
// key in the victim slot itself) and ErrFull, and a walled-in key's
// ErrNoSlot below 90% load; and stop a cuckoo.Concurrent
// batch with an error between its first and last keys.
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
		total.ckNoSlot += st.ckNoSlot
		total.removes += st.removes
		total.reloads += st.reloads
		total.newDup += st.newDup
		total.newShared += st.newShared
		total.ckNewPresent += st.ckNewPresent
		total.ckNewFull += st.ckNewFull
		total.ckNewVictim += st.ckNewVictim
		total.ckNewVictimKey += st.ckNewVictimKey
		total.ckConcStops += st.ckConcStops
	}
	for op, n := range total.ops {
		if n == 0 {
			t.Errorf("no seed runs %s", opNames[op])
		}
	}
	if total.ckFull == 0 || total.ckNoSlot == 0 || total.removes == 0 || total.reloads == 0 {
		t.Errorf("seeds reach ErrFull %d times (ErrNoSlot %d), remove %d, reload %d: want all > 0", total.ckFull, total.ckNoSlot, total.removes, total.reloads)
	}
	if total.newDup == 0 || total.newShared == 0 || total.ckNewPresent == 0 || total.ckNewFull == 0 || total.ckNewVictim == 0 {
		t.Errorf("add-if-new seeds: %d keys repeated in a batch, %d sharing a block, %d present cuckoo keys (%d with the victim in use), %d ErrFull: want all > 0",
			total.newDup, total.newShared, total.ckNewPresent, total.ckNewVictim, total.ckNewFull)
	}
	if total.ckNewVictimKey == 0 || total.ckConcStops == 0 {
		t.Errorf("seeds give add-if-new the victim's own key %d times and stop a Concurrent batch in its middle %d times: want both > 0",
			total.ckNewVictimKey, total.ckConcStops)
	}
}
