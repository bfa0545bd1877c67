package classic

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// utf16LE is the reference byte form of code units: what Guava's
// putUnencodedChars feeds murmur3 (TestGoldenMurmur3 pins it to Guava).
func utf16LE(u []uint16) []byte {
	b := make([]byte, 0, 2*len(u))
	for _, x := range u {
		b = binary.LittleEndian.AppendUint16(b, x)
	}
	return b
}

// TestMurmur3UTF16 checks the code-unit path against murmur3 of the
// UTF-16LE bytes, at every tail length and over several blocks.
func TestMurmur3UTF16(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 1))
	for n := 0; n <= 70; n++ {
		for rep := 0; rep < 20; rep++ {
			u := make([]uint16, n)
			for i := range u {
				u[i] = uint16(r.Uint32())
			}
			g1, g2 := murmur3UTF16(u)
			w1, w2 := murmur3(utf16LE(u))
			if g1 != w1 || g2 != w2 {
				t.Fatalf("murmur3UTF16(%04x) = %x %x, murmur3 of its bytes %x %x", u, g1, g2, w1, w2)
			}
		}
	}
}

// randomText returns a string of up to n bytes mixing ASCII runs (long
// enough for the eight-byte fast path), two- to four-byte characters and,
// when invalid is set, stray and truncated bytes.
func randomText(r *rand.Rand, n int, invalid bool) string {
	var b []byte
	for len(b) < n {
		switch k := r.IntN(10); {
		case k < 4:
			for m := r.IntN(20); m >= 0; m-- {
				b = append(b, byte(0x20+r.IntN(0x5f)))
			}
		case k < 8:
			var c rune
			switch r.IntN(3) {
			case 0:
				c = rune(0x80 + r.IntN(0x780))
			case 1:
				c = rune(0x800 + r.IntN(0xf800))
			default:
				c = rune(0x10000 + r.IntN(0x100000))
			}
			if !utf8.ValidRune(c) {
				c = 'é'
			}
			b = utf8.AppendRune(b, c)
		case invalid && k == 8:
			b = append(b, byte(0x80+r.IntN(0x80)))
		case invalid:
			full := utf8.AppendRune(nil, rune(0x800+r.IntN(0x10f800)))
			b = append(b, full[:1+r.IntN(len(full))]...)
		}
	}
	return string(b)
}

// TestMurmur3Chars checks the streaming hash of a Go string (its ASCII
// fast path, shift register and surrogate pairs) against hashing the code
// units of the same text, and the decoding of valid UTF-8 against Go's.
func TestMurmur3Chars(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 2))
	iters := 20000
	if testing.Short() {
		iters = 3000
	}
	for i := 0; i < iters; i++ {
		s := randomText(r, r.IntN(100), i%2 == 1)
		units := javaUnits(s)
		if utf8.ValidString(s) {
			if want := utf16.Encode([]rune(s)); !slices.Equal(units, want) {
				t.Fatalf("javaUnits(%q) = %04x, UTF-16 %04x", s, units, want)
			}
		}
		g1, g2 := murmur3Chars(s)
		w1, w2 := murmur3UTF16(units)
		if g1 != w1 || g2 != w2 {
			t.Fatalf("murmur3Chars(%q) differs from murmur3UTF16(%04x)", s, units)
		}
	}
	// Every ASCII length around the block size, and ASCII after a
	// non-ASCII start (the fast path resumes only on a block boundary).
	for _, prefix := range []string{"", "é", "😀", "\xff", "ab\u20ac"} {
		for n := 0; n <= 40; n++ {
			s := prefix + strings.Repeat("x", n)
			g1, g2 := murmur3Chars(s)
			if w1, w2 := murmur3UTF16(javaUnits(s)); g1 != w1 || g2 != w2 {
				t.Fatalf("murmur3Chars(%q) differs from murmur3UTF16", s)
			}
		}
	}
}

