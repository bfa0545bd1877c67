package format

import (
	"encoding/binary"
	"unsafe"
)

// littleEndian reports whether this machine stores integers little-endian,
// the byte order of the format.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// Words views a payload as little-endian uint64 words. When the machine is
// little-endian and b is 8-byte aligned the result aliases b (zero copy) and
// shared is true; otherwise it is a decoded copy. len(b) must be a multiple
// of 8 (callers validate sizes first); a trailing partial word is ignored.
func Words(b []byte) (w []uint64, shared bool) {
	n := len(b) / 8
	if n == 0 {
		return []uint64{}, false
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%8 == 0 {
		return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n), true
	}
	w = make([]uint64, n)
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return w, false
}

// WordBytes views words as their little-endian bytes, for writing. On a
// little-endian machine it aliases w; otherwise it is an encoded copy.
func WordBytes(w []uint64) []byte {
	if len(w) == 0 {
		return []byte{}
	}
	if littleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), 8*len(w))
	}
	b := make([]byte, 8*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint64(b[8*i:], x)
	}
	return b
}

// Words32 is Words for a payload of little-endian uint32 words (a Parquet
// split-block bitset): it aliases b on a little-endian machine when b is
// 4-byte aligned, else it decodes a copy. A trailing partial word is
// ignored.
func Words32(b []byte) (w []uint32, shared bool) {
	n := len(b) / 4
	if n == 0 {
		return []uint32{}, false
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), n), true
	}
	w = make([]uint32, n)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w, false
}

// Word32Bytes is WordBytes for uint32 words: their little-endian bytes,
// aliasing w on a little-endian machine.
func Word32Bytes(w []uint32) []byte {
	if len(w) == 0 {
		return []byte{}
	}
	if littleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), 4*len(w))
	}
	b := make([]byte, 4*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

// LittleEndian reports whether this machine stores integers little-endian,
// the byte order of the format (and of Parquet's bitsets).
func LittleEndian() bool { return littleEndian }
