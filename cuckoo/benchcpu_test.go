package cuckoo

import (
	"runtime"
	"testing"
	"time"
)

// startCPU locks the benchmark's goroutine to its thread and returns the
// thread's CPU time, for perKey at the end of the measured loop.
func startCPU() time.Duration {
	runtime.LockOSThread()
	t, _ := threadCPU()
	return t
}

// perKey reports the loop's wall-clock time per key as ns/key and, where
// the system has a thread CPU clock, the thread's CPU time per key since
// start (from startCPU) as cpu-ns/key: on a machine shared with other work
// the second is the steadier figure. It unlocks the thread.
func perKey(b *testing.B, keys int, start time.Duration) {
	defer runtime.UnlockOSThread()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(keys), "ns/key")
	if t, ok := threadCPU(); ok {
		b.ReportMetric(float64(t-start)/float64(keys), "cpu-ns/key")
	}
}
