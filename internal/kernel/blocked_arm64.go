//go:build gc && !purego

package kernel

// The arm64 batch kernels (blocked_arm64.s, hand-written): NEON, chosen over
// a scalar loop with PRFM by instruction count, because the only arm64
// figures available to this project are emulated (qemu-aarch64-static: it
// proves correctness, its timings mean nothing).
//
// Instructions per key, counted in the disassembly (go tool objdump), with
// the block index, a PRFM DIST keys ahead, the test/insert, the result byte,
// the count and the loop:
//
//	                       k <= 8   k = 9..16
//	NEON (this file)           36          50   k-independent: 2 MUL .4S + 4 USHR
//	                                            + 4 USHL build 8 words at once
//	scalar asm, estimated      60         100   per probe MULW, LSR, LSL, ORR,
//	  (k = 7 / k = 16)                          + a BIC/ORR per word; needs a
//	                                            copy per k to stay branch-free
//	Go generic (compiled)    ~180        ~330   BlockMask's probe loop, no PRFM
//
// So NEON issues ~1.7-2x fewer instructions than the best scalar loop and
// needs no per-k specialisation; like the AVX2 kernel it is memory-bound on
// big filters, where the PRFM distance matters more than the instruction
// count. DIST is 48 keys, the value tuned on amd64 (the loop is of similar
// length, the miss latency it must cover of the same order, and 48 lines are
// 3 KiB of L1); it should be re-tuned on real arm64 hardware with
// BenchmarkBlockedContains.
//
// Go's assembler lacks vector MUL, USHL and BIC: blocked_arm64.s encodes
// them with WORD macros built from register numbers (VMUL_S4, VUSHL_D2,
// VBIC_B16), each documented with the instruction it stands for and checked
// against go tool objdump's decoding.
//
// The small-batch threshold is 1 as on amd64 (the call costs less than one
// key of the Generic loop); not measurable on real hardware here.

// neonTable is the per-k constant table of the NEON kernels (layout fixed by
// blocked_arm64.s): the salts of each round as two vectors in lane order
// words [0 2 1 3] and [4 6 5 7], then per-lane ones for words 0-1, 2-3, 4-5
// and 6-7 of each round, zero for the probes j >= k.
type neonTable struct {
	salts [2][2][4]uint32
	ones  [2][4][2]uint64
}

// neonTables[k] is the table for k probes, built from Salts.
var neonTables = func() (t [MaxK + 1]neonTable) {
	lane := [4]int{0, 2, 1, 3} // lane -> word within a half block
	for k := range t {
		for r := 0; r < 2; r++ {
			for half := 0; half < 2; half++ {
				for l, w := range lane {
					t[k].salts[r][half][l] = Salts[8*r+4*half+w]
				}
			}
			for w := 0; w < BlockWords; w++ {
				if 8*r+w < k {
					t[k].ones[r][w/2][w%2] = 1
				}
			}
		}
	}
	return t
}()

func blockedAdd(blocks []Block, k int, hs []uint64) {
	if blockedAddSetFor(uint64(len(blocks))) == setNEON {
		blockedAddAsm(blocks, k, hs)
		return
	}
	BlockedAddGeneric(blocks, k, hs)
}

func blockedContains(blocks []Block, k int, hs []uint64, out []bool) int {
	if blockedContainsSetFor(uint64(len(blocks))) == setNEON {
		return blockedContainsAsm(blocks, k, hs, out)
	}
	return BlockedContainsGeneric(blocks, k, hs, out)
}

// blockedAddAsm runs the NEON insert kernel on any batch, empty included.
func blockedAddAsm(blocks []Block, k int, hs []uint64) {
	if len(hs) == 0 {
		return
	}
	raceBlockedAdd(blocks, hs)
	blockedAddNEON(&blocks[0][0], uint64(len(blocks)), k, &neonTables[k].salts[0][0][0], &hs[0], len(hs))
}

// blockedContainsAsm runs the NEON probe kernel on any batch; len(out) >=
// len(hs) is checked here so the assembly never writes past out.
func blockedContainsAsm(blocks []Block, k int, hs []uint64, out []bool) int {
	out = out[:len(hs)]
	if len(hs) == 0 {
		return 0
	}
	raceBlockedContains(blocks, hs, out)
	return blockedContainsNEON(&blocks[0][0], uint64(len(blocks)), k, &neonTables[k].salts[0][0][0], &hs[0], len(hs), &out[0])
}

// blockedAddNEON inserts hs[:n] into the nblocks blocks at blocks with k
// probes per key; tab is neonTables[k].
//
//go:noescape
func blockedAddNEON(blocks *uint64, nblocks uint64, k int, tab *uint32, hs *uint64, n int)

// blockedContainsNEON probes hs[:n] in the nblocks blocks at blocks with k
// probes per key, writes out[:n] and returns the number of trues; tab is
// neonTables[k].
//
//go:noescape
func blockedContainsNEON(blocks *uint64, nblocks uint64, k int, tab *uint32, hs *uint64, n int, out *bool) int

// The single-key calls run the unrolled Go twins. On amd64 an AVX2 probe per
// key beats them despite the call (blocked_amd64.go); whether a NEON one
// would on arm64 needs real hardware to measure (qemu timings mean nothing).

// BlockedContains1 reports whether the key with hash h is present in
// t.Blocks with t.K probes: the single-key probe, bit for bit
// BlockedContains1Generic. It panics if t.Blocks is empty; callers
// guarantee 1 <= t.K <= MaxK. It keeps t (so the object holding it) alive
// until it returns, so a caller whose memory a finalizer may unmap needs no
// runtime.KeepAlive of its own. It inlines, so a lookup costs one call.
func BlockedContains1(t *BlockedTable, h uint64) bool {
	return blockedContains1Go(t, h)
}

// BlockedAdd1 sets the t.K probe bits of hash h in its block of t.Blocks:
// the single-key insert, bit for bit BlockedAdd1Generic. The contract is
// BlockedContains1's.
func BlockedAdd1(t *BlockedTable, h uint64) { blockedAdd1Go(t, h) }
