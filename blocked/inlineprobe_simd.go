//go:build gc && !purego && !race && goexperiment.simd && amd64

package blocked

import (
	"simd/archsimd"
	"unsafe"

	"github.com/sift-go/sift/internal/cpu"
	"github.com/sift-go/sift/internal/kernel"
)

// simdProbeBuilt is whether this build has the inlinable probe.
const simdProbeBuilt = true

// simdProbeOK reports whether Probe.ContainsHash may probe t: k = 8, an
// open filter, and an AVX2 or AVX-512 set for the single-key probe (so the
// CPU has AVX2). Race builds leave the Probe out (the build tag): the
// kernels' race annotation is a call, which would put ContainsHash over
// the inlining budget.
func simdProbeOK(t *kernel.BlockedTable) bool {
	set, _ := kernel.Choice(kernel.OpBlockedContains1)
	return t.K == 8 && len(t.Blocks) > 0 && (set == cpu.AVX2 || set == cpu.AVX512) && archsimd.X86.AVX2()
}

// simdSalts are kernel.Salts[0:8] for the probe's VPMULLD; simdOnes the
// per-lane ones it tests the shifted words against. They are vector
// variables, loaded once by init where the CPU has AVX2 (a load in init
// on a CPU without AVX would fault), and zero elsewhere, where
// simdProbeOK is false: as variables the probe costs 79 of the inliner's
// budget of 80, against 82 when it loads them from arrays.
var (
	simdSalts archsimd.Uint32x8
	simdOnes  archsimd.Uint64x4
)

func init() {
	if archsimd.X86.AVX2() {
		simdSalts = archsimd.LoadUint32x8((*[8]uint32)(kernel.Salts[:8]))
		simdOnes = archsimd.LoadUint64x4(&[4]uint64{1, 1, 1, 1})
	}
}

// ContainsHash reports whether the key whose hash is h may be in the
// filter: Filter.ContainsHash's answer, inlined (see Probe). It panics on
// the zero Probe, and on a Probe of a filter closed since.
//
// The probe is the AVX2 kernel's k = 8 path (VPBROADCASTD, VPMULLD by the
// salts, VPSRLD 26, two VPMOVZXDQ, two VPSRLVQ of the block halves by the
// bit numbers, VPAND, VPTEST against per-lane ones) in archsimd. Its
// inliner cost is 76 of 80 (go build -gcflags=-m=2); written as a call
// to the same code in internal/kernel it was 83, and did not inline.
func (p *Probe) ContainsHash(h uint64) bool {
	bs := p.t.Blocks
	b := (*[2]archsimd.Uint64x4)(unsafe.Pointer(&bs[(h>>32)*uint64(len(bs))>>32]))
	bits := archsimd.BroadcastUint32x8(uint32(h)).Mul(simdSalts).ShiftAllRight(26)
	lo := b[0].ShiftRight(bits.GetLo().ExtendToUint64())
	hi := b[1].ShiftRight(bits.GetHi().ExtendToUint64())
	return simdOnes.AndNot(lo.And(hi)).IsZero()
}
