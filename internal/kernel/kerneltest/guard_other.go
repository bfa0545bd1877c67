//go:build !unix

package kerneltest

import "testing"

// Guarded reports whether Guarded* slices really end at a PROT_NONE page.
const Guarded = false

// GuardedUint64s returns a plain slice where guard pages are unavailable.
func GuardedUint64s(t testing.TB, n int) []uint64 { return make([]uint64, n) }

// GuardedBools returns a plain slice where guard pages are unavailable.
func GuardedBools(t testing.TB, n int) []bool { return make([]bool, n) }
