//go:build gc && !purego && !race && goexperiment.simd && amd64

package sbbf

import (
	"simd/archsimd"
	"unsafe"

	"github.com/sift-go/sift/internal/cpu"
	"github.com/sift-go/sift/internal/kernel"
)

// simdProbeBuilt is whether this build has the inlinable probe.
const simdProbeBuilt = true

// simdProbeOK reports whether Probe.ContainsHash may probe bs: an open
// filter, and an AVX2 or AVX-512 set for the single-key probe (so the CPU
// has AVX2). Race builds leave the Probe out (the build tag): the kernels'
// race annotation is a call, which would put ContainsHash over the
// inlining budget.
func simdProbeOK(bs []kernel.SBBFBlock) bool {
	set, _ := kernel.Choice(kernel.OpSBBFContains1)
	return len(bs) > 0 && (set == cpu.AVX2 || set == cpu.AVX512) && archsimd.X86.AVX2()
}

// simdSalts are the specification's salts for the probe's VPMULLD,
// simdOnes the per-lane ones it shifts into place and simdShift27 the
// shift that takes the bit numbers out of the products (a VPSRLVD with a
// memory operand: archsimd's ShiftAllRight(27) compiles to three
// instructions in Go 1.26), as vector variables loaded once by init where
// the CPU has AVX2 (see blocked's Probe).
var (
	simdSalts   archsimd.Uint32x8
	simdOnes    archsimd.Uint32x8
	simdShift27 archsimd.Uint32x8
)

func init() {
	if archsimd.X86.AVX2() {
		simdSalts = archsimd.LoadUint32x8(&kernel.SBBFSalts)
		simdOnes = archsimd.LoadUint32x8(&[8]uint32{1, 1, 1, 1, 1, 1, 1, 1})
		simdShift27 = archsimd.LoadUint32x8(&[8]uint32{27, 27, 27, 27, 27, 27, 27, 27})
	}
}

// ContainsHash reports whether a value whose hash is h may be in the
// filter: Filter.ContainsHash's answer, inlined (see Probe). It panics on
// a nil Probe, and, with an error wrapping ErrClosed, on a Probe of a
// filter closed since.
//
// The probe is the AVX2 kernel's (VPBROADCASTD, VPMULLD by the salts,
// VPSRLVD 27, VPSLLVD of per-lane ones, VPTEST against the block) in
// archsimd; its inliner cost is 67 of 80 (go build -gcflags=-m=2), with
// the closed check that replaces the index's bounds check (as
// internal/kernel's sbbfBlockOf does).
func (p *Probe) ContainsHash(h uint64) bool {
	bs := p.blocks
	i := (h >> 32) * uint64(len(bs)) >> 32
	if i >= uint64(len(bs)) { // only when bs is empty; replaces the bounds check
		panic(errUse)
	}
	b := (*[8]uint32)(unsafe.Pointer(&bs[i]))
	mask := simdOnes.ShiftLeft(archsimd.BroadcastUint32x8(uint32(h)).Mul(simdSalts).ShiftRight(simdShift27))
	return mask.AndNot(archsimd.LoadUint32x8(b)).IsZero()
}
