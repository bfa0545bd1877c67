//go:build unix

package mem

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

func mapAnon(n int) ([]uint64, *Region, bool) {
	b, err := unix.Mmap(-1, 0, n*8, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, false
	}
	adviseHuge(b) // advice only: fine if THP is off
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n), &Region{mapped: b}, true
}

func unmap(b []byte) error { return unix.Munmap(b) }

// MapFile maps the whole file at path read-only. The returned region must be
// freed to unmap it. Large mappings get huge-page and will-need advice (the
// payload is about to be read in full by the checksum pass). An empty file
// is returned as an empty slice with a no-op region.
func MapFile(path string) ([]byte, *Region, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("sift: %s is not a regular file", path)
	}
	if size == 0 {
		return []byte{}, &Region{}, nil
	}
	if size != int64(int(size)) || size > int64(^uint(0)>>1) {
		return nil, nil, fmt.Errorf("sift: %s is too large to map (%d bytes)", path, size)
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("sift: mmap %s: %w", path, err)
	}
	if size >= HugeThreshold {
		adviseHuge(b)
		_ = unix.Madvise(b, unix.MADV_WILLNEED)
	}
	return b, &Region{mapped: b}, nil
}
