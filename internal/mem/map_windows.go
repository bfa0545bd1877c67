//go:build windows

package mem

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// canMap reports whether Alloc maps big allocations here.
const canMap = true

// mapAnon commits n zeroed words with VirtualAlloc (64 KiB aligned).
// Windows charges committed memory against the commit limit (RAM plus page
// files) at once, so a size the machine cannot back fails here, as an
// error, rather than later.
func mapAnon(n int) ([]uint64, *Region, error) {
	p, err := windows.VirtualAlloc(0, uintptr(n)*8, windows.MEM_COMMIT|windows.MEM_RESERVE, windows.PAGE_READWRITE)
	if err != nil {
		return nil, nil, err
	}
	// The memory is outside the Go heap: the address is reinterpreted, not
	// converted (which vet flags as a possible misuse).
	ptr := *(*unsafe.Pointer)(unsafe.Pointer(&p))
	b := unsafe.Slice((*byte)(ptr), n*8)
	return unsafe.Slice((*uint64)(ptr), n), newMapped(b), nil
}

func unmap(b []byte) error {
	return windows.VirtualFree(uintptr(unsafe.Pointer(&b[0])), 0, windows.MEM_RELEASE)
}
