package blocked

import (
	"bytes"
	"errors"
	"testing"

	"github.com/sift-go/sift/internal/format"
)

// A stand-alone filter's record must not carry Scalable stage fields (key
// count, capacity): accepting them would make decode then encode change the
// bytes. Found by fuzz.FuzzDecodeRecord.
func TestStandaloneRejectsStageParams(t *testing.T) {
	f, err := New(100, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	f.AddString("x")
	good, _ := f.MarshalBinary()
	h, payload, _, err := format.Decode(good, format.KindBlocked, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ count, capacity uint64 }{{1, 0}, {0, 5}, {3, 5}, {72, 21}} {
		h2 := h
		h2.Params[paramCount], h2.Params[paramCapacity] = c.count, c.capacity
		bad := format.Encode(h2, payload)
		var g Filter
		if err := g.UnmarshalBinary(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("count %d capacity %d: UnmarshalBinary: %v", c.count, c.capacity, err)
		}
		if _, err := g.ReadFrom(bytes.NewReader(bad)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("count %d capacity %d: ReadFrom: %v", c.count, c.capacity, err)
		}
		var cc Concurrent
		if err := cc.UnmarshalBinary(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("count %d capacity %d: Concurrent.UnmarshalBinary: %v", c.count, c.capacity, err)
		}
		if _, err := FromBytes(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("count %d capacity %d: FromBytes: %v", c.count, c.capacity, err)
		}
	}
	var g Filter
	if err := g.UnmarshalBinary(good); err != nil {
		t.Fatal(err)
	}
}
