package main

import (
	"bufio"
	"errors"
	"fmt"
)

var queryCmd = &command{
	name:    "query",
	summary: "print the input lines a filter may contain, like grep",
	usage: `usage: sift query [-v] [-c] [-q] [-f N [-d C]] [-kind K | -guava] [-as-of T] [-progress] FILE [INPUT...]

Prints the lines of the INPUT files (standard input when none is given, or
for "-") whose key the filter in FILE may contain, in input order and exactly
as read. Every line whose key was added to the filter is printed; a line
whose key was not is printed only as a false positive (with the filter's
FPR). So sift query is a fast pre-filter in a pipeline: what it drops is
surely absent, what it keeps needs an exact check only if false positives
matter.

A key is a line without its "\n" or "\r\n" terminator, or with -f one field
of it (the whole line is still what is printed). Empty keys are never
selected (and always selected with -v).

  -v        invert: print the lines the filter surely does not contain
  -c        print only the number of selected lines
  -q        quiet: print nothing, stop at the first selected line; the exit
            status tells
  -f N      the key is field N (from 1) of each line: fields are separated
            by runs of spaces and tabs (as awk splits them), or with -d by
            each occurrence of one byte C (as cut -d; \t for a tab). Lines
            with fewer fields have an empty key
  -d C      field delimiter for -f
  -kind K   fail unless FILE holds a filter of kind K (blocked, cuckoo,
            scalable, classic, counting, sbbf, window)
  -guava    FILE is a Guava BloomFilter in Guava's stream format (as Java's
            BloomFilter.writeTo or sift build -guava write it), whose keys
            were put with a byte-array or UTF-8 string funnel
  -as-of T  for a window FILE (sift dedup -window -state): answer as of
            time T instead of now. T is "now" (the default), "latest"
            (the window's own time: the slice of its latest add, which
            sift info shows), or an RFC 3339 time (one before the
            latest slice answers as of that slice: a window's clock
            never goes back). A window built with -time-field from past
            data needs "latest" or its time: by now its keys may all
            have left the window. A window that advances by count
            (made with the Go API) takes no time
  -progress show progress on stderr even when it is not a terminal

FILE is read into memory of sift's own (one sequential read, its checksum
verified), never mapped, so a file replaced or truncated while query runs
ends it with an error, never a fault. A window file is answered as of now
by this machine's clock unless -as-of says otherwise. Lines are looked up
in batches of 1024 with the filter's batch kernel; output is buffered but
flushed whenever the input would block, so sift query works on live
streams (tail -f).

An INPUT that cannot be read, or whose reading fails part way (a read
error, a line over 64 MiB: the lines before it are handled), is reported
on stderr and skipped, and the others are read, as grep does; the exit
status is then 2 (unless -q
selected a line). FILE must be a regular file: a FIFO or a device is
refused at once.

Exit status, as grep's: 0 when a line was selected, 1 when none was, 2 on
an error.
`,
	run: runQuery,
}

