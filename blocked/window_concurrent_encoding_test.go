package blocked

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sift-go/sift/internal/edgetest"
	"github.com/sift-go/sift/internal/errs"
)

// TestConcurrentWindowEncoding: driven by one goroutine as a Window is,
// a ConcurrentWindow encodes to the Window's bytes, by time and by count,
// at every checkpoint (MarshalBinary, AppendBinary and WriteTo alike); and
// one resumed from those bytes (ConcurrentWindowFromBytes,
// ReadConcurrentWindow) goes on answering as the Window does.
func TestConcurrentWindowEncoding(t *testing.T) {
	for _, byCount := range []bool{false, true} {
		clk := newSimClock()
		window, opts := 4*time.Second, []Option{WithGenerations(8), WithClock(clk.Now), WithSeed(3)}
		if byCount {
			window, opts = 0, append(opts, WithSliceKeys(300))
		}
		w, c := windowPair(t, 1200, 0.01, window, opts...)
		rng := rand.New(rand.NewPCG(7, 8))
		hs := make([]uint64, 50)
		out1, out2 := make([]bool, 50), make([]bool, 50)
		step := func(i int, cs ...*ConcurrentWindow) {
			t.Helper()
			clk.now = clk.now.Add(time.Duration(rng.Int64N(int64(20 * time.Millisecond))))
			x := rng.Uint64N(5000)
			a := w.AddNewUint64(x)
			for _, c := range cs {
				if b := c.AddNewUint64(x); a != b {
					t.Fatalf("by count %v, step %d: AddNew %v and %v", byCount, i, a, b)
				}
			}
			for j := range hs {
				hs[j] = w.HashUint64(rng.Uint64N(5000))
			}
			n := w.ContainsHashes(hs, out1)
			for _, c := range cs {
				if m := c.ContainsHashes(hs, out2); n != m {
					t.Fatalf("by count %v, step %d: ContainsHashes %d and %d", byCount, i, n, m)
				}
			}
		}
		for i := range 2000 {
			step(i, c)
			if i%250 != 249 {
				continue
			}
			want, err := w.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("by count %v, step %d: the ConcurrentWindow's encoding differs from the Window's", byCount, i)
			}
			var buf bytes.Buffer
			if n, err := c.WriteTo(&buf); err != nil || n != int64(len(want)) || !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("by count %v, step %d: WriteTo wrote %d bytes (%v), not MarshalBinary's", byCount, i, n, err)
			}
			if app, err := c.AppendBinary([]byte("x")); err != nil || !bytes.Equal(app, append([]byte("x"), want...)) {
				t.Fatalf("by count %v, step %d: AppendBinary: %v", byCount, i, err)
			}
			if i == 999 { // resume two copies and drive all three on
				c1, err := ConcurrentWindowFromBytes(got, opts...)
				if err != nil {
					t.Fatal(err)
				}
				c2, err := ReadConcurrentWindow(bytes.NewReader(got), opts...)
				if err != nil {
					t.Fatal(err)
				}
				for j := range 600 {
					step(i+1+j, c, c1, c2)
				}
				again, _ := c1.MarshalBinary()
				if now, _ := w.MarshalBinary(); !bytes.Equal(again, now) {
					t.Fatalf("by count %v: a resumed ConcurrentWindow's encoding differs from the Window's", byCount)
				}
				c1.Close()
				c2.Close()
			}
		}
	}
}

