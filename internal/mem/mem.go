// Package mem allocates the memory filters live in: 64-byte-aligned heap
// slices for small filters, anonymous mappings for big ones (on Linux
// advised for transparent huge pages, MADV_HUGEPAGE), and read-only file
// mappings for zero-copy Open.
//
// # Allocation policy
//
// An allocation a machine cannot satisfy must come back as an error, never
// end the process. The Go heap cannot promise that: when the operating
// system refuses the heap more memory, the runtime stops the program with
// "fatal error: out of memory", which no caller can recover from. So:
//
//   - Below HugeThreshold (4 MiB) Alloc uses the Go heap: every
//     machine that runs Go has that much.
//   - From HugeThreshold up it maps anonymous memory (mmap on Unix systems,
//     VirtualAlloc on Windows). When the system refuses the mapping,
//     Alloc returns an error wrapping sift.ErrTooLarge and the cause.
//     It touches every page of a new mapping before returning it (see
//     prefault), so the memory is resident from the start.
//   - Before mapping, on Linux, it compares the size with the machine's
//     RAM plus swap, and with the memory available now (AvailableMemory:
//     MemAvailable plus free swap, within the headroom under the memory
//     limit of the process's control group, a container's limit), and
//     refuses larger sizes outright: such a mapping would succeed (the
//     kernel overcommits), and since Alloc touches every page at once, the
//     kernel's out-of-memory killer would end the process in the
//     constructor. (An outside check on a 23.5 GiB machine saw a 23.5 GiB
//     filter pass the RAM-plus-swap bound and the process killed.)
//   - Where this package has no mapping primitive (Plan 9, js/wasm,
//     wasip1) every size comes from the Go heap: a size the address space
//     cannot hold is an error, but one the machine cannot back ends the
//     process, as any Go allocation does there. Callers on those systems
//     bound their sizes with the filters' maximum-size options.
//
// Mapped memory belongs to its Region: Free releases it at once, and a
// finalizer releases it once the Region is unreachable, so the object that
// holds the memory must hold the *Region too (a filter struct keeps both).
package mem

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"github.com/sift-go/sift/internal/errs"
)

// Align is the alignment of every allocation: one cache line.
const Align = 64

// HugeThreshold is the size from which Alloc maps memory instead of
// using the Go heap: one TLB entry per 2 MiB instead of per 4 KiB matters
// once a filter outgrows the TLB's reach, the garbage collector never scans
// it, and a refused mapping is an error rather than the end of the process.
const HugeThreshold = 4 << 20

// AlignedBytes returns a zeroed slice of n bytes whose first byte is 64-byte
// aligned, from the Go heap.
func AlignedBytes(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	b := make([]byte, n+Align-1)
	off := int((Align - uintptr(unsafe.Pointer(&b[0]))%Align) % Align)
	return b[off : off+n : off+n]
}

// AlignedWords returns n zeroed uint64s, 64-byte aligned, from the Go heap.
func AlignedWords(n int) []uint64 {
	if n == 0 {
		return []uint64{}
	}
	w := make([]uint64, n+Align/8-1)
	off := int((Align - uintptr(unsafe.Pointer(&w[0]))%Align) % Align / 8)
	return w[off : off+n : off+n]
}

// Region is memory obtained from Alloc, AllocWords or MapFile. Free
// releases it; it is a no-op for heap memory, which the garbage collector
// reclaims.
type Region struct {
	mapped []byte // non-nil when the memory is a mapping
}

// Mapped reports whether the region is an OS mapping (which must be freed)
// rather than Go heap memory.
func (r *Region) Mapped() bool { return r != nil && r.mapped != nil }

// newMapped returns the Region of mapping b, with a finalizer that unmaps
// b once the Region is unreachable.
func newMapped(b []byte) *Region {
	r := &Region{mapped: b}
	runtime.SetFinalizer(r, (*Region).free)
	return r
}

// Alloc returns n zeroed, 64-byte-aligned uint64s and the Region they live
// in, or an error wrapping sift.ErrTooLarge when the machine cannot provide
// them (see the package documentation for the policy). From HugeThreshold
// bytes up, on Unix systems and Windows, the words are an anonymous private
// mapping (on Linux advised with MADV_HUGEPAGE): the slice must not be used
// after the Region's Free, and must be used only while the Region is
// reachable (its finalizer unmaps it).
func Alloc(n int) ([]uint64, *Region, error) {
	if n < 0 || n > math.MaxInt/8 {
		return nil, nil, tooLarge("%d words do not fit in this platform's address space", n)
	}
	size := uint64(n) * 8
	if size < HugeThreshold {
		w := AlignedWords(n)
		prefault(w)
		return w, &Region{}, nil
	}
	if err := CheckSize(size); err != nil {
		return nil, nil, err
	}
	if !canMap {
		w, err := heapWords(n)
		prefault(w)
		return w, &Region{}, err
	}
	w, r, err := mapAnon(n)
	if err != nil {
		return nil, nil, &sizeError{msg: fmt.Sprintf("cannot map %d bytes (%s): %v", size, sizeString(size), err), errs: []error{errs.TooLarge, ErrMemoryNow, err}}
	}
	prefault(w)
	return w, r, nil
}

