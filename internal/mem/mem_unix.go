//go:build unix

package mem

import (
	"io/fs"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// canMap reports whether Alloc maps big allocations here.
const canMap = true

func mapAnon(n int) ([]uint64, *Region, error) {
	b, err := unix.Mmap(-1, 0, n*8, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	adviseHuge(b) // advice only: fine if THP is off
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n), newMapped(b), nil
}

func unmap(b []byte) error { return unix.Munmap(b) }

// OpenRegular opens the file at path for reading if it is a regular file,
// and otherwise returns an *fs.PathError saying what it is. It never
// blocks: it opens with O_NONBLOCK, under which opening a FIFO with no
// writer returns at once (a plain open waits for a writer, forever if none
// comes), and then checks the type of what it opened with fstat, so the
// file checked is the file read (a Stat before the open could check one
// file and open another that replaced it). O_NONBLOCK does not change
// reads of regular files.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(path, st.Mode())
	}
	return f, st, nil
}

// MapFile maps the whole regular file at path read-only (see OpenRegular:
// it never blocks on a FIFO or device). The returned region must be freed
// to unmap it (or is unmapped by its finalizer). Large mappings get
// huge-page and will-need advice (the payload is about to be read in full
// by the checksum pass). An empty file is returned as an empty slice with a
// no-op region.
func MapFile(path string) ([]byte, *Region, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	size := st.Size()
	if size == 0 {
		return []byte{}, &Region{}, nil
	}
	if size < 0 || size != int64(int(size)) {
		return nil, nil, &fs.PathError{Op: "mmap", Path: path, Err: tooLarge("%d bytes are more than this platform can map", size)}
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "mmap", Path: path, Err: err}
	}
	if size >= HugeThreshold {
		adviseHuge(b)
		_ = unix.Madvise(b, unix.MADV_WILLNEED)
	}
	return b, newMapped(b), nil
}