// TestConcurrentWindowSaveWhileAdding: snapshots taken while other
// goroutines add hold every key whose add returned before the snapshot
// began (run it with -race).
func TestConcurrentWindowSaveWhileAdding(t *testing.T) {
	c, err := NewConcurrentWindow(200_000, 0.01, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const writers = 2
	var done [writers]atomic.Uint64 // keys 1..done[w] of writer w are added
	halt := edgetest.Until(writers, func(wr int, i uint64) bool {
		if i++; i >= 50_000 {
			return false
		}
		c.AddUint64(uint64(wr)<<32 | i)
		done[wr].Store(i)
		return true
	})
	defer halt()
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	for r := range rounds {
		var before [writers]uint64
		for wr := range writers {
			before[wr] = done[wr].Load()
		}
		b, err := c.MarshalBinary()
		var w *Window
		if err == nil {
			w, err = WindowFromBytes(b)
		}
		if err != nil {
			t.Fatal(err)
		}
		for wr := range writers {
			for i := uint64(1); i <= before[wr]; i++ {
				if !w.ContainsUint64(uint64(wr)<<32 | i) {
					t.Fatalf("snapshot %d: writer %d's key %d, added before the snapshot began, is missing", r, wr, i)
				}
			}
		}
		w.Close()
	}
	halt()
	c.Close()
	if _, err := c.MarshalBinary(); !errors.Is(err, ErrClosed) {
		t.Errorf("MarshalBinary of a closed window: %v, want ErrClosed", err)
	}
	if _, err := c.WriteTo(&bytes.Buffer{}); !errors.Is(err, ErrClosed) {
		t.Errorf("WriteTo of a closed window: %v, want ErrClosed", err)
	}
}

// TestConcurrentWindowSaveWhileRotating: snapshots of a window by count
// whose slices end every 50 adds, taken while two goroutines add and
// rotate it, decode as a Window and as a ConcurrentWindow (the adds saved
// for the current slice never exceed the slice, which the decoder checks),
// and a resumed one takes adds and finds them (run it with -race). Which
// keys a snapshot holds is not checked here: by count, the other
// goroutine's adds move the window on, so even the latest add of one
// goroutine may have left it.
func TestConcurrentWindowSaveWhileRotating(t *testing.T) {
	c, err := NewConcurrentWindow(1000, 0.01, 0, WithSliceKeys(50))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	defer edgetest.Until(2, func(wr int, i uint64) bool {
		c.AddNewUint64(uint64(wr)<<32 | (i + 1))
		return true
	})()
	rounds := 300
	if testing.Short() {
		rounds = 50
	}
	for range rounds {
		b, err := c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		w, err := WindowFromBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		cw, err := ConcurrentWindowFromBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		if cw.AddUint64(1 << 63); !cw.ContainsUint64(1 << 63) {
			t.Fatal("a resumed window did not take a new key")
		}
		cw.Close()
	}
}

// TestWindowDecodeInto: UnmarshalBinary and ReadFrom of a Window and of a
// ConcurrentWindow (each already in use, or zero) take the encoded window
// as it was written, by time and by count: the same bytes re-encoded, and
// the same answers as a Window resumed from them while all are driven on.
// ReadFrom reads exactly the encoding; a damaged or cut encoding, or one
// over the receiver's WithMaxSize bound, is an error of the error model
// and leaves the receiver as it was.
func TestWindowDecodeInto(t *testing.T) {
	for _, byCount := range []bool{false, true} {
		clk := newSimClock()
		window, opts := 4*time.Second, []Option{WithGenerations(4), WithClock(clk.Now), WithSeed(5)}
		if byCount {
			window, opts = 0, append(opts, WithSliceKeys(200))
		}
		src, err := NewWindow(800, 0.01, window, opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		for i := range 700 {
			clk.now = clk.now.Add(7 * time.Millisecond)
			src.AddUint64(uint64(i))
		}
		enc, err := src.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		// Receivers in use: other keys, another seed and size.
		w, c := windowPair(t, 3000, 0.001, window, append(opts, WithSeed(9))...)
		for i := range 500 {
			w.AddUint64(1<<40 + uint64(i))
			c.AddUint64(1<<40 + uint64(i))
		}
		var zc ConcurrentWindow
		zc.clock, zc.userClock = clk.Now, true // as a zero Window's test clock in TestWindowRoundTrip
		defer zc.Close()
		if err := w.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		stream := append(append([]byte{}, enc...), "next"...)
		r := bytes.NewReader(stream)
		if n, err := c.ReadFrom(r); err != nil || n != int64(len(enc)) || r.Len() != 4 {
			t.Fatalf("by count %v: ConcurrentWindow.ReadFrom read %d of %d bytes (%v), left %d", byCount, n, len(enc), err, r.Len())
		}
		if err := zc.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		var wr Window
		wr.clock, wr.userClock = clk.Now, true
		defer wr.Close()
		if n, err := wr.ReadFrom(bytes.NewReader(stream)); err != nil || n != int64(len(enc)) {
			t.Fatalf("by count %v: Window.ReadFrom read %d of %d bytes: %v", byCount, n, len(enc), err)
		}
		type encoder interface{ MarshalBinary() ([]byte, error) }
		for name, e := range map[string]encoder{"Window.UnmarshalBinary": w, "Window.ReadFrom": &wr, "ConcurrentWindow.ReadFrom": c, "ConcurrentWindow.UnmarshalBinary": &zc} {
			if got, err := e.MarshalBinary(); err != nil || !bytes.Equal(got, enc) {
				t.Fatalf("by count %v: after %s the window encodes to other bytes (%v)", byCount, name, err)
			}
		}
		// Driven on together with src, all answer alike.
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range 1500 {
			clk.now = clk.now.Add(time.Duration(rng.Int64N(int64(10 * time.Millisecond))))
			x := rng.Uint64N(3000)
			a := src.AddNewUint64(x)
			if a != w.AddNewUint64(x) || a != wr.AddNewUint64(x) || a != c.AddNewUint64(x) || a != zc.AddNewUint64(x) {
				t.Fatalf("by count %v, step %d: AddNew answers differ", byCount, i)
			}
			y := rng.Uint64N(3000)
			b := src.ContainsUint64(y)
			if b != w.ContainsUint64(y) || b != wr.ContainsUint64(y) || b != c.ContainsUint64(y) || b != zc.ContainsUint64(y) {
				t.Fatalf("by count %v, step %d: Contains answers differ", byCount, i)
			}
		}
		want, _ := src.MarshalBinary()
		for name, e := range map[string]encoder{"Window.UnmarshalBinary": w, "Window.ReadFrom": &wr, "ConcurrentWindow.ReadFrom": c, "ConcurrentWindow.UnmarshalBinary": &zc} {
			if got, _ := e.MarshalBinary(); !bytes.Equal(got, want) {
				t.Fatalf("by count %v: driven on after %s, the window encodes differently from the source", byCount, name)
			}
		}
		// Bad encodings leave the receivers as they were.
		bad := []struct {
			name string
			data []byte
			want error
		}{
			{"trailing", append(append([]byte{}, enc...), 0), ErrCorrupt},
			{"cut", enc[:len(enc)-1], ErrTruncated},
			{"flipped", func() []byte { b := append([]byte{}, enc...); b[len(b)-3] ^= 1; return b }(), ErrChecksum},
			{"empty", nil, ErrTruncated},
		}
		for _, b := range bad {
			got := map[string]error{"Window.UnmarshalBinary": w.UnmarshalBinary(b.data), "ConcurrentWindow.UnmarshalBinary": c.UnmarshalBinary(b.data)}
			if b.name != "trailing" { // ReadFrom reads one encoding and leaves the rest
				_, got["Window.ReadFrom"] = w.ReadFrom(bytes.NewReader(b.data))
				_, got["ConcurrentWindow.ReadFrom"] = c.ReadFrom(bytes.NewReader(b.data))
			}
			for name, err := range got {
				var se *errs.Error
				if !errors.Is(err, b.want) || !errors.As(err, &se) {
					t.Errorf("by count %v: %s of a %s encoding: %v, want %v as an *Error", byCount, name, b.name, err, b.want)
				}
			}
			for name, e := range map[string]encoder{"Window": w, "ConcurrentWindow": c} {
				if got, _ := e.MarshalBinary(); !bytes.Equal(got, want) {
					t.Fatalf("by count %v: a refused %s encoding changed the %s", byCount, b.name, name)
				}
			}
		}
		// A receiver made with WithMaxSize keeps its bound.
		sw, sc := windowPair(t, 10, 0.01, window, append(opts, WithMaxSize(16<<10))...)
		big, err := NewWindow(1e5, 0.01, window, opts...)
		if err != nil {
			t.Fatal(err)
		}
		benc, _ := big.MarshalBinary()
		big.Close()
		if err := sw.UnmarshalBinary(benc); !errors.Is(err, ErrTooLarge) {
			t.Errorf("by count %v: Window with WithMaxSize: UnmarshalBinary of a larger window: %v", byCount, err)
		}
		if _, err := sc.ReadFrom(bytes.NewReader(benc)); !errors.Is(err, ErrTooLarge) {
			t.Errorf("by count %v: ConcurrentWindow with WithMaxSize: ReadFrom of a larger window: %v", byCount, err)
		}
		// And after a decode that it took.
		if err := sw.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		if _, err := sw.ReadFrom(bytes.NewReader(benc)); !errors.Is(err, ErrTooLarge) {
			t.Errorf("by count %v: Window with WithMaxSize lost its bound after UnmarshalBinary: %v", byCount, err)
		}
		if err := sc.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		if err := sc.UnmarshalBinary(benc); !errors.Is(err, ErrTooLarge) {
			t.Errorf("by count %v: ConcurrentWindow with WithMaxSize lost its bound after UnmarshalBinary: %v", byCount, err)
		}
	}
}

// TestConcurrentWindowDecodeTimers: a ConcurrentWindow by time on the
// default clock, decoded into, arms its expiry timer for the decoded slice
// (numbered epoch 0, as a new window's), and finds the keys.
func TestConcurrentWindowDecodeTimers(t *testing.T) {
	c, err := NewConcurrentWindow(1000, 0.01, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	src, err := NewWindow(1000, 0.01, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	src.AddString("kept")
	enc, _ := src.MarshalBinary()
	if !c.ex.current(c.state.Load().epoch) {
		t.Fatal("a new ConcurrentWindow on the default clock runs no expiry timer")
	}
	c.ex.stop() // as a fired timer leaves it: the decode must arm a new one
	if err := c.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	e := c.state.Load().epoch
	if e != 0 || !c.ex.current(e) || c.ex.timer == nil {
		t.Fatalf("after UnmarshalBinary: epoch %d, current %v, timer %v", e, c.ex.current(e), c.ex.timer != nil)
	}
	if !c.ContainsString("kept") {
		t.Fatal("the decoded key is not found")
	}
}

// TestConcurrentWindowDecodeEpoch: a decoded window's epochs count from
// its own slice, so that a clock reading far from it cannot overflow the
// epoch: a ConcurrentWindow one slice on from the earliest instant,
// decoded into from a window that starts there, and then read at the
// latest instant, finds a key just added (a version that went on with the
// receiver's numbering wrapped below the state's epoch and found none).
func TestConcurrentWindowDecodeEpoch(t *testing.T) {
	now := time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC) // the earliest instant, held
	opts := []Option{WithClock(func() time.Time { return now }), WithGenerations(4)}
	src, c := windowPair(t, 100, 0.01, 3*time.Nanosecond, opts...) // slices of 1 ns
	enc, _ := src.MarshalBinary()
	now = time.Unix(0, math.MinInt64+1) // one slice on: epoch 1
	c.AddString("x")
	if err := c.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	now = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC) // the latest instant, held
	c.AddString("k")
	out := make([]bool, 1)
	if !c.ContainsString("k") || c.ContainsHashes([]uint64{c.HashString("k")}, out) != 1 || c.AddNewString("k") {
		t.Fatal("a key just added is not found")
	}
}

// TestWindowDecodeRacesNoTimer: decoding into a Window or a
// ConcurrentWindow on the default clock, whose slices of 10 µs keep their
// expiry timers firing, writes the expiry word only atomically (run with
// -race: Window's decode once copied the whole struct over it while a
// timer callback of the replaced slice could be running).
func TestWindowDecodeRacesNoTimer(t *testing.T) {
	w, c := windowPair(t, 100, 0.01, 30*time.Microsecond)
	src, err := NewWindow(100, 0.01, 30*time.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	rounds := 3000
	if testing.Short() {
		rounds = 500
	}
	for i := range rounds {
		src.AddUint64(uint64(i))
		enc, _ := src.MarshalBinary()
		if i%2 == 0 {
			if err := w.UnmarshalBinary(enc); err != nil {
				t.Fatal(err)
			}
			if err := c.UnmarshalBinary(enc); err != nil {
				t.Fatal(err)
			}
		} else {
			if _, err := w.ReadFrom(bytes.NewReader(enc)); err != nil {
				t.Fatal(err)
			}
			if _, err := c.ReadFrom(bytes.NewReader(enc)); err != nil {
				t.Fatal(err)
			}
		}
		// (Not asserted found: a 30 µs window on the real clock may pass
		// while this process is descheduled.)
		w.AddUint64(uint64(i))
		c.AddUint64(uint64(i))
		w.ContainsUint64(uint64(i))
		c.ContainsUint64(uint64(i))
	}
	// Window.replace moves the decoded window in field by field (all but
	// the expiry and the zero-size nocopy.NoCopy); a field added to Window must be
	// added there too.
	if n := reflect.TypeFor[Window]().NumField(); n != 15 {
		t.Errorf("Window has %d fields, Window.replace knows 15: update it (and this count)", n)
	}
}
