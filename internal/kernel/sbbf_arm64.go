//go:build gc && !purego

package kernel

// The arm64 split-block batch kernels (sbbf_arm64.s, hand-written): NEON,
// like the blocked filter's (see blocked_arm64.go for why NEON rather than
// a scalar loop, and for why the timings available here, from
// qemu-aarch64-static, prove correctness only). Instructions per key in
// the main loops, counted in go tool objdump's disassembly: 21 to insert
// and 28 to probe, prefetch, block index (3), mask (7: DUP, two MUL, two
// USHR, two USHL), result and loop included; the unrolled Go probe takes
// about 55 (per word MULW, UBFX, LSR and AND, plus a MOVD and MOVK to
// materialise each salt, and the index), and the batch Go kernel a call
// per key on top. The prefetch distance is the blocked kernels' 48 keys;
// it should be tuned on real arm64 hardware.
//
// The single-key calls run the unrolled Go twins, as the blocked filter's
// do on arm64: whether a NEON call per key (fewer instructions, but stack
// arguments and a call the Go probe does not need) beats them needs real
// hardware to measure.

func sbbfAdd(blocks []SBBFBlock, hs []uint64) {
	if sbbfAddSet != setNEON || len(hs) == 0 {
		SBBFAddGeneric(blocks, hs)
		return
	}
	raceSBBFAdd(blocks, hs)
	sbbfAddNEON(&blocks[0][0], uint64(len(blocks)), &hs[0], len(hs))
}

func sbbfContains(blocks []SBBFBlock, hs []uint64, out []bool) int {
	if sbbfContainsSet != setNEON || len(hs) == 0 {
		return SBBFContainsGeneric(blocks, hs, out)
	}
	out = out[:len(hs)]
	raceSBBFContains(blocks, hs, out)
	return sbbfContainsNEON(&blocks[0][0], uint64(len(blocks)), &hs[0], len(hs), &out[0])
}

// sbbfAddNEON inserts hs[:n] into the nblocks split blocks at blocks.
//
//go:noescape
func sbbfAddNEON(blocks *uint32, nblocks uint64, hs *uint64, n int)

// sbbfContainsNEON probes hs[:n] in the nblocks split blocks at blocks,
// writes out[:n] and returns the number of trues.
//
//go:noescape
func sbbfContainsNEON(blocks *uint32, nblocks uint64, hs *uint64, n int, out *bool) int

// SBBFContains1 reports whether the key with hash h is present in *t: the
// single-key probe, bit for bit SBBFContains1Generic. It panics if *t is
// empty. It keeps t (so the object holding it) alive until it returns, so
// a caller whose memory a finalizer may unmap needs no runtime.KeepAlive of
// its own. It inlines, so a lookup costs one call.
func SBBFContains1(t *[]SBBFBlock, h uint64) bool { return sbbfContains1Go(t, h) }

// SBBFAdd1 sets the eight bits of hash h in its block of *t: the single-key
// insert, bit for bit SBBFAdd1Generic. The contract is SBBFContains1's.
func SBBFAdd1(t *[]SBBFBlock, h uint64) { sbbfAdd1Go(t, h) }
