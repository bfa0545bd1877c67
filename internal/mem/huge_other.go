//go:build unix && !linux

package mem

// adviseHuge is a no-op where MADV_HUGEPAGE does not exist.
func adviseHuge([]byte) {}
