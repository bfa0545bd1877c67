//go:build gc && !purego && goexperiment.simd

package kernel

import (
	"runtime"
	"simd/archsimd"
	"unsafe"
)

// Built with GOEXPERIMENT=simd (Go 1.26's simd/archsimd), the single-key
// blocked probe for k = 8 (what New picks at 1% and 0.1%) is Go that
// inlines into the caller instead of an assembly call: the same
// instructions as blockedContains1AVX2's k = 8 path (VPBROADCASTD,
// VPMULLD by the salts, VPSRLD 26, two VPMOVZXDQ, two VPSRLVQ of the block
// halves by the bit numbers, VPAND, VPTEST against per-lane ones) without
// the ABI0 call, whose stores and loads of the arguments and the result
// and the spills around it are most of a lookup in cache. Other k, an
// empty filter and the generic set go to the assembly entry, which
// handles them as before. Default builds do not compile this file.

// simdSalts are Salts[0:8] for the probe's VPMULLD; simdOnes the per-lane
// ones it tests the shifted words against.
var (
	simdSalts = [8]uint32(Salts[:8])
	simdOnes  = [4]uint64{1, 1, 1, 1}
)

// BlockedContains1 reports whether the key with hash h is present in
// t.Blocks with t.K probes: the single-key probe, bit for bit
// BlockedContains1Generic. It panics if t.Blocks is empty; callers
// guarantee 1 <= t.K <= MaxK. It keeps t (so the object holding it) alive
// until it returns. It inlines, and for k = 8 with an assembly set in use
// so does the probe: a lookup costs no call.
func BlockedContains1(t *BlockedTable, h uint64) bool {
	if raceEnabled {
		raceBlocked1(t, h, false)
	}
	if t.K != 8 || blockedContains1Set == setGeneric || len(t.Blocks) == 0 {
		return blockedContains1AVX2(t, h)
	}
	b := (*[2]archsimd.Uint64x4)(unsafe.Pointer(&t.Blocks[(h>>32)*uint64(len(t.Blocks))>>32]))
	bits := archsimd.BroadcastUint32x8(uint32(h)).Mul(archsimd.LoadUint32x8(&simdSalts)).ShiftAllRight(26)
	lo := b[0].ShiftRight(bits.GetLo().ExtendToUint64())
	hi := b[1].ShiftRight(bits.GetHi().ExtendToUint64())
	ok := archsimd.LoadUint64x4(&simdOnes).AndNot(lo.And(hi)).IsZero()
	runtime.KeepAlive(t)
	return ok
}
