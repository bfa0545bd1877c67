package bench

import "unsafe"

// unsafeWords rebuilds the probe's word slice from its first element.
func unsafeWords(first *uint64, lines uint64) []uint64 {
	return unsafe.Slice(first, lines*8)
}
