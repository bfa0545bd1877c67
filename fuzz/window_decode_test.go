package fuzz

import (
	"bytes"
	"testing"
	"time"

	"github.com/sift-go/sift/blocked"
)

// The window decoders (blocked.Window, kind 9) under FuzzDecode's rules.
// A window by time answers by the clock, so the decoders compared with
// each other share one fixed clock, windowNow; the zero Window's
// UnmarshalBinary runs on the default clock and is held to the rest of the
// rules (no panic, bounded allocation, re-encoding) but not compared.

// windowNow is the fixed clock of the compared window decoders and of the
// seed windows: the seeds' slices start at it, so their keys are live.
var windowNow = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func windowClock() time.Time { return windowNow }

// windowEncodings are small valid windows: by time (G = 4, two slices
// with keys) and by count (G = 8, a slice part full).
func windowEncodings() map[string][]byte {
	enc := map[string][]byte{}
	now := windowNow
	w, err := blocked.NewWindow(40, 0.05, 3*time.Second, blocked.WithGenerations(4), blocked.WithSeed(5),
		blocked.WithClock(func() time.Time { return now }))
	if err != nil {
		panic(err)
	}
	for i := range uint64(30) {
		if i == 15 {
			now = now.Add(time.Second) // the next slice: a rotation
		}
		w.AddUint64(i)
	}
	enc["window"] = image(w)
	w.Close()
	c, err := blocked.NewWindow(64, 0.1, 0, blocked.WithGenerations(8), blocked.WithSliceKeys(10), blocked.WithSeed(6))
	if err != nil {
		panic(err)
	}
	for i := range uint64(25) {
		c.AddUint64(i)
	}
	enc["window-count"] = image(c)
	c.Close()
	return enc
}

// decodeWindow gives data to every window decoder: UnmarshalBinary into a
// zero Window (default clock) and, on windowNow, into a Window made with
// that clock, ReadWindow and WindowFromBytes. They must accept and reject
// alike (ReadWindow may accept a prefix: it reads one window and stops),
// with errors that wrap a sentinel; what they accept must re-encode to
// the input, answer alike, batch and single, and keep a key added to it.
func decodeWindow(t *testing.T, data []byte) {
	var z blocked.Window
	u, err := blocked.NewWindow(1, 0.5, time.Second, blocked.WithGenerations(2), blocked.WithClock(windowClock))
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	var r, v *blocked.Window
	var zerr, uerr, rerr, verr error
	rd := bytes.NewReader(data)
	measure(t, "Window.UnmarshalBinary (zero Window)", len(data), func() { zerr = z.UnmarshalBinary(data) })
	measure(t, "Window.UnmarshalBinary", len(data), func() { uerr = u.UnmarshalBinary(data) })
	measure(t, "blocked.ReadWindow", len(data), func() { r, rerr = blocked.ReadWindow(rd, blocked.WithClock(windowClock)) })
	measure(t, "blocked.WindowFromBytes", len(data), func() { v, verr = blocked.WindowFromBytes(data, blocked.WithClock(windowClock)) })
	n := len(data) - rd.Len()
	if rerr == nil {
		defer r.Close()
	}
	if zerr != nil {
		checkErr(t, "Window.UnmarshalBinary (zero Window)", zerr)
		if uerr == nil || verr == nil {
			t.Fatalf("window decoders disagree: the zero Window's UnmarshalBinary rejects (%v), UnmarshalBinary on a clock %v, WindowFromBytes %v", zerr, uerr, verr)
		}
		checkErr(t, "Window.UnmarshalBinary", uerr)
		checkErr(t, "blocked.WindowFromBytes", verr)
		if rerr == nil {
			var h blocked.Window
			if n >= len(data) || h.UnmarshalBinary(data[:n]) != nil {
				t.Fatalf("blocked.ReadWindow accepts %d of %d bytes that UnmarshalBinary rejects: %v", n, len(data), zerr)
			}
			h.Close()
		} else {
			checkErr(t, "blocked.ReadWindow", rerr)
		}
		return
	}
	defer z.Close()
	if uerr != nil || rerr != nil || n != len(data) || verr != nil {
		t.Fatalf("window decoders disagree: UnmarshalBinary on a clock %v; ReadWindow %d of %d bytes, %v; WindowFromBytes %v", uerr, n, len(data), rerr, verr)
	}
	defer v.Close()
	sameBytes(t, "window: re-encoding", image(&z), data)
	sameBytes(t, "window on a clock: re-encoding", image(u), data)
	sameBytes(t, "ReadWindow: re-encoding", image(r), data)
	sameBytes(t, "WindowFromBytes: re-encoding", image(v), data)
	if z.Generations() != v.Generations() || z.K() != v.K() || z.Groups() != v.Groups() || z.Seed() != v.Seed() ||
		z.Slice() != v.Slice() || z.SliceKeys() != v.SliceKeys() || z.SliceAdds() != v.SliceAdds() || z.Capacity() != v.Capacity() {
		t.Fatal("window decoders disagree on the geometry or the slice state")
	}
	agree(t, "window", u, r, v)
	for _, w := range []*blocked.Window{&z, u} {
		// z is on the default clock, which runs on: a window by time
		// keeps a key for at least w.Window() after its add, so a miss
		// is a bug only inside that (a decoded slice can be nanoseconds
		// long). u's clock stands still.
		start := time.Now()
		w.AddUint64(7)
		if !w.ContainsUint64(7) && (w != &z || w.SliceKeys() != 0 || time.Since(start) < w.Window()) {
			t.Fatal("window: decoded window lost a key")
		}
		start = time.Now()
		w.AddUint64(7)
		if w.AddNewUint64(7) && (w != &z || w.SliceKeys() != 0 || time.Since(start) < w.Window()) {
			t.Fatal("window: AddNew reports a key added just before as new")
		}
	}
}
