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

// FilesMapped reports whether MapFile maps files (here) or reads them into
// memory of its own.
const FilesMapped = true

// openNonblock is OpenRegular's extra open flag: with O_NONBLOCK, opening
// a FIFO that has no writer returns at once (a plain open waits for a
// writer, forever if none comes). It does not change reads of regular
// files.
const openNonblock = syscall.O_NONBLOCK

// MapFile maps the whole regular file at path read-only (see OpenRegular:
// it never blocks on a FIFO or device). The returned region must be freed
// to unmap it (or is unmapped by its finalizer). Large mappings get
// huge-page and will-need advice (the payload is about to be read in full
// by the checksum pass). An empty file is returned as an empty slice with a
// no-op region.
func MapFile(path string) ([]byte, *Region, error) {
	b, r, _, err := MapFileStat(path)
	return b, r, err
}

// MapFileStat is MapFile that also returns what fstat said of the file it
// mapped (its identity: the file the path named when it was opened).
func MapFileStat(path string) ([]byte, *Region, fs.FileInfo, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	b, r, err := MapOpen(f, st)
	return b, r, st, err
}

// MapOpen maps the open regular file f, whose fstat said st, read-only, as
// MapFile does. f may be closed afterwards; the mapping stays.
func MapOpen(f *os.File, st fs.FileInfo) ([]byte, *Region, error) {
	path := f.Name()
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
