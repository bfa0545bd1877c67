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
