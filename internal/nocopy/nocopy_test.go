package nocopy

import (
	"reflect"
	"sync"
	"testing"
)

// TestNoCopy: *NoCopy is a sync.Locker (what vet's copylocks check looks
// for), NoCopy takes no space, and Check tells a type that holds one
// first from those that do not.
func TestNoCopy(t *testing.T) {
	if !reflect.PointerTo(reflect.TypeFor[NoCopy]()).Implements(reflect.TypeFor[sync.Locker]()) {
		t.Error("*NoCopy is not a sync.Locker: vet would not report copies")
	}
	if s := reflect.TypeFor[NoCopy]().Size(); s != 0 {
		t.Errorf("NoCopy takes %d bytes", s)
	}
	type good struct {
		_ NoCopy
		x uint64
	}
	type second struct {
		x uint64
		_ NoCopy
	}
	type none struct{ x uint64 }
	if err := Check(reflect.TypeFor[good]()); err != nil {
		t.Error(err)
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[second](), reflect.TypeFor[none](), reflect.TypeFor[struct{}](), reflect.TypeFor[int]()} {
		if Check(typ) == nil {
			t.Errorf("Check(%v) = nil", typ)
		}
	}
	a, b := good{x: 1}, good{x: 2}
	Move(&a, &b)
	if a.x != 2 {
		t.Errorf("Move: %d", a.x)
	}
}
