package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/classic"
	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/sbbf"
)

var mergeCmd = &command{
	name:    "merge",
	summary: "merge filters built apart (shards) into one",
	usage: `usage: sift merge [-generation G] [-q] -o FILE SHARD.sift...

Merges filters of one kind and geometry, built from parts of the keys on
other machines or processes (the shards), into one filter holding every key
of every shard, written to FILE atomically (a temporary file renamed into
place). The result is the filter one build of all the keys would make, bit
for bit for the Bloom kinds:

  blocked, sbbf, classic   the bits are ORed (Union)
  counting                 the counters are added, saturating at 15
  cuckoo                   each shard's fingerprints are inserted into the
                           first's (cuckoo Union); fails, writing nothing,
                           when they do not all fit: build the shards with
                           more -buckets. A key in two shards is held
                           twice (two slots, counted twice by info), where
                           one build stores it once: split the keys so
                           that each is in one shard (by line or hash)
  scalable                 not mergeable: build shards with -n, or with
                           -blocks and -k

Shards must agree on the geometry and the seed: build them with the same
explicit geometry (sift build -blocks B -k K, -kind sbbf -blocks B, -kind
cuckoo -buckets N -bits F) and -seed, or with the same -n and -fpp. A shard
that differs is an error naming it. FILE may be one of the shards.

  -o FILE         output file (required)
  -generation G   record generation G (a positive integer, or "now" for the
                  Unix time) in FILE's header, as sift build does; without
                  it FILE records none, whatever the shards' generations
  -q              quiet: no summary line

The map-reduce recipe: split the keys (by line, hash or source; for cuckoo,
so that no key is in two parts), run
'sift build -kind K <geometry> -seed S -o shard-I.sift part-I' on each part
anywhere (one machine's cores, a cluster's tasks, a shell loop), copy the
shards to one place and run 'sift merge -o filter.sift shard-*.sift'.
`,
	run: runMerge,
}

func runMerge(e *env) (int, error) {
	fs := newFlagSet("merge")
	out := fs.String("o", "", "")
	quiet := fs.Bool("q", false, "")
	var gen generationValue
	fs.Var(&gen, "generation", "")
	args, err := parseFlags(fs, e.args)
	if err != nil {
		return exitError, err
	}
	if *out == "" {
		return exitError, errors.New("-o FILE is required (run 'sift merge -h' for usage)")
	}
	if len(args) == 0 {
		return exitError, errors.New("no shards to merge (run 'sift merge -h' for usage)")
	}
	if err := checkOutput(*out); err != nil {
		return exitError, err
	}
	var kind sift.Kind
	for i, path := range args {
		h, err := readHeader(path)
		if err != nil {
			return exitError, err
		}
		if i == 0 {
			kind = h.Kind
		} else if h.Kind != kind {
			return exitError, fmt.Errorf("%s: %w: it holds a %v filter, %s a %v filter: shards must be of one kind", path, sift.ErrKind, h.Kind, args[0], kind)
		}
	}
	start := time.Now()
	k := kindByFormat(kind)
	if k == nil || k.merge == nil {
		return exitError, fmt.Errorf("%s: %v filters cannot be merged: build the shards with -n (or -blocks and -k) to get blocked filters of one geometry", args[0], kind)
	}
	m, err := k.merge(args)
	if err != nil {
		return exitError, err
	}
	defer m.close()
	elapsed := time.Since(start)
	write := withGeneration(m.writeTo, gen.n)
	size, err := writeAtomic(*out, write)
	if err != nil {
		return exitError, err
	}
	if !*quiet {
		st := m.stats()
		fmt.Fprintf(e.stderr, "sift merge: wrote %s: %s, %d shard%s merged in %s, %s, %s, predicted FPR %.3g\n",
			*out, st.kind, len(args), plural(len(args)), durationString(elapsed), sizeString(size), st.geometry, st.fpp)
	}
	return exitOK, nil
}

// merged is the result of a merge, ready to write.
type merged struct {
	writeTo func(io.Writer) (int64, error)
	stats   func() filterStats
	close   func() error
}

// mergeable is a filter type that merges with its own kind.
type mergeable[T any] interface {
	Union(T) error
	WriteTo(io.Writer) (int64, error)
	Close() error
}

// mergeFiles reads the first shard and merges each other into it with the
// type's Union, one shard in memory besides the result at a time.
func mergeFiles[T mergeable[T], O any](paths []string, read func(io.Reader, ...O) (T, error), stats func(T) filterStats) (merged, error) {
	load := func(path string) (T, error) {
		var f T
		err := readFilterFile(path, func(r io.Reader) (err error) {
			f, err = read(r)
			return err
		})
		if err != nil {
			return f, filterErr(path, err)
		}
		return f, nil
	}
	acc, err := load(paths[0])
	if err != nil {
		return merged{}, err
	}
	for _, path := range paths[1:] {
		g, err := load(path)
		if err != nil {
			acc.Close()
			return merged{}, err
		}
		err = acc.Union(g)
		g.Close()
		if err != nil {
			acc.Close()
			hint := ""
			switch {
			case errors.Is(err, blocked.ErrIncompatible), errors.Is(err, cuckoo.ErrIncompatible), errors.Is(err, classic.ErrIncompatible):
				hint = ": build every shard with the same geometry (-blocks and -k, -buckets and -bits, or -n and -fpp) and -seed"
			case errors.Is(err, cuckoo.ErrNoSlot):
				hint = ": a fingerprint found no free slot around its buckets, which copies of one key can fill: a key in several shards is held once for each, as are repeated keys of a shard built with -copies; give each key to one shard, or build with more -buckets"
			case errors.Is(err, cuckoo.ErrFull):
				hint = ": the shards hold more fingerprints than one filter of their size can: build them with more -buckets"
			}
			return merged{}, fmt.Errorf("merging %s into %s: %w%s", path, paths[0], err, hint)
		}
	}
	return merged{
		writeTo: acc.WriteTo,
		stats:   func() filterStats { return stats(acc) },
		close:   acc.Close,
	}, nil
}

// classicUnion gives classic.Filter (whose merge keeps Guava's name,
// PutAll) the Union the other kinds have.
type classicUnion struct{ *classic.Filter }

func (c classicUnion) Union(o classicUnion) error { return c.PutAll(o.Filter) }

// The kinds' merges, registered in their kindInfo (kind_*.go): each reads
// every shard as its mutable filter and unions them.

func mergeBlocked(paths []string) (merged, error) {
	return mergeFiles(paths, blocked.ReadFilter, func(f *blocked.Filter) filterStats { return blockedStats(f) })
}

func mergeSBBF(paths []string) (merged, error) {
	return mergeFiles(paths, func(r io.Reader, _ ...sbbf.Option) (*sbbf.Filter, error) {
		f := new(sbbf.Filter)
		_, err := f.ReadFrom(r)
		return f, err
	}, func(f *sbbf.Filter) filterStats { return sbbfStats(f) })
}

func mergeCuckoo(paths []string) (merged, error) {
	return mergeFiles(paths, cuckoo.ReadFilter, func(f *cuckoo.Filter) filterStats { return cuckooStats(f) })
}

func mergeCounting(paths []string) (merged, error) {
	return mergeFiles(paths, classic.ReadCounting, func(c *classic.Counting) filterStats { return countingReader{c}.stats() })
}

func mergeClassic(paths []string) (merged, error) {
	return mergeFiles(paths, func(r io.Reader, opts ...classic.Option) (classicUnion, error) {
		f, err := classic.ReadFilter(r, opts...)
		return classicUnion{f}, err
	}, func(f classicUnion) filterStats { return classicStats(f.Filter) })
}
