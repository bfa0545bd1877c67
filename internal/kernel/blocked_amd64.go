//go:build gc && !purego

package kernel

import (
	"math"
	"unsafe"

	"github.com/klauspost/cpuid/v2"

	"github.com/sift-go/sift/internal/cpu"
)

//go:generate sh -c "cd ../../asm && go run ./blocked -out ../internal/kernel/blocked_amd64.s -stubs ../internal/kernel/blocked_stubs_amd64.go -pkg kernel"

// The AVX2 batch kernels of the blocked filter (blocked_amd64.s, generated
// by asm/blocked; see its package doc for the instruction-level design).
// Each call runs the whole loop: block index (scalar IMULQ), PREFETCHT0 of
// the block 48 keys ahead (128 in modePrefetchFar, blockedMode), the
// 8-lane mask (VPMULLD, VPSRLD, VPBLENDD,
// VPSRLQ, 2 VPSLLVQ; a second round for k > 8), then the test (VPANDN, VPOR,
// VPTEST, SETEQ) or the insert (VPOR, VMOVDQU), with no per-key branch:
// 28 instructions a key to probe, 22 to insert (k <= 8; 8 more for k > 8),
// prefetch included.
//
// Against the Go versions, on this machine (AMD EPYC, 2 vCPUs shared with
// other jobs: the absolute figures are inflated and noisy, the ratios are
// what the table is for), k = 7, 10 bits a key (about 1% false positives),
// filters allocated by internal/mem (huge-page advice) and random keys:
//
//	go test -c -o k.test ./internal/kernel && cd internal/kernel &&
//	for i in $(seq 10); do ../../k.test -test.run XXX -test.bench 'Blocked|MemoryLimit'; done > new.txt
//	benchstat -col /impl -filter .unit:ns/key -table .name new.txt
//
//	.name: BlockedContains   (perkey = a loop over an inlined single-key probe)
//	          │     avx2      │         generic          │          perkey          │
//	          │    sec/key    │    sec/key     vs base   │    sec/key     vs base   │
//	*/n=1e5-2   6.822n ±  44%   93.455n ± 37%  +1270.01%   67.360n ±  34%  +887.47%  (p=0.000 n=10)
//	*/n=1e6-2   5.861n ±  26%   88.180n ± 51%  +1404.52%   86.650n ±  48% +1378.42%
//	*/n=1e7-2   18.45n ±  79%   329.85n ± 56%  +1687.80%   271.20n ± 203% +1369.92%
//	*/n=1e8-2   31.86n ± 120%   351.20n ± 42%  +1002.15%   304.50n ±  31%  +855.59%
//	geomean     12.38n           175.8n        +1319.61%    148.2n        +1096.66%
//
//	.name: BlockedAdd
//	          │     avx2     │          generic          │
//	*/n=1e5-2   2.929n ± 18%    35.885n ± 20%  +1125.37%  (p=0.000 n=10)
//	*/n=1e6-2   3.797n ± 32%    38.800n ± 57%   +921.72%
//	*/n=1e7-2   8.495n ± 46%   160.200n ± 38%  +1785.82%
//	*/n=1e8-2   21.60n ± 27%    191.90n ± 24%   +788.43%
//	geomean     6.721n           80.89n        +1103.46%
//
//	.name: MemoryLimit  (random 64-byte reads over an array of the filter's size)
//	          │     loads     │      loads+ahead       │
//	*/n=1e7-2   26.61n ±  57%    46.92n ± 60%  +76.27%
//	*/n=1e8-2   32.03n ±  34%    64.09n ± 66% +100.05%
//
// At n = 1e8 the batch probe runs at the memory limit (31.9 vs 32.0 ns/key,
// target <= 1.25x) and 9.6x faster than the per-key loop (target >= 2x);
// the batch insert at 0.67x of the limit (target <= 1.5x).
//
// Prefetch distance: 48 keys (modeRing and modePrefetch; modePrefetchFar
// runs 128, see blockedMode). The kernel was generated at distances 4..96
// (asm/blocked -dist) and BlockedContains and BlockedAdd at n = 1e7 and 1e8
// run interleaved; under this noise the medians did not separate, so the
// fastest run of each is the figure. Contains at n = 1e8, ns/key:
//
//	distance               4     8    12    16    24    32    48    64    96
//	Go heap (3-9 runs)  39.0  36.4  21.4  25.6  15.5  20.8  13.4     -     -
//	mem.AllocWords (4)     -     -     -  27.2  28.7  19.9  10.6  15.2  26.6
//
// Insert and n = 1e7 agree: up to 16 is too short, 32..64 a plateau. 48
// lines in flight are 3 KiB, far below L1.
//
// Small batches: the assembly wins from one key on (BlockedSmallBatch,
// cache-resident filter, every batch sent to the assembly): 1 key 30.4 vs
// 87.7 ns, 2 keys 39.0 vs 155.8, 4 keys 55.1 vs 362.5, 8 keys 78.2 vs 580.9
// (n=10, p=0.000). So every batch goes to the assembly (the wrappers return
// before the call for an empty one).