// TestJavaDecodeRune pins the replacement of malformed UTF-8 to what Java's
// new String(bytes, UTF_8) does (TestGoldenUTF8 checks many more inputs
// against Java itself).
func TestJavaDecodeRune(t *testing.T) {
	const fffd = 0xfffd
	for _, c := range []struct {
		in   string
		want []uint16
	}{
		{"\xe2\x82\xac", []uint16{0x20ac}},
		{"\xe2\x82", []uint16{fffd}},                   // truncated: one U+FFFD, where Go has two
		{"\xe2\x82A", []uint16{fffd, 'A'}},             // the valid prefix is replaced as one
		{"\xe2A", []uint16{fffd, 'A'}},                 // the A is kept
		{"\xed\xa0\x80", []uint16{fffd}},               // an encoded surrogate is one U+FFFD in Java
		{"\xed\xa0", []uint16{fffd}},                   // and so is its prefix
		{"\xed\x9f\xbf", []uint16{0xd7ff}},             // the last character before the surrogates
		{"\xe0\x80\x80", []uint16{fffd, fffd, fffd}},   // overlong: 0xe0 needs 0xa0..0xbf next
		{"\xc0\x80", []uint16{fffd, fffd}},             // overlong two-byte form
		{"\xc2", []uint16{fffd}},                       // truncated at the end
		{"\xf0\x9f\x98\x80", []uint16{0xd83d, 0xde00}}, // a surrogate pair
		{"\xf0\x9f\x98", []uint16{fffd}},               // truncated four-byte form
		{"\xf0\x9fA", []uint16{fffd, 'A'}},             // broken after two bytes
		{"\xf0\x80\x80\x80", []uint16{fffd, fffd, fffd, fffd}},
		{"\xf4\x8f\xbf\xbf", []uint16{0xdbff, 0xdfff}},         // U+10FFFF
		{"\xf4\x90\x80\x80", []uint16{fffd, fffd, fffd, fffd}}, // above U+10FFFF
		{"\xf5\x80", []uint16{fffd, fffd}},
		{"\x80\xbf", []uint16{fffd, fffd}}, // stray continuation bytes
		{"\xff", []uint16{fffd}},
	} {
		if got := javaUnits(c.in); !slices.Equal(got, c.want) {
			t.Errorf("javaUnits(%q) = %04x, want %04x", c.in, got, c.want)
		}
	}
}

func TestUnencodedCharsFilter(t *testing.T) {
	for _, s := range []Strategy{Murmur128Mitz32, Murmur128Mitz64} {
		f, err := New(2000, 0.001, WithStrategy(s))
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(17, 3))
		keys := make([]string, 1000)
		for i := range keys {
			keys[i] = randomText(r, 1+r.IntN(30), i%3 == 0)
			f.PutUnencodedChars(keys[i])
		}
		for _, k := range keys {
			if !f.MightContainUnencodedChars(k) || !f.MightContainUTF16(javaUnits(k)) {
				t.Fatalf("%v: %q not found", s, k)
			}
		}
		// The units of a string, put as units, are found as the string.
		g, _ := New(100, 0.01, WithStrategy(s))
		g.PutUTF16(utf16.Encode([]rune("Grüße, 世界 😀")))
		if !g.MightContainUnencodedChars("Grüße, 世界 😀") {
			t.Fatalf("%v: PutUTF16 and MightContainUnencodedChars disagree", s)
		}
		// Invalid UTF-8 is the String Java decodes from it, not the bytes.
		g.PutUnencodedChars("a\xed\xa0\x80b")
		if !g.MightContainUTF16([]uint16{'a', 0xfffd, 'b'}) {
			t.Fatalf("%v: invalid UTF-8 not hashed as Java's decoded String", s)
		}
	}
	// A different funnel from the UTF-8 one: the same text hashes apart.
	a1, a2 := murmur3Chars("hello")
	if b1, b2 := murmur3([]byte("hello")); a1 == b1 && a2 == b2 {
		t.Fatal("unencoded chars and UTF-8 hash alike")
	}
}

// FuzzMurmur3Chars checks, for any bytes, that the streaming hash of a Go
// string equals the hash of the code units javaDecodeRune yields, that
// valid UTF-8 decodes as Go decodes it, and that decoding consumes every
// byte with at most one code point per byte.
func FuzzMurmur3Chars(f *testing.F) {
	for _, s := range []string{"", "a", "0123456789abcdefghij", "Grüße 😀", "\xed\xa0\x80", "\xf0\x9f\x98", "abcdefg\xe2\x82\xacxyz01234567", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		units := javaUnits(s)
		if len(units) > len(s) {
			t.Fatalf("%q decodes to %d code units", s, len(units))
		}
		if utf8.ValidString(s) && !slices.Equal(units, utf16.Encode([]rune(s))) {
			t.Fatalf("javaUnits(%q) = %04x, UTF-16 %04x", s, units, utf16.Encode([]rune(s)))
		}
		g1, g2 := murmur3Chars(s)
		if w1, w2 := murmur3UTF16(units); g1 != w1 || g2 != w2 {
			t.Fatalf("murmur3Chars(%q) differs from murmur3UTF16(%04x)", s, units)
		}
		if w1, w2 := murmur3(utf16LE(units)); g1 != w1 || g2 != w2 {
			t.Fatalf("murmur3Chars(%q) differs from murmur3 of the UTF-16LE bytes", s)
		}
	})
}
