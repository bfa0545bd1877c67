//go:build !linux

package cuckoo

import "time"

// threadCPU is not available here: BenchmarkFillCurve reports wall-clock
// time.
func threadCPU() (time.Duration, bool) { return 0, false }
