package kernel_test

import (
	"fmt"
	"testing"
	"time"
	"unsafe"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
	"github.com/sift-go/sift/internal/mem"
)

// Benchmarks of the blocked kernels on filters sized for n keys at about 1%
// false positives (k = 7, 10 bits per key), with random keys: every probe is
// a random cache line, so from n = 1e7 (12 MB) up the filter is DRAM-bound.
// Each sub-benchmark reports ns/key; pivot with
//
//	benchstat -col /impl old.txt
//
// impl=avx2/neon/generic are the batch kernels; impl=perkey is a loop over
// an inlined single-key probe (what a ContainsHash loop costs);
// BenchmarkMemoryLimit is the floor: independent random 64-byte reads over
// an array of the same size.

const (
	benchK     = 7
	benchBits  = 10      // bits per key
	benchBatch = 1 << 14 // keys per kernel call
)

// benchQueries is how many distinct query keys a benchmark cycles through:
// for the DRAM-bound sizes enough that the lines they touch (4M x 64 B) do
// not fit in any cache, so every probe pays a memory access.
func benchQueries(n int) int {
	if n >= 1e7 {
		return 1 << 22
	}
	return 1 << 16
}

type benchSize struct {
	name string
	n    int
}

func benchSizes(b *testing.B) []benchSize {
	s := []benchSize{{"1e5", 1e5}, {"1e6", 1e6}, {"1e7", 1e7}, {"1e8", 1e8}}
	if testing.Short() {
		s = s[:3]
	}
	return s
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func benchBlocks(n int) int { return (n*benchBits + 511) / 512 }

// benchAlloc allocates nb blocks the way filters are allocated
// (internal/mem: 64-byte aligned, huge-page advice from 4 MiB), so the TLB
// behaves as in production. The memory is never freed: the benchmark
// process is short-lived, and benchRegions keeps every Region reachable
// (a Region's finalizer unmaps its memory: dropped, it faulted the
// n=1e7 benchmarks once a GC ran).
func benchAlloc(nb int) []kernel.Block {
	w, r := mem.AllocWords(nb * kernel.BlockWords)
	benchRegions = append(benchRegions, r)
	return unsafe.Slice((*kernel.Block)(unsafe.Pointer(&w[0])), nb)
}

var benchRegions []*mem.Region

var benchFilters = map[int][]kernel.Block{}

// benchFilter returns (and caches) a filter holding keys splitmix(0..n-1).
func benchFilter(n int) []kernel.Block {
	if f, ok := benchFilters[n]; ok {
		return f
	}
	f := benchAlloc(benchBlocks(n))
	hs := make([]uint64, 4096)
	for i := 0; i < n; i += len(hs) {
		c := min(len(hs), n-i)
		for j := range hs[:c] {
			hs[j] = splitmix(uint64(i + j))
		}
		kernel.BlockedAdd(f, benchK, hs[:c])
	}
	benchFilters[n] = f
	return f
}

// benchQueryKeys returns queries for a filter of n keys: even ones present,
// odd ones absent.
func benchQueryKeys(n int) []uint64 {
	q := make([]uint64, benchQueries(n))
	for i := range q {
		if i%2 == 0 {
			q[i] = splitmix(splitmix(uint64(i)) % uint64(n))
		} else {
			q[i] = splitmix(uint64(n + i))
		}
	}
	return q
}

func reportPerKey(b *testing.B, keys int, start time.Time) {
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(keys), "ns/key")
}

// containsOne is the single-key probe a ContainsHash method would inline.
func containsOne(blocks []kernel.Block, k int, h uint64) bool {
	b := &blocks[kernel.BlockIndex(h, uint64(len(blocks)))]
	m := kernel.BlockMask(h, k)
	var miss uint64
	for w := range b {
		miss |= m[w] &^ b[w]
	}
	return miss == 0
}

func BenchmarkBlockedContains(b *testing.B) {
	for _, s := range benchSizes(b) {
		b.Run("n="+s.name, func(b *testing.B) {
			f := benchFilter(s.n)
			q := benchQueryKeys(s.n)
			out := make([]bool, benchBatch)
			kerneltest.Bench(b, func(b *testing.B, impl string) {
				keys, off, found := 0, 0, 0
				start := time.Now()
				for b.Loop() {
					found += kernel.BlockedContains(f, benchK, q[off:off+benchBatch], out)
					off = (off + benchBatch) % len(q)
					keys += benchBatch
				}
				reportPerKey(b, keys, start)
				if found < keys/2 {
					b.Fatalf("%d of %d found: present keys missing", found, keys)
				}
			})
			b.Run("impl=perkey", func(b *testing.B) {
				keys, off, found := 0, 0, 0
				start := time.Now()
				for b.Loop() {
					for i, h := range q[off : off+benchBatch] {
						out[i] = containsOne(f, benchK, h)
						if out[i] {
							found++
						}
					}
					off = (off + benchBatch) % len(q)
					keys += benchBatch
				}
				reportPerKey(b, keys, start)
				if found < keys/2 {
					b.Fatalf("%d of %d found: present keys missing", found, keys)
				}
			})
		})
	}
}

