package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/internal/mem"
)

var dedupCmd = &command{
	name:    "dedup",
	summary: "print each input line the first time its key is seen, like awk '!seen[$0]++'",
	usage:   dedupUsage,
	run:     runDedup,
}

// dedupUsage is dedup's help text (runDedup adds the expected false drops
// for the -n and -fpp given with -h).
const dedupUsage = `usage: sift dedup [-n N] [-fpp P] [-f N [-d C]] [-state FILE] [-progress] [INPUT...]
       sift dedup -window D [-generations G] [-time-field N
                  [-time-format F]] [-n N] [-fpp P] [-f N [-d C]]
                  [-state FILE] [-progress] [INPUT...]

Prints each line of the INPUT files (standard input when none is given, or
for "-") the first time its key is seen, in input order and exactly as read:
the bounded-memory cousin of awk '!seen[$0]++'. The keys seen are held in a
blocked Bloom filter sized for N distinct keys, not in a table of the keys,
so memory stays at about 1.3 bytes a key at the default -fpp 0.01 (see
'sift build -h' for the sizes) however long the lines are (beside a read
buffer of a few times the longest line, which may be up to 64 MiB).

A false positive drops a new line: a line whose key was never seen is taken
for a repeat with the filter's current false-positive rate, which grows from
0 to P as the filter fills. Over N distinct keys, about N times the average
rate are dropped: at -fpp 0.01, 0.16% of the distinct keys (about 1600 of
1e6); at 0.001, 0.015%; at 1e-4, 0.001%. 'sift dedup -n N -fpp P -h' prints
the expected number for your sizes (or the error a run would stop with). A
repeated key is never printed twice (no false negatives), and beyond N
distinct keys the rate keeps growing: once the filter holds more keys than
it is sized for and its predicted rate is above P, a warning goes to stderr
(once a run; without -window).

A key is a line without its "\n" or "\r\n" terminator, or with -f one field
of it, selected exactly as sift query selects it (the whole line is still
what is printed; a last line without a terminator is printed with one). An
empty key is a key like any other: the first line with it is printed.

  -n N        the expected number of distinct keys (1000000, 1e6, 1M);
              required unless -state names an existing file
  -fpp P      the false-positive rate after N distinct keys (default 0.01)
  -f N        the key is field N (from 1) of each line: fields are separated
              by runs of spaces and tabs (as awk splits them), or with -d by
              each occurrence of one byte C (as cut -d; \t for a tab). Lines
              with fewer fields have an empty key
  -d C        field delimiter for -f
  -state FILE keep the keys seen in FILE between runs: when FILE exists its
              blocked filter is loaded first (lines whose keys an earlier run
              saw are not printed), and at the end the filter is written
              back atomically (a reader, or a crash, sees the old file or
              the new one). FILE fixes the size: -n and -fpp may be left out,
              and when given must ask for FILE's size. The file is
              not written after an error writing lines (an INPUT
              skipped as unreadable, wholly or part way, is not one: the
              lines read were all printed, and their keys are kept), nor
              by a run ended by SIGINT, SIGTERM or SIGHUP (exit status
              128+signal), nor by one whose output's reader went away
              (sift dedup -state FILE big | head -1 exits 141, quietly:
              the lines not printed were never delivered, so FILE stays
              as it was), whose lines the next run prints again: to stop
              de-duplicating a live stream and keep its keys, end its
              input (timeout 8h tail -f log | sift dedup -state FILE
              saves at the end). The new FILE keeps
              the old one's hash seed and generation (sift merge
              -generation; sift info shows both) and its permission bits,
              and is owned by the user running sift dedup. When FILE is
              a symbolic link, the file it leads to is read and replaced,
              and the link stays as it is. A FILE with bytes after its
              filter is refused, as sift info and sift query refuse it.
              One run at a time: a run started while another holds FILE
              (a lock on it, taken where the system has flock) exits with
              status 2 before reading anything (a new FILE is created
              empty and locked when the run starts, and removed again if
              the run saves nothing; an empty FILE is a new state), and a
              run that cannot lock FILE (a file system without locks or
              hard links) says so and goes on
  -progress   show progress on stderr even when it is not a terminal

With -window D, keys are forgotten after a while: a line is printed when
its key was not seen in the last D, so a key seen again after D is printed
again (replay and retry suppression, "new in the last hour"). A key is
remembered at least D and at most D + D/(G-1) after it was last seen, a
dropped repeat being a sighting too; between the two bounds a repeat may be
printed or not. The keys are held in a ring of G blocked generations
(blocked.Window) that take turns over slices of D/(G-1): -n is the number
of distinct keys per window D, each generation is sized for N/(G-1) of
them, and -fpp is the false-positive rate over the whole window once it is
full. So of a steady N new keys a window, about 0.77% are dropped at
0.01 with G = 4 (0.075% at 0.001): 'sift dedup -n N -fpp P -window D -h'
prints the number, the memory and the bounds for your sizes. Each
generation holds the keys of one slice: more than N/(G-1) keys in one
slice raise the rate of the whole window. A file read by arrival time is
one burst, all in one slice: give it -n of (G-1) times its distinct keys,
or de-duplicate it by a -time-field.

  -window D       de-duplicate over a sliding window of D (90s, 15m, 24h,
                  7d, 1d12h; rounded up to a multiple of G-1 nanoseconds)
  -generations G  the window's generations, 2, 4, 8, 16, 32 or 64
                  (default 4): more forget sooner after D (by D/(G-1));
                  G = 4 and 8 take the least memory; a line's lookup
                  reads one cache line up to G = 4, G/4 above
  -time-field N   a line's time is its field N, split as -f splits (with
                  -d when given), not its arrival. Without it, the time is
                  the arrival: the clock is read once per batch of lines,
                  which were read together without waiting for input
  -time-format F  how the time field is written: rfc3339
                  (2026-11-25T10:00:00Z, 2026-11-25T11:00:00.25+01:00;
                  t and z may be lowercase, and a leap second, 23:59:60,
                  is read as the last instant of 23:59:59), unix, unixms, unixus, unixns (Unix seconds, milli-,
                  micro-, nanoseconds, integers or decimals: 1764064800.25),
                  or auto (the default): RFC 3339 when the fifth byte is
                  "-", else a Unix time whose unit its integer part tells:
                  below 1e11 seconds, then ms, us, ns

With -time-field the window follows the data's clock: a log replayed
tomorrow is de-duplicated as it was today. Times should come in order. A
time earlier than one already seen is taken as the latest seen (the
window's clock does not go back): a late line is judged as of that latest
time, so its key is dropped only if seen within D before it, and is
remembered from it. So one line dated far ahead holds the window there:
lines dated more than D after this machine's clock are reported on stderr
at the end (a warning; the exit status is not changed). A line whose time field is missing or is not a time
(or lies outside the years 1678 to 2262) is printed as it is and its key
is not added; at the end sift dedup reports on stderr how many such lines
there were and the first one, and exits with status 2 (the other lines
are de-duplicated, and -state written, as usual). With -f, the key is the
field alone; without -f it is the whole line, time included.

-state FILE with -window keeps the window (a sift file of kind window,
which sift info and sift query read): FILE must hold a window by time of
the same D and G; -n, -fpp and -generations may be left out, as above.
Keep to one time source for a state file: its slices are in the clock of
the runs that wrote it (arrival, or the data's time).

Lines are hashed and tested-and-added in batches of 1024 with the filter's
batch add-if-new (with -window, one line at a time, in runs of lines with
one time); output is buffered but flushed whenever the input would block,
so sift dedup works on live streams (tail -f).

An INPUT that cannot be read, or whose reading fails part way (a read
error, a line over 64 MiB: the lines before it are handled), is reported
on stderr and skipped, and the others are read, as grep does; the exit
status is then 2.

Exit status, as sift query's: 0 when a line was printed, 1 when none was, 2
on an error.
`

