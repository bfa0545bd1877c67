package blocked

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/sift-go/sift/internal/clock"
)

// BenchmarkConcurrentWindowAddNew compares batch add-if-new of a
// ConcurrentWindow (time mode, G = 4, 1%, n keys a window) in calls of
// 1024 keys, as sift dedup makes them, with the same keys through a loop
// of its AddNewHash (what AddNewHashes was before it had a batch path) and
// with Window.AddNewHashes. Half of each call's keys were added before (a
// de-duplicated stream's repeats). clock=sim reads a simulated clock;
// clock=now reads the default clock (clock.Steady). It reports
// thread-CPU ns a key (cpu-ns/key) besides wall ns/key.
func BenchmarkConcurrentWindowAddNew(b *testing.B) {
	for _, n := range []uint64{1e6, 1e7} {
		for _, clockName := range []string{"sim", "now"} {
			clk := newSimClock()
			now := clk.Now
			if clockName == "now" {
				now = clock.Steady
			}
			c, err := NewConcurrentWindow(n, 0.01, time.Hour, WithClock(now))
			if err != nil {
				b.Fatal(err)
			}
			w, err := NewWindow(n, 0.01, time.Hour, WithClock(now))
			if err != nil {
				b.Fatal(err)
			}
			hs := hashes(int(n), 11)
			// Every other key of each call is one the window holds.
			for i := 0; i < len(hs); i += 2 {
				c.AddHash(hs[i])
				w.AddHash(hs[i])
			}
			out := make([]bool, 1024)
			for _, impl := range []struct {
				name string
				call func([]uint64)
			}{
				{"concurrent-batch", func(p []uint64) { c.AddNewHashes(p, out) }},
				{"concurrent-loop", func(p []uint64) {
					for i, h := range p {
						out[i] = c.AddNewHash(h)
					}
				}},
				{"window-batch", func(p []uint64) { w.AddNewHashes(p, out) }},
			} {
				b.Run(fmt.Sprintf("n=%.0e/clock=%s/impl=%s", float64(n), clockName, impl.name), func(b *testing.B) {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					i, keys, cpu := 0, 0, windowThreadCPU()
					for b.Loop() {
						if i+len(out) > len(hs) {
							i = 0
						}
						impl.call(hs[i : i+len(out)])
						i += len(out)
						keys += len(out)
					}
					reportWindowBench(b, keys, cpu)
				})
			}
			c.Close()
			w.Close()
		}
	}
}

// BenchmarkConcurrentWindowContains measures single-key lookups of present
// keys in a ConcurrentWindow (time mode, G = 4, 1%, n keys a window, an
// hour long) on the default clock: with its expiry timer, the default
// (clock=timer), and reading that clock on every lookup as it did before
// the timers (clock=read: WithClock(clock.Steady), which runs none). It
// reports thread-CPU ns a key (cpu-ns/key) besides wall ns/key.
func BenchmarkConcurrentWindowContains(b *testing.B) {
	for _, n := range []uint64{1e6, 1e7} {
		for _, clockName := range []string{"timer", "read"} {
			var opts []Option
			if clockName == "read" {
				opts = append(opts, WithClock(clock.Steady))
			}
			c, err := NewConcurrentWindow(n, 0.01, time.Hour, opts...)
			if err != nil {
				b.Fatal(err)
			}
			hs := hashes(int(n), 11)
			c.AddHashes(hs)
			b.Run(fmt.Sprintf("n=%.0e/clock=%s", float64(n), clockName), func(b *testing.B) {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				i, keys, found, cpu := 0, 0, 0, windowThreadCPU()
				for b.Loop() {
					for range 1024 {
						if c.ContainsHash(hs[i]) {
							found++
						}
						if i++; i == len(hs) {
							i = 0
						}
					}
					keys += 1024
				}
				reportWindowBench(b, keys, cpu)
				if found != keys {
					b.Fatalf("%d of %d present keys found", found, keys)
				}
			})
			c.Close()
		}
	}
}
