//go:build linux

package blocked

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkAddNewPaired measures add-if-new against the add it replaces in
// pairs, in thread CPU time (CLOCK_THREAD_CPUTIME_ID: time descheduled on
// a shared machine does not count): each iteration empties the filter and
// adds all n keys with the plain call, then empties it and adds them with
// the add-if-new call, alternating which goes first. It reports both in
// ns/key and their ratio (sum over the iterations), the figure the
// targets are stated in (issue #26: single-key at most 1.1x, batch 1.2x),
// and the median of the pairs' own ratios (median-pair-ratio), which a
// slow spell of a shared machine moves less.
// call=batch is one call over all n keys (n answers streamed through the
// cache the filter shares); call=batch1024 calls of 1024, as sift dedup
// makes: at 1e7, medians of 12 runs on the AMD EPYC family 26 model 2
// (Zen 5) dev VM were 1.38 (bimodal, 1.10-1.45) and 1.16 (1.11-1.25).
//
//	go test -run '^$' -bench AddNewPaired -benchtime 6x ./blocked
func BenchmarkAddNewPaired(b *testing.B) {
	for _, n := range []int{1e6, 1e7} {
		f, err := New(uint64(n), 0.01)
		if err != nil {
			b.Fatal(err)
		}
		hs := hashes(n, 7)
		out := make([]bool, n)
		sink := 0
		// URL-like keys of 40-60 bytes, as a de-duplicating server or
		// sift dedup hashes them: the string form's cost includes xxh3.
		strs := make([]string, n)
		for i := range strs {
			strs[i] = fmt.Sprintf("https://example.com/path/%d/item?id=%x", i, hs[i])
		}
		for _, pair := range []struct {
			name       string
			plain, new func()
		}{
			{"single", func() {
				for _, h := range hs {
					f.AddHash(h)
				}
			}, func() {
				for _, h := range hs {
					if f.AddNewHash(h) {
						sink++
					}
				}
			}},
			// The answers unused: the call's own cost, without the
			// caller's branch on each answer.
			{"single-unused", func() {
				for _, h := range hs {
					f.AddHash(h)
				}
			}, func() {
				for _, h := range hs {
					f.AddNewHash(h)
				}
			}},
			// The string forms, with the caller branching on each answer.
			{"string", func() {
				for _, s := range strs {
					f.AddString(s)
				}
			}, func() {
				for _, s := range strs {
					if f.AddNewString(s) {
						sink++
					}
				}
			}},
			{"batch", func() { f.AddHashes(hs) }, func() { sink += f.AddNewHashes(hs, out) }},
			// Calls of 1024 keys, as sift dedup makes: the answers stay in
			// L1 instead of streaming n bools through the cache the filter
			// shares.
			{"batch1024", func() {
				for i := 0; i < len(hs); i += 1024 {
					f.AddHashes(hs[i:min(i+1024, len(hs))])
				}
			}, func() {
				for i := 0; i < len(hs); i += 1024 {
					sink += f.AddNewHashes(hs[i:min(i+1024, len(hs))], out)
				}
			}},
		} {
			b.Run(fmt.Sprintf("n=%.0e/call=%s", float64(n), pair.name), func(b *testing.B) {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				var spent [2]int64
				timed := func(i int, fn func()) int64 {
					f.Reset()
					var t0, t1 unix.Timespec
					unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &t0)
					fn()
					unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &t1)
					spent[i] += t1.Nano() - t0.Nano()
					return t1.Nano() - t0.Nano()
				}
				ratios := make([]float64, 0, b.N)
				for i := range b.N {
					var plain, fresh int64
					if i%2 == 0 {
						plain = timed(0, pair.plain)
						fresh = timed(1, pair.new)
					} else {
						fresh = timed(1, pair.new)
						plain = timed(0, pair.plain)
					}
					ratios = append(ratios, float64(fresh)/float64(plain))
				}
				slices.Sort(ratios)
				keys := float64(b.N * n)
				b.ReportMetric(float64(spent[0])/keys, "add-cpu-ns/key")
				b.ReportMetric(float64(spent[1])/keys, "addnew-cpu-ns/key")
				b.ReportMetric(float64(spent[1])/float64(spent[0]), "addnew/add")
				// The median of the pairs' own ratios: a pair's two fills
				// run back to back, so a slow spell of a shared machine
				// (the 1e7 fills' memory above all) weighs on both, where
				// the ratio of the sums lets a few slow fills of one kind
				// decide it.
				b.ReportMetric((ratios[(len(ratios)-1)/2]+ratios[len(ratios)/2])/2, "median-pair-ratio")
			})
		}
		f.Close()
		if sink < 0 {
			b.Fatal("unreachable: keeps the answers live")
		}
	}
}
