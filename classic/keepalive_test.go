package classic

import (
	"io"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/sift-go/sift/internal/mem"
)

// TestEncodeKeepsMappingAlive: a mapped filter's memory is unmapped by its
// region's finalizer once the filter is unreachable, so a method that reads
// the words after its last use of the receiver must keep the receiver
// alive (runtime.KeepAlive) or it reads unmapped memory when a collection
// runs meanwhile. Here the filters are reachable only through the call in
// progress while another goroutine collects without pause; without the
// KeepAlive calls the encoders fault (seen first under qemu-user, where
// copying the words is slow).
func TestEncodeKeepsMappingAlive(t *testing.T) {
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			runtime.GC()
		}
	}()
	defer func() { stop.Store(true); <-done }()
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	// Both filters take about 4.8 MB, past mem.HugeThreshold (4 MiB).
	for i := range rounds {
		newF := func() *Filter {
			f, err := New(4_000_000, 0.01)
			if err != nil {
				t.Fatal(err)
			}
			if !f.region.Mapped() || 8*len(f.words) < mem.HugeThreshold {
				t.Skip("filter not mapped here")
			}
			f.PutInt64(int64(i))
			return f
		}
		newC := func() *Counting {
			c, err := NewCounting(1_000_000, 0.01)
			if err != nil {
				t.Fatal(err)
			}
			c.AddUint64(uint64(i))
			return c
		}
		switch i % 6 {
		case 0:
			_, _ = newF().MarshalBinary()
		case 1:
			_, _ = newF().WriteTo(io.Discard)
		case 2:
			_, _ = newF().AppendGuava(nil)
		case 3:
			_ = newF().Equal(newF())
		case 4:
			_, _ = newC().MarshalBinary()
		case 5:
			_ = newC().Saturated()
		}
	}
}
