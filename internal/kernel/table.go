package kernel

import (
	"runtime"
	"slices"

	"github.com/sift-go/sift/internal/cpu"
)

// Op is an operation whose kernel set is chosen on its own: the filters'
// single-key and batch calls, each of which runs one family of kernels.
type Op uint8

// The operations, named after the filter methods they serve.
const (
	OpBlockedAdd1          Op = iota // blocked AddHash: BlockedAdd1
	OpBlockedContains1               // blocked ContainsHash: BlockedContains1
	OpBlockedAdd                     // blocked AddHashes under LargeBlocks blocks: BlockedAdd
	OpBlockedContains                // blocked ContainsHashes under LargeBlocks blocks: BlockedContains
	OpCuckooContains                 // cuckoo ContainsHashes: CuckooContains
	OpCuckooAdd                      // cuckoo AddHashes, AddNewHashes: CuckooLocate, CuckooAlternates, CuckooInsert
	OpSBBFAdd1                       // split-block AddHash: SBBFAdd1
	OpSBBFContains1                  // split-block ContainsHash: SBBFContains1
	OpSBBFAdd                        // split-block AddHashes: SBBFAdd
	OpSBBFContains                   // split-block ContainsHashes: SBBFContains
	OpBlockedAddNew1                 // blocked AddNewHash: BlockedAddNew1
	OpBlockedAddNew                  // blocked AddNewHashes: BlockedAddNew
	OpWindowContains1                // blocked Window ContainsHash: BlockedContainsGens1
	OpWindowContains                 // blocked Window ContainsHashes (and AddNewHashes' lookup) under LargeBlocks lines: BlockedContainsGens
	OpWindowAdd1                     // blocked Window AddHash: BlockedAddGenT
	OpWindowAddNew1                  // blocked Window AddNewHash, AddNewHashes: BlockedAddNewGensT
	OpBlockedContainsLarge           // blocked ContainsHashes on filters of LargeBlocks blocks or more: BlockedContains
	OpBlockedAddLarge                // blocked AddHashes on filters of LargeBlocks blocks or more: BlockedAdd
	OpBlockedAddNewLarge             // blocked AddNewHashes on filters of LargeBlocks blocks or more: BlockedAddNew
	OpWindowContainsLarge            // blocked Window ContainsHashes (and AddNewHashes' lookup) on tables of LargeBlocks lines or more: BlockedContainsGens
	NumOps                           // the number of operations
)

var opNames = [NumOps]string{
	"blocked.AddHash", "blocked.ContainsHash", "blocked.AddHashes", "blocked.ContainsHashes",
	"cuckoo.ContainsHashes", "cuckoo.AddHashes",
	"sbbf.AddHash", "sbbf.ContainsHash", "sbbf.AddHashes", "sbbf.ContainsHashes",
	"blocked.AddNewHash", "blocked.AddNewHashes",
	"window.ContainsHash", "window.ContainsHashes",
	"window.AddHash", "window.AddNewHash",
	"blocked.ContainsHashes(4MiB+)", "blocked.AddHashes(4MiB+)",
	"blocked.AddNewHashes(4MiB+)", "window.ContainsHashes(4MiB+)",
}

// String returns the operation's name, "blocked.AddHashes".
func (op Op) String() string {
	if op < NumOps {
		return opNames[op]
	}
	return "unknown"
}

// kernelFor returns the set whose kernel op runs when set is selected:
// set itself, or the set it falls back to where it has no kernel of its
// own for op. The avx512 set has no single-key split-block kernel (the
// AVX2 one runs: asm/sbbf's doc says why), and arm64 runs the Go
// single-key twins (blocked_arm64.go, window_arm64.go). CuckooAlternates has no AVX-512
// kernel either, but the avx512 set's locate kernel makes it count as
// avx512 for OpCuckooAdd.
func kernelFor(op Op, set string) string {
	switch {
	case set == cpu.AVX512 && (op == OpSBBFAdd1 || op == OpSBBFContains1):
		return cpu.AVX2
	case set == cpu.NEON && (op == OpBlockedAdd1 || op == OpBlockedContains1 || op == OpBlockedAddNew1 || op == OpSBBFAdd1 || op == OpSBBFContains1 ||
		op == OpWindowContains1 || op == OpWindowAdd1 || op == OpWindowAddNew1):
		return cpu.Generic
	}
	return set
}