// # The AVX-512 kernels
//
// When an operation's set is avx512 (AVX-512 F, BW, DQ and VL; chosen per
// operation by table.go) the batch calls run blockedAddAVX512 and
// blockedContainsAVX512, and the single-key entry points below jump to
// blockedAdd1AVX512/blockedContains1AVX512
// (asm/blocked/avx512.go describes the instructions). A 512-bit block is
// one ZMM register: loaded, tested and ORed whole, the probe bits widened
// into word lanes by one VPMOVZXDQ instead of the AVX2 set's blend and
// shifts, the answer taken from an opmask (KORTESTB) instead of VPTEST.
// The batch loops compute 8 keys' block offsets with one VPMULUDQ and
// prefetch from those (the AVX2 loops 4 keys' in modeRing, else each
// key's with a scalar IMUL). VPMULUDQ takes a 32-bit block count, so a
// filter of exactly 2^32 blocks runs the AVX2 kernels (blockedAddN) in
// modePrefetch (batchMode).
//
// VPMULUDQ replaced VPMULLQ (a full 64-bit product), which Intel runs as
// 3 uops with about 15 cycles of latency, where VPMULUDQ is one (issue
// #23's lead). On this Zen 5 VM the change does not lose: the same test
// binary built with each kernel, 10 runs of each interleaved at a quiet
// moment (load average 2), wall ns/key, medians (minima), B/A of the
// medians (the single runs ranged up to 3.7 ns: a shared 2-core VM):
//
//	go test -c ./internal/kernel (once per kernel); for i in $(seq 10); do
//	    kA.test / kB.test -test.run '^$' -test.short -test.benchtime 150ms
//	    -test.bench 'Blocked(Contains|Add)$/n=1e[56]/impl=avx512'; done
//
//	                     A: VPMULLQ    B: VPMULUDQ   B/A
//	BlockedAdd      1e5  0.99 (0.92)   0.95 (0.91)   0.96
//	BlockedAdd      1e6  1.12 (1.04)   1.09 (1.04)   0.97
//	BlockedContains 1e5  1.24 (1.05)   1.24 (1.04)   1.00
//	BlockedContains 1e6  1.51 (1.21)   1.24 (1.19)   0.82
//
// At n = 1e7 (8 runs of each in a busier hour) and in three runs of each
// sift binary's bench -kernels the ratios stayed within the noise of the
// single-key rows, which the change does not touch (0.80-1.24).
//
// ZMM, not the 256-bit EVEX forms: the single-key probe written with YMM
// halves and opmasks (two loads, two shifts, an AND) took 2.40 ns a lookup
// against 2.25 with ZMM at n = 1e5 and 3.31 against 3.03 at n = 1e6
// (scratch benchmark on this Zen 4 machine, 2^16 lookups a pass, best of
// 3). AMD's Zen 4 and 5 run 512-bit instructions at full clock; Intel
// runs 512-bit integer work on two ports instead of three (and CPUs
// before Ice Lake lower the clock for heavy 512-bit work), which is why
// table.go picks per operation from measurements on each CPU family (on
// Intel family 6 model 207 the AVX2 batch insert led by 12-21% at 1e7
// keys and trailed at 1e6, so the insert's set is split by filter size:
// OpBlockedAddLarge) and `sift bench -kernels` exists to check a new CPU.
//
// # Single-key kernels
//
// blockedContains1AVX2 and blockedAdd1AVX2 run ContainsHash and AddHash:
// one hash per call, the k = 8 case (what New picks at 1% and 0.1%) with
// no table arithmetic, and for the probe a shorter test than the batch
// kernel's: each block word is shifted right by its bit number (VPSRLVQ),
// which brings the probe bits to bit 0 of each lane, and one VPTEST
// against per-lane ones checks them all. DESIGN.md §6 ("per key in Go")
// does not hold here: the unrolled Go probe is already a non-inlined call
// (it is far over the inlining budget), and it is bound by its 8 scalar
// IMULs, where one VPMULLD does them all. The Go wrappers (BlockedContains1,
// BlockedAdd1) inline into the blocked package's methods, so a lookup is
// still one call. Each argument of an assembly call is a store and a load,
// so they take two: a *BlockedTable (the block slice and k, read through
// one pointer) and the hash. The kernels check
// useAVX2 themselves (and an empty filter, and k in 1..MaxK) and otherwise
// jump, arguments in place, to blockedContains1Go/blockedAdd1Go: a Go
// dispatch would be a second call (two calls exceed the inlining budget),
// measured 0.8 ns a key slower (2026-11-21, on the development VM of the
// time, whose CPU model was not recorded; on an AMD EPYC family 26 model
// 2, Zen 5, 1.22x slower: bench/README.md, "Single-key blocked calls").
//
// Against the unrolled Go probe (before) and parquet-go v0.32.0's AVX2
// split-block filter (SplitBlockFilter.Check/Insert, one assembly call per
// key: the DESIGN.md target), from the bench module, fpp 1% (sift k = 8,
// 10.1 bits a key; parquet 11), precomputed hashes, thread CPU time:
//
//	cd bench && go test -c -o b.test . # once with the Go probe, once with these kernels
//	b.test -test.run '^$' -test.bench 'Contains/.*/.*/.*/.*/mode=loop|Insert/.*/.*/.*/mode=loop' \
//	    -sift.n=1e5,1e6,1e7 -sift.fpp=0.01,0.001 -sift.filter='sift-blocked$|parquet' -test.benchtime 150ms
//	(6 runs of each binary, interleaved) | benchstat -col /filter -filter .unit:cpu-ns/key
//
//	                                  │  Go probe   │      AVX2 kernel       │     parquet-go       │
//	                                  │ cpu-sec/key │ cpu-sec/key  vs base   │ cpu-sec/key  vs base │
//	Contains/n=1e5/keys=present         6.170n ±  4%  3.560n ±  2%  -42.31%   3.168n ± 10%  -48.65%
//	Contains/n=1e5/keys=absent          6.282n ±  2%  3.643n ± 21%  -42.02%   3.123n ±  4%  -50.29%
//	Contains/n=1e6/keys=present         8.992n ±  6%  4.310n ± 20%  -52.07%   3.815n ±  8%  -57.57%
//	Contains/n=1e6/keys=absent          8.584n ±  7%  4.292n ±  5%  -50.00%   3.832n ±  3%  -55.35%
//	Contains/n=1e7/keys=present         31.38n ± 42%  9.684n ± 67%  -69.14%   13.28n ± 34%  -57.70%
//	Contains/n=1e7/keys=absent          28.84n ± 51%  14.90n ± 37%  -48.33%   15.34n ± 36%  -46.82%
//	Insert/n=1e5                        8.624n ±  5%  4.334n ±  4%  -49.75%   3.421n ±  4%  -60.33%
//	Insert/n=1e6                        12.32n ±  8%  5.283n ± 33%  -57.12%   4.152n ± 11%  -66.30%
//	Insert/n=1e7                        36.02n ± 23%  16.44n ± 57%  -54.34%   16.18n ± 31%  -55.08%
//	(p=0.002 n=6 everywhere; fpp 0.1% agrees)
//
// So 1.7-2.3x the Go probe, but still about 12% behind parquet-go's Check
// in cache (its blocks are 256 bits, one YMM, and it takes the slice by
// value). Of those two, the slice by value is most of it: README.md's
// Performance section measured parquet-go, given sift's pointer
// indirection, at sift's time at 1e5, and a probe three instructions
// shorter level (AMD EPYC family 26 model 2, Zen 5). That table was taken with three
// arguments (blocks *[]Block, k, h). Reading k beside the slice through
// one pointer (*BlockedTable, two arguments) closed half of the gap, same
// command, 10 runs of each binary interleaved, fpp 1%, n = 1e5:
//
//	                         three arguments   two arguments      parquet-go
//	Contains, keys=present    3.579n ±  8%     3.413n ±  8% (-4.6%, p=0.018)   3.160n
//	Contains, keys=absent     3.582n ±  4%     3.472n ± 26%                   3.269n
//
// (1.07x parquet-go's time; it was 1.13x.) Other variants measured in a
// scratch module with the same loop: testing useAVX2 in the kernel costs
// 0.2 ns of the gap (a branch-free flag OR'ed into k by the caller
// measured as fast, but pushed ContainsHash to the inlining budget's limit
// and gained nothing in the bench module); four arguments (pointer and
// length by value) or a per-k table pointer from Go were slower than
// three; dropping 5 of the kernel's instructions changed nothing
// measurable.

