//go:build linux

package mem

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sift-go/sift/internal/edgetest"
	"github.com/sift-go/sift/internal/errs"
	"golang.org/x/sys/unix"
)

// The address-space limit test reads /proc/self/status and sets
// RLIMIT_AS, both Linux's.

// TestAllocRefused: a mapping the system refuses (here because of an
// address-space limit, RLIMIT_AS) is an error wrapping sift.ErrTooLarge and
// the system's ENOMEM. It runs in a child process: the limit would
// constrain the whole test binary, and before the fix the refusal fell
// back to the Go heap, whose own refusal ends the process.
func TestAllocRefused(t *testing.T) {
	if edgetest.Arg() == "refused" {
		allocRefusedChild()
		return
	}
	out, err := edgetest.Run("TestAllocRefused", "refused")
	if strings.Contains(string(out), "SKIP") {
		t.Skipf("child skipped:\n%s", out)
	}
	if err != nil || !strings.Contains(string(out), "refused as expected") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func allocRefusedChild() {
	if edgetest.Emulated() {
		fmt.Println("SKIP: RLIMIT_AS would limit the emulator, not this program")
		return
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fmt.Println("SKIP: no /proc/self/status")
		return
	}
	var vm uint64
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmSize:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			vm = kb << 10
		}
	}
	if vm == 0 || vm > 1<<40 { // the race detector reserves terabytes
		fmt.Println("SKIP: address space size", vm)
		return
	}
	limit := vm + 512<<20
	if err := unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: limit, Max: unix.RLIM_INFINITY}); err != nil {
		fmt.Println("SKIP: setrlimit:", err)
		return
	}
	// The limit under test is RLIMIT_AS's, not the memory available now,
	// which on a small machine would refuse 2 GiB first.
	availableMemory = func() uint64 { return 0 }
	w, r, err := Alloc(1 << 30 / 8) // 1 GiB: past the limit, and addressable on 32-bit platforms too
	if err == nil {
		fmt.Printf("FAIL: %d words allocated past the limit\n", len(w))
		r.Free()
		os.Exit(1)
	}
	if !errors.Is(err, errs.TooLarge) || !errors.Is(err, unix.ENOMEM) {
		fmt.Printf("FAIL: %v\n", err)
		os.Exit(1)
	}
	fmt.Println("refused as expected:", err)
}
