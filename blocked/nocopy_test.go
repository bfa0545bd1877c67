package blocked

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/sift-go/sift/internal/nocopy"
)

// TestNoCopy checks that each filter type whose documentation says not to
// copy it holds a nocopy.NoCopy as its first field, so that go vet reports
// copies, and that the field takes no space.
func TestNoCopy(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[Filter](), reflect.TypeFor[Concurrent](), reflect.TypeFor[View](),
		reflect.TypeFor[Window](), reflect.TypeFor[ConcurrentWindow](), reflect.TypeFor[Scalable](),
	} {
		if err := nocopy.Check(typ); err != nil {
			t.Error(err)
		}
	}
	// The expiry word must stay 64-bit aligned on 32-bit platforms.
	if off := unsafe.Offsetof(Window{}.ex); off != 0 {
		t.Errorf("Window.ex at offset %d, want 0", off)
	}
	if off := unsafe.Offsetof(ConcurrentWindow{}.ex); off != 0 {
		t.Errorf("ConcurrentWindow.ex at offset %d, want 0", off)
	}
}