func runDedup(e *env) (int, error) {
	fs := newFlagSet("dedup")
	var n countValue
	fpp := &fppValue{p: 0.01}
	fs.Var(&n, "n", "")
	fs.Var(fpp, "fpp", "")
	state := new(string)
	fs.Var((*stateValue)(state), "state", "")
	showProgress := fs.Bool("progress", false, "")
	field, delim := addFieldFlags(fs)
	win := addWindowFlags(fs)
	args, err := parseFlags(fs, e.args)
	if errors.Is(err, errHelp) {
		var b strings.Builder
		b.WriteString(dedupUsage)
		if n.set {
			// The figures of a run these flags would make, or the error
			// it would stop with: the flags' checks come first.
			_, wcfg, err := win.check(*field, *delim)
			switch {
			case err != nil:
				printNoSizes(&b, err)
			case wcfg != nil: // -window
				wcfg.printSizes(&b, n, *fpp)
			default:
				printFilterSizes(&b, n, *fpp)
			}
		}
		return writeHelp(e.stdout, e.stderr, b.String()), nil
	}
	if err != nil {
		return exitError, err
	}
	sel, wcfg, err := win.check(*field, *delim)
	if err != nil {
		return exitError, err
	}
	if err := checkN(n); err != nil {
		return exitError, err
	}
	ins, err := openInputs(args)
	if err == nil {
		err = outputIsInput(e.stdout, e.stdin, ins, false)
	}
	if err != nil {
		return exitError, err
	}
	statePath, err := stateTarget(*state)
	if err == nil {
		err = outputIsState(e.stdout, statePath)
	}
	if err != nil {
		return exitError, err
	}
	lockWarning := ""
	if statePath != "" {
		unlock, warning, err := lockState(statePath)
		if err != nil {
			return exitError, err
		}
		defer unlock()
		lockWarning = warning
	}
	d := &deduper{sel: sel}
	var wd *windowDedup
	var gen uint64 // the state file's generation, recorded again when it is written back
	if wcfg != nil {
		if wd, gen, err = newWindowDedup(statePath, n, *fpp, *wcfg); err != nil {
			return exitError, err
		}
		d.set, d.addNew = wd.w, wd.addNew
	} else {
		var f *blocked.Filter
		if f, gen, err = dedupFilter(statePath, n, *fpp); err != nil {
			return exitError, err
		}
		d.set = f
		d.addNew = func(b *lineBatch, isNew []bool, _ *lineReader) { f.AddNewHashes(b.hs, isNew) }
		d.over = newOverfill(f, n, *fpp)
	}
	defer d.set.Close()
	if lockWarning != "" { // once the state is read: not beside its error
		fmt.Fprintf(e.stderr, "sift dedup: %s\n", oneLine(errors.New(lockWarning)))
	}

	mode := filterProgress(*showProgress, e.stdout)
	p := newProgress(e.stderr, mode, "de-duplicating", totalSize(ins))
	defer p.finish()

	out := bufio.NewWriterSize(e.stdout, 256<<10)
	d.out, d.p = out, p
	skipped := 0
	skip := func(err error) {
		skipped++
		out.Flush() // the lines printed so far come before the message
		p.message(e.stderr, "sift dedup: %s\n", oneLine(err))
	}
	d.warn = func(msg string) {
		out.Flush()
		p.message(e.stderr, "sift dedup: %s\n", oneLine(errors.New(msg)))
	}
	if d.over != nil && statePath != "" {
		d.over.check(d.warn) // a state file may be past its size already
	}
	err = eachInput(ins, e.stdin, skip, d.run)
	if err == nil && d.over != nil {
		d.over.check(d.warn) // the keys of an earlier run's state count too
	}
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("writing output: %w", ferr)
	}
	if err != nil {
		// Keys were added for lines that may not have been printed: the
		// state file keeps what the last complete run saw.
		return exitError, err
	}
	if statePath != "" {
		if _, err := writeAtomic(statePath, withGeneration(d.set.WriteTo, gen)); err != nil {
			return exitError, fmt.Errorf("writing -state: %w", err)
		}
	}
	// Lines without a valid time were printed and their keys left out:
	// the state keeps every other line's key, as after a skipped input.
	if wd != nil && wd.badLines > 0 {
		p.message(e.stderr, "sift dedup: %s\n", oneLine(errors.New(wd.badReport())))
		skipped++
	}
	if wd != nil && wd.futureLines > 0 {
		p.message(e.stderr, "sift dedup: %s\n", oneLine(errors.New(wd.futureReport())))
	}
	switch {
	case skipped > 0:
		return exitError, errReported
	case d.printed == 0:
		return exitNoMatch, nil
	}
	return exitOK, nil
}

