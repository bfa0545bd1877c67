package classic

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// Guava's Funnels.unencodedCharsFunnel() puts a CharSequence with
// PrimitiveSink.putUnencodedChars, which murmur3_128's hasher takes as
// putChar of each UTF-16 code unit in turn, two bytes little-endian. So the
// key's bytes are the string's UTF-16LE encoding, whatever the platform.
// Code units reach murmur3 through arithmetic or explicit little-endian
// stores, never by reinterpreting memory, so big-endian machines hash the
// same bytes.

// murmur3UTF16 returns murmur3_128 of the UTF-16LE bytes of the code units u.
func murmur3UTF16(u []uint16) (uint64, uint64) {
	var h1, h2 uint64
	n := len(u)
	for ; len(u) >= 8; u = u[8:] {
		k1 := uint64(u[0]) | uint64(u[1])<<16 | uint64(u[2])<<32 | uint64(u[3])<<48
		k2 := uint64(u[4]) | uint64(u[5])<<16 | uint64(u[6])<<32 | uint64(u[7])<<48
		h1, h2 = murmurBlock(h1, h2, k1, k2)
	}
	var tail [16]byte
	for i, x := range u {
		binary.LittleEndian.PutUint16(tail[2*i:], x)
	}
	return murmurFrom(h1, h2, tail[:2*len(u)], 2*n)
}

// charsBuf is the size of murmur3Chars' buffer of UTF-16LE bytes. It
// decodes while at most charsBuf-18 bytes are pending: one step writes at
// most 18 bytes (16 for eight widened bytes, of which it keeps at most 14
// when one is not ASCII, then 4 for a surrogate pair).
const charsBuf = 144

// murmur3Chars returns murmur3_128 of the UTF-16LE bytes of the Java String
// that s decodes to (see javaDecodeRune): what Guava hashes for that String
// through Funnels.unencodedCharsFunnel(). Runs of ASCII are hashed straight
// from s, eight bytes to a block, while no code units are pending; other
// text is decoded into a buffer on the stack (ASCII still eight bytes at a
// time), whose whole 16-byte blocks are hashed each time it fills.
func murmur3Chars(s string) (uint64, uint64) {
	var buf [charsBuf]byte
	var h1, h2 uint64
	n, hashed := 0, 0 // bytes in buf; bytes already hashed
	for i := 0; i < len(s); {
		if n == 0 {
			// Nothing pending: eight ASCII bytes are one whole block.
			for ; len(s)-i >= 8; i += 8 {
				w := binary.LittleEndian.Uint64(keyBytes(s[i : i+8]))
				if w&0x8080808080808080 != 0 {
					break
				}
				h1, h2 = murmurBlock(h1, h2, widenASCII(uint32(w)), widenASCII(uint32(w>>32)))
				hashed += 16
			}
		}
		for i < len(s) && n <= charsBuf-18 {
			if len(s)-i >= 8 {
				// Widen the next eight bytes at once and keep the units of
				// those before the first non-ASCII byte (the others lie past
				// n and are overwritten).
				w := binary.LittleEndian.Uint64(keyBytes(s[i : i+8]))
				binary.LittleEndian.PutUint64(buf[n:], widenASCII(uint32(w)))
				binary.LittleEndian.PutUint64(buf[n+8:], widenASCII(uint32(w>>32)))
				ascii := 8
				if m := w & 0x8080808080808080; m != 0 {
					ascii = bits.TrailingZeros64(m) >> 3
				}
				n += 2 * ascii
				i += ascii
				if ascii == 8 {
					continue
				}
			} else if c := s[i]; c < utf8.RuneSelf {
				binary.LittleEndian.PutUint16(buf[n:], uint16(c))
				n += 2
				i++
				continue
			}
			// s[i] >= 0x80.
			r, size := javaDecodeRune(s[i:])
			i += size
			if r >= 0x10000 { // a surrogate pair, the high surrogate first
				r -= 0x10000
				binary.LittleEndian.PutUint16(buf[n:], uint16(0xd800+r>>10))
				binary.LittleEndian.PutUint16(buf[n+2:], uint16(0xdc00+r&0x3ff))
				n += 4
			} else {
				binary.LittleEndian.PutUint16(buf[n:], uint16(r))
				n += 2
			}
		}
		full := n &^ 15
		for j := 0; j < full; j += 16 {
			h1, h2 = murmurBlock(h1, h2, binary.LittleEndian.Uint64(buf[j:]), binary.LittleEndian.Uint64(buf[j+8:]))
		}
		hashed += full
		n = copy(buf[:], buf[full:n])
	}
	return murmurFrom(h1, h2, buf[:n], hashed+n)
}

// widenASCII spreads the four bytes of x into four 16-bit lanes, low byte
// first: the UTF-16LE bytes of four ASCII characters.
func widenASCII(x uint32) uint64 {
	v := uint64(x)
	v = (v | v<<16) & 0x0000ffff0000ffff
	return (v | v<<8) & 0x00ff00ff00ff00ff
}

// javaDecodeRune decodes the UTF-8 sequence at the start of s (non-empty,
// s[0] >= 0x80) as Java decodes UTF-8 into a String (new String(bytes,
// UTF_8), or a CharsetDecoder that replaces malformed input) and returns the
// code point and the number of bytes it consumed.
//
// Valid UTF-8 decodes as in Go. Malformed input becomes U+FFFD, one for
// each maximal prefix of a well-formed sequence: a lead byte followed by as
// many fitting continuation bytes as there are (one U+FFFD in all for
// "\xe2\x82", two for "\xe2\x41" with the A kept), and one for any other
// byte. Unlike Unicode's recommendation (and unlike Go's decoder, which
// replaces each byte separately), Java accepts 0xA0..0xBF after 0xED as a
// prefix, so an encoded surrogate "\xed\xa0\x80" is one U+FFFD, not three.
// The golden vectors pin this against Java.
func javaDecodeRune(s string) (rune, int) {
	b := s[0]
	lo, hi := byte(0x80), byte(0xbf) // the range of the second byte
	var n int                        // the length the lead byte announces
	switch {
	case b >= 0xc2 && b <= 0xdf:
		n = 2
	case b >= 0xe0 && b <= 0xef:
		n = 3
		if b == 0xe0 {
			lo = 0xa0 // no overlong forms
		}
	case b >= 0xf0 && b <= 0xf4:
		n = 4
		if b == 0xf0 {
			lo = 0x90 // no overlong forms
		} else if b == 0xf4 {
			hi = 0x8f // nothing above U+10FFFF
		}
	default: // a continuation byte, 0xc0, 0xc1 or 0xf5..0xff
		return utf8.RuneError, 1
	}
	if len(s) < 2 || s[1] < lo || s[1] > hi {
		return utf8.RuneError, 1
	}
	r := rune(b&(0x7f>>n))<<6 | rune(s[1]&0x3f)
	for j := 2; j < n; j++ {
		if j >= len(s) || s[j]&0xc0 != 0x80 {
			return utf8.RuneError, j
		}
		r = r<<6 | rune(s[j]&0x3f)
	}
	if r >= 0xd800 && r <= 0xdfff { // "\xed\xa0\x80".."\xed\xbf\xbf"
		return utf8.RuneError, 3
	}
	return r, n
}
