// Package mem allocates the memory filters live in: 64-byte-aligned heap
// slices for small filters, anonymous mappings advised for transparent huge
// pages (MADV_HUGEPAGE) for big ones on Linux, and read-only file mappings
// for zero-copy Open.
package mem

import "unsafe"

// Align is the alignment of every allocation: one cache line.
const Align = 64

// HugeThreshold is the size from which AllocWords maps memory with the
// huge-page advice instead of using the Go heap: one TLB entry per 2 MiB
// instead of per 4 KiB matters once a filter outgrows the TLB's reach.
const HugeThreshold = 4 << 20

// AlignedBytes returns a zeroed slice of n bytes whose first byte is 64-byte
// aligned, from the Go heap.
func AlignedBytes(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	b := make([]byte, n+Align-1)
	off := int((Align - uintptr(unsafe.Pointer(&b[0]))%Align) % Align)
	return b[off : off+n : off+n]
}

// AlignedWords returns n zeroed uint64s, 64-byte aligned, from the Go heap.
func AlignedWords(n int) []uint64 {
	if n == 0 {
		return []uint64{}
	}
	w := make([]uint64, n+Align/8-1)
	off := int((Align - uintptr(unsafe.Pointer(&w[0]))%Align) % Align / 8)
	return w[off : off+n : off+n]
}

// Region is memory obtained from AllocWords or MapFile. Free releases it; it
// is a no-op for heap memory, which the garbage collector reclaims.
type Region struct {
	mapped []byte // non-nil when the memory is an mmap'd region
}

// Mapped reports whether the region is an OS mapping (which must be freed)
// rather than Go heap memory.
func (r *Region) Mapped() bool { return r != nil && r.mapped != nil }

// AllocWords returns n zeroed, 64-byte-aligned uint64s. From HugeThreshold
// bytes up, on Linux, they are an anonymous private mapping advised with
// MADV_HUGEPAGE; the caller must Free the region when done (after which the
// slice must not be used). Elsewhere, or if mapping fails, they come from
// the Go heap.
func AllocWords(n int) ([]uint64, *Region) {
	if n*8 >= HugeThreshold {
		if w, r, ok := mapAnon(n); ok {
			return w, r
		}
	}
	return AlignedWords(n), &Region{}
}

// Free releases a mapped region. It is safe to call more than once and on
// heap regions.
func (r *Region) Free() error {
	if r == nil || r.mapped == nil {
		return nil
	}
	m := r.mapped
	r.mapped = nil
	return unmap(m)
}