// printFilterSizes prints, for -h with -n, the filter's size and the
// expected false drops, or why a run would refuse these sizes.
func printFilterSizes(out io.Writer, n countValue, fpp fppValue) {
	bits, k, err := filterSize(n, fpp)
	if err != nil {
		printNoSizes(out, err)
		return
	}
	fmt.Fprintf(out, "\nFor -n %d -fpp %g: a filter of %s (k = %d); about %.0f new lines expected to be dropped as false positives.%s\n",
		n.n, fpp.p, sizeString(int64(bits/8)), k, expectedFalseDrops(bits, k, uint64(n.n)), memoryNote(bits/8))
}

// printNoSizes prints, for -h, why no figures can be given: err, the error
// a run with these flags fails with.
func printNoSizes(out io.Writer, err error) {
	fmt.Fprintf(out, "\nNo figures for these sizes, which a run refuses: %v\n", err)
}

// memoryNote returns, for -h, a sentence saying that size bytes are more
// than this machine's memory or than the memory available now (as
// mem.Alloc refuses them: a run here fails), or "" when they are not or
// the memory is unknown.
func memoryNote(size uint64) string {
	if err := mem.CheckSize(size); err != nil {
		return fmt.Sprintf(" A run here would fail: %v.", err)
	}
	return ""
}

