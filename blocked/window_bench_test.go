package blocked

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/sift-go/sift/internal/clock"
)

// BenchmarkWindowContains compares lookups of a Window (G generations, 1%,
// n keys per window, filled at a steady rate over the window) with those of
// a Filter of the same total size holding the same keys: single-key
// (ContainsHash) and batch (ContainsHashes, 1024 keys a call). The queries
// are random hashes, almost all absent, the Window's worst case: every live
// generation is probed. impl=window reads a simulated clock, which costs
// nothing, so it measures the probes; impl=window-now reads the default
// clock (clock.Steady), once per ContainsHash hit and once per batch;
// impl=window-expiry has the default clock but WithExpiryOnAdd, so its
// lookups read no clock.
//
// Besides wall ns/key it reports thread-CPU ns/key (cpu-ns/key), which
// time spent descheduled on a shared machine does not inflate.
func BenchmarkWindowContains(b *testing.B) {
	for _, n := range []uint64{1e6, 1e7} {
		for _, g := range []int{2, 4} {
			benchWindowContains(b, n, g)
		}
	}
}

// filledWindow returns a Window of g generations (1%, n keys a window, a
// simulated clock) filled at a steady rate over its window, a Filter of
// the same total size holding the same keys, and 65536 random queries
// (almost all absent: the window's worst case, every live generation
// probed). The caller closes both.
func filledWindow(b *testing.B, n uint64, g int) (*Window, *Filter, []uint64) {
	clk := newSimClock()
	w, err := NewWindow(n, 0.01, time.Hour, WithClock(clk.Now), WithGenerations(g))
	if err != nil {
		b.Fatal(err)
	}
	f, err := NewWithSize(w.Blocks()*BlockBits, w.K())
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	step := w.Window() / time.Duration(n)
	for range n {
		clk.now = clk.now.Add(step)
		h := rng.Uint64()
		w.AddHash(h)
		f.AddHash(h)
	}
	qs := make([]uint64, 1<<16)
	for i := range qs {
		qs[i] = rng.Uint64()
	}
	return w, f, qs
}

func benchWindowContains(b *testing.B, n uint64, g int) {
	w, f, qs := filledWindow(b, n, g)
	defer w.Close()
	defer f.Close()
	out := make([]bool, 1024)
	for _, impl := range []string{"window", "window-now", "window-expiry", "filter"} {
		contains := w.ContainsHash
		containsHashes := w.ContainsHashes
		switch impl {
		case "filter":
			contains = f.ContainsHash
			containsHashes = f.ContainsHashes
		case "window-now":
			// Serve with the real clock, inside the current slice.
			w.clock = clock.Steady
			w.start = clock.Steady().UnixNano()
		case "window-expiry":
			// The real clock, but lookups read none (WithExpiryOnAdd).
			w.expiryOnAdd = true
			w.setLookups()
		}
		name := fmt.Sprintf("n=%.0e/G=%d/impl=%s", float64(n), g, impl)
		b.Run(name+"/op=ContainsHash", func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			i, cpu := 0, windowThreadCPU()
			for b.Loop() {
				contains(qs[i&(len(qs)-1)])
				i++
			}
			reportWindowBench(b, i, cpu)
		})
		b.Run(name+"/op=ContainsHashes", func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			i, keys, cpu := 0, 0, windowThreadCPU()
			for b.Loop() {
				j := i & (len(qs)/len(out) - 1) * len(out)
				containsHashes(qs[j:j+len(out)], out)
				i++
				keys += len(out)
			}
			reportWindowBench(b, keys, cpu)
		})
	}
}

// reportWindowBench reports wall and thread-CPU ns/key for keys lookups
// since the thread CPU reading cpu.
func reportWindowBench(b *testing.B, keys int, cpu int64) {
	if cpu >= 0 {
		b.ReportMetric(float64(windowThreadCPU()-cpu)/float64(keys), "cpu-ns/key")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(keys), "ns/key")
}

// BenchmarkTimeNow is the cost of one clock reading, which a Window's
// lookups pay unless WithExpiryOnAdd (or a count-driven window): time.Now
// and the default clock, clock.Steady.
func BenchmarkTimeNow(b *testing.B) {
	for _, c := range []struct {
		name string
		now  func() time.Time
	}{{"time.Now", time.Now}, {"default", clock.Steady}} {
		b.Run("clock="+c.name, func(b *testing.B) {
			var sink int64
			for b.Loop() {
				sink += c.now().UnixNano()
			}
			_ = sink
		})
	}
}

