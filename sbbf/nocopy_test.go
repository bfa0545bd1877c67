package sbbf

import (
	"reflect"
	"sync"
	"testing"
)

// TestNoCopy checks that each filter type whose documentation says not to
// copy it holds a noCopy as its first field, so that go vet reports
// copies, and that the field takes no space.
func TestNoCopy(t *testing.T) {
	locker := reflect.TypeFor[sync.Locker]()
	for _, typ := range []reflect.Type{reflect.TypeFor[Filter](), reflect.TypeFor[View]()} {
		f := typ.Field(0)
		if f.Type != reflect.TypeFor[noCopy]() || f.Type.Size() != 0 {
			t.Errorf("%v's first field is %s %v, want a zero-size noCopy", typ, f.Name, f.Type)
		}
		if !reflect.PointerTo(f.Type).Implements(locker) {
			t.Errorf("*%v is not a sync.Locker: vet would not report copies", f.Type)
		}
		if typ.NumField() > 1 && typ.Field(1).Offset != 0 {
			t.Errorf("%v's second field is at offset %d, want 0", typ, typ.Field(1).Offset)
		}
	}
}