// A tableEntry is the kernel order of one CPU family: per operation the
// sets best first. A set the CPU lacks is skipped; a set the entry does
// not list comes after those it does, in cpu.Available's order.
type tableEntry struct {
	name   string // the CPUs it stands for, for reports
	vendor string // cpu.Key.Vendor
	family int
	order  [NumOps][]string
	// farPastLLC: the blocked and split-block batch kernels prefetch 128
	// keys ahead (modePrefetchFar) on every filter from 4 MiB, not only
	// on those that fit the last-level cache (blockedMode, farLimit).
	farPastLLC bool
}

// choose returns the set op runs on a CPU with the sets avail (best
// first, as cpu.Available) and the reason.
func (e *tableEntry) choose(op Op, avail []string) (set, reason string) {
	for i, s := range append(slices.Clip(e.order[op]), avail...) {
		if slices.Contains(avail, s) {
			reason = e.name
			if i > 0 {
				reason += " (" + e.order[op][0] + " not on this CPU)"
			}
			return kernelFor(op, s), reason
		}
	}
	return cpu.Generic, e.name
}

// Orders used by several entries.
var (
	avx512First = []string{cpu.AVX512, cpu.AVX2}
	avx2First   = []string{cpu.AVX2, cpu.AVX512}
)

// table holds one entry per measured CPU family. Each entry cites the
// measurements that chose it; `sift bench -kernels` prints what a new
// entry needs (every set, every operation, side by side) and marks
// where the table's choice is not the fastest.
var table = []tableEntry{
	// Intel family 6 with AVX-512 (Skylake-SP through Granite Rapids).
	// Measured on model 207 (Emerald Rapids; "Intel(R) Xeon(R)
	// Processor" in a Firecracker VM of 16 vCPUs, 2 MiB of L2 a core) on
	// 2026-11-27: `sift bench -kernels` (thread CPU ns/key, medians of 5
	// interleaved rounds, each after an untimed pass), six invocations in
	// two sessions on the machine, the median of the six avx512/avx2
	// ratios, and in how many of the six avx512 was ahead (the machine was
	// noisy: single ratios spread by up to 0.5 around the medians):
	//
	//	                        n=1e6 (1.2 MiB)   n=1e7 (12 MiB)
	//	blocked AddHash         0.92  4 of 6      0.96  5 of 6
	//	blocked ContainsHash    0.93  5 of 6      0.85  5 of 6
	//	blocked AddHashes       0.99  3 of 6      1.13  1 of 6
	//	blocked ContainsHashes  0.82  6 of 6      1.07  0 of 6
	//	cuckoo ContainsHashes   0.97  4 of 6      0.97  4 of 6
	//	cuckoo AddHashes        0.90  5 of 6      0.92  6 of 6
	//	sbbf AddHashes          1.02  2 of 6      1.03  1 of 6
	//	sbbf ContainsHashes     1.11  2 of 6      1.05  1 of 6
	//	blocked AddNewHash      0.91  5 of 6      0.93  4 of 6
	//	blocked AddNewHashes    0.84  6 of 6      0.95  6 of 6
	//	window ContainsHash     0.89  6 of 6      0.91  5 of 6
	//	window ContainsHashes   0.90  6 of 6      1.02  3 of 6
	//	window AddHash          0.95  4 of 6      0.82  5 of 6
	//	window AddNewHash       0.92  4 of 6      0.74  6 of 6
	//
	// avx512 wherever it led at either size and did not trail at the
	// other by more than 3%; avx2 for the split-block batches; blocked
	// ContainsHashes splits by size (OpBlockedContainsLarge: avx2 from
	// LargeBlocks on, where it was ahead in all six), and so, since,
	// does blocked AddHashes (level in cache, 13% behind out of it in these
	// six; below). cuckoo ContainsHashes measured level and keeps avx512.
	//
	// The entry was first measured on model 167 (Rocket Lake cores under
	// KVM, issue #23), before the batch loops' offset ring and the AVX-512
	// cuckoo insert's rework: there avx2 led blocked AddHashes (1.2x at
	// 1e6), ContainsHashes (1.08x at 1e6) and cuckoo AddHashes (1.3x), and
	// avx512 the single-key calls (1.1x) and cuckoo ContainsHashes (1.06x).
	// Intel runs 512-bit integer work on two ports instead of three; the
	// AVX-512 batch loops compute block offsets with VPMULUDQ (one uop),
	// not the 3-uop VPMULLQ they used then. Model 207 with today's kernels
	// is the evidence now; the split-block single-key calls have no
	// AVX-512 kernel (asm/sbbf's doc).
	//
	// blocked AddHashes splits by size since (OpBlockedAddLarge, from
	// LargeBlocks on), from a third session on a machine of the same model
	// (2026-11-27). Three more `sift bench -kernels` runs, avx512/avx2:
	// 0.95, 0.95, 0.93 at 1e6 and 1.12, 1.18, 1.21 at 1e7; with the six
	// above, avx512 ahead at 1e6 in 6 of 9 and behind at 1e7 in 8 of 9.
	// The bench module's BenchmarkInsert (mode=batch, one process a set,
	// `SIFT_KERNEL=avx2` and `avx512` alternated, eleven rounds;
	// bench/results/intel-xeon-emr.md) had avx512/avx2 at a median 0.73
	// at 1e5 (ahead in 11 of 11) and 0.69 at 1e6 (9 of 11). So avx512
	// under 4 MiB and avx2 from there on, as for ContainsHashes.
	//
	// A fourth session (2026-11-28), after the far prefetch mode: two
	// more `sift bench -kernels` runs moved no row (avx2, ahead of the
	// table's avx512 in both for blocked AddHash and AddHashes at 1e6 by
	// 2-25%, was ahead in only 4 of 8 and 5 of 11 runs in all); in one process
	// (BlockedModes, eight processes at 1e7) avx512/avx2 in the far mode
	// had medians of 0.91 for add-if-new (avx512 stays), 0.95 for inserts
	// and 0.98 for lookups (level: avx2 stays), and far/prefetch medians
	// of 0.96-1.08, level, so farPastLLC stays off and the far mode runs
	// up to the L3 (300 MiB reported) as on other CPUs.
	{
		name: "Intel family 6 (measured: model 207)", vendor: "Intel", family: 6,
		order: [NumOps][]string{
			OpBlockedAdd1:          avx512First,
			OpBlockedContains1:     avx512First,
			OpBlockedAdd:           avx512First,
			OpBlockedAddLarge:      avx2First,
			OpBlockedContains:      avx512First,
			OpBlockedContainsLarge: avx2First,
			OpCuckooContains:       avx512First,
			OpCuckooAdd:            avx512First,
			OpSBBFAdd1:             {cpu.AVX2},
			OpSBBFContains1:        {cpu.AVX2},
			OpSBBFAdd:              avx2First,
			OpSBBFContains:         avx2First,
			OpBlockedAddNew1:       avx512First,
			OpBlockedAddNew:        avx512First,
			// The row above has avx512 ahead at 1e7 as well (6 of 6),
			// before the far prefetch mode; in it, avx512/avx2 a median
			// 0.91 (the fourth session, above).
			OpBlockedAddNewLarge: avx512First,
			OpWindowContains1:    avx512First,
			OpWindowContains:     avx512First,
			// The row above at 1e7 (a 26 MB window): level, 3 of 6.
			OpWindowContainsLarge: avx512First,
			OpWindowAdd1:          avx512First,
			OpWindowAddNew1:       avx512First,
		},
	},
	// AMD Zen 4 (family 25, models with AVX-512; Zen 3 in the same
	// family has none, so the order changes nothing there). The avx512
	// kernels were written on a Zen 4; the entry was measured on the 2-core
	// development VM (AMD family 25 model 17, "AMD EPYC", shared with other
	// jobs) on 2026-11-27: `sift bench -kernels` (thread CPU ns/key,
	// medians of 5 interleaved rounds, each after an untimed pass), seven
	// invocations, the median of the seven medians, avx2/avx512, and in
	// how many of the seven avx512 was ahead:
	//
	//	                        n=1e6             n=1e7
	//	blocked AddHash         1.15  6 of 7      1.00  3 of 7
	//	blocked ContainsHash    0.96  2 of 7      0.86  2 of 7
	//	blocked AddHashes       0.93  2 of 7      0.92  2 of 7
	//	blocked ContainsHashes  1.08  6 of 7      0.94  3 of 7
	//	cuckoo ContainsHashes   1.06  7 of 7      0.88  5 of 7
	//	cuckoo AddHashes        1.41  7 of 7      1.40  7 of 7
	//	sbbf AddHashes          0.89  1 of 7      1.12  5 of 7
	//	sbbf ContainsHashes     0.95  1 of 7      0.95  3 of 7
	//	blocked AddNewHash      1.03  7 of 7      1.12  7 of 7
	//	blocked AddNewHashes    1.01  4 of 7      0.90  0 of 7
	//	window ContainsHash     1.03  4 of 7      1.22  6 of 7
	//	window ContainsHashes   0.90  0 of 7      1.17  5 of 7
	//	window AddHash          1.06  6 of 7      1.03  4 of 7
	//	window AddNewHash       1.01  5 of 7      1.00  3 of 7
	//
	// avx2 where it was ahead at both sizes (blocked ContainsHash,
	// AddHashes; sbbf ContainsHashes), or ahead in cache by as much as it
	// trailed out of it (sbbf AddHashes, as on Zen 5); avx512 elsewhere,
	// the splits (blocked ContainsHashes, window ContainsHashes) included,
	// by the larger lead. Differences under about 10% swapped places
	// between invocations: judge by several.
	//
	// blocked ContainsHashes splits by size since (OpBlockedContainsLarge,
	// from LargeBlocks on): avx2 for the large filters, where the row
	// above has it ahead (0.94), as on Zen 5 and Intel model 207; one more
	// invocation on 2026-11-27 agreed (avx512 1.41 / avx2 1.59 at 1e6,
	// 3.11 / 2.99 at 1e7). Past the L3 (1e8 keys, 120 MB; this VM's L3 is
	// 32 MiB) the two are level, both at the memory system's limit: paired
	// on one filter in one process (BenchmarkBlockedContains/n=1e8 in
	// this package, -count 12), avx512/avx2 per round 0.69-1.15, median
	// 1.01; across processes (bench/README.md, "Against Boost.Bloom's bulk
	// calls on a Zen 4", nine rounds) 0.97 present and 0.93 absent, with
	// single rounds 0.75-1.36. Random 64-byte loads over the same memory
	// (BenchmarkMemoryLimit/n=1e8, impl=loads) took a median 11.3 ns a key
	// in the run that measured the probes at 9.6 (avx512) and 9.9 (avx2):
	// no size class past the last-level cache, and avx2 for every large
	// filter.
	//
	// blocked AddNewHashes was avx2 by the row above, which predates the
	// AVX2 add-if-new kernel's offset ring; measured again on the same VM
	// later that day, avx512 leads in cache by more than it trails out of
	// it, so it takes avx512. `sift bench -kernels` (present keys), four
	// invocations, avx512 / avx2 ns/key: 1.86/1.99, 1.66/1.88, 1.66/1.87,
	// 1.89/1.92 at 1e6; 3.36/3.26, 3.12/3.17, 3.25/3.08, 3.49/3.32 at 1e7.
	// Into an empty filter, as a de-duplicating stream adds (package
	// blocked's BenchmarkAddNewPaired, add-if-new against the table's
	// AddHashes, avx2; six rounds alternating binaries with each choice,
	// medians of the ratios, avx2 -> avx512): one call of n keys 1.28 ->
	// 1.17 at 1e6, 1.13 -> 1.15 at 1e7; calls of 1024 keys (sift dedup's)
	// 1.26 -> 1.10 at 1e6, 1.12 -> 1.19 at 1e7. Giving the AVX-512 kernel
	// the add kernels' ring-free mode for filters past 4 MiB, 48 keys
	// ahead (modePrefetch), measured level at 1e7 (1.18-1.24 against
	// 1.21-1.23, one call) and was not kept.
	//
	// AddNewHashes splits by size since (OpBlockedAddNewLarge), when the
	// add-if-new kernels took modePrefetchFar (addnew_amd64.go; a fresh VM
	// of the same CPU, 2026-11-28). With it, on filters from 4 MiB, avx2
	// led: into an empty filter (BenchmarkAddNewPaired/n=1e7 in package
	// blocked, SIFT_KERNEL=avx512 and avx2 alternated, five rounds each)
	// avx2 was faster in all five with one call of n keys (median 2.47
	// against 2.63 ns/key) and in all five with calls of 1024 (2.77
	// against 2.85); half the keys present (BenchmarkBlockedModes/n=1e7,
	// op=addnew/mode=far, ten processes) avx512/avx2 was a median 1.09,
	// avx2 ahead in 9 of 10; every key present (`sift bench -kernels -n
	// 1e7`, six runs) the two were level, avx512/avx2 0.91-1.08, median
	// 1.01. So avx2 from 4 MiB on, avx512 below, as above.
	//
	// window ContainsHashes splits by size the same day
	// (OpWindowContainsLarge, from LargeBlocks lines): the row above has
	// avx2 ahead at 1e6 (a 2.6 MB window, 0 of 7 for avx512) and avx512
	// at 1e7 (26 MB, 5 of 7), and the entry had taken avx512 for both by
	// the larger lead. BenchmarkWindowContains (package blocked,
	// impl=window, window-now and window-expiry, op=ContainsHashes;
	// SIFT_KERNEL=avx512 and avx2 alternated, four rounds), avx512/avx2,
	// the medians of the three impls (each over its four rounds): at 1e6,
	// G = 4 1.00-1.11 (avx2 ahead in 10 of the 12 rounds), G = 2 level
	// (0.99-1.06); at 1e7, G = 4 0.86-0.94 (avx512 ahead in 9 of 12), but
	// G = 2 1.03-1.07 (avx2 ahead in 9 of 12). So avx2 under 4 MiB, and
	// avx512 from there on for G = 4, the default and what `sift bench
	// -kernels` measures. It took the G = 4 window at 1e6 from 1.56x
	// (1.51-1.64, six rounds) a Filter of the same size's ContainsHashes
	// to a median 1.45x (single rounds 1.27-1.60). The same kernel runs
	// the lookup inside Window.AddNewHashes (and ConcurrentWindow's, so
	// sift dedup -window), which was not measured apart.
	{
		name: "AMD Zen 4 (family 25)", vendor: "AMD", family: 25,
		order: [NumOps][]string{
			OpBlockedAdd1: avx512First, OpBlockedContains1: avx2First,
			OpBlockedAdd: avx2First, OpBlockedContains: avx512First,
			OpBlockedAddLarge: avx2First, OpBlockedContainsLarge: avx2First,
			OpCuckooContains: avx512First, OpCuckooAdd: avx512First,
			OpSBBFAdd1: {cpu.AVX2}, OpSBBFContains1: {cpu.AVX2},
			OpSBBFAdd: avx2First, OpSBBFContains: avx2First,
			OpBlockedAddNew1: avx512First, OpBlockedAddNew: avx512First,
			OpBlockedAddNewLarge: avx2First,
			OpWindowContains1:    avx512First, OpWindowContains: avx2First,
			OpWindowContainsLarge: avx512First,
			OpWindowAdd1:          avx512First, OpWindowAddNew1: avx512First,
		},
	},
	// AMD Zen 5 (family 26). Measured on the 2-core development VM
	// ("Oxide Virtual Turin-like Processor", AMD family 26 model 2, shared
	// with other jobs): `sift bench -kernels` (thread CPU ns/key, medians
	// of 5 interleaved rounds), three invocations in a row, the median of
	// the three medians, avx512 / avx2 (issue #23's note has the output):
	//
	//	                        n=1e6          n=1e7
	//	blocked AddHash         4.72 / 4.17    17.5 / 19.4
	//	blocked ContainsHash    4.49 / 4.15    18.2 / 19.8
	//	blocked AddHashes       1.23 / 1.33    3.07 / 3.30
	//	blocked ContainsHashes  1.38 / 1.47    3.39 / 3.19
	//	cuckoo ContainsHashes   2.36 / 2.57    6.64 / 6.43
	//	cuckoo AddHashes        17.0 / 16.8    35.7 / 37.2
	//	sbbf AddHashes          1.32 / 1.13    3.20 / 2.93
	//	sbbf ContainsHashes     1.34 / 1.24    3.35 / 2.70
	//
	// The split-block batches are the one operation where avx2 led at
	// both sizes in each of the three (by 3-24%; an earlier run agreed
	// but for AddHashes at 1e7, level at 3.08 / 3.14), so
	// they take avx2: their AVX-512 kernels differ only in computing 8
	// offsets in a ZMM and the VPTESTMD probe (sbbf_amd64.go), which buys
	// nothing with 256-bit blocks. Elsewhere avx512 led or the two swapped
	// places between sizes and runs (single-key blocked: avx2 ahead at
	// 1e6, avx512 at 1e7): avx512 stays, as chosen on Zen 4. Four more
	// runs at a quieter hour, with this entry, agreed (medians of the
	// medians, avx2/avx512: sbbf batches 0.88-0.99, everything else
	// 0.99-1.18) but for one split: blocked ContainsHashes, avx512 ahead
	// at 1e6 (1.40 / 1.65) and avx2 at 1e7 (3.15 / 2.93), as in the first
	// series (1.38 / 1.47, 3.39 / 3.19). Each size takes its own since
	// (OpBlockedContainsLarge: avx2 from LargeBlocks on). These runs predate bench
	// -kernels' untimed run before each timed one, without which avx2
	// measured up to 1.5x ahead at 1e7 on Zen 4 (cmd/sift's measureWarm).
	//
	// Measured again with today's kernels (the offset rings, the far
	// prefetch) on 2026-11-28, a VM of the same CPU (AMD EPYC family 26
	// model 2, 2 vCPUs, 32 MiB L3, 1 MiB L2 a core): `sift bench
	// -kernels`, six invocations, the median of the six avx512/avx2
	// ratios and in how many of the six avx512 was ahead:
	//
	//	                        n=1e6          n=1e7
	//	blocked AddHash         1.00  2 of 6   0.98  3 of 6
	//	blocked ContainsHash    0.99  4 of 6   0.81  4 of 6
	//	blocked AddHashes       1.02  3 of 6   1.04  1 of 6  (4MiB+)
	//	blocked ContainsHashes  0.88  6 of 6   1.25  0 of 6  (4MiB+)
	//	cuckoo ContainsHashes   0.91  6 of 6   0.92  4 of 6
	//	cuckoo AddHashes        0.83  6 of 6   0.89  6 of 6
	//	sbbf AddHashes          1.12  1 of 6   1.05  0 of 6
	//	sbbf ContainsHashes     1.07  1 of 6   1.09  0 of 6
	//	blocked AddNewHash      0.95  6 of 6   0.65  5 of 6
	//	blocked AddNewHashes    0.86  6 of 6   1.32  0 of 6  (4MiB+)
	//	window ContainsHash     0.84  6 of 6   0.75  6 of 6
	//	window ContainsHashes   0.81  6 of 6   0.85  6 of 6  (4MiB+)
	//	window AddHash          0.97  6 of 6   0.95  5 of 6
	//	window AddNewHash       0.87  6 of 6   0.82  6 of 6
	//
	// Every choice held but the large inserts, which take avx2 since:
	// besides the rows above, BenchmarkBlockedModes/n=1e7 (one filter, one
	// process, mode=far as the table runs it, eight processes) had
	// avx512/avx2 at 1.03-1.13 for the insert (median 1.08, avx2 ahead in
	// all eight) and 1.47-1.58 for add-if-new (median 1.55, avx2 ahead in
	// all eight);
	// past the L3 (n=1e8, four processes) insert level (2.70-2.89 against
	// 2.72-2.85 ns a key), add-if-new 3.53-3.61 against 2.77-2.89. The
	// AVX-512 add-if-new kernel spends 1.9-2.2 ns a key at 1e7 in every
	// mode (ring, prefetch, far) where the AVX2 one's far loop spends
	// 1.34-1.41: its cost there is not the prefetch distance. Single-key
	// figures at 1e7 swing by up to 4x between invocations (page
	// placement, with the filter in L3): their medians are the evidence.
	// farPastLLC: see farLimit (blocked_amd64.go) for the measurement.
	{
		name: "AMD Zen 5 (family 26)", vendor: "AMD", family: 26,
		order: [NumOps][]string{
			OpBlockedAdd1: avx512First, OpBlockedContains1: avx512First,
			OpBlockedAdd: avx512First, OpBlockedContains: avx512First,
			OpBlockedAddLarge: avx2First, OpBlockedContainsLarge: avx2First,
			OpCuckooContains: avx512First, OpCuckooAdd: avx512First,
			OpSBBFAdd1: {cpu.AVX2}, OpSBBFContains1: {cpu.AVX2},
			OpSBBFAdd: avx2First, OpSBBFContains: avx2First,
			// Add-if-new: `sift bench -kernels`, three runs (thread CPU
			// ns/key, medians of 5 interleaved rounds), avx512 / avx2:
			// AddNewHash 5.03/5.40, 4.80/4.93, 5.35/6.01 at 1e6 and
			// 19.6/22.2, 16.2/16.8, 23.4/26.5 at 1e7; AddNewHashes
			// 1.53/1.69, 1.57/1.66, 1.61/1.81 at 1e6 and 3.15/3.50,
			// 2.92/2.64, 3.44/3.61 at 1e7: avx512 ahead in 11 of 12.
			// The large filters (OpBlockedAddNewLarge) take avx2 since
			// the far prefetch mode: the 2026-11-28 series above.
			OpBlockedAddNew1: avx512First, OpBlockedAddNew: avx512First,
			OpBlockedAddNewLarge: avx2First,
			// The windowed probes, BenchmarkWindowContains (./blocked), 5
			// interleaved runs of each set, thread-CPU ns/key medians,
			// avx512 / avx2: ContainsHashes n=1e6 G=2 3.01 / 4.79, G=4
			// 4.12 / 4.26, n=1e7 G=2 6.53 / 6.88, G=4 8.66 / 9.41;
			// ContainsHash n=1e6 G=2 28.1 / 70.2, G=4 24.9 / 33.4, n=1e7
			// G=2 106 / 130, G=4 105 / 102 (level).
			OpWindowContains1: avx512First, OpWindowContains: avx512First,
			OpWindowContainsLarge: avx512First,
			// The windowed single-key adds, BenchmarkWindowAdd (./blocked,
			// impl=window and window-addnew), 3 interleaved runs of each set
			// (SIFT_KERNEL), thread-CPU ns/key medians, avx512 / avx2:
			// AddHash n=1e6 G=2 9.25 / 9.87, G=4 8.55 / 9.54, n=1e7 G=2
			// 47.0 / 51.3, G=4 47.4 / 48.8; AddNewHash n=1e6 G=2 11.5 /
			// 12.1, G=4 11.0 / 12.2, n=1e7 G=2 63.8 / 65.9, G=4 60.5 /
			// 60.6: avx512 ahead or level in all 8.
			OpWindowAdd1: avx512First, OpWindowAddNew1: avx512First,
		},
		farPastLLC: true,
	},
}

