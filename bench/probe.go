package bench

import (
	"github.com/sift-go/sift/internal/mem"
)

// PrefetchDistances are the distances, in keys, at which BenchmarkMemory
// runs the prefetch probe (probe=prefetch16, prefetch48, ...). The memory
// limit is the fastest of them at each size: how far ahead to prefetch is
// a property of the loop, not of the memory system, and a probe held to
// one distance measures that distance (sift's batch kernels prefetch up to
// 128 keys ahead on large tables).
var PrefetchDistances = []int{16, 48, 128, 256}

// LegacyPrefetchDistance is the one distance of the prefetch probe before
// the sweep: raw output whose BenchmarkMemory cases say probe=prefetch,
// with no distance, ran at 16 keys ahead.
const LegacyPrefetchDistance = 16

// Probe is the memory-limit probe: an array of 64-byte lines, allocated
// like sift's big filters (64-byte aligned; from 4 MiB up an anonymous
// mapping advised for transparent huge pages on Linux), read in the
// patterns that bound what any one-cache-line-per-key filter can do.
type Probe struct {
	words  []uint64 // 8 per line; word 0 of line i is the next line of the chain
	region *mem.Region
	lines  uint64
	cursor uint64 // where ProbeChain resumes
	call   callTable
}

// callTable is what ProbeCall passes to the empty assembly function: a
// pointer to a slice header and a count, as sift's single-key kernels take
// their *kernel.BlockedTable.
type callTable struct {
	words []uint64
	k     int
}

// NewProbe returns a probe over an array of at least size bytes (rounded up
// to whole 64-byte lines). The lines' first words form one random cycle
// through every line (Sattolo's algorithm, fixed seed), so the chain visits
// the whole array before repeating. Free releases it.
func NewProbe(size int) *Probe {
	lines := max((size+63)/64, 1)
	words, region := mem.AllocWords(lines * 8)
	p := &Probe{words: words, region: region, lines: uint64(lines)}
	perm := make([]uint32, lines)
	for i := range perm {
		perm[i] = uint32(i)
	}
	state := uint64(0x5eed)
	for i := lines - 1; i > 0; i-- {
		state++
		j := int(mulHi32(splitmix64(state), uint64(i))) // 0 <= j < i
		perm[i], perm[j] = perm[j], perm[i]
	}
	// perm is now a single cycle (Sattolo): follow it line by line.
	for i := range lines {
		words[8*int(perm[i])] = uint64(perm[(i+1)%lines])
	}
	return p
}

// mulHi32 maps the high 32 bits of h onto 0..n-1 by multiply-shift, as
// sift's blocked filter picks a block (n < 2^32).
func mulHi32(h, n uint64) uint64 { return (h >> 32) * n >> 32 }

// Bytes returns the array's size.
func (p *Probe) Bytes() int { return len(p.words) * 8 }

// Free releases the array; the probe must not be used afterwards.
func (p *Probe) Free() error { return p.region.Free() }

// ProbeChain follows the random cycle for steps dependent reads (each
// address comes from the previous load) and returns the last line reached:
// the latency of one random 64-byte read.
func (p *Probe) ProbeChain(steps int) uint64 {
	cur := p.cursor
	w := p.words
	for range steps {
		cur = w[8*cur]
	}
	p.cursor = cur
	return cur
}

// ProbeCall calls an empty assembly function (in Go where there is none)
// once per hash, with a pointer and the hash as arguments and a bool result,
// in the loop shape of a single-key lookup, and returns how many it
// reported true (none). It reads no memory: it is the floor under any loop
// that makes one call into assembly per key, such as sift's ContainsHash
// (and parquet-go's Check), whatever the call does.
func (p *Probe) ProbeCall(hs []uint64) int {
	c := 0
	for _, h := range hs {
		if callFloor(&p.call, h) {
			c++
		}
	}
	return c
}

// ProbeRandom reads word 0 of the line each hash of hs maps to (independent
// reads the CPU may overlap out of order) and returns their sum.
func (p *Probe) ProbeRandom(hs []uint64) uint64 {
	w := p.words
	n := p.lines
	var sum uint64
	for _, h := range hs {
		sum += w[8*mulHi32(h, n)]
	}
	return sum
}

// ProbePrefetch is ProbeRandom with a software prefetch of the line dist
// keys ahead (the lines of the first dist keys are prefetched before the
// first read, as a batch kernel's prologue does), in assembly on amd64
// (PREFETCHT0) and arm64 (PRFM PLDL1KEEP); elsewhere it is ProbeRandom. It
// returns the same sum. dist must not be negative.
func (p *Probe) ProbePrefetch(hs []uint64, dist int) uint64 {
	if len(hs) == 0 {
		return 0
	}
	if dist < 0 {
		panic("bench: negative prefetch distance")
	}
	return probePrefetch(&p.words[0], p.lines, hs, dist)
}

// probePrefetchGeneric is the portable twin of the assembly.
func probePrefetchGeneric(words *uint64, lines uint64, hs []uint64) uint64 {
	p := Probe{words: unsafeWords(words, lines), lines: lines}
	return p.ProbeRandom(hs)
}
