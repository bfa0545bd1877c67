//go:build gc && !purego

package kernel

// GensAsm1AVX512 is the AVX-512 single-key windowed kernel itself, for the
// benchmark that measures the Go wrappers' share of a lookup.
var GensAsm1AVX512 = blockedContainsGens1AVX512
