//go:build unix

package kerneltest

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// GuardedUint64s returns a slice of n uint64s that ends exactly at a page
// boundary followed by a PROT_NONE page, so a kernel reading or writing one
// element past the end faults instead of passing. The memory is unmapped
// when the test ends. GuardedBools does the same for bools.
func GuardedUint64s(t testing.TB, n int) []uint64 {
	b := guarded(t, n*8)
	if n == 0 {
		return []uint64{}
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n)
}

// GuardedBools is GuardedUint64s for bool slices.
func GuardedBools(t testing.TB, n int) []bool {
	b := guarded(t, n)
	if n == 0 {
		return []bool{}
	}
	return unsafe.Slice((*bool)(unsafe.Pointer(&b[0])), n)
}

// Guarded reports whether Guarded* slices really end at a PROT_NONE page.
const Guarded = true

func guarded(t testing.TB, size int) []byte {
	t.Helper()
	page := unix.Getpagesize()
	pages := (size+page-1)/page + 1
	m, err := unix.Mmap(-1, 0, pages*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	guard := m[(pages-1)*page:]
	if err := unix.Mprotect(guard, unix.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	t.Cleanup(func() { unix.Munmap(m) })
	end := (pages - 1) * page
	return m[end-size : end : end]
}