// entryFor returns lookup(key) on amd64. Other architectures have one
// assembly set at most (neon on arm64), so no table: the best set runs.
func entryFor(key cpu.Key) *tableEntry {
	if runtime.GOARCH != "amd64" {
		return &tableEntry{name: "one assembly set on " + runtime.GOARCH + ", no table"}
	}
	return lookup(key)
}

// vendorAlias maps vendors that build on another's cores to it: Hygon's
// Dhyana cores are AMD Zen licensed designs.
var vendorAlias = map[string]string{"Hygon": "AMD"}

// lookup returns the table entry for key: the entry of its vendor and
// family; else the entry of the same vendor (or the vendor its cores
// derive from) with the nearest family number, newer on a tie, since a
// vendor's next family keeps most of its predecessor's execution ports;
// else, for a vendor the table does not know, the Intel entry (see
// unknownVendor). The returned entry's name says which it is.
func lookup(key cpu.Key) *tableEntry {
	vendor := key.Vendor
	if v, ok := vendorAlias[vendor]; ok {
		vendor = v
	}
	var best *tableEntry
	for i := range table {
		e := &table[i]
		if e.vendor != vendor {
			continue
		}
		if e.family == key.Family && vendor == key.Vendor {
			return e
		}
		if best == nil || dist(e.family, key.Family) < dist(best.family, key.Family) ||
			dist(e.family, key.Family) == dist(best.family, key.Family) && e.family > best.family {
			best = e
		}
	}
	if best == nil {
		best = unknownVendor()
	}
	near := *best
	near.name = "no entry for " + key.String() + "; nearest: " + best.name
	return &near
}

