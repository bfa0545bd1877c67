// Package clock is the clock a window reads unless told otherwise: the
// wall clock as the monotonic clock advances it. blocked.Window's default
// clock and sift dedup -window's arrival time are Steady.
package clock

import "time"

// base is the wall clock when the package was initialised, with the
// monotonic reading time.Now takes along.
var base = time.Now()

// Steady returns base advanced by the monotonic clock's time since: what
// time.Now would say if nobody set the system's wall clock after the
// process started. Two reasons a window prefers it to time.Now:
//
//   - A window measures durations. A wall clock stepped forward (by NTP,
//     or by hand) would end slices early and drop keys inside their
//     guaranteed window; stepped back, it would keep them longer. The
//     monotonic clock is never stepped. (It does not advance while the
//     machine is suspended, so keys outlive a suspend; they are never
//     dropped early.) Slice times saved as Unix nanoseconds meet the next
//     process's wall clock, as they would with time.Now.
//   - It reads one clock where time.Now reads two (wall and monotonic):
//     36-41 against 49-52 ns a reading on the 2-core development VM, AMD
//     EPYC family 25 model 17 (Zen 4), clock source tsc
//     (blocked's BenchmarkTimeNow, -benchtime 1000000x, three runs).
func Steady() time.Time { return base.Add(time.Since(base)) }
