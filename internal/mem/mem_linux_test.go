package mem

import (
	"os"
	"runtime"
	"runtime/debug"
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
	if missing, pages := nonResident(t, unsafe.Pointer(&r.mapped[0]), len(r.mapped)); missing != 0 {
		t.Fatalf("%d of %d pages of a fresh %d-word mapping are not resident", missing, pages, len(w))
	}
}

// TestAllocPrefaultsHeap: a heap allocation below HugeThreshold is
// resident when Alloc returns, even when the runtime takes it fresh from
// the operating system (debug.FreeOSMemory returns the free heap first).
func TestAllocPrefaultsHeap(t *testing.T) {
	debug.FreeOSMemory()
	w, _, err := Alloc(HugeThreshold/8 - 4096)
	if err != nil {
		t.Fatal(err)
	}
	if missing, pages := nonResident(t, unsafe.Pointer(&w[0]), len(w)*8); missing != 0 {
		t.Fatalf("%d of %d pages of a fresh %d-word heap allocation are not resident", missing, pages, len(w))
	}
	runtime.KeepAlive(w)
}

// nonResident counts the pages of [p, p+n) that are not resident, by
// mincore, and skips the test where mincore fails. The range is widened
// to whole pages.
func nonResident(t *testing.T, p unsafe.Pointer, n int) (missing, pages int) {
	t.Helper()
	page := uintptr(os.Getpagesize())
	start := uintptr(p) &^ (page - 1)
	end := (uintptr(p) + uintptr(n) + page - 1) &^ (page - 1)
	// Whole pages inside the range only: the first and last may hold other
	// objects' bytes, which say nothing about this allocation.
	first, last := (uintptr(p)+page-1)&^(page-1), (uintptr(p)+uintptr(n))&^(page-1)
	vec := make([]byte, (end-start)/page)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, start, end-start, uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Skipf("mincore: %v", errno)
	}
	for i, v := range vec {
		a := start + uintptr(i)*page
		if a < first || a >= last {
			continue
		}
		pages++
		if v&1 == 0 {
			missing++
		}
	}
	return missing, pages
}
