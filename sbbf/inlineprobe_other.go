//go:build !(gc && !purego && !race && goexperiment.simd && amd64)

package sbbf

import "github.com/sift-go/sift/internal/kernel"

// simdProbeBuilt is whether this build has the inlinable probe.
const simdProbeBuilt = false

func simdProbeOK([]kernel.SBBFBlock) bool { return false }

// ContainsHash reports whether a value whose hash is h may be in the
// filter. In this build Filter.Probe never returns a Probe (see Probe),
// so it only panics.
func (p *Probe) ContainsHash(h uint64) bool {
	if p == nil {
		panic(errUse)
	}
	return kernel.SBBFContains1(&p.blocks, h)
}