// checkN refuses -n 0.
func checkN(n countValue) error {
	if n.set && n.n == 0 {
		return errors.New("-n 0: the expected number of distinct keys must be at least 1")
	}
	return nil
}

// filterSize returns the size and k of a new filter for -n and -fpp, or the
// error a run fails with for them.
func filterSize(n countValue, fpp fppValue) (bits uint64, k int, err error) {
	if err := checkN(n); err != nil {
		return 0, 0, err
	}
	bits, k, err = blocked.OptimalSize(uint64(n.n), fpp.p)
	if err != nil {
		return 0, 0, fmt.Errorf("-n %d -fpp %g: %w", n.n, fpp.p, err)
	}
	return bits, k, nil
}

// dedupFilter returns the filter of the keys seen and the state file's
// generation: the one in the state file when it exists, checked against -n
// and -fpp when they were given; otherwise a new one sized by them
// (generation 0).
func dedupFilter(state string, n countValue, fpp fppValue) (*blocked.Filter, uint64, error) {
	if exists, err := stateExists(state, n); err != nil {
		return nil, 0, err
	} else if exists {
		return loadState(state, n, fpp)
	}
	f, err := blocked.New(uint64(n.n), fpp.p)
	if err != nil {
		return nil, 0, fmt.Errorf("-n %d -fpp %g: %w", n.n, fpp.p, err)
	}
	return f, 0, nil
}

// errStateInUse is the cause when another sift dedup run holds the -state
// file (lockState).
var errStateInUse = errors.New("in use by another sift dedup run, which will write it back at its end: run this one after it (two runs on one state would keep only the last one's keys)")

// stateOpened runs between lockState's open of the state file and its lock
// (a test replaces the file there).
var stateOpened = func(path string) {}

// stateValue is the -state flag: a file name, neither empty (which would
// keep no state, silently) nor "-" (a state is a file sift rewrites
// atomically, not a stream).
type stateValue string

func (v *stateValue) String() string { return string(*v) }

func (v *stateValue) Set(s string) error {
	switch s {
	case "":
		return errors.New("give a file name (leave out -state to keep no state)")
	case "-":
		return errors.New("the state is a file sift rewrites atomically, not standard input or output: give a file name")
	}
	*v = stateValue(s)
	return nil
}

// stateTarget returns the file -state path names: path itself, or when
// path is a symbolic link, the file it leads to (through every link), so
// that the state is read from and written to that file and the link stays
// a link. A link to a file that does not exist yet leads to that file, which
// the run creates. "" stays "", and a path whose links cannot be followed
// (a loop) is returned as it is, for stateExists to report.
func stateTarget(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	p := path
	for range 40 { // more links than this: a loop, for stateExists to report
		st, err := os.Lstat(p)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		if target, err := filepath.EvalSymlinks(p); err == nil {
			return target, nil
		}
		// A link to a file that does not exist (yet): follow it by hand,
		// from its directory with that directory's own links resolved,
		// so that ".." in the link means what the system makes of it.
		dest, err := os.Readlink(p)
		if err != nil {
			return "", fmt.Errorf("-state: %w", pathErr(err))
		}
		if !filepath.IsAbs(dest) {
			dir, err := filepath.EvalSymlinks(filepath.Dir(p))
			if err != nil {
				return path, nil
			}
			dest = filepath.Join(dir, dest)
		}
		p = dest
	}
	return path, nil
}

