package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/internal/mem"
	"github.com/sift-go/sift/sbbf"
)

var buildCmd = &command{
	name:    "build",
	summary: "build a filter from newline-delimited keys",
	usage: `usage: sift build [-kind blocked|cuckoo|classic|sbbf] [-guava]
                  [-n N | -blocks B [-k K] | -buckets N] [-fpp P] [-seed S]
                  [-bits 8|16] [-copies] [-generation G] [-j N] [-f N [-d C]]
                  [-progress | -q] -o FILE [INPUT...]

Reads keys, one per line, from the INPUT files in order (standard input when
none is given, or for "-") and writes a filter holding all of them to FILE.

A key is a line without its "\n" or "\r\n" terminator; lines are streamed,
never loaded whole, and may be up to 64 MiB long (terminator aside). Empty
keys (empty lines, or lines without the -f field) are skipped. Duplicate
keys are harmless. A cuckoo filter stores a key only when it does not
report it present already: a duplicate, or a distinct key that is a false
positive (its fingerprint in its buckets), is not stored again, and the
summary counts them. Such a file serves lookups; to remove keys from it
later (cuckoo's Remove), build it with -copies, since removing a key this
build did not store removes the one whose fingerprint it matched. If an
INPUT cannot be read, build fails before reading
anything, naming every such INPUT: it never writes a filter without them.

  -kind K     blocked (default): cache-line blocked Bloom filter, fastest;
              cuckoo: 4-way bucket cuckoo filter, smaller below ~0.07% FPR;
              classic: Bloom filter bit-compatible with Guava's BloomFilter
              (murmur3, Guava's sizing; slower, for interoperability);
              sbbf: Parquet's split-block Bloom filter, each line hashed as
              a BYTE_ARRAY value (XXH64), bit for bit what Parquet writers
              put in a string column's filter at that size
  -guava      write the classic filter in Guava's own stream format, which
              Java's BloomFilter.readFrom reads (with a byte-array or UTF-8
              string funnel); implies -kind classic. That format has no
              checksum: sift query and info read it with -guava
  -n N        the number of keys the filter is sized for (1000000, 1e6, 1M).
              Optional when every INPUT is a regular file: sift counts their
              non-empty lines in a first pass. Without -n on standard input
              or a pipe (which cannot be read twice), -kind blocked makes a
              scalable filter: a chain of blocked filters that grows as keys
              arrive and keeps the FPR under P, but is larger (2-4x; at
              least its first stage, sized for 262144 keys: 470 KiB at
              1%) and slower to query than one sized in advance (info shows its
              kind as "scalable"); the other kinds require -n there. More
              keys than N can be added to a blocked or classic filter (with
              a warning: the FPR then exceeds P); a cuckoo filter fails
              when full.
  -fpp P      target false-positive probability (default 0.01; 1e-3 and 0.1%
              are accepted)
  -seed S     hash seed: decimal, 0x-hex, or "random" (default 0). Use a
              random seed when the keys or queries come from untrusted
              parties. Not with -kind classic, which hashes as Guava does,
              nor -kind sbbf, which hashes as Parquet does
  -bits F     cuckoo fingerprint bits, 8 or 16 (default: the smallest that
              meets -fpp: 8 for -fpp >= 0.03, else 16)
  -copies     cuckoo: store every line's key, a repeated key as copies
              (one Remove each), so that keys can be removed from the
              filter later; a key on more than 8 lines (4 when its two
              buckets are one) fails the build, and repeated lines take
              room: size -n for the lines, not the distinct keys
  -blocks B   the filter's size, given instead of -n and -fpp, so that
              shards built apart agree and merge (sift merge): B 64-byte
              blocks (-kind blocked, which needs -k too) or 32-byte blocks
              (-kind sbbf). sift info shows an existing filter's geometry
  -k K        probes per key, 1..16, with -blocks (-kind blocked)
  -buckets N  -kind cuckoo: N buckets of four slots (about 3.8 N keys at
              full load), instead of the size -n gives
  -generation G
              record generation G, a positive integer or "now" (the Unix
              time), in the header (format version 2), for servers to
              report which build they serve (sift info, reload.Version)
  -j N        goroutines that hash and add keys (default: every core;
              at most 4 per core: more would only add copies of the
              filter). The result does not depend on N, bit for bit. A cuckoo
              filter is filled by one goroutine whatever N is: shared
              between goroutines its inserts measured slower than alone
  -f N        the key is field N (from 1) of each line, as in sift query;
              lines with fewer fields are skipped
  -d C        field delimiter for -f (default: runs of spaces and tabs)
  -o FILE     output file (required). It is written to a temporary file in
              the same directory and renamed into place when complete, so
              readers never see a partial filter
  -progress   show progress on stderr even when it is not a terminal (then
              a line every 5 s and one at the end of each phase)
  -q          quiet: no progress and no summary line

On success sift prints one summary line on stderr (kind, keys, size, bits
per key, predicted FPR) and nothing on stdout.
`,
	run: runBuild,
}

