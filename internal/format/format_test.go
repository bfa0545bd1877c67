package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/sift-go/sift/internal/errs"
	"github.com/sift-go/sift/internal/mem"
)

func sample(n int) (Header, []byte) {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i*7 + 3)
	}
	return Header{Kind: KindBlocked, Hash: HashXXH3, Seed: 0xdeadbeef, Params: [8]uint64{1, 2, 3}}, p
}

func TestRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 64, 1000, 3 << 20} {
		h, p := sample(n)
		enc := Encode(h, p)
		var buf bytes.Buffer
		if m, err := Write(&buf, h, p); err != nil || m != int64(len(enc)) || !bytes.Equal(buf.Bytes(), enc) {
			t.Fatalf("n=%d: Write differs from Encode (%v)", n, err)
		}
		got, payload, used, err := Decode(enc, KindBlocked, Options{})
		if err != nil || used != len(enc) || !bytes.Equal(payload, p) {
			t.Fatalf("n=%d: Decode: %v used %d", n, err, used)
		}
		h.PayloadLen, h.PayloadCRC, h.Version = uint64(n), Checksum(p), Version1
		if got != h {
			t.Fatalf("n=%d: header %+v, want %+v", n, got, h)
		}
		got, payload, read, err := Read(bytes.NewReader(append(enc, 0xff)), 0, Options{})
		if err != nil || read != int64(len(enc)) || !bytes.Equal(payload, p) || got != h {
			t.Fatalf("n=%d: Read: %v read %d", n, err, read)
		}
		if n > 0 && uintptr(unsafe.Pointer(&payload[0]))%Align != 0 {
			t.Fatalf("n=%d: Read payload not aligned", n)
		}
	}
}

func TestEveryTruncation(t *testing.T) {
	h, p := sample(200)
	enc := Encode(h, p)
	for i := 0; i < len(enc); i++ {
		_, _, _, err := Decode(enc[:i], 0, Options{})
		if !errors.Is(err, errs.Truncated) {
			t.Fatalf("Decode of %d/%d bytes: %v", i, len(enc), err)
		}
		_, _, _, err = Read(bytes.NewReader(enc[:i]), 0, Options{})
		if !errors.Is(err, errs.Truncated) {
			t.Fatalf("Read of %d/%d bytes: %v", i, len(enc), err)
		}
	}
}

func TestEveryHeaderBitFlip(t *testing.T) {
	h, p := sample(100)
	enc := Encode(h, p)
	for bit := 0; bit < HeaderSize*8; bit++ {
		bad := bytes.Clone(enc)
		bad[bit/8] ^= 1 << (bit % 8)
		_, _, _, err := Decode(bad, 0, Options{})
		switch {
		case bit < 64:
			if !errors.Is(err, errs.Magic) {
				t.Fatalf("bit %d (magic): %v", bit, err)
			}
		case bit < 80:
			if !errors.Is(err, errs.Version) {
				t.Fatalf("bit %d (version): %v", bit, err)
			}
		default:
			if !errors.Is(err, errs.Checksum) {
				t.Fatalf("bit %d: %v", bit, err)
			}
		}
	}
	bad := bytes.Clone(enc)
	bad[len(bad)-1] ^= 0x10
	if _, _, _, err := Decode(bad, 0, Options{}); !errors.Is(err, errs.Checksum) {
		t.Fatalf("payload flip: %v", err)
	}
	if _, _, _, err := Decode(bad, 0, Options{SkipPayloadCRC: true}); err != nil {
		t.Fatalf("payload flip with SkipPayloadCRC: %v", err)
	}
}

// forge re-encodes a header with edited fields and a valid header CRC, as
// an attacker could.
func forge(enc []byte, edit func(b []byte)) []byte {
	b := bytes.Clone(enc)
	edit(b)
	binary.LittleEndian.PutUint32(b[124:], Checksum(b[:124]))
	return b
}

