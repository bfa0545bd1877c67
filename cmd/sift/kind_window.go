package main

import (
	"fmt"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/internal/mem"
)

// The windowed blocked filter (blocked.Window): query and info read it
// (a copy, as every kind: the window is answered as of now, by this
// machine's clock); build does not make one, since a window's keys need
// their times.
func init() {
	registerKind(&kindInfo{name: "window", fileKind: sift.KindWindow, open: openWindow})
}

type windowReader struct{ w *blocked.Window }

func openWindow(path string) (queryFilter, error) {
	b, region, _, err := mem.ReadFile(path)
	if err != nil {
		return nil, err
	}
	defer region.Free() // WindowFromBytes copies: a window keeps being written to
	w, err := blocked.WindowFromBytes(b)
	if err != nil {
		return nil, err
	}
	return windowReader{w}, nil
}

func (r windowReader) hash(key []byte) uint64 { return r.w.Hash(key) }
func (r windowReader) containsHashes(hs []uint64, out []bool) int {
	return r.w.ContainsHashes(hs, out)
}
func (r windowReader) close() error { return r.w.Close() }

func (r windowReader) stats() filterStats {
	w := r.w
	every := fmt.Sprintf("a slice of %v", w.Slice())
	if w.SliceKeys() != 0 {
		every = fmt.Sprintf("a slice of %d keys", w.SliceKeys())
	}
	return filterStats{
		kind:         "window",
		geometry:     fmt.Sprintf("%d generations x %d group%s x %d-bit lanes, k=%d, window %v (%s)", w.Generations(), w.Groups(), plural(int(min(w.Groups(), 2))), w.LaneBits(), w.K(), w.Window().Round(time.Millisecond), every),
		payloadBytes: int64(w.SizeBytes()),
		count:        -1,
		fill:         -1, // info counts the set bits itself
		fpp:          -1,
	}
}