// BenchmarkClockAfterLoad is why a timed hit costs more than a clock
// reading (see Window.ContainsHash): random 8-byte loads over an array
// (clock=none), and the same with the default clock read after every
// other load (clock=steady; a predictable branch, as a hit's would be in
// a run of hits). Without the clock the out-of-order core overlaps the
// loads' misses; the clock's ordered TSC read waits for them.
func BenchmarkClockAfterLoad(b *testing.B) {
	for _, mb := range []int{1, 16, 256} {
		a := make([]uint64, mb<<20/8)
		for i := range a {
			a[i] = uint64(i) // real pages, not the shared zero page
		}
		idx := make([]uint32, 1<<16)
		rng := rand.New(rand.NewPCG(3, 4))
		for i := range idx {
			idx[i] = uint32(rng.IntN(len(a)))
		}
		for _, c := range []string{"none", "steady"} {
			b.Run(fmt.Sprintf("MB=%d/clock=%s", mb, c), func(b *testing.B) {
				var s uint64
				var t int64
				for b.Loop() {
					for i, j := range idx {
						s += a[j]
						if c == "steady" && i&1 == 0 {
							t += clock.Steady().UnixNano()
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(idx)), "ns/load")
				if s+uint64(t) == 1 {
					b.Log("unlikely") // keeps s and t live
				}
			})
		}
	}
}

// BenchmarkWindowRotate is the cost of a rotation: clearing one
// generation, its lane in every group (clearGen), against a contiguous
// clear of the same bytes (what a generation-after-generation layout would
// do), per generation and per byte cleared.
func BenchmarkWindowRotate(b *testing.B) {
	for _, n := range []uint64{1e6, 1e7} {
		for _, g := range []int{2, 4, 8} {
			w, err := NewWindow(n, 0.01, 0, WithGenerations(g), WithSliceKeys(n))
			if err != nil {
				b.Fatal(err)
			}
			genBytes := float64(w.nb * uint64(w.LaneBits()) / 8)
			per := uint64(len(w.t.Blocks) / g) // lines of the same bytes
			name := fmt.Sprintf("n=%.0e/G=%d", float64(n), g)
			b.Run(name+"/clear=strided", func(b *testing.B) {
				j := 0
				for b.Loop() {
					w.clearGen(j)
					j = (j + 1) % g
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/genBytes, "ns/B")
			})
			b.Run(name+"/clear=contiguous", func(b *testing.B) {
				j := 0
				for b.Loop() {
					clear(w.t.Blocks[uint64(j)*per : uint64(j+1)*per])
					j = (j + 1) % g
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/genBytes, "ns/B")
			})
			w.Close()
		}
	}
}

// BenchmarkWindowAdd compares the adds of a Window (G generations, 1%, n
// keys a window, advancing by count, so a rotation every n/(G-1) adds is in
// the figure) with AddHash of a Filter of the same total size: AddHash and
// AddNewHash of random keys, n distinct keys cycled. Besides wall ns/key it
// reports thread-CPU ns/key.
func BenchmarkWindowAdd(b *testing.B) {
	for _, n := range []uint64{1e6, 1e7} {
		hs := make([]uint64, n)
		rng := rand.New(rand.NewPCG(5, 6))
		for i := range hs {
			hs[i] = rng.Uint64()
		}
		for _, g := range []int{2, 4, 8} {
			w, err := NewWindow(n, 0.01, 0, WithGenerations(g), WithSliceKeys((n+uint64(g)-2)/uint64(g-1)))
			if err != nil {
				b.Fatal(err)
			}
			f, err := NewWithSize(w.Blocks()*BlockBits, w.K())
			if err != nil {
				b.Fatal(err)
			}
			var sink bool
			for _, c := range []struct {
				impl string
				add  func(uint64)
			}{
				{"window", w.AddHash},
				{"window-addnew", func(h uint64) { sink = w.AddNewHash(h) }},
				{"filter", f.AddHash},
				{"filter-addnew", func(h uint64) { sink = f.AddNewHash(h) }},
			} {
				b.Run(fmt.Sprintf("n=%.0e/G=%d/impl=%s", float64(n), g, c.impl), func(b *testing.B) {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					i, cpu := 0, windowThreadCPU()
					for b.Loop() {
						c.add(hs[i])
						if i++; i == len(hs) {
							i = 0
						}
					}
					reportWindowBench(b, b.N, cpu)
				})
			}
			_ = sink
			w.Close()
			f.Close()
		}
	}
}

// BenchmarkWindowContainsPaired is BenchmarkWindowContains' single-key
// comparison made robust to a machine whose memory speed drifts between
// runs (on the shared development VM single-key lookups at 1e7 keys varied
// 3x from one sub-benchmark to the next, whatever the code): the same
// 65536 queries go through the Window reading a simulated clock, the same
// Window reading the default clock (inside its current slice) without
// and with its expiry timer (window_expiry.go; the default since), the
// Window with WithExpiryOnAdd and the Filter of the same size, in turns of
// one pass each (the order rotating; each timed pass follows an untimed
// one of the same lookups, so that the table it reads is as warm as the
// others'), and the thread-CPU time of each is summed over b.N turns. The
// queries are random hashes (q=random: absent but for false positives,
// as in pre-filtering) or the last keys added (q=present: every lookup a
// hit, which by time reads the clock). Each loop calls ContainsHash
// directly, so it inlines where it can, as in a user's loop. It reports
// ns a lookup of each and each one's ratio to the Filter's.
func BenchmarkWindowContainsPaired(b *testing.B) {
	for _, n := range []uint64{1e6, 1e7} {
		for _, g := range []int{2, 4} {
			w, f, random := filledWindow(b, n, g)
			present := make([]uint64, len(random))
			rng := rand.New(rand.NewPCG(1, 2)) // filledWindow's keys
			for i := range n {
				if h := rng.Uint64(); i >= n-uint64(len(present)) {
					present[i-(n-uint64(len(present)))] = h
				}
			}
			for _, q := range []string{"random", "present"} {
				qs := random
				if q == "present" {
					qs = present
				}
				benchWindowPaired(b, fmt.Sprintf("n=%.0e/G=%d/q=%s", float64(n), g, q), w, f, qs)
			}
			w.Close()
			f.Close()
		}
	}
}

func benchWindowPaired(b *testing.B, name string, w *Window, f *Filter, qs []uint64) {
	hits := 0
	simClock, simStart := w.clock, w.start
	lookups := func() {
		for _, q := range qs {
			if w.ContainsHash(q) {
				hits++
			}
		}
	}
	// byClock is a pass of lookups by time without WithExpiryOnAdd.
	byClock := func() {
		w.expiryOnAdd = false
		w.setLookups()
		lookups()
	}
	// onDefaultClock is a pass on the default clock, inside the current
	// slice, with or without its expiry timer (with: the default).
	onDefaultClock := func(timer bool) func() {
		return func() {
			w.clock, w.start = clock.Steady, clock.Steady().UnixNano()
			if timer {
				w.ex.after = afterFunc
				defer func() { w.ex.stop(); w.ex.after = nil }()
			}
			w.expiryOnAdd = false
			w.setLookups()
			w.arm(w.start) // nothing without the timer
			lookups()
			w.clock, w.start = simClock, simStart
		}
	}
	passes := [5]func(){
		byClock,
		onDefaultClock(false),
		func() {
			w.expiryOnAdd = true
			w.setLookups()
			lookups()
		},
		onDefaultClock(true),
		func() {
			for _, q := range qs {
				if f.ContainsHash(q) {
					hits++
				}
			}
		},
	}
	b.Run(name, func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var spent [5]int64
		for i := range b.N {
			for j := range passes {
				p := (i + j) % len(passes)
				passes[p]() // untimed: the table in cache as far as it fits
				t0 := windowThreadCPU()
				passes[p]()
				spent[p] += windowThreadCPU() - t0
			}
		}
		keys := float64(b.N * len(qs))
		b.ReportMetric(float64(spent[0])/keys, "window-ns/key")
		b.ReportMetric(float64(spent[1])/keys, "now-ns/key")
		b.ReportMetric(float64(spent[2])/keys, "expiry-ns/key")
		b.ReportMetric(float64(spent[3])/keys, "timer-ns/key")
		b.ReportMetric(float64(spent[4])/keys, "filter-ns/key")
		b.ReportMetric(float64(spent[0])/float64(spent[4]), "window/filter")
		b.ReportMetric(float64(spent[1])/float64(spent[4]), "now/filter")
		b.ReportMetric(float64(spent[2])/float64(spent[4]), "expiry/filter")
		b.ReportMetric(float64(spent[3])/float64(spent[4]), "timer/filter")
	})
	if hits < 0 {
		b.Fatal("unreachable: keeps the answers live")
	}
	w.expiryOnAdd = false
	w.setLookups()
}
