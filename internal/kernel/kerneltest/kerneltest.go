// Package kerneltest runs a test once per kernel set the CPU and build have,
// as subtests named impl=avx2, impl=neon, impl=generic.
package kerneltest

import (
	"testing"

	"github.com/sift-go/sift/internal/kernel"
)

// Run calls f in a subtest for every available kernel set, with that set
// selected, and restores the previous selection afterwards. Subtests run
// sequentially: the selection is global.
func Run(t *testing.T, f func(t *testing.T, impl string)) {
	t.Helper()
	for _, name := range kernel.Impls() {
		restore, err := kernel.SetImpl(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run("impl="+name, func(t *testing.T) { f(t, name) })
		restore()
	}
}

// Bench is Run for benchmarks.
func Bench(b *testing.B, f func(b *testing.B, impl string)) {
	b.Helper()
	for _, name := range kernel.Impls() {
		restore, err := kernel.SetImpl(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("impl="+name, func(b *testing.B) { f(b, name) })
		restore()
	}
}
