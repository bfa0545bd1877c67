//go:build !unix

package mem

import (
	"io/fs"
	"os"
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
	b, r, _, err := ReadFile(path)
	return b, r, err
}

// MapFileStat is MapFile that also returns what fstat said of the file
// read: here ReadFile.
func MapFileStat(path string) ([]byte, *Region, fs.FileInfo, error) { return ReadFile(path) }

// MapOpen reads the open regular file f, whose fstat said st, into memory
// of its own: ReadOpen.
func MapOpen(f *os.File, st fs.FileInfo) ([]byte, *Region, error) { return ReadOpen(f, st) }
