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

// simdSalts are kernel.Salts[0:8] for the probe's VPMULLD, interleaved
// (0, 4, 1, 5, 2, 6, 3, 7) so that the low half of each 64-bit lane holds
// the product for a word of the block's first half and the high half the
// product for the word four further on; simdOnes the per-lane ones it
// tests the shifted words against; simdLoShift and simdHiShift the shift
// counts that take the bit numbers out of the products (see
// ContainsHash). They are vector variables, loaded once by init where the
// CPU has AVX2 (a load in init on a CPU without AVX would fault), and zero
// elsewhere, where simdProbeOK is false: as variables the probe fits the
// inliner's budget of 80, where loads from arrays put it over (82). The
// shift counts are vectors, not archsimd's ShiftAllRight by a constant,
// because Go 1.26 compiles that to a register load, a MOVQ to a vector
// register and the shift: three instructions where a VPSRLVD with a
// memory operand is one.
var (
	simdSalts   archsimd.Uint32x8
	simdOnes    archsimd.Uint64x4
	simdLoShift archsimd.Uint32x8
	simdHiShift archsimd.Uint64x4
)

func init() {
	if archsimd.X86.AVX2() {
		s := kernel.Salts
		simdSalts = archsimd.LoadUint32x8(&[8]uint32{s[0], s[4], s[1], s[5], s[2], s[6], s[3], s[7]})
		simdOnes = archsimd.LoadUint64x4(&[4]uint64{1, 1, 1, 1})
		simdLoShift = archsimd.LoadUint32x8(&[8]uint32{26, 32, 26, 32, 26, 32, 26, 32})
		simdHiShift = archsimd.LoadUint64x4(&[4]uint64{58, 58, 58, 58})
	}
}

// ContainsHash reports whether the key whose hash is h may be in the
// filter: Filter.ContainsHash's answer, inlined (see Probe). It panics on
// the zero Probe, and on a Probe of a filter closed since: with the
// runtime's index error, not ErrClosed, since that check would put it over
// the inlining budget: with it this ContainsHash would cost 90 of the
// compiler's 80 (76 without; sbbf's Probe costs 67 with its check).
//
// The probe: VPBROADCASTD of h's low 32 bits, VPMULLD by the interleaved
// salts, then the bit numbers (the products' top 6 bits) as 64-bit shift
// counts without moving data across lanes: VPSRLVD by (26, 32) per 64-bit
// lane keeps the low product's bits 26..31 and zeroes the high product
// (counts of 32 and more give 0), VPSRLVQ by 58 keeps the high product's;
// each shifts a block half right (VPSRLVQ), and VPAND and one VPTEST
// against per-lane ones check bit 0 of all eight words. The first version
// took the bit numbers out with VPSRLD 26, two VEXTRACTI128 and two
// VPMOVZXDQ (cross-lane moves) and was 37 instructions a loop iteration
// of BenchmarkInlineProbe against 34: at n = 1e6 the lookup went from 2.93
// to 2.57 ns (ten alternating rounds, medians; parquet-go's Check over the
// Probe 1.30x -> 1.54x, per-round medians; AMD EPYC family 26 model 2,
// Zen 5, bench/README "GOEXPERIMENT=simd"). Its inliner cost is 76 of 80
// (go build -gcflags=-m=2); written as a call to the same code in
// internal/kernel it was 83, and did not inline.
func (p *Probe) ContainsHash(h uint64) bool {
	bs := p.t.Blocks
	b := (*[2]archsimd.Uint64x4)(unsafe.Pointer(&bs[(h>>32)*uint64(len(bs))>>32]))
	q := archsimd.BroadcastUint32x8(uint32(h)).Mul(simdSalts)
	lo := b[0].ShiftRight(q.ShiftRight(simdLoShift).AsUint64x4())
	hi := b[1].ShiftRight(q.AsUint64x4().ShiftRight(simdHiShift))
	return simdOnes.AndNot(lo.And(hi)).IsZero()
}