// avx2Table is the per-k constant table of the AVX2 kernels; its layout is
// fixed by asm/blocked (see that package's doc): the salts of the two rounds
// in lane order [0 4 1 5 2 6 3 7], then per-lane ones for words 0..3 and
// 4..7 of each round, zero in the lanes of probes j >= k.
type avx2Table struct {
	salts [2][8]uint32
	ones  [2][2][4]uint64
}

// avx2Tables[k] is the table for k probes, built from Salts.
var avx2Tables = func() (t [MaxK + 1]avx2Table) {
	lane := [8]int{0, 4, 1, 5, 2, 6, 3, 7} // dword lane -> word
	for k := range t {
		for r := 0; r < 2; r++ {
			for l, w := range lane {
				t[k].salts[r][l] = Salts[8*r+w]
			}
			for w := 0; w < BlockWords; w++ {
				if 8*r+w < k {
					t[k].ones[r][w/4][w%4] = 1
				}
			}
		}
	}
	return t
}()

func blockedAdd(blocks []Block, k int, hs []uint64) {
	if blockedAddSetFor(uint64(len(blocks))) != setGeneric {
		blockedAddAsm(blocks, k, hs)
		return
	}
	BlockedAddGeneric(blocks, k, hs)
}

func blockedContains(blocks []Block, k int, hs []uint64, out []bool) int {
	if blockedContainsSetFor(uint64(len(blocks))) != setGeneric {
		return blockedContainsAsm(blocks, k, hs, out)
	}
	return BlockedContainsGeneric(blocks, k, hs, out)
}