// unknownVendor is the entry of a vendor the table does not know: the
// Intel order, with the far prefetch stopping at the last-level cache.
// Each cost is the wrong set's time over the right one's, from the rows
// above: on the AMD EPYC family 26 model 2 (Zen 5) the Intel order
// differs in one operation, add-if-new on large filters (1.32x, avx512's
// AddNewHashes at 1e7), and lacks farPastLLC, which cost 1.68x on
// lookups past the L3 there (4.62 against 2.75 ns a key at 1e8, see
// farLimit); on the Intel Xeon family 6 model 207 the Zen 5 order would
// differ in that one (1.10x, the far mode's median 0.91 above; 1.05x
// from its row's 0.95 before the far mode) and the AMD EPYC
// family 25 model 17 (Zen 4) order would take 1.18x (avx2's blocked
// ContainsHash at 1e7, whose avx512/avx2 ratio there was 0.85). Since the
// Zen 5 series of 2026-11-28 the Zen 5 order would lose less on the three
// CPUs measured (its largest cost, 1.16x, is avx512's ContainsHash on the
// Zen 4, which the Intel order pays as well); the Intel entry stays because it does not carry
// farPastLLC, which measured a gain on one CPU and a loss (2-4%) on
// another.
func unknownVendor() *tableEntry { return &table[0] }

func dist(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}
