//go:build !unix && !windows

package mem

// canMap reports whether Alloc maps big allocations here: not on
// systems where this package has no mapping primitive.
const canMap = false

func mapAnon(n int) ([]uint64, *Region, error) { panic("unreachable") }

func unmap(b []byte) error { return nil }