func runBuild(e *env) (int, error) {
	fs := newFlagSet("build")
	kind := &choiceValue{val: "blocked", choices: buildKindNames()}
	var n countValue
	fpp := &fppValue{p: 0.01}
	var seed seedValue
	bits := &choiceValue{choices: []string{"8", "16"}}
	var blocks, kv, buckets uintValue
	var gen generationValue
	fs.Var(&blocks, "blocks", "")
	fs.Var(&kv, "k", "")
	fs.Var(&buckets, "buckets", "")
	fs.Var(&gen, "generation", "")
	fs.Var(kind, "kind", "")
	fs.Var(&n, "n", "")
	fs.Var(fpp, "fpp", "")
	fs.Var(&seed, "seed", "")
	fs.Var(bits, "bits", "")
	out := fs.String("o", "", "")
	showProgress := fs.Bool("progress", false, "")
	quiet := fs.Bool("q", false, "")
	guava := fs.Bool("guava", false, "")
	copies := fs.Bool("copies", false, "")
	jobs := fs.Int("j", runtime.NumCPU(), "")
	field, delim := addFieldFlags(fs)
	args, err := parseFlags(fs, e.args)
	if err != nil {
		return exitError, err
	}
	sel, err := fieldFlags(*field, *delim)
	if err != nil {
		return exitError, err
	}
	if *out == "" {
		return exitError, errors.New("-o FILE is required (run 'sift build -h' for usage)")
	}
	if *jobs < 1 {
		return exitError, fmt.Errorf("-j %d: the number of goroutines must be at least 1", *jobs)
	}
	// More goroutines than maxJobs only add shards, each a copy of the
	// filter to fill and merge: -j 100000 took 90 s and 12 GB for a build
	// of 100000 keys that takes 6 ms.
	*jobs = min(*jobs, maxJobs())
	if bits.set && kind.val != "cuckoo" {
		return exitError, errors.New("-bits applies to -kind cuckoo only")
	}
	if *copies && kind.val != "cuckoo" {
		return exitError, errors.New("-copies applies to -kind cuckoo only (Bloom filters store no copies and cannot remove keys)")
	}
	if *guava {
		if kind.set && kind.val != "classic" {
			return exitError, errors.New("-guava writes a classic filter: it cannot be combined with -kind " + kind.val)
		}
		if gen.set {
			return exitError, errors.New("-generation is recorded in sift's header: Guava's format (-guava) has none")
		}
		kind.val = "classic"
	}
	if n.set && n.n == 0 {
		return exitError, errors.New("-n 0: a filter is sized for at least one key (omit -n to have sift count the input's keys)")
	}
	if err := checkGeometry(kind.val, blocks, kv, buckets, fpp.set, n.set); err != nil {
		return exitError, err
	}
	ins, err := openInputs(args)
	if err == nil {
		err = checkInputs(ins)
	}
	if err != nil {
		return exitError, err
	}
	if err := checkOutput(*out); err != nil {
		return exitError, err
	}
	if outSt, err := os.Stat(*out); err == nil {
		switch name := inputIs(ins, e.stdin, outSt); name {
		case "":
		case "standard input":
			return exitError, fmt.Errorf("-o %s is also standard input: it would be replaced by the filter", *out)
		default:
			return exitError, fmt.Errorf("-o %s is also an input: it would be replaced by the filter", *out)
		}
	}
	mode := progressAuto
	switch {
	case *quiet:
		mode = progressOff
	case *showProgress:
		mode = progressOn
	}
	p := newProgress(e.stderr, mode, "", -1)
	defer p.finish()
	start := time.Now()
	var counting time.Duration // the line-counting pass, when there is one

	spec := buildSpec{kind: kind.val, n: n.n, fpp: fpp.p, fppSet: fpp.set, seed: seed.seed, guava: *guava, copies: *copies,
		blocks: blocks.n, k: int(min(kv.n, 1<<16)), buckets: buckets.n}
	if bits.set {
		spec.fingerprintBits = 8
		if bits.val == "16" {
			spec.fingerprintBits = 16
		}
	}
	switch {
	case !n.set && spec.explicit():
		// The geometry is given: no need to count the keys.
	case !n.set && totalSize(ins) < 0 && spec.kind == "blocked":
		spec.unbounded = true
	case !n.set && totalSize(ins) < 0:
		return exitError, fmt.Errorf("-n is required for -kind %s when reading standard input or a pipe (sift cannot read it twice to count the keys): give an upper bound on the number of keys", spec.kind)
	case !n.set:
		p.phase("counting lines", totalSize(ins))
		for _, in := range ins {
			c, err := countLines(in.name, p)
			if err != nil {
				return exitError, err
			}
			spec.n += c
		}
		counting = time.Since(start)
	}
	what := fmt.Sprintf("a %s filter for -n %d at -fpp %g", spec.kind, spec.n, spec.fpp)
	switch {
	case spec.blocks != 0:
		what = fmt.Sprintf("a %s filter of -blocks %d", spec.kind, spec.blocks)
	case spec.buckets != 0:
		what = fmt.Sprintf("a cuckoo filter of -buckets %d", spec.buckets)
	}
	if err := checkMemory(buildMemory(spec), what); err != nil {
		return exitError, err
	}
	b, err := newBuilder(spec)
	if err != nil {
		return exitError, err
	}

	p.phase("adding keys", totalSize(ins))
	sink, err := buildSink(b, *jobs)
	if err != nil {
		return exitError, err
	}
	var seen, reported int64 // keys read, and reported to the progress meter
	report := func(lr *lineReader, lastBytes *int64) {
		p.addKeys(seen - reported)
		p.addBytes(lr.bytes - *lastBytes)
		reported, *lastBytes = seen, lr.bytes
	}
	err = eachInput(ins, e.stdin, nil, func(lr *lineReader) error {
		var lastBytes int64
		for {
			_, key, ok := lr.next()
			if !ok {
				break
			}
			key = sel.key(key)
			if len(key) == 0 {
				continue
			}
			seen++
			if err := sink.key(key); err != nil {
				return err
			}
			if seen-reported == batchSize {
				report(lr, &lastBytes)
			}
		}
		report(lr, &lastBytes)
		return lr.err
	})
	if ferr := sink.finish(); err == nil {
		err = ferr
	}
	keys := b.added()
	if err != nil {
		if errors.Is(err, errFull) && spec.explicit() {
			return exitError, fmt.Errorf("the cuckoo filter is full after %d keys (-buckets %d holds about %d): rebuild every shard with more -buckets", keys, spec.buckets, spec.buckets*19/5)
		}
		if errors.Is(err, errFull) {
			// The keys it holds (its count: repeated lines were skipped
			// as already present).
			held := b.stats().count
			return exitError, fmt.Errorf("the cuckoo filter is full after %d keys (sized for -n %d): rebuild with a larger -n, at least the input's distinct keys (more than %d; sort -u | wc -l counts them), or use -kind blocked", keys, spec.n, held)
		}
		return exitError, err
	}
	elapsed := time.Since(start)

	p.phase("writing "+*out, -1)
	write := withGeneration(b.writeTo, gen.n)
	size, err := writeAtomic(*out, write)
	p.finish()
	if err != nil {
		return exitError, err
	}
	st := b.stats()
	if keys > spec.n && st.fpp > spec.fpp && (n.set || !spec.explicit()) {
		fmt.Fprintf(e.stderr, "sift build: warning: %d keys is more than -n %d: the predicted false-positive rate is %.3g, above -fpp %g\n", keys, spec.n, st.fpp, spec.fpp)
	}
	if *quiet {
		return exitOK, nil
	}
	perKey := "-"
	if keys > 0 {
		perKey = fmt.Sprintf("%.2f", float64(st.payloadBytes)*8/float64(keys))
	}
	distinct := ""
	switch {
	case keys > 0 && st.countExact && st.count < keys:
		// Cuckoo: a key the filter already reported present (a duplicate
		// line, or a false positive) was not stored again, however few.
		distinct = fmt.Sprintf(" (%d stored: %d duplicates or false positives not stored again)", st.count, keys-st.count)
	case keys > 0 && float64(st.count) < 0.98*float64(keys):
		// Duplicate lines (the filter's count absorbs them).
		distinct = fmt.Sprintf(" (about %d distinct)", st.count)
	}
	if distinct != "" { // bits per key stored, not per line read
		perKey = fmt.Sprintf("%.2f", float64(st.payloadBytes)*8/float64(max(st.count, 1)))
	}
	// The time and rate cover reading the keys, including the counting
	// pass when there was one, but not writing the file.
	rate := countString(int64(float64(keys)/max(elapsed.Seconds(), 1e-9))) + " keys/s"
	if counting > 0 {
		rate += "; counting lines took " + durationString(counting)
	}
	fmt.Fprintf(e.stderr, "sift build: wrote %s: %s, %d key%s%s in %s (%s), %s, %s bits/key, %s, predicted FPR %.3g\n",
		*out, st.kind, keys, plural(int(min(keys, 2))), distinct, durationString(elapsed), rate,
		sizeString(size), perKey, st.geometry, st.fpp)
	return exitOK, nil
}

