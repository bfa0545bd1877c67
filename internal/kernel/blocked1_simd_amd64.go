//go:build gc && !purego && goexperiment.simd

package kernel

import (
	"simd/archsimd"
	"unsafe"
)

// Built with GOEXPERIMENT=simd (Go 1.26's simd/archsimd), the package has
// a single-key blocked probe for k = 8 (what New picks at 1% and 0.1%)
// written in Go, BlockedContains1SIMD, that inlines into its caller: the
// same instructions as blockedContains1AVX2's k = 8 path (VPBROADCASTD,
// VPMULLD by the salts, VPSRLD 26, two VPMOVZXDQ, two VPSRLVQ of the block
// halves by the bit numbers, VPAND, VPTEST against per-lane ones) without
// the ABI0 call. Default builds do not compile this file, and
// BlockedContains1 stays the assembly call in every build.
//
// Why it is not BlockedContains1 itself: the probe costs 61 of the
// inliner's budget of 80 (go build -gcflags=-m=2), and the fallback every
// entry point needs (other k, an empty filter, a CPU without AVX2) is a
// call, which the inliner prices at 57: together 163, so BlockedContains1
// written this way is an ordinary Go call, and measured slower than the
// assembly call it would replace (same loop of lookups, k = 8, 8 runs of
// each binary interleaved, medians, ns/key, on the 2-core Zen 5 VM:
// n = 1e5 3.34 asm vs 3.55 Go call, n = 1e6 4.70 vs 5.55; avx2 set). A
// caller gains by checking BlockedSIMDOK once, outside its loop, and
// calling BlockedContains1SIMD inside it, where it inlines (cost 77):
//
//	GOEXPERIMENT=simd go test -c -o k.test ./internal/kernel
//	for i in $(seq 8); do k.test -test.run '^$' -test.benchtime 150ms \
//	    -test.bench 'BlockedContains1K8(Inlined)?/n=1e[56]/impl=avx'; done
//
//	ns/key, median (min) of 8   asm call      inlined Go    ratio
//	n=1e5 impl=avx2              4.48 (3.85)   3.10 (1.75)   1.45x
//	n=1e5 impl=avx512            4.71 (3.04)   3.09 (2.65)   1.52x
//	n=1e6 impl=avx2              6.75 (3.93)   4.91 (2.74)   1.37x
//	n=1e6 impl=avx512            6.94 (4.05)   4.96 (2.72)   1.40x
//
// (2-core Zen 5 VM shared with other jobs, load average 3-5 during the
// run.) Wiring this into blocked.Filter.ContainsHash needs that shape: a
// per-filter flag set once and a method that inlines both branches is
// over the budget again, so it is left to the filter package's owner.

// simdSalts are Salts[0:8] for the probe's VPMULLD; simdOnes the per-lane
// ones it tests the shifted words against.
var (
	simdSalts = [8]uint32(Salts[:8])
	simdOnes  = [4]uint64{1, 1, 1, 1}
)

// BlockedSIMDOK reports whether BlockedContains1SIMD may probe t: k = 8, a
// non-empty filter, and an assembly kernel set (so AVX2) for the
// single-key probe.
func BlockedSIMDOK(t *BlockedTable) bool {
	return t.K == 8 && len(t.Blocks) > 0 && blockedContains1Set != setGeneric
}

// BlockedContains1SIMD is BlockedContains1 for a t that BlockedSIMDOK
// accepted; it inlines. The caller keeps t alive.
func BlockedContains1SIMD(t *BlockedTable, h uint64) bool {
	if raceEnabled {
		raceBlocked1(t, h, false)
	}
	b := (*[2]archsimd.Uint64x4)(unsafe.Pointer(&t.Blocks[(h>>32)*uint64(len(t.Blocks))>>32]))
	bits := archsimd.BroadcastUint32x8(uint32(h)).Mul(archsimd.LoadUint32x8(&simdSalts)).ShiftAllRight(26)
	lo := b[0].ShiftRight(bits.GetLo().ExtendToUint64())
	hi := b[1].ShiftRight(bits.GetHi().ExtendToUint64())
	return archsimd.LoadUint64x4(&simdOnes).AndNot(lo.And(hi)).IsZero()
}
