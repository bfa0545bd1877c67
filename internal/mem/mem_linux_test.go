package mem

import (
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestAllocPrefaults: every page of a new mapping is resident when Alloc
// returns (mincore), so the first inserts into a filter pay no page faults.
func TestAllocPrefaults(t *testing.T) {
	w, r, err := Alloc(3*HugeThreshold/8 + 5)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Free()
	if !r.Mapped() {
		t.Skip("Alloc did not map memory here")
	}
	page := os.Getpagesize()
	vec := make([]byte, (len(r.mapped)+page-1)/page)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&r.mapped[0])), uintptr(len(r.mapped)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Skipf("mincore: %v", errno)
	}
	missing := 0
	for _, v := range vec {
		if v&1 == 0 {
			missing++
		}
	}
	if missing != 0 {
		t.Fatalf("%d of %d pages of a fresh %d-word mapping are not resident", missing, len(vec), len(w))
	}
}