// checkGeometry checks the explicit-geometry flags against the kind.
func checkGeometry(kind string, blocks, k, buckets uintValue, fppSet, nSet bool) error {
	switch {
	case blocks.set && kind != "blocked" && kind != "sbbf":
		return errors.New("-blocks applies to -kind blocked and sbbf only (cuckoo: -buckets)")
	case k.set && (kind != "blocked" || !blocks.set):
		return errors.New("-k applies to -kind blocked with -blocks only")
	case blocks.set && kind == "blocked" && !k.set:
		return errors.New("-blocks needs -k for -kind blocked (sift info shows both of an existing filter)")
	case buckets.set && kind != "cuckoo":
		return errors.New("-buckets applies to -kind cuckoo only")
	case blocks.set && fppSet:
		return errors.New("-fpp sizes the filter, -blocks gives its size: use one or the other")
	case blocks.set && kind == "blocked" && blocks.n > blocked.MaxBlocks:
		return fmt.Errorf("-blocks %d: a blocked filter has at most %d blocks", blocks.n, uint64(blocked.MaxBlocks))
	case blocks.set && kind == "sbbf" && blocks.n > sbbf.MaxBlocks:
		return fmt.Errorf("-blocks %d: a split-block filter has at most %d blocks", blocks.n, uint64(sbbf.MaxBlocks))
	case buckets.set && buckets.n > cuckoo.MaxBuckets:
		return fmt.Errorf("-buckets %d: a cuckoo filter has at most %d buckets", buckets.n, uint64(cuckoo.MaxBuckets))
	case blocks.set && nSet:
		return errors.New("-n sizes the filter, -blocks gives its size: use one or the other")
	case buckets.set && nSet:
		return errors.New("-n sizes the filter, -buckets gives its size: use one or the other")
	}
	return nil
}

