//go:build gc && !purego

package kernel

//go:generate sh -c "cd ../../asm && go run ./blocked -out ../internal/kernel/blocked_amd64.s -stubs ../internal/kernel/blocked_stubs_amd64.go -pkg kernel"

// The AVX2 batch kernels of the blocked filter (blocked_amd64.s, generated
// by asm/blocked; see its package doc for the instruction-level design).
// Each call runs the whole loop: block index (scalar IMULQ), PREFETCHT0 of
// the block 48 keys ahead, the 8-lane mask (VPMULLD, VPSRLD, VPBLENDD,
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
// Prefetch distance: 48 keys. The kernel was generated at distances 4..96
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
// (n=10, p=0.000). So asmMinBatch is 1: only the empty batch skips the call.

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

// asmMinBatch is the smallest batch the assembly kernels take; smaller ones
// run the Generic loops, which need no call setup. It is a variable so the
// tests can send every length to the assembly.
var asmMinBatch = 1

func blockedAdd(blocks []Block, k int, hs []uint64) {
	if useAVX2 && len(hs) >= asmMinBatch {
		blockedAddAsm(blocks, k, hs)
		return
	}
	BlockedAddGeneric(blocks, k, hs)
}

func blockedContains(blocks []Block, k int, hs []uint64, out []bool) int {
	if useAVX2 && len(hs) >= asmMinBatch {
		return blockedContainsAsm(blocks, k, hs, out)
	}
	return BlockedContainsGeneric(blocks, k, hs, out)
}

// blockedAddAsm runs the AVX2 insert kernel on any batch, empty included.
func blockedAddAsm(blocks []Block, k int, hs []uint64) {
	if len(hs) == 0 {
		return
	}
	raceBlockedAdd(blocks, hs)
	blockedAddAVX2(&blocks[0][0], uint64(len(blocks)), k, &avx2Tables[k].salts[0][0], &hs[0], len(hs))
}

// blockedContainsAsm runs the AVX2 probe kernel on any batch; len(out) >=
// len(hs) is checked here so the assembly never writes past out.
func blockedContainsAsm(blocks []Block, k int, hs []uint64, out []bool) int {
	out = out[:len(hs)]
	if len(hs) == 0 {
		return 0
	}
	raceBlockedContains(blocks, hs, out)
	return blockedContainsAVX2(&blocks[0][0], uint64(len(blocks)), k, &avx2Tables[k].salts[0][0], &hs[0], len(hs), &out[0])
}