// blockedAddAsm runs the AVX-512 insert kernel if blockedAddSetFor says so,
// else the AVX2 one, on any batch, empty
// included.
func blockedAddAsm(blocks []Block, k int, hs []uint64) {
	if len(hs) == 0 {
		return
	}
	raceBlockedAdd(blocks, hs)
	blockedAddN(&blocks[0][0], uint64(len(blocks)), k, hs)
}

// blockedAddN runs blockedAddSetFor's insert kernel on nblocks blocks at
// blocks: the AVX-512 one for fewer than 2^32 blocks (its VPMULUDQ takes
// a 32-bit block count), else the AVX2 one, in blockedMode's mode. hs is not
// empty.
func blockedAddN(blocks *uint64, nblocks uint64, k int, hs []uint64) {
	mode := blockedMode(nblocks, true)
	if blockedAddSetFor(nblocks) == setAVX512 && nblocks < MaxBlocks {
		blockedAddAVX512(blocks, nblocks, k, &hs[0], len(hs), mode)
		return
	}
	blockedAddAVX2(blocks, nblocks, k, &avx2Tables[k].salts[0][0], &hs[0], len(hs), mode)
}

// The batch kernels' mode argument: no prefetches (inserts only),
// prefetches with the offset ring, prefetches with the offsets computed
// twice, and the same further ahead (the blocked and split-block probes
// and inserts; blockedMode). The generators compare with the same numbers
// (asm/internal/kit's ModeNoPrefetch, ModeRing, ModePrefetch,
// ModePrefetchFar): keep them.
const (
	modeNoPrefetch  = 0
	modeRing        = 1
	modePrefetch    = 2
	modePrefetchFar = 3
)

// batchMode is the mode of the batch kernels (inserts if insert) on a
// filter of nblocks blocks: inserts below prefetchMinBlocks do not
// prefetch; otherwise, below ringMaxBlocks (and 2^32 blocks, for the
// AVX2 loops' VPMULUDQ), the loops keep the block offsets they compute
// for the prefetch in a ring on the stack and read them back for the
// group. BenchmarkBlockedContains and BenchmarkBlockedAdd (impl=avx512),
// binaries with and without the ring alternated, five rounds, AMD EPYC
// family 25 model 17 (Zen 4): lookups 0.83x the time at 1e5 and 0.89x at
// 1e6 (faster in every round), inserts 0.89x at 1e6; at 1e7 both
// 1.10-1.13x slower in six more rounds (0.96-1.10x in the first five), so
// the big filters recompute. The AVX2 loops' ring (groups of 4 offsets
// from one VPMULUDQ, where each key's was computed twice with a scalar
// IMUL), BenchmarkBlockedModes (both modes on one filter in one process),
// impl=avx2, ten rounds, ring/prefetch medians, same Zen 4: lookups 0.79x
// at 1e5 and 0.94x at 1e6, inserts 0.81x at both, add-if-new (eight
// rounds) 0.81x and 0.88x.
func batchMode(nblocks uint64, insert bool) int {
	switch {
	case insert && nblocks < prefetchMinBlocks:
		return modeNoPrefetch
	case nblocks < ringMaxBlocks && nblocks < MaxBlocks:
		return modeRing
	}
	return modePrefetch
}

