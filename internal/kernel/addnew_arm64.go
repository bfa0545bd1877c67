//go:build gc && !purego

package kernel

// The arm64 add-if-new batch kernel (addnew_arm64.s, hand-written NEON):
// the insert loop of blocked_arm64.s (block address by UMULH, PRFM 48 keys
// ahead, the mask of 8 words from 2 MUL .4S, 4 USHR and 4 USHL) with a key
// step that loads the block into V11..V14, takes mask &^ block (4 BIC), ORs
// and stores the block, then folds the misses to one answer byte. Keys go
// strictly in order, each load after the previous key's store, so the
// answers are those of one-at-a-time calls. Counted in the disassembly
// (go tool objdump): 42 instructions a key for k <= 8 and 56 for k > 8
// with the prefetch and the loop (the key step 35 and 49), 6 more than the
// probe kernel (the 4 ORRs, the store, and the miss kept apart from the
// mask). Only qemu-aarch64 runs it here: it is tested, not timed.
//
// The single-key add-if-new stays the fused Go probe (blockedAddNew1Go),
// as the other single-key calls on arm64 stay Go (blocked_arm64.go):
// whether a NEON call per key would beat it needs real arm64 hardware to
// measure, and qemu's timings mean nothing.

func blockedAddNew(blocks []Block, k int, hs []uint64, out []bool) int {
	if blockedAddNewSetFor(uint64(len(blocks))) == setNEON {
		return blockedAddNewAsm(blocks, k, hs, out)
	}
	return BlockedAddNewGeneric(blocks, k, hs, out)
}

// blockedAddNewAsm runs the NEON add-if-new kernel on any batch;
// len(out) >= len(hs) is checked here so the assembly never writes past out.
func blockedAddNewAsm(blocks []Block, k int, hs []uint64, out []bool) int {
	out = out[:len(hs)]
	if len(hs) == 0 {
		return 0
	}
	raceBlockedAddNew(blocks, hs, out)
	return blockedAddNewNEON(&blocks[0][0], uint64(len(blocks)), k, &neonTables[k].salts[0][0][0], &hs[0], len(hs), &out[0])
}

// blockedAddNewNEON inserts hs[:n] in order into the nblocks blocks at
// blocks with k probes per key, sets out[i] to whether key i was new (one
// of its bits clear before its insert) and returns the number of trues;
// tab is neonTables[k].
//
//go:noescape
func blockedAddNewNEON(blocks *uint64, nblocks uint64, k int, tab *uint32, hs *uint64, n int, out *bool) int

// BlockedAddNew1 sets the t.K probe bits of hash h in its block of t.Blocks
// and reports whether one of them was clear (the key was new): the
// single-key add-if-new, bit for bit BlockedAddNew1Generic. The contract is
// BlockedContains1's. It inlines, so an add costs one call.
func BlockedAddNew1(t *BlockedTable, h uint64) bool { return blockedAddNew1Go(t, h) }
