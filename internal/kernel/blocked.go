package kernel

import "math"

// BlockedAdd inserts every hash of hs into blocks with k probes per key,
// using the kernel set in use (see the package doc for the contract).
func BlockedAdd(blocks []Block, k int, hs []uint64) {
	blockedAdd(blocks, k, hs)
}

// BlockedContains probes every hash of hs, writes out[i], and returns the
// number present, using the kernel set in use. It panics if len(out) < len(hs).
func BlockedContains(blocks []Block, k int, hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("kernel: BlockedContains: len(out) < len(hs)")
	}
	return blockedContains(blocks, k, hs, out)
}

// SetBatchModes sets the filter sizes, in blocks, from which the batch
// insert kernels prefetch, from which the batch kernels (blocked,
// windowed, split-block) stop using their offset ring, and below which the
// blocked probes, inserts and add-if-new and the split-block probes and
// inserts prefetch further ahead without it (amd64's
// prefetchMinBlocks, ringMaxBlocks and farMaxBlocks, whose comments have
// the measurements), to m's, and returns a function that restores them. It is nil
// where the kernels have no such choice. It is for tests, the fuzz
// targets included, which reach every kind of loop on small tables this
// way, and for bisection, as SetImpl is; it is not safe to call while
// filters are in use by other goroutines.
var SetBatchModes func(m BatchMode) (restore func())

// BatchMode is one of the batch kernels' modes as SetBatchModes forces it,
// whatever a filter's size: the sizes, in blocks, it sets.
type BatchMode struct {
	Name                         string
	PrefetchMin, RingMax, FarMax uint64
}

// BatchModes are the batch kernels' modes: prefetches with the offset
// ring, prefetches with the offsets computed again, inserts without
// prefetches (lookups then run the ring; small filters get this one by
// size), and prefetches without the ring further ahead (the blocked
// probes, inserts and add-if-new, the split-block probes and inserts;
// the other kernels run "prefetch" there).
var BatchModes = [...]BatchMode{
	{"ring", 0, math.MaxUint64, math.MaxUint64},
	{"prefetch", 0, 0, 0},
	{"noprefetch", math.MaxUint64, math.MaxUint64, math.MaxUint64},
	{"far", 0, 0, math.MaxUint64},
}