// stateExists reports whether the -state file exists (an empty file is
// a new state). When it does not (or no -state was given), -n must be:
// stateExists checks that, and that the state file can be written at the
// end (mem.CheckWritable, as build's -o: its directory is there and takes
// a new file), so that sift dedup fails before printing any line.
func stateExists(state string, n countValue) (bool, error) {
	if state != "" {
		st, err := os.Stat(state)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return false, fmt.Errorf("-state: %w", pathErr(err))
		}
		if err == nil && st.Mode().IsRegular() && st.Size() == 0 {
			// A new state: the empty file lockState claimed for this
			// run, or one left by a run that was killed.
			err = os.ErrNotExist
		}
		if werr := mem.CheckWritable(state); werr != nil {
			if _, ok := werr.(*fs.PathError); ok { // NotRegular: "open PATH: ..."
				werr = pathErr(werr)
			}
			return false, fmt.Errorf("-state: %w", werr)
		}
		if err == nil {
			return true, nil
		}
	}
	if !n.set {
		if state != "" {
			return false, fmt.Errorf("-state %s does not exist yet (or is empty): give -n, the expected number of distinct keys, to size it", state)
		}
		return false, errors.New("-n is required: the expected number of distinct keys (run 'sift dedup -h' for usage)")
	}
	return false, nil
}

// outputIsState refuses a standard output that is the state file
// (sift dedup -state s >> s): the lines written there would be lost when
// the filter is written back over the file, and the run would exit 0.
func outputIsState(stdout io.Writer, statePath string) error {
	ost := outputFile(stdout)
	if ost == nil || statePath == "" {
		return nil
	}
	if sst, err := os.Stat(statePath); err == nil && os.SameFile(ost, sst) {
		return fmt.Errorf("-state %s is also the output: the lines written there would be lost when the state is written back", statePath)
	}
	return nil
}

// loadState reads the blocked filter in path, refusing any other kind, and
// one whose size differs from what -n and -fpp ask for (when given), and
// returns it with the file's generation.
func loadState(path string, n countValue, fpp fppValue) (*blocked.Filter, uint64, error) {
	f, h, err := readState(path, sift.KindBlocked, func(have sift.Kind) string {
		if have == sift.KindWindow {
			return "it holds a window filter: give -window (its window) to de-duplicate over a window"
		}
		return fmt.Sprintf("it holds a %v filter; sift dedup keeps a blocked or window filter", have)
	}, blocked.ReadFilter)
	if err != nil {
		return nil, 0, err
	}
	if n.set || fpp.set {
		want := uint64(1)
		if n.set {
			want = uint64(n.n)
		} else {
			want = capacity(f.Bits(), f.K(), fpp.p)
		}
		bits, k, err := blocked.OptimalSize(want, fpp.p)
		if err != nil {
			f.Close()
			return nil, 0, fmt.Errorf("%s: %w", sizeFlags(n, fpp), err)
		}
		if haveBits, haveK := f.Bits(), f.K(); bits != haveBits || k != haveK {
			f.Close()
			if !n.set {
				// -fpp alone: want is not the user's, so name only the rate.
				return nil, 0, fmt.Errorf("-state %s holds a filter of %d bits with k = %d, which no number of keys gives at -fpp %g (there a filter of about its size has k = %d): leave out -fpp to use the file's size, or start a new state file",
					path, haveBits, haveK, fpp.p, k)
			}
			return nil, 0, fmt.Errorf("-state %s holds a filter of %d bits with k = %d, but -n %d -fpp %g ask for %d bits with k = %d: leave out -n and -fpp to use the file's size, or start a new state file",
				path, haveBits, haveK, want, fpp.p, bits, k)
		}
	}
	return f, h.Generation, nil
}