func runQuery(e *env) (int, error) {
	fs := newFlagSet("query")
	invert := fs.Bool("v", false, "")
	countOnly := fs.Bool("c", false, "")
	quiet := fs.Bool("q", false, "")
	kind := &choiceValue{choices: kindNamesAll()}
	fs.Var(kind, "kind", "")
	showProgress := fs.Bool("progress", false, "")
	guava := fs.Bool("guava", false, "")
	asOf := fs.String("as-of", "", "")
	field, delim := addFieldFlags(fs)
	args, err := parseFlags(fs, e.args)
	if err != nil {
		return exitError, err
	}
	sel, err := fieldFlags(*field, *delim)
	if err != nil {
		return exitError, err
	}
	if *asOf == "now" {
		*asOf = "" // the default: any kind of FILE
	}
	if len(args) == 0 {
		return exitError, errors.New("missing filter FILE (usage: sift query [-v] FILE [INPUT...])")
	}
	ins, err := openInputs(args[1:])
	if err == nil {
		err = outputIsInput(e.stdout, e.stdin, ins, *quiet || *countOnly)
	}
	if err != nil {
		return exitError, err
	}
	var f queryFilter
	if *guava {
		if kind.set && kind.val != "classic" {
			return exitError, errors.New("-guava reads a classic filter: it cannot be combined with -kind " + kind.val)
		}
		if *asOf != "" {
			return exitError, errors.New("-guava reads a classic filter: -as-of is for window files")
		}
		g, err := openGuava(args[0])
		if err != nil {
			return exitError, err
		}
		f = classicReader{g}
	} else if *asOf != "" {
		if f, err = openWindowAsOf(args[0], kind.val, *asOf); err != nil {
			return exitError, err
		}
	} else if f, _, err = openFilter(args[0], kind.val); err != nil {
		return exitError, err
	}
	defer f.close()

	mode := filterProgress(*showProgress, e.stdout)
	p := newProgress(e.stderr, mode, "querying", totalSize(ins))
	defer p.finish()

	out := bufio.NewWriterSize(e.stdout, 256<<10)
	q := &querier{f: f, sel: sel, invert: *invert, countOnly: *countOnly, quiet: *quiet, out: out, p: p}
	// An input that cannot be opened is reported, in its turn, and the
	// others are read (grep's behaviour); the status is 2 at the end.
	skipped := 0
	skip := func(err error) {
		skipped++
		out.Flush() // the lines selected so far come before the message
		p.message(e.stderr, "sift query: %s\n", oneLine(err))
	}
	err = eachInput(ins, e.stdin, skip, q.run)
	if errors.Is(err, errStop) {
		err = nil
	}
	if err == nil && *countOnly && !*quiet {
		fmt.Fprintln(out, q.selected)
	}
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("writing output: %w", ferr)
	}
	switch {
	case err != nil:
		return exitError, err
	case *quiet && q.selected > 0:
		return exitOK, nil // grep -q: a selected line wins over errors
	case skipped > 0:
		// Already reported, each in its turn: exit 2 without another line.
		return exitError, errReported
	case q.selected == 0:
		return exitNoMatch, nil
	}
	return exitOK, nil
}

// maxBatchText bounds the bytes of lines a query batch holds, so that long
// lines do not multiply memory by the batch size.
const maxBatchText = 4 << 20

// errStop ends a query early (-q after the first selected line).
var errStop = errors.New("stop")

// querier runs lines through a filter in batches, keeping their order.
type querier struct {
	f         queryFilter
	sel       fieldSelector
	invert    bool
	countOnly bool
	quiet     bool
	out       *bufio.Writer
	p         *progress
	selected  int64
	b         lineBatch
}

func (q *querier) run(lr *lineReader) error {
	return readBatches(lr, &q.b, q.sel, q.hash, q.p, q.flush)
}

// hash hashes a key; an empty key (no such field) is never looked up.
func (q *querier) hash(key []byte) uint64 {
	if len(key) == 0 {
		return 0
	}
	return q.f.hash(key)
}

// flush looks up the batch, writes the selected lines, and with sync flushes
// the output too.
func (q *querier) flush(sync bool) error {
	if n := len(q.b.hs); n > 0 {
		found := q.b.answers()
		q.f.containsHashes(q.b.hs, found)
		out := q.out
		if q.countOnly {
			out = nil
		}
		selected, err := q.b.write(out, func(i int) (bool, error) {
			if (found[i] && !q.b.empty[i]) != q.invert {
				if q.quiet {
					return false, errStop
				}
				return true, nil
			}
			return false, nil
		})
		q.selected += selected
		if err != nil {
			q.selected++ // the line that stopped a quiet query was selected
			return err
		}
		q.p.addKeys(int64(n))
		q.b.reset()
	}
	if sync && !q.countOnly {
		if err := q.out.Flush(); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
	}
	return nil
}
