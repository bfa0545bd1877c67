// Package nocopy holds the marker that makes go vet report copies of the
// filter types that must not be copied (a copy shares the original's
// memory, which Close then frees or unmaps under it), and the move those
// packages make on purpose.
package nocopy

import (
	"fmt"
	"reflect"
)

// NoCopy is the first field of the filter types that must not be copied:
// go vet's copylocks check reports a copy of any struct holding one, as it
// does for sync.Mutex (the pattern of sync's own noCopy). It takes no
// space.
type NoCopy struct{}

// Lock is a no-op; vet looks for it.
func (*NoCopy) Lock() {}

// Unlock is a no-op; vet looks for it.
func (*NoCopy) Unlock() {}

// Move sets *dst to *src, for the few places that move a whole filter
// value on purpose: a decoder replacing its receiver with what it decoded,
// a Clone starting from a shallow copy whose memory it then replaces. The
// type parameter keeps vet's copylocks check, meant for users' copies,
// from reporting these.
func Move[T any](dst, src *T) { *dst = *src }

// Check returns an error unless typ, a struct type, holds a NoCopy as its
// first field (so that go vet reports its copies) and that field takes no
// space (the second field, if any, is at offset 0), for the filter
// packages' tests.
func Check(typ reflect.Type) error {
	if typ.Kind() != reflect.Struct || typ.NumField() == 0 {
		return fmt.Errorf("%v is not a struct with fields", typ)
	}
	if f := typ.Field(0); f.Type != reflect.TypeFor[NoCopy]() {
		return fmt.Errorf("%v's first field is %s %v, want a nocopy.NoCopy", typ, f.Name, f.Type)
	}
	if typ.NumField() > 1 && typ.Field(1).Offset != 0 {
		return fmt.Errorf("%v's second field is at offset %d, want 0", typ, typ.Field(1).Offset)
	}
	return nil
}
