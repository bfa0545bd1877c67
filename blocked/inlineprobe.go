package blocked

import (
	"unsafe"

	"github.com/sift-go/sift/internal/kernel"
)

// A Probe is a read-only single-key lookup into a Filter whose
// ContainsHash inlines into the caller's loop, in programs built with
// GOEXPERIMENT=simd for amd64 (Go's simd/archsimd experiment, in Go 1.26
// and 1.27). Filter.ContainsHash is one assembly call a key; the Probe's
// is the same instructions written with archsimd, without the call. It is
// opt-in twice: the build must set the experiment, and the caller checks
// once, outside its loop, that the Probe runs:
//
//	if p, ok := f.Probe(); ok {
//		for _, h := range hs {
//			if p.ContainsHash(h) { ... }
//		}
//	} else {
//		for _, h := range hs {
//			if f.ContainsHash(h) { ... }
//		}
//	}
//
// Both loops give the same answers. The Probe reads f's blocks, so it is
// valid while f is open and holds the filter it held when Probe returned:
// UnmarshalBinary or ReadFrom into f, which may bring another k, end it
// (its answers would be wrong, without an error), so call f.Probe again
// after them. It may run concurrently with other lookups but not with
// adds, as ContainsHash. Its gain and the command that
// measures it are in bench/README.md ("GOEXPERIMENT=simd").
type Probe struct{ t kernel.BlockedTable }

// Probe returns f's Probe and true where Probe.ContainsHash inlines the
// SIMD probe: a build with GOEXPERIMENT=simd for amd64 without the purego
// tag or -race, an AVX2 or AVX-512 kernel set in use (not
// SIFT_KERNEL=generic), f open, and k = 8 (what New picks for
// false-positive rates from 0.08% to 1.5%). Elsewhere it returns nil,
// whose ContainsHash panics, and false; the caller then uses
// f.ContainsHash.
func (f *Filter) Probe() (*Probe, bool) {
	if simdProbeOK(&f.t) {
		return (*Probe)(unsafe.Pointer(&f.t)), true
	}
	return nil, false
}
