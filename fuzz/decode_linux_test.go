package fuzz

import (
	"syscall"
	"testing"
)

// TestVMCheckCatches checks the mapped-memory half of the allocation check:
// mapping 1 GiB (reserved, never touched) for a small input fails it.
func TestVMCheckCatches(t *testing.T) {
	if vmSize() == 0 {
		t.Skip("no /proc/self/statm")
	}
	var m []byte
	msg := allocExcess(100, func() {
		var err error
		m, err = syscall.Mmap(-1, 0, 1<<30, syscall.PROT_NONE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			t.Skipf("mmap: %v", err)
		}
	})
	if m != nil {
		syscall.Munmap(m)
	}
	if msg == "" {
		t.Error("a 1 GiB mapping for 100 input bytes passes the check")
	}
}