// CheckSize returns the error Alloc returns, wrapping sift.ErrTooLarge,
// for a mapping of size bytes that is more than this machine's memory
// (MachineMemory) or than the memory available now (AvailableMemory), or
// nil: Alloc touches every page of a mapping, so the out-of-memory killer
// would end the process instead.
func CheckSize(size uint64) error {
	if m := MachineMemory(); m != 0 && size > m {
		return tooLarge("%d bytes (%s) are more than this machine's memory (%s of RAM and swap)", size, sizeString(size), sizeString(m))
	}
	if a := availableMemory(); a != 0 && size > a {
		e := tooLarge("%d bytes (%s) are more than the memory available now (%s, free RAM and swap within this process's memory limit)", size, sizeString(size), sizeString(a)).(*sizeError)
		e.errs = append(e.errs, ErrMemoryNow)
		return e
	}
	return nil
}

// availableMemory is AvailableMemory, replaced by tests.
var availableMemory = AvailableMemory

// pageWords is the number of words in a 4 KiB page, the smallest page
// prefault steps by.
const pageWords = 4096 / 8

// prefault writes a zero into every 4 KiB page of w, so the page faults
// of new memory (the kernel zeroing and mapping each page, on Linux a
// 2 MiB huge page where it can) happen here, in the constructor, and not
// in the first inserts. That holds for the Go heap too: the runtime does
// not zero a span fresh from the operating system, so its pages fault on
// first touch. On the development VM, adding 10^6 keys one at a time to a
// new 1.2 MiB filter took 8.0-8.3 ns a key when its heap pages were fresh
// (310 page faults in the loop) and 3.3 when they were not, in the same
// process; the writes below cost nothing on pages already resident. A filter's keys land on random pages, so a few
// tens of thousands of inserts touch every page anyway: touching them
// first costs no memory a filter in use would not hold, and keeps page
// faults out of a server's insert path. Measured on the development VM
// (Linux 6.18, transparent huge pages on madvise): this loop takes about
// 70 ms per GiB, while 10 million random writes into a 1.2 GiB mapping
// took 29.3 ns each untouched and 21.8 touched; madvise(MADV_POPULATE_WRITE)
// did the same work in 1.9 s per GiB, so it is not used.
func prefault(w []uint64) {
	for i := 0; i < len(w); i += pageWords {
		w[i] = 0
	}
}

// AllocWords is Alloc for callers that cannot go on without the memory
// (benchmarks and their tests): it panics with Alloc's error. The filters
// call Alloc and return its error.
func AllocWords(n int) ([]uint64, *Region) {
	w, r, err := Alloc(n)
	if err != nil {
		panic(err)
	}
	return w, r
}

// heapWords is AlignedWords for a size that may exceed what the address
// space can hold: the runtime's refusal of such a make is a panic, which
// becomes an error here. (A size the address space holds but the machine
// cannot back is the runtime's fatal error; see the package doc.)
func heapWords(n int) (w []uint64, err error) {
	defer func() {
		if r := recover(); r != nil {
			w, err = nil, tooLarge("cannot allocate %d bytes: %v", uint64(n)*8, r)
		}
	}()
	return AlignedWords(n), nil
}

// Free releases a mapped region at once. It is safe to call more than once
// and on heap regions; it must not run concurrently with itself.
func (r *Region) Free() error {
	if r == nil || r.mapped == nil {
		return nil
	}
	runtime.SetFinalizer(r, nil)
	return r.free()
}

func (r *Region) free() error {
	m := r.mapped
	r.mapped = nil
	if m == nil {
		return nil
	}
	return unmap(m)
}

// ErrMemoryNow is matched, beside sift.ErrTooLarge, by the errors of
// memory refused for what is available now (CheckSize's second test, a
// mapping the system refused), which may be granted later; not by those
// of sizes beyond the machine or the platform, which will not.
var ErrMemoryNow = errors.New("not enough memory available now")

// sizeError reads as msg and matches each of errs with errors.Is: the
// sift sentinel and, for a refused mapping, the system's error. Its message
// carries no package prefix, for the filter packages to add theirs.
type sizeError struct {
	msg  string
	errs []error
}

func (e *sizeError) Error() string   { return e.msg }
func (e *sizeError) Unwrap() []error { return e.errs }

func tooLarge(format string, args ...any) error {
	return &sizeError{msg: fmt.Sprintf(format, args...), errs: []error{errs.TooLarge}}
}

// errNotRegular is the cause in the *fs.PathError MapFile and OpenRegular
// return for a path that names no regular file.
var errNotRegular = errors.New("not a regular file")

// sizeString formats a byte count with a binary unit, for messages.
func sizeString(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 5 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTPE"[i])
}
