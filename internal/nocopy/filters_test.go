package nocopy_test

import (
	"reflect"
	"testing"

	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/classic"
	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/internal/nocopy"
	"github.com/sift-go/sift/sbbf"
)

// TestFilterTypes checks that each filter type whose documentation says not
// to copy it holds a nocopy.NoCopy as its first field, so that go vet
// reports copies, and that the field takes no space.
func TestFilterTypes(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[blocked.Filter](), reflect.TypeFor[blocked.Concurrent](), reflect.TypeFor[blocked.View](),
		reflect.TypeFor[blocked.Window](), reflect.TypeFor[blocked.ConcurrentWindow](), reflect.TypeFor[blocked.Scalable](),
		reflect.TypeFor[classic.Filter](), reflect.TypeFor[classic.Counting](),
		reflect.TypeFor[cuckoo.Filter](), reflect.TypeFor[cuckoo.View](),
		reflect.TypeFor[sbbf.Filter](), reflect.TypeFor[sbbf.View](),
	} {
		if err := nocopy.Check(typ); err != nil {
			t.Error(err)
		}
	}
}
