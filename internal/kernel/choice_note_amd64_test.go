//go:build gc && !purego

package kernel

import (
	"strings"
	"testing"

	"github.com/sift-go/sift/internal/cpu"
)

// TestChoiceNoteWithoutCD: on a CPU with the avx512 set but without
// AVX-512 CD, cuckoo.AddHashes runs the locate kernel and inserts in Go,
// and Choice says so (sift version, sift bench -kernels); other
// operations and other sets carry no note.
func TestChoiceNoteWithoutCD(t *testing.T) {
	if !cpu.HasAVX512 {
		t.Skip("no avx512 set on this CPU")
	}
	defer saved()()
	cd := cuckooInsertCD
	defer func() { cuckooInsertCD = cd }()
	for _, has := range []bool{true, false} {
		cuckooInsertCD = has
		for _, name := range []string{cpu.AVX512, cpu.Auto, cpu.AVX2} {
			apply(name, name != cpu.Auto)
			for op := range NumOps {
				set, reason := Choice(op)
				noted := strings.Contains(reason, "no AVX512CD")
				if want := !has && op == OpCuckooAdd && set == cpu.AVX512; noted != want {
					t.Errorf("CD %v, %s: %v on %s: %q", has, name, op, set, reason)
				}
			}
		}
		if !has && cuckooInsertKernel() {
			t.Error("the insert kernel runs without CD")
		}
	}
}
