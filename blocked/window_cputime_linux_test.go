//go:build linux

package blocked

import "golang.org/x/sys/unix"

// windowThreadCPU returns the calling thread's CPU time in nanoseconds, for
// the cpu-ns/key metric of BenchmarkWindowContains (time spent descheduled
// on a shared machine does not count), or -1 where there is none.
func windowThreadCPU() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return -1
	}
	return ts.Nano()
}