// blockedMode is batchMode for the blocked probe, insert and add-if-new
// kernels, which have one more mode: a filter past the ring (4 MiB and more) that fits
// the last-level cache (below farMaxBlocks) runs modePrefetchFar, which
// prefetches 128 keys ahead instead of 48 (asm/blocked, defaultFarDist, flag -fardist).
// From L3 a block takes longer to arrive than from L2, so more keys must
// be in flight to cover it; from memory the longer distance was no help
// on the Zen 4 below, and the larger help on a Zen 5, whose table entry
// extends the far mode to every size from 4 MiB (farLimit).
// The bench module's BenchmarkInsert and BenchmarkContains (mode=batch),
// binaries at distances 48 and 128 alternated, AMD EPYC family 25 model
// 17 (Zen 4, 32 MiB L3), thread-CPU ns a key, medians of the per-round
// ratios 128 / 48:
//
//	n (filter)       rounds  set     insert  present  absent
//	1e7 (12.6 MB)    6+6+4   avx2    0.83    0.85     0.85    (three runs: 0.73-0.89, 0.85-0.93, 0.84-0.97)
//	1e7 (12.6 MB)    4       avx512  0.77    0.76     0.73
//	1e8 (126 MB)     8       avx2    1.02    1.04     1.04
//
// Distances 64, 96 and 192 at 1e7 (six rounds each) were between 48 and
// 128 or slower than 128. The split-block kernels take the same modes
// (sbbfMode, with their own figures), and so do the add-if-new kernels
// (addnew_amd64.go has theirs); the windowed and cuckoo kernels keep
// their distances.
func blockedMode(nblocks uint64, insert bool) int {
	m := batchMode(nblocks, insert)
	if m == modePrefetch && nblocks < farMaxBlocks {
		return modePrefetchFar
	}
	return m
}

// farMaxBlocks is the last-level cache's size in blocks (cpuid's L3, or
// 32 MiB where it reports none), or no limit where the table entry of
// this CPU says farPastLLC: see blockedMode and farLimit. A variable for
// the tests.
var farMaxBlocks = farLimit(entryFor(cpu.Current()), cpuid.CPU.Cache.L3)

// farLimit is farMaxBlocks for the table entry e on a CPU with an L3 of
// l3 bytes. Past the L3 the longer distance depends on the CPU: on the
// Zen 4 above it was level (1.02-1.04, so the filters past it keep 48),
// on a Zen 5 it was the larger gain. BenchmarkBlockedModes/n=1e8 (a
// 126 MB filter, the VM's L3 32 MiB) in this package, every mode on one
// filter in one process, four processes, AMD EPYC family 26 model 2
// (Zen 5), thread-CPU ns a key, far (128) against prefetch (48), the
// range over the four:
//
//	        contains              add                   add-if-new
//	avx512  2.71-2.86 / 4.00-4.20 2.70-2.89 / 3.78-3.94 3.53-3.61 / 4.11-4.20
//	avx2    2.68-2.81 / 4.61-4.70 2.72-2.85 / 4.37-4.54 2.77-2.89 / 4.69-4.76
//
// so the table's Zen 5 entry sets farPastLLC.
func farLimit(e *tableEntry, l3 int) uint64 {
	if e.farPastLLC {
		return math.MaxUint64
	}
	return llcBlocks(l3)
}

// llcBlocks is a last-level cache of l3 bytes in blocks, 32 MiB's where
// l3 is unknown (<= 0).
func llcBlocks(l3 int) uint64 {
	if l3 <= 0 {
		l3 = 32 << 20
	}
	return uint64(l3) / BlockBytes
}

// ringMaxBlocks: see batchMode (65536 blocks, 4 MiB, where filters leave
// the Go heap for a mapping). A variable for the tests, which run every
// mode on every size.
var ringMaxBlocks uint64 = LargeBlocks

