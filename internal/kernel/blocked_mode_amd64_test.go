//go:build gc && !purego

package kernel

import (
	"math"
	"testing"

	"github.com/klauspost/cpuid/v2"

	"github.com/sift-go/sift/internal/cpu"
)

// TestBlockedModeBySize checks the blocked kernels' mode at the edges of
// each size class: no prefetch for small inserts, the ring to 4 MiB, the
// far prefetch while the filter fits the last-level cache, the near one
// past it and from 2^32 blocks (where the AVX-512 kernels cannot go).
func TestBlockedModeBySize(t *testing.T) {
	defer SetBatchModes(BatchMode{"defaults", 8192, LargeBlocks, 1 << 19})()
	for _, c := range []struct {
		nblocks uint64
		insert  bool
		want    int
	}{
		{1, true, modeNoPrefetch},
		{8191, true, modeNoPrefetch},
		{1, false, modeRing},
		{8192, true, modeRing},
		{LargeBlocks - 1, false, modeRing},
		{LargeBlocks, true, modePrefetchFar},
		{LargeBlocks, false, modePrefetchFar},
		{1<<19 - 1, false, modePrefetchFar},
		{1 << 19, true, modePrefetch},
		{1 << 19, false, modePrefetch},
		{MaxBlocks, false, modePrefetch},
	} {
		if got := blockedMode(c.nblocks, c.insert); got != c.want {
			t.Errorf("blockedMode(%d, insert=%v) = %d, want %d", c.nblocks, c.insert, got, c.want)
		}
		// The kernels on batchMode (windowed, cuckoo) never get the far
		// mode.
		if got := batchMode(c.nblocks, c.insert); got == modePrefetchFar {
			t.Errorf("batchMode(%d, insert=%v) = modePrefetchFar", c.nblocks, c.insert)
		}
	}
	// A filter under 4 MiB on a CPU with a smaller last-level cache keeps
	// the ring: the far mode only replaces modePrefetch.
	defer SetBatchModes(BatchMode{"small llc", 8192, LargeBlocks, 1024})()
	if got := blockedMode(2048, false); got != modeRing {
		t.Errorf("blockedMode(2048) with a 64 KiB LLC = %d, want modeRing", got)
	}
	if got := blockedMode(LargeBlocks, false); got != modePrefetch {
		t.Errorf("blockedMode(LargeBlocks) with a 64 KiB LLC = %d, want modePrefetch", got)
	}
}

func TestLLCBlocks(t *testing.T) {
	for _, c := range []struct {
		l3   int
		want uint64
	}{{-1, 1 << 19}, {0, 1 << 19}, {32 << 20, 1 << 19}, {300 << 20, 300 << 14}, {96 << 20, 96 << 14}} {
		if got := llcBlocks(c.l3); got != c.want {
			t.Errorf("llcBlocks(%d) = %d, want %d", c.l3, got, c.want)
		}
	}
}

// TestFarLimit checks where the far prefetch stops on each CPU family: at
// the last-level cache where the table entry does not say farPastLLC, on
// no filter size where it does (the Zen 5 entry, and so the AMD families
// after it), so that a 1e8-key filter (about 2^21 blocks, past a 32 MiB
// L3) runs modePrefetchFar there and modePrefetch on the others.
func TestFarLimit(t *testing.T) {
	const l3 = 32 << 20
	for _, c := range []struct {
		key  cpu.Key
		past bool
	}{
		{cpu.Key{Vendor: "AMD", Family: 26, Model: 2}, true},
		{cpu.Key{Vendor: "AMD", Family: 27, Model: 0}, true},
		{cpu.Key{Vendor: "AMD", Family: 25, Model: 17}, false},
		{cpu.Key{Vendor: "Intel", Family: 6, Model: 207}, false},
		{cpu.Key{Vendor: "Unknown", Family: 1}, false},
	} {
		lim := farLimit(lookup(c.key), l3)
		if want := llcBlocks(l3); !c.past && lim != want {
			t.Errorf("%v: farLimit = %d, want the L3's %d blocks", c.key, lim, want)
		}
		func() {
			defer SetBatchModes(BatchMode{"table", 8192, LargeBlocks, lim})()
			want := modePrefetch
			if c.past {
				want = modePrefetchFar
			}
			for _, insert := range []bool{false, true} {
				if got := blockedMode(1<<21, insert); got != want {
					t.Errorf("%v: blockedMode(2^21 blocks, insert=%v) = %d, want %d", c.key, insert, got, want)
				}
			}
			// At 2^32 blocks too: the mode is the memory system's, and
			// the AVX2 kernels run it there (TestBlockedHugeBlockCount
			// and TestBlockedAddNewHugeBlockCount, in every mode).
			if got := blockedMode(MaxBlocks, false); got != want {
				t.Errorf("%v: blockedMode(MaxBlocks) = %d, want %d", c.key, got, want)
			}
		}()
	}
	// And the package's own limit follows this CPU's entry: no limit where
	// it says farPastLLC, else the L3 in blocks (not farLimit's own
	// arithmetic, which initialises farMaxBlocks).
	want := llcBlocks(cpuid.CPU.Cache.L3)
	if entryFor(cpu.Current()).farPastLLC {
		want = math.MaxUint64
	}
	if farMaxBlocks != want {
		t.Errorf("farMaxBlocks = %d, want %d (farPastLLC %v, L3 %d bytes)", farMaxBlocks, want, entryFor(cpu.Current()).farPastLLC, cpuid.CPU.Cache.L3)
	}
}