func TestForgedHeaders(t *testing.T) {
	h, p := sample(64)
	enc := Encode(h, p)
	cases := []struct {
		name string
		edit func(b []byte)
		want error
	}{
		{"future version", func(b []byte) { b[8] = 3 }, errs.Version},
		{"kind 0", func(b []byte) { b[10] = 0 }, errs.Corrupt},
		{"kind 200", func(b []byte) { b[10] = 200 }, errs.Corrupt},
		{"wrong kind", func(b []byte) { b[10] = byte(KindCuckoo) }, errs.Kind},
		{"hash 9", func(b []byte) { b[11] = 9 }, errs.Corrupt},
		{"flags", func(b []byte) { b[12] = 1 }, errs.Corrupt},
		{"reserved", func(b []byte) { b[44] = 1 }, errs.Corrupt},
		{"reserved tail", func(b []byte) { b[120] = 1 }, errs.Corrupt},
		{"offset unaligned", func(b []byte) { binary.LittleEndian.PutUint64(b[24:], 130) }, errs.Corrupt},
		// Aligned to 8 and 32 bytes, not to the 64 FORMAT.md asks for.
		{"offset 136", func(b []byte) { binary.LittleEndian.PutUint64(b[24:], 136) }, errs.Corrupt},
		{"offset 160", func(b []byte) { binary.LittleEndian.PutUint64(b[24:], 160) }, errs.Corrupt},
		{"offset small", func(b []byte) { binary.LittleEndian.PutUint64(b[24:], 64) }, errs.Corrupt},
		{"offset huge", func(b []byte) { binary.LittleEndian.PutUint64(b[24:], 1<<62) }, errs.Corrupt},
		{"payload 1 GiB", func(b []byte) { binary.LittleEndian.PutUint64(b[32:], 1<<30) }, errs.Truncated},
		{"payload 2^63", func(b []byte) { binary.LittleEndian.PutUint64(b[32:], 1<<63) }, errs.TooLarge},
		{"payload 2^64-1", func(b []byte) { binary.LittleEndian.PutUint64(b[32:], ^uint64(0)) }, errs.TooLarge},
	}
	for _, c := range cases {
		bad := forge(enc, c.edit)
		if _, _, _, err := Decode(bad, KindBlocked, Options{}); !errors.Is(err, c.want) {
			t.Errorf("%s: Decode: %v, want %v", c.name, err, c.want)
		}
		if _, _, _, err := Read(bytes.NewReader(bad), KindBlocked, Options{}); !errors.Is(err, c.want) {
			t.Errorf("%s: Read: %v, want %v", c.name, err, c.want)
		}
	}
	if _, _, _, err := Decode(enc, KindBlocked, Options{MaxPayload: 63}); !errors.Is(err, errs.TooLarge) {
		t.Errorf("MaxPayload: %v", err)
	}
	if _, _, _, err := Decode(nil, 0, Options{}); !errors.Is(err, errs.Truncated) {
		t.Errorf("empty input: %v", err)
	}
	if _, _, _, err := Decode([]byte("this is plainly not a filter at all"), 0, Options{}); !errors.Is(err, errs.Magic) {
		t.Errorf("text input: %v", err)
	}
	// Short inputs: ErrMagic once their bytes differ from the magic, from
	// the buffer and the stream readers alike (Read said ErrTruncated
	// under 8 bytes).
	for in, want := range map[string]error{"abc": errs.Magic, "\x89SI": errs.Truncated, "": errs.Truncated} {
		if _, _, _, err := Decode([]byte(in), 0, Options{}); !errors.Is(err, want) {
			t.Errorf("Decode(%q): %v, want %v", in, err, want)
		}
		if _, _, _, err := Read(strings.NewReader(in), 0, Options{}); !errors.Is(err, want) {
			t.Errorf("Read(%q): %v, want %v", in, err, want)
		}
	}
	// Non-zero padding between header and a larger payload offset.
	padded := forge(enc, func(b []byte) { binary.LittleEndian.PutUint64(b[24:], 192) })
	padded = append(padded[:HeaderSize], append(bytes.Repeat([]byte{0}, 64), p...)...)
	if _, got, _, err := Decode(padded, 0, Options{}); err != nil || !bytes.Equal(got, p) {
		t.Errorf("offset 192: %v", err)
	}
	padded[HeaderSize+5] = 1
	if _, _, _, err := Decode(padded, 0, Options{}); !errors.Is(err, errs.Corrupt) {
		t.Errorf("non-zero padding: %v", err)
	}
	if _, _, _, err := Read(bytes.NewReader(padded), 0, Options{}); !errors.Is(err, errs.Corrupt) {
		t.Errorf("non-zero padding (Read): %v", err)
	}
}

