package main

import (
	"fmt"
	"math"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/internal/mem"
)

// The windowed blocked filter (blocked.Window): query and info read it
// (a copy, as every kind: the window is answered as of now, by this
// machine's clock, or as of query -as-of's time); build does not make one,
// since a window's keys need their times.
func init() {
	registerKind(&kindInfo{name: "window", fileKind: sift.KindWindow, open: openWindow})
}

type windowReader struct{ w *blocked.Window }

func openWindow(path string) (queryFilter, error) { return openWindowClock(path, nil) }

// openWindowClock opens a window file whose lookups read clock (nil: the
// default clock, now).
func openWindowClock(path string, clock func() time.Time) (queryFilter, error) {
	b, region, _, err := mem.ReadFile(path)
	if err != nil {
		return nil, err
	}
	defer region.Free() // WindowFromBytes copies: a window keeps being written to
	var opts []blocked.Option
	if clock != nil {
		opts = append(opts, blocked.WithClock(clock))
	}
	w, err := blocked.WindowFromBytes(b, opts...)
	if err != nil {
		return nil, err
	}
	return windowReader{w}, nil
}

// openWindowAsOf opens the window file at path for query -as-of at:
// "latest" (a clock at the epoch's start, which a window treats as
// standing still at its latest slice) or an RFC 3339 time (query reads
// "now", the default, as no -as-of). A file of
// another kind (or -kind other than window) is an error.
func openWindowAsOf(path, want, at string) (queryFilter, error) {
	if want != "" && want != "window" {
		return nil, fmt.Errorf("-as-of is for window files: it cannot be combined with -kind %s", want)
	}
	var clock func() time.Time
	switch at {
	case "latest":
		clock = func() time.Time { return time.Unix(0, math.MinInt64) }
	default:
		// The forms dedup's -time-field takes (lowercase t and z, second
		// 60); time.Parse for the years beyond int64 nanoseconds.
		var t time.Time
		var err error
		if ns, ok := parseRFC3339([]byte(at)); ok {
			t = time.Unix(0, ns)
		} else if t, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return nil, fmt.Errorf("-as-of %q: not now, latest or an RFC 3339 time (such as 2025-11-25T10:00:00Z)", at)
		}
		// A window counts time in int64 Unix nanoseconds (1678-2262):
		// earlier is as "latest", later is after every slice.
		if t.Before(minTime) {
			t = minTime
		} else if t.After(maxTime) {
			t = maxTime
		}
		clock = func() time.Time { return t }
	}
	h, err := readHeader(path)
	if err != nil {
		return nil, err
	}
	if h.Kind != sift.KindWindow {
		return nil, fmt.Errorf("%s: -as-of is for window files, and this one holds a %v filter", path, h.Kind)
	}
	f, err := openWindowClock(path, clock)
	if err != nil {
		return nil, filterErr(path, err)
	}
	// A window that advances by count has no time to answer as of: its
	// slices turn every SliceKeys adds whatever the clock says.
	if w := f.(windowReader).w; at != "latest" && w.SliceKeys() != 0 {
		f.close()
		return nil, fmt.Errorf("%s: -as-of %s: this window advances every %d adds, not by time; query it without -as-of", path, at, w.SliceKeys())
	}
	return f, nil
}

func (r windowReader) hash(key []byte) uint64 { return r.w.Hash(key) }
func (r windowReader) containsHashes(hs []uint64, out []bool) int {
	return r.w.ContainsHashes(hs, out)
}
func (r windowReader) close() error { return r.w.Close() }

// windowString returns w's window (by time) as the shortest -window that
// gives its slices: w.Window() is whole slices, a few nanoseconds over the
// -window it was made with where that did not divide (1h in 7 slices is
// 1h0m0.000000002s), so the window is rounded to the second, millisecond
// or microsecond where the rounded value makes the same slice (1.5ms in
// 7 slices is 1.500002ms: 1.5ms), and otherwise shown exactly (3ns in 3
// slices). sift dedup -window takes what it prints back.
func windowString(w *blocked.Window) string {
	d, g := w.Window(), w.Generations()
	for _, unit := range []time.Duration{time.Second, time.Millisecond, time.Microsecond} {
		if r := d.Round(unit); r > 0 && r != math.MaxInt64 {
			if s, err := blocked.WindowSlice(r, g); err == nil && s == w.Slice() {
				return r.String()
			}
		}
	}
	return d.String()
}

// sliceTime formats the start of w's latest slice for info: RFC 3339 in
// UTC, or "the start of time" for a window of -time-field that has seen no
// line (its slice still at timeFieldOrigin).
func sliceTime(w *blocked.Window) string {
	t := w.SliceStart()
	if t.UnixNano() == timeFieldOrigin(w.Slice()) {
		return "the start of time (no line yet)"
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func (r windowReader) stats() filterStats {
	w := r.w
	// A window by count has no slice time (sliceTime divided by its slice
	// of 0) and a window of 0: its span is in adds.
	var span string
	if k := w.SliceKeys(); k != 0 {
		span = fmt.Sprintf("window of %d adds (a slice of %d keys)", uint64(w.Generations()-1)*k, k)
	} else {
		span = fmt.Sprintf("window %s (a slice of %v, the latest from %s)", windowString(w), w.Slice(), sliceTime(w))
	}
	return filterStats{
		kind:         "window",
		geometry:     fmt.Sprintf("%d generations x %d group%s x %d-bit lanes, k=%d, %s", w.Generations(), w.Groups(), plural(int(min(w.Groups(), 2))), w.LaneBits(), w.K(), span),
		payloadBytes: int64(w.SizeBytes()),
		count:        -1,
		fill:         -1, // info counts the set bits itself
		fpp:          -1,
	}
}
