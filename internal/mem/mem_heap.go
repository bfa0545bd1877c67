//go:build !unix

package mem

import (
	"io"
	"io/fs"
	"os"
	"unsafe"
)

// OpenRegular opens the file at path for reading if it is a regular file,
// and otherwise returns an *fs.PathError saying what it is (checked on the
// opened file, not the path, so the file checked is the file read).
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.Open(path)
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

// MapFile reads the whole regular file at path into 64-byte-aligned memory
// from Alloc (mapped from HugeThreshold up where this system can map
// memory) on systems without file mappings in sift. Free the region when
// done.
func MapFile(path string) ([]byte, *Region, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	size := st.Size()
	if size < 0 || size > int64(^uint(0)>>1)-7 {
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: tooLarge("%d bytes are more than this platform can hold", size)}
	}
	if size == 0 {
		return []byte{}, &Region{}, nil
	}
	w, r, err := Alloc(int((size + 7) / 8))
	if err != nil {
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), size)
	if _, err := io.ReadFull(f, b); err != nil {
		r.Free()
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return b, r, nil
}
