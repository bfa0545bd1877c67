package kernel

import (
	"fmt"

	"github.com/sift-go/sift/internal/cpu"
)

// The kernel set in use, copied from internal/cpu at start-up. They are
// variables, not constants, so tests can run every kernel the CPU has.
// useAVX2 is also set with the avx512 set, whose CPUs run the AVX2
// kernels too: it runs them where it has no AVX-512 kernel of its own
// (CuckooAlternates).
var (
	impl      = cpu.Selected()
	useAVX512 = impl == cpu.AVX512
	useAVX2   = impl == cpu.AVX2 || useAVX512
	useNEON   = impl == cpu.NEON
)

// Impl returns the name of the kernel set in use ("avx512", "avx2", "neon"
// or "generic").
func Impl() string { return impl }

// Impls returns the kernel sets this CPU and build can run, best first.
func Impls() []string { return cpu.Available() }

// SetImpl switches the kernel set, for tests and benchmarks, and returns a
// function that restores the previous one. It is not safe to call while
// filters are in use by other goroutines.
func SetImpl(name string) (restore func(), err error) {
	ok := false
	for _, n := range cpu.Available() {
		ok = ok || n == name
	}
	if !ok {
		return nil, fmt.Errorf("kernel: %q is not available on this CPU/build (have %v)", name, cpu.Available())
	}
	prev := impl
	set(name)
	return func() { set(prev) }, nil
}

func set(name string) {
	impl = name
	useAVX512 = name == cpu.AVX512
	useAVX2 = name == cpu.AVX2 || useAVX512
	useNEON = name == cpu.NEON
}
