//go:build !linux

package blocked

// windowThreadCPU: no thread CPU clock here (see the linux version).
func windowThreadCPU() int64 { return -1 }
