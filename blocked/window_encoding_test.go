package blocked

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sift-go/sift/internal/format"
)

// TestWindowRoundTrip saves a window, reads it back under the same clock
// moved on, and checks that it resumes: keys inside their window are found,
// keys past it are forgotten, and adds go on in the right generation.
func TestWindowRoundTrip(t *testing.T) {
	clk := newSimClock()
	w, err := NewWindow(3000, 0.001, 3*time.Second, WithClock(clk.Now), WithSeed(42)) // G=4, 1 s slices
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	origin := clk.now
	for i := range 3000 { // 3 s of adds, one a millisecond
		clk.now = origin.Add(time.Duration(i) * time.Millisecond)
		w.AddUint64(uint64(i))
	}
	enc, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if n, err := w.WriteTo(&buf); err != nil || n != int64(len(enc)) || !bytes.Equal(buf.Bytes(), enc) {
		t.Fatalf("WriteTo: %d, %v, equal %v", n, err, bytes.Equal(buf.Bytes(), enc))
	}
	// The server restarts 1.5 s later: keys added at 1.5 s and later
	// (within the 3 s window) are still found.
	clk.now = origin.Add(4500 * time.Millisecond)
	r, err := ReadWindow(bytes.NewReader(enc), WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Generations() != 4 || r.Slice() != time.Second || r.Seed() != 42 || r.K() != w.K() || r.Blocks() != w.Blocks() || r.Capacity() != w.Capacity() {
		t.Fatalf("read back G=%d slice %v seed %d k %d blocks %d", r.Generations(), r.Slice(), r.Seed(), r.K(), r.Blocks())
	}
	for i := 1500; i < 3000; i++ {
		if !r.ContainsUint64(uint64(i)) {
			t.Fatalf("key added at %d ms lost after the restart", i)
		}
	}
	// SliceStart, the slice of the latest add (at 2.999 s), is kept, and a
	// window read with a clock long before it answers as of that slice.
	last := origin.Add(2999 * time.Millisecond)
	if st := r.SliceStart(); !st.Equal(w.SliceStart()) || st.After(last) || !st.After(last.Add(-time.Second)) {
		t.Fatalf("SliceStart %v read back, %v written, latest add at %v", st, w.SliceStart(), last)
	}
	past, err := ReadWindow(bytes.NewReader(enc), WithClock(func() time.Time { return time.Unix(0, 0) }))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1000; i < 3000; i++ { // slices 1 and 2: in the window as of slice 2
		if !past.ContainsUint64(uint64(i)) {
			t.Fatalf("as of the window's own time: the key added at %d ms not found", i)
		}
	}
	past.Close()
	found := 0
	for i := range 1000 { // added in slice 0, reused at 4 s
		if r.ContainsUint64(uint64(i)) {
			found++
		}
	}
	if found > 20 {
		t.Fatalf("%d of 1000 keys of slice 0 still found at 4.5 s", found)
	}
	r.AddUint64(1 << 40)
	if !r.ContainsUint64(1<<40) || !r.ContainsUint64(2999) {
		t.Fatal("adds after the restart")
	}
	// UnmarshalBinary into a zero Window and into the original.
	var z Window
	z.clock, z.userClock = clk.Now, true // a zero Window reads time.Now; this test's clock is simulated
	if err := z.UnmarshalBinary(enc); err != nil || !z.ContainsUint64(2999) {
		t.Fatalf("UnmarshalBinary into a zero Window: %v", err)
	}
	z.Close()
	if err := w.UnmarshalBinary(enc); err != nil || !w.ContainsUint64(2999) {
		t.Fatalf("UnmarshalBinary: %v", err)
	}
	// After UnmarshalBinary, w's lookups by time read w's own slice state
	// (the decoded window's live source is bound to w, not to the window
	// decoded): keys added over the next slices are found while they are
	// inside the window.
	for s := 5; s < 12; s++ {
		clk.now = origin.Add(time.Duration(s) * time.Second)
		w.AddUint64(1<<41 + uint64(s))
		for j := max(5, s-2); j <= s; j++ {
			if !w.ContainsUint64(1<<41 + uint64(j)) {
				t.Fatalf("after UnmarshalBinary: the key added at %d s not found at %d s", j, s)
			}
		}
	}
	// Count mode keeps its adds within the slice.
	c, err := NewWindow(0, 0.01, 0, WithSliceKeys(10), WithGenerations(4))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := range 25 {
		c.AddUint64(uint64(i))
	}
	enc, _ = c.MarshalBinary()
	d, err := ReadWindow(bytes.NewReader(enc))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if !d.SliceStart().IsZero() {
		t.Errorf("count mode: SliceStart %v, want the zero Time", d.SliceStart())
	}
	if d.SliceKeys() != 10 || d.SliceAdds() != 5 || d.cur != c.cur {
		t.Fatalf("count mode read back: slice keys %d, adds %d, cur %d (want %d)", d.SliceKeys(), d.SliceAdds(), d.cur, c.cur)
	}
	if again, _ := d.MarshalBinary(); !bytes.Equal(again, enc) {
		t.Fatal("re-encoding differs")
	}
}

// TestWindowDecodeErrors feeds the decoders every truncation of a valid
// encoding, and headers with each parameter made impossible (with valid
// CRCs): each is a clear error, never a panic or a window.
func TestWindowDecodeErrors(t *testing.T) {
	clk := newSimClock()
	w, err := NewWindow(100, 0.01, time.Minute, WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.AddString("x")
	enc, _ := w.MarshalBinary()
	for n := 0; n < len(enc); n++ {
		if _, err := ReadWindow(bytes.NewReader(enc[:n])); err == nil {
			t.Fatalf("ReadWindow of %d of %d bytes: no error", n, len(enc))
		}
		var z Window
		if err := z.UnmarshalBinary(enc[:n]); err == nil {
			t.Fatalf("UnmarshalBinary of %d of %d bytes: no error", n, len(enc))
		}
		if _, err := WindowFromBytes(enc[:n]); err == nil {
			t.Fatalf("WindowFromBytes of %d of %d bytes: no error", n, len(enc))
		}
	}
	var z Window
	if err := z.UnmarshalBinary(append(enc[:len(enc):len(enc)], 0)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("trailing byte: %v", err)
	}
	if _, err := WindowFromBytes(append(enc[:len(enc):len(enc)], 0)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("WindowFromBytes, trailing byte: %v", err)
	}
	h, payload, _, err := format.Decode(enc, format.KindWindow, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		param int
		value uint64
		want  error
	}{
		{"groups 0", winParamGroups, 0, ErrCorrupt},
		{"groups mismatch", winParamGroups, h.Params[winParamGroups] + 1, ErrCorrupt},
		{"groups huge", winParamGroups, 1 << 62, ErrCorrupt},
		{"k 0", winParamK, 0, ErrCorrupt},
		{"k 17", winParamK, 17, ErrCorrupt},
		{"generations 1", winParamGens, 1, ErrCorrupt},
		{"generations 65", winParamGens, 65, ErrCorrupt},
		{"generations 3", winParamGens, 3, ErrCorrupt}, // not a power of two
		{"generations 6", winParamGens, 6, ErrCorrupt},
		{"generations 8", winParamGens, 8, ErrCorrupt}, // two lines a group: the payload size no longer matches
		{"no slice", winParamSlice, 0, ErrCorrupt},
		{"slice and slice keys", winParamSliceKeys, 5, ErrCorrupt},
		{"slice huge", winParamSlice, 1 << 63, ErrCorrupt},
		// G-1 = 3 slices of 2^62 ns overflow the window (Window() was
		// negative); the longest slice a window of 4 takes is accepted.
		{"window overflows", winParamSlice, 1 << 62, ErrCorrupt},
		{"window longest", winParamSlice, math.MaxInt64 / 3, nil},
		{"current out of range", winParamCur, 4, ErrCorrupt},
		{"capacity 0", winParamCapacity, 0, ErrCorrupt},
	} {
		bad := h
		bad.Params[c.param] = c.value
		b := format.Encode(bad, payload)
		r, err := ReadWindow(bytes.NewReader(b))
		if !errors.Is(err, c.want) || c.want == nil && err != nil {
			t.Errorf("%s: ReadWindow: %v, want %v", c.name, err, c.want)
		}
		if err == nil {
			if r.Window() < 0 {
				t.Errorf("%s: a window of %v", c.name, r.Window())
			}
			r.Close()
		}
		var z Window
		if err := z.UnmarshalBinary(b); !errors.Is(err, c.want) {
			t.Errorf("%s: UnmarshalBinary: %v, want %v", c.name, err, c.want)
		}
		if _, err := WindowFromBytes(b); !errors.Is(err, c.want) {
			t.Errorf("%s: WindowFromBytes: %v, want %v", c.name, err, c.want)
		}
	}
	// By count: G-1 = 3 slices of 2^63 adds overflow the window (sift info
	// printed a wrapped span); the longest slice a window of 4 takes is
	// accepted.
	for _, c := range []struct {
		keys uint64
		want error
	}{{1 << 63, ErrCorrupt}, {math.MaxUint64 / 3, nil}} {
		bad := h
		bad.Params[winParamSlice], bad.Params[winParamSliceKeys], bad.Params[winParamStart] = 0, c.keys, 0
		w, err := WindowFromBytes(format.Encode(bad, payload))
		if !errors.Is(err, c.want) {
			t.Errorf("a slice of %d keys: %v, want %v", c.keys, err, c.want)
		}
		if err == nil {
			w.Close()
		}
	}
	// A start time anywhere in int64's range is accepted and never
	// overflows the clock arithmetic.
	for _, start := range []uint64{0, 1 << 63, 1<<63 - 1, ^uint64(0)} {
		bad := h
		bad.Params[winParamStart] = start
		r, err := ReadWindow(bytes.NewReader(format.Encode(bad, payload)), WithClock(clk.Now))
		if err != nil {
			t.Fatalf("start %#x: %v", start, err)
		}
		r.AddString("y")
		if !r.ContainsString("y") {
			t.Fatalf("start %#x: key just added not found", start)
		}
		r.Close()
	}
	// Count mode: adds beyond the slice.
	c, _ := NewWindow(0, 0.01, 0, WithSliceKeys(10))
	defer c.Close()
	ce, _ := c.MarshalBinary()
	ch, cp, _, _ := format.Decode(ce, format.KindWindow, format.Options{})
	ch.Params[winParamStart] = 11
	if _, err := ReadWindow(bytes.NewReader(format.Encode(ch, cp))); !errors.Is(err, ErrCorrupt) {
		t.Errorf("adds beyond the slice: %v", err)
	}
	// Another kind, and a limit.
	bf, _ := New(10, 0.01)
	be, _ := bf.MarshalBinary()
	if _, err := ReadWindow(bytes.NewReader(be)); !errors.Is(err, ErrKind) {
		t.Errorf("a blocked filter: %v", err)
	}
	if _, err := ReadWindow(bytes.NewReader(enc), WithMaxSize(64)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("WithMaxSize: %v", err)
	}
	// Closed windows do not encode.
	w.Close()
	if _, err := w.MarshalBinary(); !errors.Is(err, ErrClosed) {
		t.Errorf("MarshalBinary of a closed window: %v", err)
	}
	if _, err := w.WriteTo(&bytes.Buffer{}); !errors.Is(err, ErrClosed) {
		t.Errorf("WriteTo of a closed window: %v", err)
	}
}

// TestWindowLayout pins the payload layout of FORMAT.md's kind 9, computed
// here from the format's text alone: a key's group i = (h>>32)·N>>32, the
// lanes (2 of four words at G = 2, 4 of two words above) of P = G/L lines
// a group, generation g's lane in line i·P + g/L, probe j's bit (x·salt[j]
// mod 2^32)>>26 in word j mod W of the lane. One key added in each slice
// must set exactly its bits in its own generation's lane; every other byte
// stays zero.
func TestWindowLayout(t *testing.T) {
	salt := [16]uint32{0xe56cc05b, 0xb97e54ed, 0xd11029a5, 0xf0594b3f, 0x3ef0d3f7, 0xdcec8bc1, 0xd24e2077, 0x2e6eab13,
		0x36dfad11, 0xde4a21f9, 0x14d0d1a5, 0xc8e0e113, 0x141ce343, 0xa4792a01, 0x067fad21, 0xd415c1a5}
	r := rand.New(rand.NewPCG(3, 9))
	for _, g := range []int{2, 4, 8, 64} {
		w, err := NewWindow(uint64(g-1)*500, 0.01, 0, WithGenerations(g), WithSliceKeys(1))
		if err != nil {
			t.Fatal(err)
		}
		keys := make([]uint64, g)
		for j := range keys {
			keys[j] = r.Uint64()
			w.AddHash(keys[j]) // one add a slice: key j in generation j
		}
		enc, err := w.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		payload := enc[format.HeaderSize:]
		l := 4
		if g == 2 {
			l = 2
		}
		lines, words := uint64(g/l), 8/l
		n := uint64(len(payload)) / 64 / lines
		if h, _, _, err := format.Decode(enc, format.KindWindow, format.Options{}); err != nil || h.Params[0] != n || h.Kind != 9 {
			t.Fatalf("G=%d: kind %d, param 0 %d, not the payload's %d groups (%v)", g, h.Kind, h.Params[0], n, err)
		}
		want := make([]byte, len(payload))
		for gen, h := range keys {
			i := (h >> 32) * n >> 32
			line := i*lines + uint64(gen/l)
			for j := range w.K() {
				word := gen%l*words + j%words
				bit := uint32(h) * salt[j] >> 26
				want[64*line+uint64(8*word)+uint64(bit/8)] |= 1 << (bit % 8)
			}
		}
		if !bytes.Equal(payload, want) {
			for o := range payload {
				if payload[o] != want[o] {
					t.Fatalf("G=%d: payload byte %d (line %d) is %#x, want %#x", g, o, o/64, payload[o], want[o])
				}
			}
		}
		w.Close()
	}
}
