package blocked

import (
	"testing"
	"unsafe"
)

// TestWindowExAligned checks that the expiry word of the window types,
// which they update atomically, is their first word after the zero-size
// nocopy.NoCopy (internal/nocopy's TestFilterTypes checks that field), so
// that it stays 64-bit aligned on 32-bit platforms.
func TestWindowExAligned(t *testing.T) {
	if off := unsafe.Offsetof(Window{}.ex); off != 0 {
		t.Errorf("Window.ex at offset %d, want 0", off)
	}
	if off := unsafe.Offsetof(ConcurrentWindow{}.ex); off != 0 {
		t.Errorf("ConcurrentWindow.ex at offset %d, want 0", off)
	}
}