// sizeFlags names the size flags the user gave, for an error about the
// size they ask for: "-n N -fpp P", or "-fpp P" alone (the n compared
// with the state file's then came from the file, not from the user).
func sizeFlags(n countValue, fpp fppValue) string {
	if !n.set {
		return fmt.Sprintf("-fpp %g", fpp.p)
	}
	return fmt.Sprintf("-n %d -fpp %g", n.n, fpp.p)
}

// readState decodes the state file path with read and opts, after checking
// from its header that it holds a filter of kind want (refusing another
// with ErrKind and the words other returns for it), and returns it with
// the header. A file with bytes after the filter is refused, as sift info
// and sift query refuse it (trailingErr): writing the state back would
// drop them.
func readState[T interface{ Close() error }](path string, want sift.Kind, other func(have sift.Kind) string, read func(io.Reader, ...blocked.Option) (T, error), opts ...blocked.Option) (T, sift.Info, error) {
	var zero T
	h, err := readHeader(path)
	if errors.Is(err, sift.ErrMagic) {
		// Not filterErr's hint, which is query's and info's (-guava).
		return zero, h, fmt.Errorf("-state %s: %w: -state is a filter file sift dedup wrote; name it, or a new file", path, sift.ErrMagic)
	}
	if err != nil {
		return zero, h, fmt.Errorf("-state: %w", err)
	}
	if h.Kind != want {
		return zero, h, fmt.Errorf("-state %s: %w: %s", path, sift.ErrKind, other(h.Kind))
	}
	file, err := openInput(path)
	if err != nil {
		return zero, h, fmt.Errorf("-state: %w", err)
	}
	defer file.Close()
	br := bufio.NewReaderSize(file, 1<<20)
	f, err := read(br, opts...)
	if err == nil {
		if err = checkEnd(file, br); err != nil {
			f.Close()
		}
	}
	if err != nil {
		return zero, h, fmt.Errorf("-state: %w", filterErr(path, err))
	}
	return f, h, nil
}

