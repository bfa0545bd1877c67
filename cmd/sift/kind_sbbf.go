package main

import (
	"fmt"
	"io"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/internal/mem"
	"github.com/sift-go/sift/sbbf"
)

// The split-block filter (sbbf.Filter, Parquet's SBBF) in sift's
// format: build makes one whose keys are the lines' bytes, hashed as
// Parquet hashes a BYTE_ARRAY value (XXH64, seed 0), so the filter answers
// for a string column exactly as a Parquet writer's filter of the same
// size would; query and info read it into memory, as every kind.
func init() {
	registerKind(&kindInfo{name: "sbbf", fileKind: sift.KindSplitBlock, newBuilder: newSBBFBuilder, memory: sbbfMemory, open: openSBBF, merge: mergeSBBF})
}

type sbbfBuilder struct {
	f    *sbbf.Filter
	keys int64
}

func newSBBFBuilder(spec buildSpec) (builder, error) {
	if spec.seed != 0 {
		return nil, fmt.Errorf("-seed does not apply to -kind sbbf: it hashes as Parquet does (XXH64, seed 0)")
	}
	var f *sbbf.Filter
	var err error
	if spec.blocks != 0 {
		f, err = sbbf.NewWithSize(spec.blocks * sbbf.BlockBytes)
	} else {
		f, err = sbbf.New(uint64(spec.n), spec.fpp)
	}
	if err != nil {
		return nil, err
	}
	return &sbbfBuilder{f: f}, nil
}

// sbbfMemory is what sbbf.New will allocate for spec (0 for a
// spec it refuses, which says why).
func sbbfMemory(spec buildSpec) float64 {
	if spec.blocks != 0 {
		return float64(spec.blocks) * sbbf.BlockBytes
	}
	b, err := sbbf.OptimalSize(uint64(spec.n), spec.fpp)
	if err != nil {
		return 0
	}
	return float64(b)
}

func (b *sbbfBuilder) hash(key []byte) uint64 { return sbbf.Hash(key) }

func (b *sbbfBuilder) add(hs []uint64) error {
	b.f.AddHashes(hs)
	b.keys += int64(len(hs))
	return nil
}

// workers returns n per-goroutine shards of f's size, merged into f by
// finish (a split-block filter has no concurrent form); fewer when n would
// not fit in half the machine's memory (see shardCount).
func (b *sbbfBuilder) workers(n int) ([]builder, func() error, error) {
	n = shardCount(n, b.f.NumBytes())
	return shardWorkers(b, n,
		func() (*sbbfBuilder, error) {
			f, err := sbbf.NewWithSize(b.f.NumBytes())
			return &sbbfBuilder{f: f}, err
		},
		func(into, from *sbbfBuilder) error { return into.f.Union(from.f) },
		func(into, from *sbbfBuilder) { into.keys += from.keys },
		func(s *sbbfBuilder) { s.f.Close() })
}

func (b *sbbfBuilder) added() int64                       { return b.keys }
func (b *sbbfBuilder) writeTo(w io.Writer) (int64, error) { return b.f.WriteTo(w) }
func (b *sbbfBuilder) stats() filterStats                 { return sbbfStats(b.f) }

// sbbfGeometry is what sbbf.Filter and sbbf.View both report.
type sbbfGeometry interface {
	Blocks() uint64
	NumBytes() uint64
	EstimatedCount() uint64
	FPP() float64
}

func sbbfStats(f sbbfGeometry) filterStats {
	count, saturated := estimated(f.EstimatedCount())
	return filterStats{
		kind:         "sbbf",
		geometry:     fmt.Sprintf("%d block%s x 256 bits, 8 probes (Parquet split-block)", f.Blocks(), plural(int(min(f.Blocks(), 2)))),
		payloadBytes: int64(f.NumBytes()),
		count:        count,
		saturated:    saturated,
		fill:         -1, // info counts the set bits itself
		fpp:          f.FPP(),
	}
}

type sbbfReader struct {
	f      *sbbf.View
	region *mem.Region // the copy of the file the view reads
}

// openSBBF reads the file into memory of the process's own (so a file
// changed meanwhile cannot fault the lookups) and serves it in place.
func openSBBF(path string) (queryFilter, error) {
	b, region, _, err := mem.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := sbbf.FromBytes(b)
	if err != nil {
		_ = region.Free()
		return nil, err
	}
	return sbbfReader{f, region}, nil
}

func (r sbbfReader) hash(key []byte) uint64 { return sbbf.Hash(key) }
func (r sbbfReader) containsHashes(hs []uint64, out []bool) int {
	return r.f.ContainsHashes(hs, out)
}
func (r sbbfReader) stats() filterStats { return sbbfStats(r.f) }
func (r sbbfReader) close() error {
	err := r.f.Close()
	if ferr := r.region.Free(); err == nil {
		err = ferr
	}
	return err
}
