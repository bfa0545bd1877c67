package classic

import (
	"reflect"
	"testing"

	"github.com/sift-go/sift/internal/nocopy"
)

// TestNoCopy checks that each filter type whose documentation says not to
// copy it holds a nocopy.NoCopy as its first field, so that go vet reports
// copies, and that the field takes no space.
func TestNoCopy(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[Filter](), reflect.TypeFor[Counting]()} {
		if err := nocopy.Check(typ); err != nil {
			t.Error(err)
		}
	}
}