// batchSize is how many keys build and query hash and hand to the filter's
// batch calls at a time.
const batchSize = 1024

// checkOutput refuses, before any input is read, an -o FILE that the
// write at the end would fail on: "-" (a filter goes to a file, not to
// standard output), a directory or special file, a directory that does
// not exist, one where no file can be created (mem.CheckWritable).
func checkOutput(path string) error {
	if path == "-" {
		return errors.New("-o -: sift writes a filter to a file (written atomically), not to standard output: give a file name")
	}
	return mem.CheckWritable(path)
}

// writeAtomic writes a file through write into a temporary file beside
// path, syncs it, renames it over path and syncs the directory
// (mem.WriteAtomic), so a reader sees either the old file or the complete
// new one, also after a crash or a SIGKILL. The temporary file is named
// for this process (".NAME.sift-tmp-PID-RANDOM"): it is removed on any
// error and on SIGINT/SIGTERM/SIGHUP, and the next run removes those of runs that
// were killed. Errors name the step and the cause ("no space left on
// device"), with path untouched.
func writeAtomic(path string, write func(io.Writer) (int64, error)) (int64, error) {
	return mem.WriteAtomic(path, write, mem.AtomicOptions{
		OnTemp:  func(name string) func() { return atInterrupt(func() { os.Remove(name) }) },
		Publish: publish,
	})
}

// buildSink is newSink, a variable for a test that sees build's -j.
var buildSink = newSink

// maxJobs is the most goroutines build's -j gets: 4 per core. Past the
// cores a goroutine adds only its shard; a few per core keep a -j 3 or 5
// (the tests' bit-for-bit checks) sharded on a 1- or 2-core machine.
func maxJobs() int { return 4 * runtime.NumCPU() }