// capacity returns an n for which blocked.OptimalSize(n, fpp) is bits bits
// with k probes, when there is one, else the largest n whose size fits in
// bits bits (at least 1): with -fpp alone, a state file matches when it is
// the size -fpp would give for some -n. The n of one size form a run,
// about a block's bits over the bits a key takes long, and k differs along
// it (at 1e-4, 10,000 keys take 239,616 bits with k = 13, and 10,014 keys
// the same bits with k = 14), so the run is searched for the file's k; it
// was the run's last n, whose k the files of most sizes at 1e-4 did not
// have.
func capacity(bits uint64, k int, fpp float64) uint64 {
	size := func(n uint64) (uint64, int) {
		b, kk, err := blocked.OptimalSize(n, fpp)
		if err != nil {
			return math.MaxUint64, 0
		}
		return b, kk
	}
	lo, hi := uint64(1), bits // more keys than bits never fit
	for lo < hi {             // the last n that fits
		mid := lo + (hi-lo+1)/2
		if b, _ := size(mid); b <= bits {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	last := lo
	lo, hi = 1, last
	for lo < hi { // the first n of bits bits
		mid := lo + (hi-lo)/2
		if b, _ := size(mid); b >= bits {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	for n := lo; n <= last && n-lo < 1<<16; n++ {
		if b, kk := size(n); b == bits && kk == k {
			return n
		}
	}
	return last
}

// expectedFalseDrops returns the expected number of new keys a filter of
// bits bits and k probes takes for repeats while n distinct keys are added
// to it, empty at first: the sum over i < n of the false-positive rate
// after i keys (blocked.FalsePositiveRate), computed with Simpson's rule on
// 64 intervals (the rate is smooth and convex in the fill, so the error is
// far below the count's own spread).
func expectedFalseDrops(bits uint64, k int, n uint64) float64 {
	rate := func(x float64) float64 { return blocked.FalsePositiveRate(bits, k, uint64(x+0.5)) }
	return integrate(rate, float64(n))
}

// integrate returns the integral of f over [0, x] by Simpson's rule on 64
// intervals (0 for x <= 0).
func integrate(f func(float64) float64, x float64) float64 {
	const intervals = 64
	if x <= 0 {
		return 0
	}
	step := x / intervals
	sum := f(0) + f(x)
	for i := 1; i < intervals; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(float64(i)*step)
	}
	return sum * step / 3
}

// keySet is what dedup keeps the keys seen in: a blocked.Filter, or with
// -window a blocked.Window.
type keySet interface {
	Hash(key []byte) uint64
	WriteTo(w io.Writer) (int64, error)
	Close() error
}

// deduper runs lines through a key set's add-if-new in batches, keeping
// their order, and prints those whose key was new.
type deduper struct {
	set keySet
	// addNew adds the keys of b's lines (read from lr) to set and sets
	// isNew[i] for each line i that is to be printed.
	addNew  func(b *lineBatch, isNew []bool, lr *lineReader)
	sel     fieldSelector
	out     *bufio.Writer
	p       *progress
	printed int64
	b       lineBatch
	lr      *lineReader
	over    *overfill        // without -window: warns once the filter holds more keys than its size is for
	warn    func(msg string) // prints msg on stderr, after the lines printed so far
}

// overfill watches a dedup filter for more keys than it was sized for,
// where its false drops climb past -fpp: build warns in that case, and
// dedup printed nothing while it dropped most new lines.
type overfill struct {
	f      *blocked.Filter
	design uint64  // the keys the filter is sized for: -n, or the state file's
	size   string  // design in words, for the warning
	fpp    float64 // -fpp (0.01 when not given)
	target string  // fpp in words, for the warning
	// next is the printed-line count at which to look again; after the
	// warning, math.MaxInt64 (never again).
	next int64
}

func newOverfill(f *blocked.Filter, n countValue, fpp fppValue) *overfill {
	o := &overfill{f: f, design: uint64(n.n), size: fmt.Sprintf("-n %d", n.n), fpp: fpp.p, target: fmt.Sprintf("-fpp %g", fpp.p)}
	if !n.set { // the state file's size
		o.design = capacity(f.Bits(), f.K(), fpp.p)
		o.size = fmt.Sprintf("about %d keys, by the -state file's size", o.design)
	}
	if !fpp.set {
		// A state file records no rate: the one it was made for may be
		// lower than the default.
		o.target = fmt.Sprintf("-fpp's default %g", fpp.p)
	}
	o.next = int64(o.design / 2)
	return o
}

// check estimates the keys the filter holds (a pass over it) and warns
// once when they are more than it is sized for and the predicted false
// drops are above -fpp, as build warns; a caller checks again at 5/4 the
// printed lines, so the passes cost O(filter size x log lines).
func (o *overfill) check(warn func(string)) {
	if o.next == math.MaxInt64 {
		return // warned
	}
	o.next = max(o.next+o.next/4, o.next+1)
	switch est := o.f.EstimatedCount(); {
	case est == math.MaxUint64:
		warn(fmt.Sprintf("warning: every bit of the filter is set (it is sized for %s): every new line is now dropped; give a larger -n, or a new -state file", o.size))
	case est > o.design && o.f.FPP() > o.fpp:
		warn(fmt.Sprintf("warning: about %d distinct keys seen, more than the filter is sized for (%s): new lines are now dropped as false positives at a predicted rate of %.3g, above %s; give a larger -n, or a new -state file", est, o.size, o.f.FPP(), o.target))
	default:
		return
	}
	o.next = math.MaxInt64
}

func (d *deduper) run(lr *lineReader) error {
	d.lr = lr
	// The empty key counts as a key, as in awk: no test of b.empty.
	return readBatches(lr, &d.b, d.sel, d.set.Hash, d.p, d.flush)
}

// flush adds the batch's keys, writes the lines whose key was new, and with
// sync flushes the output too.
func (d *deduper) flush(sync bool) error {
	if n := len(d.b.hs); n > 0 {
		isNew := d.b.answers()
		d.addNew(&d.b, isNew, d.lr)
		printed, _ := d.b.write(d.out, func(i int) (bool, error) { return isNew[i], nil })
		d.printed += printed
		d.p.addKeys(int64(n))
		d.b.reset()
		if d.over != nil && d.printed >= d.over.next {
			d.over.check(d.warn)
		}
	}
	if sync {
		if err := d.out.Flush(); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
	}
	return nil
}
