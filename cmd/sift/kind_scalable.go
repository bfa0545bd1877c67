package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/internal/mem"
)

// A scalable filter (blocked.Scalable, a chain of blocked filters that grows
// as keys arrive) is what sift build makes with -kind blocked when it reads a
// pipe without -n. query and info decode it from the file into memory, as
// they read every kind (the stages are decoded and copied).
func init() {
	registerKind(&kindInfo{name: "scalable", fileKind: sift.KindScalable, open: openScalable})
}

// scalableInitial is the first stage's capacity when the key count is
// unknown: big enough that ordinary lists need few stages (each stage is one
// more probe per lookup), small enough (about 470 KiB at 1%) not to waste
// much on short inputs.
const scalableInitial = 1 << 18

type scalableBuilder struct {
	s    *blocked.Scalable
	keys int64
}

func newScalableBuilder(spec buildSpec) (builder, error) {
	s, err := blocked.NewScalable(scalableInitial, spec.fpp, blocked.WithSeed(spec.seed))
	if err != nil {
		return nil, err
	}
	return &scalableBuilder{s: s}, nil
}

func (b *scalableBuilder) hash(key []byte) uint64 { return b.s.Hash(key) }

func (b *scalableBuilder) add(hs []uint64) error {
	err := b.s.AddHashes(hs)
	b.keys += int64(len(hs))
	return err
}

func (b *scalableBuilder) added() int64                       { return b.keys }
func (b *scalableBuilder) writeTo(w io.Writer) (int64, error) { return b.s.WriteTo(w) }
func (b *scalableBuilder) stats() filterStats                 { return scalableStats(b.s) }

func scalableStats(s *blocked.Scalable) filterStats {
	return filterStats{
		kind:         "scalable",
		geometry:     fmt.Sprintf("%d blocked stage%s, %d bits in all, FPR bound %g", s.Stages(), plural(s.Stages()), s.Bits(), s.Bound()),
		payloadBytes: int64(s.Bits() / 8),
		count:        int64(s.Count()),
		countExact:   true,
		fill:         -1,
		fpp:          s.FPP(),
	}
}

type scalableReader struct{ s *blocked.Scalable }

func openScalable(path string) (queryFilter, error) {
	s := new(blocked.Scalable)
	err := readFilterFile(path, func(r io.Reader) error {
		_, err := s.ReadFrom(r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return scalableReader{s}, nil
}

// readFilterFile decodes a filter file with read, which must consume
// exactly one encoding; bytes after it are an error. A file whose size or
// modification time moved while it was read is reported as changed
// (mem.ErrChanged), whatever read made of it: a Guava stream has no
// checksum, and a file written over in place mid-read (cp, dd) decoded to
// a mix of two versions and wrong answers with exit status 0; a sift file's
// checksum caught the mix but called the file damaged.
func readFilterFile(path string, read func(io.Reader) error) error {
	f, st, err := mem.OpenRegular(path) // never waits on a FIFO
	if err != nil {
		return pathErr(err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	err = read(br)
	if err == nil {
		err = checkEnd(f, br)
	}
	if cerr := mem.Unchanged(f, st); cerr != nil {
		return cerr
	}
	return err
}

func (r scalableReader) hash(key []byte) uint64 { return r.s.Hash(key) }
func (r scalableReader) containsHashes(hs []uint64, out []bool) int {
	return r.s.ContainsHashes(hs, out)
}
func (r scalableReader) stats() filterStats { return scalableStats(r.s) }
func (r scalableReader) close() error       { return r.s.Close() }
