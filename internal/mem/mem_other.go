//go:build !unix

package mem

import "os"

func mapAnon(n int) ([]uint64, *Region, bool) { return nil, nil, false }

func unmap(b []byte) error { return nil }

// MapFile reads the whole file at path into 64-byte-aligned heap memory on
// systems without mmap support in sift; the region's Free is a no-op.
func MapFile(path string) ([]byte, *Region, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	b := AlignedBytes(len(data))
	copy(b, data)
	return b, &Region{}, nil
}