func BenchmarkBlockedAdd(b *testing.B) {
	for _, s := range benchSizes(b) {
		b.Run("n="+s.name, func(b *testing.B) {
			f := benchAlloc(benchBlocks(s.n))
			for i := range f {
				f[i][0] = 1 // fault the pages in before timing
			}
			q := benchQueryKeys(s.n)
			kerneltest.Bench(b, func(b *testing.B, impl string) {
				keys, off := 0, 0
				start := time.Now()
				for b.Loop() {
					kernel.BlockedAdd(f, benchK, q[off:off+benchBatch])
					off = (off + benchBatch) % len(q)
					keys += benchBatch
				}
				reportPerKey(b, keys, start)
			})
		})
	}
}

var sink uint64

// BenchmarkMemoryLimit measures the floor for the probes: random 64-byte
// reads over an array of the same size (and allocation) as the filter, picked by the same
// multiply-shift of the same query keys, with nothing else to do.
// impl=loads issues independent loads (the out-of-order core overlaps them);
// impl=loads+ahead also touches the line of the key `dist` ahead, like the
// kernels' software prefetch (Go has no prefetch instruction).
func BenchmarkMemoryLimit(b *testing.B) {
	const dist = 16
	for _, s := range benchSizes(b) {
		b.Run("n="+s.name, func(b *testing.B) {
			arr := benchAlloc(benchBlocks(s.n))
			for i := range arr {
				arr[i][0] = uint64(i)
			}
			q := benchQueryKeys(s.n)
			nb := uint64(len(arr))
			b.Run("impl=loads", func(b *testing.B) {
				keys, off := 0, 0
				var x uint64
				start := time.Now()
				for b.Loop() {
					for _, h := range q[off : off+benchBatch] {
						x += arr[kernel.BlockIndex(h, nb)][0]
					}
					off = (off + benchBatch) % len(q)
					keys += benchBatch
				}
				reportPerKey(b, keys, start)
				sink = x
			})
			b.Run("impl=loads+ahead", func(b *testing.B) {
				keys, off := 0, 0
				var x, y uint64
				start := time.Now()
				for b.Loop() {
					hs := q[off : off+benchBatch]
					for i := range hs[:len(hs)-dist] {
						y ^= arr[kernel.BlockIndex(hs[i+dist], nb)][1]
						x += arr[kernel.BlockIndex(hs[i], nb)][0]
					}
					for _, h := range hs[len(hs)-dist:] {
						x += arr[kernel.BlockIndex(h, nb)][0]
					}
					off = (off + benchBatch) % len(q)
					keys += benchBatch
				}
				reportPerKey(b, keys, start)
				sink = x ^ y
			})
		})
	}
}

func ExampleImpls() {
	fmt.Println(kernel.Impls()[len(kernel.Impls())-1])
	// Output: generic
}

// BenchmarkBlockedSmallBatch measures where the assembly starts to pay for
// its call and setup (table loads, prefetch prologue), on a cache-resident
// filter; the asm impls send every batch to the assembly here. The threshold
// in blocked_amd64.go/blocked_arm64.go comes from this benchmark.
func BenchmarkBlockedSmallBatch(b *testing.B) {
	f := benchFilter(50000) // 61 KiB
	q := benchQueryKeys(50000)
	out := make([]bool, 64)
	for _, n := range []int{1, 2, 3, 4, 6, 8, 16, 32} {
		b.Run(fmt.Sprintf("len=%d", n), func(b *testing.B) {
			kerneltest.Bench(b, func(b *testing.B, impl string) {
				off := 0
				for b.Loop() {
					kernel.BlockedContains(f, benchK, q[off:off+n], out)
					off = (off + 64) % (len(q) - 64)
				}
			})
		})
	}
}

// BenchmarkBlocked1 is the single-key probe and insert (what ContainsHash
// and AddHash run) per kernel set: a loop of BlockedContains1 or BlockedAdd1
// calls, one key each.
func BenchmarkBlocked1(b *testing.B) {
	for _, s := range benchSizes(b) {
		b.Run("n="+s.name, func(b *testing.B) {
			f := benchFilter(s.n)
			q := benchQueryKeys(s.n)
			for _, op := range []string{"contains", "add"} {
				b.Run("op="+op, func(b *testing.B) {
					kerneltest.Bench(b, func(b *testing.B, impl string) {
						keys, off, found := 0, 0, 0
						tab := &kernel.BlockedTable{Blocks: f, K: benchK}
						start := time.Now()
						for b.Loop() {
							for _, h := range q[off : off+benchBatch] {
								if op == "add" {
									kernel.BlockedAdd1(tab, h)
								} else if kernel.BlockedContains1(tab, h) {
									found++
								}
							}
							off = (off + benchBatch) % len(q)
							keys += benchBatch
						}
						reportPerKey(b, keys, start)
						if op == "contains" && found < keys/2 {
							b.Fatalf("%d of %d found: present keys missing", found, keys)
						}
					})
				})
			}
		})
	}
}