// TestReadBoundedMemory: a header claiming 1 GiB over a short stream
// must not allocate anywhere near that: one first chunk, well inside the
// 64 KiB that the fuzz tests allow a decode of a short input, size-class
// rounding included (a 64 KiB first chunk, 64 KiB + 63 bytes aligned,
// took 72 KiB).
func TestReadBoundedMemory(t *testing.T) {
	h, p := sample(64)
	bad := forge(Encode(h, p), func(b []byte) { binary.LittleEndian.PutUint64(b[32:], 1<<30) })
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _, _, err := Read(bytes.NewReader(bad), 0, Options{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, errs.Truncated) {
		t.Fatal(err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 32<<10 {
		t.Fatalf("Read allocated %d bytes for a 192-byte input", d)
	}
}

// headerReader serves the first 128 bytes of b and fails the test if more
// is read.
type headerReader struct {
	t *testing.T
	b []byte
}

func (h *headerReader) Read(p []byte) (int, error) {
	if len(h.b) == 0 {
		h.t.Error("read past the header")
		return 0, io.EOF
	}
	n := copy(p, h.b)
	h.b = h.b[n:]
	return n, nil
}

// TestReadMachineMemory: a declared payload larger than the machine's
// memory is ErrTooLarge before anything after the header is read (the
// payload buffer is Go heap memory, whose exhaustion ends the process).
func TestReadMachineMemory(t *testing.T) {
	m := mem.MachineMemory()
	if m == 0 {
		t.Skip("this system does not report its memory")
	}
	h, p := sample(64)
	bad := forge(Encode(h, p), func(b []byte) { binary.LittleEndian.PutUint64(b[32:], m+64) })
	_, _, _, err := Read(&headerReader{t, bad[:HeaderSize]}, 0, Options{})
	if !errors.Is(err, errs.TooLarge) {
		t.Fatalf("a payload of the machine's memory + 64 bytes: %v", err)
	}
	// Within the machine's memory (and a 32-bit platform's address
	// space), the same short stream is truncated.
	ok := forge(Encode(h, p), func(b []byte) { binary.LittleEndian.PutUint64(b[32:], min(m/2, math.MaxInt/2)) })
	if _, _, _, err := Read(bytes.NewReader(ok[:HeaderSize]), 0, Options{}); !errors.Is(err, errs.Truncated) {
		t.Fatalf("a payload of half the machine's memory over no data: %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestReadIOError(t *testing.T) {
	_, _, _, err := Read(errReader{}, 0, Options{})
	if !errors.Is(err, io.ErrClosedPipe) || errors.Is(err, errs.Truncated) {
		t.Fatalf("got %v", err)
	}
}

func TestWords(t *testing.T) {
	b := make([]byte, 8*5+1)
	for i := range b {
		b[i] = byte(i)
	}
	for off := 0; off < 2; off++ {
		w, _ := Words(b[off : off+40])
		for i, x := range w {
			if x != binary.LittleEndian.Uint64(b[off+8*i:]) {
				t.Fatalf("off %d word %d", off, i)
			}
		}
		if !bytes.Equal(WordBytes(w), b[off:off+40]) {
			t.Fatalf("off %d: WordBytes", off)
		}
	}
	if w, _ := Words(nil); len(w) != 0 {
		t.Fatal("Words(nil)")
	}
}

func FuzzDecode(f *testing.F) {
	h, p := sample(70)
	f.Add(Encode(h, p))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, payload, n, err := Decode(b, 0, Options{})
		if err != nil {
			return
		}
		if n > len(b) || uint64(len(payload)) != h.PayloadLen {
			t.Fatalf("n=%d len=%d payload=%d", n, len(b), len(payload))
		}
		h3, p3, _, err := Decode(Encode(h, payload), 0, Options{})
		if err != nil || h3 != h || !bytes.Equal(p3, payload) {
			t.Fatalf("valid decode does not round-trip: %v", err)
		}
		h2, p2, m, err := Read(bytes.NewReader(b), 0, Options{})
		if err != nil || h2 != h || !bytes.Equal(p2, payload) || m != int64(n) {
			t.Fatalf("Read disagrees with Decode: %v", err)
		}
	})
}

func TestWords32(t *testing.T) {
	b := make([]byte, 4*9+2)
	for i := range b {
		b[i] = byte(i*5 + 1)
	}
	for off := 0; off < 3; off++ {
		w, shared := Words32(b[off : off+36])
		if shared != (littleEndian && uintptr(unsafe.Pointer(&b[off]))%4 == 0) {
			t.Fatalf("off %d: shared = %v", off, shared)
		}
		for i, x := range w {
			if x != binary.LittleEndian.Uint32(b[off+4*i:]) {
				t.Fatalf("off %d word %d", off, i)
			}
		}
		if !bytes.Equal(Word32Bytes(w), b[off:off+36]) {
			t.Fatalf("off %d: Word32Bytes", off)
		}
	}
	if w, _ := Words32(nil); len(w) != 0 || len(Word32Bytes(nil)) != 0 {
		t.Fatal("empty")
	}
}

// TestKinds: every kind up to MaxKind and every hash up to HashXXH64 is
// accepted, the next ones are not, and each has a name.
func TestKinds(t *testing.T) {
	_, p := sample(64)
	for k := KindBlocked; k <= MaxKind+1; k++ {
		for hash := HashXXH3; hash <= HashXXH64+1; hash++ {
			_, _, _, err := Decode(Encode(Header{Kind: k, Hash: hash}, p), 0, Options{})
			if ok := k <= MaxKind && !k.Retired() && hash <= HashXXH64; ok != (err == nil) {
				t.Errorf("kind %d hash %d: %v", k, hash, err)
			}
		}
		if name := k.String(); (k <= MaxKind) == strings.HasPrefix(name, "kind(") {
			t.Errorf("kind %d is named %q", k, name)
		}
	}
	if KindSplitBlock.String() != "sbbf" || HashXXH64.String() != "xxh64" {
		t.Error("names")
	}
}

// TestGenerationVersion2: a header with a generation is version 2 and
// reads back with it; one without is version 1, byte for byte the layout
// before version 2 existed (bytes 112..123 zero); SetGeneration moves a
// record between the two without touching the payload.
func TestGenerationVersion2(t *testing.T) {
	h, p := sample(256)
	v1 := Encode(h, p)
	if got := binary.LittleEndian.Uint16(v1[8:]); got != Version1 {
		t.Fatalf("no generation: version %d, want 1", got)
	}
	if !bytes.Equal(v1[112:124], make([]byte, 12)) {
		t.Fatalf("version 1 bytes 112..123 are % x", v1[112:124])
	}
	h.Generation = 0x0102030405060708
	v2 := Encode(h, p)
	if got := binary.LittleEndian.Uint16(v2[8:]); got != Version2 {
		t.Fatalf("generation: version %d, want 2", got)
	}
	if !bytes.Equal(v1[HeaderSize:], v2[HeaderSize:]) {
		t.Fatal("the generation changed the payload")
	}
	got, _, _, err := Decode(v2, 0, Options{})
	if err != nil || got.Generation != h.Generation || got.Version != Version2 {
		t.Fatalf("Decode v2: %+v, %v", got, err)
	}
	got, _, _, err = Read(bytes.NewReader(v2), 0, Options{})
	if err != nil || got.Generation != h.Generation || got.Version != Version2 {
		t.Fatalf("Read v2: %+v, %v", got, err)
	}
	got, _, _, err = Decode(v1, 0, Options{})
	if err != nil || got.Generation != 0 || got.Version != Version1 {
		t.Fatalf("Decode v1: %+v, %v", got, err)
	}

	s := bytes.Clone(v1)
	if err := SetGeneration(s, h.Generation); err != nil || !bytes.Equal(s, v2) {
		t.Fatalf("SetGeneration(v1, g) = %v; equal to the v2 encoding: %v", err, bytes.Equal(s, v2))
	}
	if err := SetGeneration(s, 0); err != nil || !bytes.Equal(s, v1) {
		t.Fatalf("SetGeneration(v2, 0) = %v; equal to the v1 encoding: %v", err, bytes.Equal(s, v1))
	}
	bad := bytes.Clone(v1)
	bad[50] ^= 1 // header CRC no longer matches
	if err := SetGeneration(bad, 7); !errors.Is(err, errs.Checksum) {
		t.Fatalf("SetGeneration on a damaged header: %v", err)
	}
	if bad[8] != Version1 || bad[112] != 0 {
		t.Fatal("SetGeneration changed a header it refused")
	}
	if err := SetGeneration(v1[:100], 7); !errors.Is(err, errs.Truncated) {
		t.Fatalf("SetGeneration on 100 bytes: %v", err)
	}

	for _, c := range []struct {
		name string
		enc  []byte
		edit func(b []byte)
		want error
	}{
		{"v1 with a generation", v1, func(b []byte) { b[112] = 1 }, errs.Corrupt},
		{"v1 byte 119", v1, func(b []byte) { b[119] = 1 }, errs.Corrupt},
		{"v2 generation 0", v2, func(b []byte) { binary.LittleEndian.PutUint64(b[112:], 0) }, errs.Corrupt},
		{"v2 reserved 120", v2, func(b []byte) { b[120] = 1 }, errs.Corrupt},
		{"v2 reserved 123", v2, func(b []byte) { b[123] = 1 }, errs.Corrupt},
		{"v2 reserved 44", v2, func(b []byte) { b[44] = 1 }, errs.Corrupt},
		{"version 0", v1, func(b []byte) { b[8] = 0 }, errs.Version},
		{"version 3", v2, func(b []byte) { b[8] = 3 }, errs.Version},
		{"version 258", v2, func(b []byte) { b[9] = 1 }, errs.Version},
	} {
		if _, _, _, err := Decode(forge(c.enc, c.edit), 0, Options{}); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// TestRetiredKind: a record of kind 7 or 8 (the unreleased window
// layouts) is refused with an error that says to rebuild it, and is named.
func TestRetiredKind(t *testing.T) {
	_, p := sample(64)
	for _, k := range []Kind{KindWindowV0, KindWindowV1} {
		_, _, _, err := Decode(Encode(Header{Kind: k, Hash: HashXXH3}, p), 0, Options{})
		if !errors.Is(err, errs.Kind) || !strings.Contains(err.Error(), "rebuild") {
			t.Fatalf("kind %d: %v, want a kind error saying to rebuild", k, err)
		}
		if !k.Retired() {
			t.Fatalf("kind %d is not retired", k)
		}
	}
	if KindWindowV0.String() != "window-v0" || KindWindowV1.String() != "window-v1" || KindWindow.Retired() {
		t.Fatal("the retired kinds' names, or Retired")
	}
}