// prefetchMinBlocks is the smallest filter, in blocks, whose batch inserts
// prefetch the blocks of the keys ahead (8192 blocks: 512 KiB, under the
// L2 of the CPUs measured; modeNoPrefetch below). Below it the filter sits
// in L2, where the out-of-order core overlaps the misses by itself and a
// prefetch only costs its instructions. Measured with BenchmarkBlockedAdd, the two kernels of each set
// with and without prefetches, four alternated rounds, ns a key, AMD EPYC
// family 25 model 17 (Zen 4): at n = 1e5 (127 KB) avx2 1.91 -> 1.43,
// avx512 1.58 -> 1.36 without; at n = 1e6 (1.27 MB) level (2.19 / 2.12,
// 1.75 / 1.88); at 1e7 twice as slow without (5.11 / 11.3, 4.83 / 9.05).
// The probes kept theirs: level at 1e5 without, 1.14-1.21x slower at 1e6.
// (A variable for the tests, which run every mode on every size.)
var prefetchMinBlocks uint64 = 8192

func init() {
	SetBatchModes = func(m BatchMode) func() {
		p, r, f := prefetchMinBlocks, ringMaxBlocks, farMaxBlocks
		prefetchMinBlocks, ringMaxBlocks, farMaxBlocks = m.PrefetchMin, m.RingMax, m.FarMax
		return func() { prefetchMinBlocks, ringMaxBlocks, farMaxBlocks = p, r, f }
	}
}

// blockedContainsAsm runs the AVX-512 probe kernel if
// blockedContainsSetFor says so, else the AVX2 one, on any batch;
// len(out) >= len(hs) is checked here so the assembly never writes past out.
func blockedContainsAsm(blocks []Block, k int, hs []uint64, out []bool) int {
	out = out[:len(hs)]
	if len(hs) == 0 {
		return 0
	}
	raceBlockedContains(blocks, hs, out)
	return blockedContainsN(&blocks[0][0], uint64(len(blocks)), k, hs, out)
}

// blockedContainsN is blockedAddN for the probe kernels; len(out) >=
// len(hs) > 0.
func blockedContainsN(blocks *uint64, nblocks uint64, k int, hs []uint64, out []bool) int {
	mode := blockedMode(nblocks, false)
	if blockedContainsSetFor(nblocks) == setAVX512 && nblocks < MaxBlocks {
		return blockedContainsAVX512(blocks, nblocks, k, &hs[0], len(hs), &out[0], mode)
	}
	return blockedContainsAVX2(blocks, nblocks, k, &avx2Tables[k].salts[0][0], &hs[0], len(hs), &out[0], mode)
}

// avx512Salts are Salts for the AVX-512 kernels, which read them in
// natural order (8 or 16 dwords from here).
var avx512Salts = Salts

// BlockedContains1 reports whether the key with hash h is present in
// t.Blocks with t.K probes: the single-key probe, bit for bit
// BlockedContains1Generic. It panics if t.Blocks is empty; callers
// guarantee 1 <= t.K <= MaxK. It keeps t (so the object holding it) alive
// until it returns, so a caller whose memory a finalizer may unmap needs no
// runtime.KeepAlive of its own (here: the assembly has no safe point,
// so no GC cycle can end, and no finalizer run, while it reads through t;
// its Go fallback keeps t alive explicitly). It inlines, so a lookup costs one call.
func BlockedContains1(t *BlockedTable, h uint64) bool {
	if raceEnabled {
		raceBlocked1(t, h, false)
	}
	return blockedContains1AVX2(t, h)
}

// BlockedAdd1 sets the t.K probe bits of hash h in its block of t.Blocks:
// the single-key insert, bit for bit BlockedAdd1Generic. The contract is
// BlockedContains1's.
func BlockedAdd1(t *BlockedTable, h uint64) {
	if raceEnabled {
		raceBlocked1(t, h, true)
	}
	blockedAdd1AVX2(t, h)
}

// avx2TableBytes is the size of one avx2Table, which the single-key kernels
// index by k (asm/blocked assumes it): the array types below fail to
// compile if it changes.
const avx2TableBytes = 192

var (
	_ [avx2TableBytes - unsafe.Sizeof(avx2Table{})]struct{}
	_ [unsafe.Sizeof(avx2Table{}) - avx2TableBytes]struct{}
)

// The single-key kernels read t.K at byte 24 of *BlockedTable (after the
// slice header): these fail to compile if it moves.
var (
	_ [24 - unsafe.Offsetof(BlockedTable{}.K)]struct{}
	_ [unsafe.Offsetof(BlockedTable{}.K) - 24]struct{}
)
