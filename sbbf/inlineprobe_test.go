package sbbf

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/sift-go/sift/internal/cpu"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// TestProbe holds Probe.ContainsHash equal to Filter.ContainsHash on
// filters from empty to overfull, for every kernel set this CPU has, and
// checks when Probe is offered: only in a GOEXPERIMENT=simd build for
// amd64 (simdProbeBuilt), with an assembly set and an open filter. In
// other builds it checks that Probe is never offered.
func TestProbe(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		r := rand.New(rand.NewPCG(93, 94))
		for _, nb := range []uint64{1, 3, 1000} {
			f, err := NewWithSize(nb * kernel.SBBFBlockBytes)
			if err != nil {
				t.Fatal(err)
			}
			p, ok := f.Probe()
			if want := simdProbeBuilt && impl != cpu.Generic; ok != want {
				t.Fatalf("blocks=%d: Probe ok = %v, want %v", nb, ok, want)
			}
			if !ok {
				if p != nil {
					t.Fatal("Probe returned a non-nil Probe with ok = false")
				}
				f.Close()
				continue
			}
			added := make([]uint64, 0, 1024)
			for fill := 0; fill < 6; fill++ {
				for range 5000 {
					h := r.Uint64()
					if got, want := p.ContainsHash(h), f.ContainsHash(h); got != want {
						t.Fatalf("blocks=%d fill=%d h=%#x: Probe %v, ContainsHash %v", nb, fill, h, got, want)
					}
				}
				for range int(nb) * 4 {
					h := r.Uint64()
					f.AddHash(h)
					if len(added) < cap(added) {
						added = append(added, h)
					}
				}
				for _, h := range added {
					if !p.ContainsHash(h) {
						t.Fatalf("blocks=%d: added %#x not found by the Probe", nb, h)
					}
				}
			}
			f.Close()
			if _, ok := f.Probe(); ok {
				t.Fatal("Probe offered for a closed filter")
			}
			func() {
				defer func() {
					if err, _ := recover().(error); !errors.Is(err, ErrClosed) {
						t.Errorf("a Probe of a closed filter panicked with %v, want ErrClosed", err)
					}
				}()
				p.ContainsHash(1)
			}()
		}
	})
}

// TestProbeNil checks that a nil Probe panics instead of answering.
func TestProbeNil(t *testing.T) {
	defer func() {
		v := recover()
		if v == nil {
			t.Fatal("nil Probe did not panic")
		}
		if err, ok := v.(error); !simdProbeBuilt && (!ok || !errors.Is(err, ErrClosed)) {
			t.Fatalf("nil Probe panicked with %v, want ErrClosed", v)
		}
	}()
	var p *Probe
	p.ContainsHash(1)
}
