//go:build !unix

package mem

import (
	"io"
	"io/fs"
	"unsafe"
)

// FilesMapped reports whether MapFile maps files or, as here, reads them
// into memory of its own (which Alloc may have mapped, from HugeThreshold
// up: Region.Mapped is then true, but the memory is a copy).
const FilesMapped = false

// openNonblock is OpenRegular's extra open flag: none here.
const openNonblock = 0

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
