package sbbf

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
// Both loops give the same answers. The Probe reads f's blocks: it is
// valid while f is open (a Probe of a closed filter panics), and it may run
// concurrently with other lookups but not with adds, as ContainsHash. Its
// gain and the command that measures it are in bench/README.md
// ("GOEXPERIMENT=simd").
type Probe struct{ blocks []kernel.SBBFBlock }

// Probe returns f's Probe and true where Probe.ContainsHash inlines the
// SIMD probe: a build with GOEXPERIMENT=simd for amd64 without the purego
// tag or -race, an AVX2 or AVX-512 kernel set in use (not
// SIFT_KERNEL=generic), and f open. Elsewhere it returns nil and false;
// the caller then uses f.ContainsHash.
func (f *Filter) Probe() (*Probe, bool) {
	if simdProbeOK(f.blocks) {
		return (*Probe)(unsafe.Pointer(&f.blocks)), true
	}
	return nil, false
}
