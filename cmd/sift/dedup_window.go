package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/internal/clock"
)

// sift dedup -window: the keys seen are kept in a blocked.Window, which
// forgets a key between W and W + W/(G-1) after it was last seen. The time
// is the lines' arrival (the clock read once per batch) or, with
// -time-field, a field of each line.

// arrivalClock is the clock of -window without -time-field (a variable so
// that tests can move time without sleeping): a blocked.Window's default
// clock, so that setting the system clock during a long run neither ends
// slices early (dropping repeats as new) nor late.
var arrivalClock = clock.Steady

// windowFlags are dedup's flags for a window.
type windowFlags struct {
	window      durationValue
	generations intValue
	timeField   fieldValue
	timeFormat  choiceValue
}

func addWindowFlags(fs *flag.FlagSet) *windowFlags {
	w := &windowFlags{timeFormat: choiceValue{val: "auto", choices: timeFormatNames}}
	fs.Var(&w.window, "window", "")
	fs.Var(&w.generations, "generations", "")
	fs.Var(&w.timeField, "time-field", "")
	fs.Var(&w.timeFormat, "time-format", "")
	return w
}

// windowConfig is what the window flags ask for.
type windowConfig struct {
	window  time.Duration // -window as given
	gens    int           // -generations, or 0 when not given
	timeSel fieldSelector // the time field; field 0: the arrival time
	format  timeFormat
}

// generations returns -generations, or blocked.DefaultGenerations.
func (c windowConfig) generations() int {
	if c.gens == 0 {
		return blocked.DefaultGenerations
	}
	return c.gens
}

// slice returns the slice for g generations, as blocked.NewWindow cuts
// -window (blocked.WindowSlice: rounded up, so that the window guaranteed,
// g-1 slices, is at least -window); a -window under g-1 ns gets the
// shortest slice, 1 ns. It refuses a -window whose g-1 slices would not
// fit in a time.Duration: how long a window may be depends on g, which is
// -generations, the default, or a -state file's.
func (c windowConfig) slice(g int) (time.Duration, error) {
	s, err := blocked.WindowSlice(max(c.window, time.Duration(g-1)), g)
	if err != nil {
		return 0, fmt.Errorf("-window %v is too long for %d generations: its %d slices would not fit in %v", c.window, g, g-1, time.Duration(math.MaxInt64))
	}
	return s, nil
}

// check validates the window flags with -f and -d, and returns the key
// selector and the window's configuration (nil without -window).
func (w *windowFlags) check(field fieldValue, delim string) (fieldSelector, *windowConfig, error) {
	// -d may go with -time-field alone: the key is then the whole line.
	keyDelim := delim
	if !field.set && w.timeField.set {
		keyDelim = ""
	}
	sel, err := fieldFlags(field, keyDelim)
	if err != nil {
		return sel, nil, err
	}
	if !w.window.set {
		for _, f := range []struct {
			set  bool
			name string
		}{{w.generations.set, "-generations"}, {w.timeField.set, "-time-field"}, {w.timeFormat.set, "-time-format"}} {
			if f.set {
				return sel, nil, fmt.Errorf("%s needs -window", f.name)
			}
		}
		return sel, nil, nil
	}
	c, err := w.config()
	if err != nil {
		return sel, nil, err
	}
	if w.timeFormat.set && !w.timeField.set {
		return sel, nil, errors.New("-time-format needs -time-field")
	}
	if w.timeField.set {
		if w.timeField.n < 1 {
			return sel, nil, fmt.Errorf("-time-field %d: fields are numbered from 1", w.timeField.n)
		}
		if c.timeSel, err = fieldFlags(fieldValue{n: w.timeField.n, set: true}, delim); err != nil {
			return sel, nil, fmt.Errorf("-time-field: %w", err)
		}
		c.format = timeFormatOf(w.timeFormat.val)
	}
	return sel, c, nil
}

// config returns the window's configuration without its time field,
// refusing -generations and -window out of range.
func (w *windowFlags) config() (*windowConfig, error) {
	c := &windowConfig{window: w.window.d, gens: w.generations.n}
	if w.generations.set {
		if !validGenerations(c.gens) {
			return nil, fmt.Errorf("-generations %d is not a power of two in 2..%d", c.gens, blocked.MaxGenerations)
		}
		// Without -generations the window's length is checked against
		// the G it gets: the default's, or a -state file's.
		if _, err := c.slice(c.gens); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// validGenerations reports whether g is a generation count a
// blocked.Window takes: a power of two in 2..MaxGenerations.
func validGenerations(g int) bool {
	return g >= 2 && g <= blocked.MaxGenerations && g&(g-1) == 0
}

// durationSum returns a+b for printing (a, b >= 0), written as the sum
// when it is beyond time.Duration's range (about 292 years).
func durationSum(a, b time.Duration) string {
	if a > math.MaxInt64-b {
		return fmt.Sprintf("%v + %v", a, b)
	}
	return (a + b).String()
}

// printSizes prints, for -h with -n, the window's memory, its forget bound
// and the expected false drops, or why a run would refuse these sizes. c
// is the configuration windowFlags.check returned. It sizes the window
// without allocating it (blocked.OptimalWindowSize).
func (c windowConfig) printSizes(out io.Writer, n countValue, fpp fppValue) {
	if err := checkN(n); err != nil {
		printNoSizes(out, err)
		return
	}
	g := c.generations()
	slice, err := c.slice(g)
	if err != nil {
		printNoSizes(out, err)
		return
	}
	size, err := windowSize(n, fpp, c)
	if err != nil {
		printNoSizes(out, err)
		return
	}
	window := slice * time.Duration(g-1)
	fmt.Fprintf(out, "\nFor -n %d -fpp %g -window %v -generations %d: %d generations of %s (k = %d), %s in all; a key is remembered at least %v and at most %v after it was last seen; at a steady %d new keys per window, about %.0f of them a window expected to be dropped as false positives.%s\n",
		n.n, fpp.p, c.window, g, g, sizeString(int64(size.SizeBytes())/int64(g)), size.K, sizeString(int64(size.SizeBytes())),
		window, durationSum(window, slice), n.n, windowFalseDrops(size, uint64(n.n)), memoryNote(size.SizeBytes()))
}

// windowSize returns the shape of a new window for -n, -fpp and c, or the
// error a run fails with for them (newWindowDedup's).
func windowSize(n countValue, fpp fppValue, c windowConfig) (blocked.WindowSize, error) {
	size, err := blocked.OptimalWindowSize(uint64(n.n), fpp.p, blocked.WithGenerations(c.generations()))
	if err != nil {
		return size, c.sizeErr(n, fpp, err)
	}
	return size, nil
}

// sizeErr is the error for a window that cannot be made for -n, -fpp and c.
func (c windowConfig) sizeErr(n countValue, fpp fppValue, err error) error {
	return fmt.Errorf("-n %d -fpp %g -window %v -generations %d: %w", n.n, fpp.p, c.window, c.generations(), err)
}

// windowFalseDrops returns the expected number of new keys a full window
// of shape s takes for repeats per n new keys, arriving at a steady n a
// window: each is looked up in G-1 generations that hold their capacity c
// and the current one, which fills from 0 to c while n/(G-1) keys arrive.
func windowFalseDrops(s blocked.WindowSize, n uint64) float64 {
	g := s.Generations
	full := 1 - math.Pow(1-blocked.WindowFalsePositiveRate(s.Groups, s.K, g, s.Capacity), float64(g-1))
	rate := func(x float64) float64 {
		return 1 - (1-full)*(1-blocked.WindowFalsePositiveRate(s.Groups, s.K, g, uint64(x+0.5)))
	}
	c := float64(s.Capacity)
	return float64(n) * integrate(rate, c) / c
}

// windowDedup feeds a dedup's batches to a blocked.Window at their time.
type windowDedup struct {
	w   *blocked.Window
	cfg windowConfig
	// now is the time the window's clock returns, in Unix nanoseconds: set
	// before each run of adds.
	now   int64
	times []int64 // per line of a batch: its time
	bad   []bool  // per line of a batch: no valid time
	// badLines counts the lines without a valid time; badFirst describes
	// the first.
	badLines int64
	badFirst string
	// futureLines counts the lines dated more than the window after this
	// machine's clock as their batch was read, and futureFirst describes
	// the first.
	futureLines int64
	futureFirst string
}

// clock is the window's clock.
func (wd *windowDedup) clock() time.Time { return time.Unix(0, wd.now) }

// newWindowDedup returns the window of the keys seen and the state file's
// generation: the one in the state file when it exists (checked against the
// flags), otherwise a new one (generation 0).
func newWindowDedup(state string, n countValue, fpp fppValue, cfg windowConfig) (*windowDedup, uint64, error) {
	wd := &windowDedup{cfg: cfg}
	exists, err := stateExists(state, n)
	if err != nil {
		return nil, 0, err
	}
	if exists {
		var gen uint64
		if wd.w, gen, err = loadWindowState(state, n, fpp, cfg, wd.clock); err != nil {
			return nil, 0, err
		}
		return wd, gen, nil
	}
	g := cfg.generations()
	slice, err := cfg.slice(g)
	if err != nil {
		return nil, 0, err
	}
	if cfg.timeSel.field != 0 {
		wd.now = timeFieldOrigin(slice)
	} else {
		wd.now = arrivalClock().UnixNano()
	}
	wd.w, err = blocked.NewWindow(uint64(n.n), fpp.p, slice*time.Duration(g-1), blocked.WithGenerations(g), blocked.WithClock(wd.clock))
	if err != nil {
		return nil, 0, cfg.sizeErr(n, fpp, err)
	}
	return wd, 0, nil
}

// loadWindowState reads the window in path, refusing any other kind, a
// window that advances by count, and one whose window, generations or size
// differ from what the flags ask for (-generations, -n and -fpp only when
// given), and returns it with the file's generation.
func loadWindowState(path string, n countValue, fpp fppValue, cfg windowConfig, clock func() time.Time) (*blocked.Window, uint64, error) {
	w, h, err := readState(path, sift.KindWindow, func(have sift.Kind) string {
		if have == sift.KindBlocked {
			return "it holds a blocked filter; sift dedup -window keeps a window filter (leave out -window to use this one)"
		}
		// Not "leave out -window": sift dedup without it refuses this
		// kind too.
		return fmt.Sprintf("it holds a %v filter; sift dedup keeps a blocked or window filter", have)
	}, blocked.ReadWindow, blocked.WithClock(clock))
	if err != nil {
		return nil, 0, err
	}
	if err := checkWindowState(path, w, n, fpp, cfg); err != nil {
		w.Close()
		return nil, 0, err
	}
	return w, h.Generation, nil
}

// checkWindowState checks a state file's window against the flags.
func checkWindowState(path string, w *blocked.Window, n countValue, fpp fppValue, cfg windowConfig) error {
	g := w.Generations()
	if w.SliceKeys() != 0 {
		return fmt.Errorf("-state %s holds a window that advances every %d keys, not by time: start a new state file", path, w.SliceKeys())
	}
	if cfg.gens != 0 && cfg.gens != g {
		return fmt.Errorf("-state %s holds a window of %d generations, but -generations is %d: leave out -generations to use the file's, or start a new state file", path, g, cfg.gens)
	}
	slice, err := cfg.slice(g)
	switch {
	case err != nil:
		return fmt.Errorf("-state %s holds a window of %v (%d slices of %v): %w; give -window %v, or start a new state file", path, windowString(w), g-1, w.Slice(), err, windowString(w))
	case slice != w.Slice():
		return fmt.Errorf("-state %s holds a window of %v (%d slices of %v), but -window %v asks for %d slices of %v: give -window %v, or start a new state file",
			path, windowString(w), g-1, w.Slice(), cfg.window, g-1, slice, windowString(w))
	case !n.set && !fpp.set:
		return nil
	}
	want := w.Capacity() * uint64(g-1) // gives w's capacity back
	if n.set {
		want = uint64(n.n)
	}
	// The shape a new window for these flags would have, not allocated.
	ref, err := blocked.OptimalWindowSize(want, fpp.p, blocked.WithGenerations(g))
	if err != nil {
		return fmt.Errorf("%s: %w", sizeFlags(n, fpp), err)
	}
	if ref.Blocks() != w.Blocks() || ref.K != w.K() || ref.Capacity != w.Capacity() {
		if !n.set {
			// -fpp alone: want is not the user's, so name only the rate
			// (as loadState does).
			return fmt.Errorf("-state %s holds a window of %d blocks with k = %d for %d keys a slice, which -fpp %g does not give for that many keys (it asks for %d blocks with k = %d): leave out -fpp to use the file's size, or start a new state file",
				path, w.Blocks(), w.K(), w.Capacity(), fpp.p, ref.Blocks(), ref.K)
		}
		return fmt.Errorf("-state %s holds a window of %d blocks with k = %d for %d keys a slice, but -n %d -fpp %g ask for %d blocks with k = %d for %d keys a slice: leave out -n and -fpp to use the file's size, or start a new state file",
			path, w.Blocks(), w.K(), w.Capacity(), want, fpp.p, ref.Blocks(), ref.K, ref.Capacity)
	}
	return nil
}

// addNew adds the keys of b's lines to the window at their time and sets
// isNew for the lines to print: those whose key was not seen within the
// window, and those without a valid time (not added).
func (wd *windowDedup) addNew(b *lineBatch, isNew []bool, lr *lineReader) {
	if wd.cfg.timeSel.field == 0 {
		// Arrival time, read once a batch: readBatches ends a batch
		// whenever reading on might wait, so a batch's lines were read
		// from the input together, and the clock read now is within the
		// time of hashing them (microseconds) of each one's arrival. One
		// read per line would cost more than the add itself.
		wd.now = arrivalClock().UnixNano()
		wd.w.AddNewHashes(b.hs, isNew)
		return
	}
	n := len(b.hs)
	// Read once a batch, as the arrival time is: a run that lasts longer
	// than the window must not count its own current lines as ahead. A
	// time later than this is ahead of the clock: wall+window saturates.
	ahead := time.Now().UnixNano()
	if w := int64(wd.w.Window()); ahead > math.MaxInt64-w {
		ahead = math.MaxInt64
	} else {
		ahead += w
	}
	wd.times = append(wd.times[:0], make([]int64, n)...)
	wd.bad = append(wd.bad[:0], make([]bool, n)...)
	// where names line i of the batch, for the first line of a report.
	where := func(i int) string { return fmt.Sprintf("%s line %d", lr.name, lr.line-int64(n)+1+int64(i)) }
	start := 0
	for i, end := range b.ends {
		field := wd.cfg.timeSel.key(trimEOL(b.text[start:end]))
		start = end
		t, ok := parseTime(field, wd.cfg.format)
		if ok {
			wd.times[i] = t
			if t > ahead {
				if wd.futureLines == 0 {
					wd.futureFirst = fmt.Sprintf("%s: %s", where(i), field)
				}
				wd.futureLines++
			}
			continue
		}
		wd.bad[i], isNew[i] = true, true
		if wd.badLines == 0 {
			wd.badFirst = where(i) + ": " + describeBadTime(field, wd.cfg)
		}
		wd.badLines++
	}
	// Runs of lines at one time go to the window together: its batch
	// add-if-new reads the clock once and gives them the answers one add
	// at a time would.
	for i := 0; i < n; {
		if wd.bad[i] {
			i++
			continue
		}
		j := i + 1
		for j < n && !wd.bad[j] && wd.times[j] == wd.times[i] {
			j++
		}
		wd.now = wd.times[i]
		wd.w.AddNewHashes(b.hs[i:j], isNew[i:j])
		i = j
	}
}

// futureReport is the warning for lines dated more than the window after
// this machine's clock: the window's clock went on to their time and does
// not go back, so every later line dated before it was taken as at it,
// and the keys (and a -state written) are kept until then.
func (wd *windowDedup) futureReport() string {
	lines := "line" + plural(int(min(wd.futureLines, 2)))
	return fmt.Sprintf("warning: %d %s dated more than the window (%v) after this machine's clock (first: %s): the window's time went on to theirs and does not go back, so later lines dated before it were taken as at it, and the keys seen are kept until then (-state too)", wd.futureLines, lines, wd.w.Window(), wd.futureFirst)
}

// badReport is the message for the lines without a valid time.
func (wd *windowDedup) badReport() string {
	lines := "line" + plural(int(min(wd.badLines, 2)))
	return fmt.Sprintf("%d %s without a valid time in field %d printed without de-duplication (first: %s)", wd.badLines, lines, wd.cfg.timeSel.field, wd.badFirst)
}

// describeBadTime says why field is not a time.
func describeBadTime(field []byte, cfg windowConfig) string {
	if len(field) == 0 {
		return fmt.Sprintf("no field %d", cfg.timeSel.field)
	}
	s := string(field)
	if len(s) > 40 {
		// Cut at a character boundary: 40 bytes may end inside one.
		n := 40
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "..."
	}
	what := map[timeFormat]string{
		timeAuto:    "an RFC 3339 or Unix time",
		timeRFC3339: "an RFC 3339 time",
		timeUnix:    "a Unix time in seconds",
		timeUnixMs:  "a Unix time in milliseconds",
		timeUnixUs:  "a Unix time in microseconds",
		timeUnixNs:  "a Unix time in nanoseconds",
	}[cfg.format]
	return fmt.Sprintf("%q is not %s (between the years 1678 and 2262)", s, what)
}

// trimEOL returns line without its "\n" or "\r\n" terminator.
func trimEOL(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
	}
	return line
}

// timeFormat is how -time-field is written.
type timeFormat int

const (
	timeAuto timeFormat = iota
	timeRFC3339
	timeUnix
	timeUnixMs
	timeUnixUs
	timeUnixNs
)

var timeFormatNames = []string{"auto", "rfc3339", "unix", "unixms", "unixus", "unixns"}

func timeFormatOf(name string) timeFormat {
	for i, n := range timeFormatNames {
		if n == name {
			return timeFormat(i)
		}
	}
	return timeAuto
}

// unixDigits is, for each Unix format, how many decimal digits of a
// second its unit is (10^digits units a second).
var unixDigits = [...]int{timeUnix: 0, timeUnixMs: 3, timeUnixUs: 6, timeUnixNs: 9}

// parseTime returns the time written in b in Unix nanoseconds, and false
// when b is not a time in format f or lies outside int64 nanoseconds
// (about the years 1678 to 2262).
func parseTime(b []byte, f timeFormat) (int64, bool) {
	switch f {
	case timeRFC3339:
		return parseRFC3339(b)
	case timeAuto:
		if len(b) >= 10 && b[4] == '-' {
			return parseRFC3339(b)
		}
		return parseUnix(b, -1)
	}
	return parseUnix(b, unixDigits[f])
}

// parseUnix parses a Unix time: an optional "-", digits, and optionally
// "." and more digits, in units of 10^-unit seconds (unit 0, 3, 6 or 9);
// unit -1 tells the unit from the integer part's size: below 1e11 seconds
// (until the year 5138), then milliseconds, microseconds, nanoseconds.
// Digits below a nanosecond are dropped.
func parseUnix(b []byte, unit int) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	var whole uint64
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if whole > (math.MaxUint64-9)/10 {
			return 0, false
		}
		whole = whole*10 + uint64(b[i]-'0')
	}
	if i == 0 {
		return 0, false
	}
	frac := b[i:]
	if len(frac) > 0 {
		if frac[0] != '.' || len(frac) == 1 {
			return 0, false
		}
		frac = frac[1:]
		for _, c := range frac {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
	}
	if unit < 0 {
		switch {
		case whole < 1e11:
			unit = 0
		case whole < 1e14:
			unit = 3
		case whole < 1e17:
			unit = 6
		default:
			unit = 9
		}
	}
	// The nanoseconds of the fraction: its first 9-unit digits.
	digits := 9 - unit
	var fracNs uint64
	for d := range digits {
		fracNs *= 10
		if d < len(frac) {
			fracNs += uint64(frac[d] - '0')
		}
	}
	scale := uint64(math.Pow10(digits))
	if whole > (math.MaxInt64-fracNs)/scale {
		return 0, false
	}
	ns := int64(whole*scale + fracNs)
	if neg {
		ns = -ns
	}
	return ns, true
}

// timeFieldOrigin is where the window of a -time-field dedup begins, in
// Unix nanoseconds: at the earliest time there is that is a multiple of
// the slice (so that later slices begin at multiples of it from the Unix
// epoch). The first line's time, whatever it is, comes after it; a window
// still starting there has seen no line.
func timeFieldOrigin(slice time.Duration) int64 {
	return -(math.MaxInt64 / int64(slice)) * int64(slice)
}

// minTime and maxTime bound the times whose Unix nanoseconds fit in int64.
var minTime, maxTime = time.Unix(0, math.MinInt64), time.Unix(0, math.MaxInt64)

// parseRFC3339 parses an RFC 3339 time (§5.6), with or without fractional
// seconds, as time.Parse(time.RFC3339, ...) does, and also what the RFC
// allows and time.Parse refuses: a lowercase "t" between the date and the
// time, a lowercase "z" for UTC, and a leap second, second 60 (at any
// minute, as the RFC's grammar allows). A time in second 60 is read as the
// last instant of second 59 (59.999999999, whatever its fraction): Unix
// time has no leap seconds, and this keeps the order of the lines around
// one (no line of the leap second is taken as later than the next
// second's), and dates a key no later than the time it was seen, as
// counted after the leap second, so that no key is forgotten early. The
// usual form, 2006-01-02T15:04:05[.fraction](Z|+hh:mm|-hh:mm) with up to
// nine digits of fraction, is read here without allocating; anything
// else goes to time.Parse.
func parseRFC3339(b []byte) (int64, bool) {
	if ns, ok := fastRFC3339(b); ok {
		return ns, true
	}
	return slowRFC3339(b)
}

// slowRFC3339 parses any RFC 3339 time parseRFC3339 takes, with
// time.Parse, which takes neither the lowercase letters nor second 60:
// they are written as it takes them, and a leap second is put back at the
// end.
func slowRFC3339(b []byte) (int64, bool) {
	s := []byte(string(b))
	leap := false
	if len(s) > 19 && s[13] == ':' && s[16] == ':' && s[17] == '6' && s[18] == '0' {
		s[17], s[18] = '5', '9'
		leap = true
	}
	if len(s) > 10 && s[10] == 't' {
		s[10] = 'T'
	}
	if n := len(s); n > 0 && s[n-1] == 'z' {
		s[n-1] = 'Z'
	}
	t, err := time.Parse(time.RFC3339, string(s))
	if err != nil {
		return 0, false
	}
	if leap {
		t = t.Truncate(time.Second).Add(time.Second - 1)
	}
	if t.Before(minTime) || t.After(maxTime) {
		return 0, false
	}
	return t.UnixNano(), true
}

// fastRFC3339 parses the usual form of RFC 3339 (see parseRFC3339), and
// returns false for anything else, valid or not.
func fastRFC3339(b []byte) (int64, bool) {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10]|0x20 != 't' || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	num := func(s []byte) (int, bool) {
		n := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	year, ok1 := num(b[0:4])
	month, ok2 := num(b[5:7])
	day, ok3 := num(b[8:10])
	hour, ok4 := num(b[11:13])
	minute, ok5 := num(b[14:16])
	sec, ok6 := num(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 60 {
		return 0, false
	}
	rest := b[19:]
	var fracNs int64
	if rest[0] == '.' {
		i := 1
		for ; i < len(rest) && rest[i] >= '0' && rest[i] <= '9'; i++ {
		}
		if i == 1 || i > 10 {
			return 0, false
		}
		f, _ := num(rest[1:i])
		fracNs = int64(f) * int64(math.Pow10(10-i))
		rest = rest[i:]
	}
	if sec == 60 { // a leap second: the last instant of second 59
		sec, fracNs = 59, int64(time.Second-1)
	}
	var offset int
	switch {
	case len(rest) == 1 && rest[0]|0x20 == 'z':
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := num(rest[1:3])
		om, ok2 := num(rest[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return 0, false
		}
		offset = (oh*60 + om) * 60
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return 0, false
	}
	secs := daysFromCivil(year, month, day)*86400 + int64(hour*3600+minute*60+sec-offset)
	const nsPerSec = int64(time.Second)
	if secs < math.MinInt64/nsPerSec+1 || secs > math.MaxInt64/nsPerSec-1 {
		return 0, false
	}
	return secs*1e9 + fracNs, true
}

// daysIn returns the days of month (1..12) in year.
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns the days from 1970-01-01 to the given date of the
// proleptic Gregorian calendar (year 0..9999): March-based years, so that
// the leap day ends a year, cut into 400-year eras of 146097 days.
func daysFromCivil(year, month, day int) int64 {
	if month <= 2 {
		year--
	}
	era := year / 400
	if year < 0 {
		era = (year - 399) / 400
	}
	yoe := year - era*400                          // 0..399
	mp := (month + 9) % 12                         // March = 0
	doy := (153*mp+2)/5 + day - 1                  // 0..365
	doe := yoe*365 + yoe/4 - yoe/100 + doy         // 0..146096
	return int64(era)*146097 + int64(doe) - 719468 // 719468: days from 0000-03-01 to 1970-01-01
}

// durationValue is the -window flag: a positive Go duration (90s, 15m,
// 24h), a number of days (7d, 1.5d), or days followed by a Go duration
// (1d12h).
type durationValue struct {
	d   time.Duration
	set bool
}

func (v *durationValue) String() string { return v.d.String() }

func (v *durationValue) Set(s string) error {
	d, err := parseDays(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("%q is not a duration (examples: 90s, 15m, 24h, 7d, 1d12h)", s)
	}
	if d <= 0 {
		return fmt.Errorf("%q is not a positive duration", s)
	}
	v.d, v.set = d, true
	return nil
}

// parseDays parses a Go duration, optionally preceded by a number of days
// ("7d", "1.5d", "1d12h", "2d30m"); the total must fit a time.Duration.
func parseDays(t string) (time.Duration, error) {
	d, err := time.ParseDuration(t)
	if err == nil {
		return d, nil
	}
	days, rest, ok := strings.Cut(t, "d")
	if !ok {
		return 0, err
	}
	f, ferr := strconv.ParseFloat(days, 64)
	if ferr != nil || !(f >= 0) || f*24 >= float64(math.MaxInt64)/float64(time.Hour) {
		return 0, err
	}
	total := time.Duration(f * 24 * float64(time.Hour))
	if rest != "" {
		// The part after the days is unsigned: "1d-2h" is no duration.
		if rest[0] == '-' || rest[0] == '+' {
			return 0, err
		}
		r, rerr := time.ParseDuration(rest)
		if rerr != nil || r > math.MaxInt64-total {
			return 0, err
		}
		total += r
	}
	return total, nil
}

// intValue is a flag holding an int, and whether it was given.
type intValue struct {
	n   int
	set bool
}

func (v *intValue) String() string { return strconv.Itoa(v.n) }

func (v *intValue) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("%q is not a whole number", s)
	}
	v.n, v.set = n, true
	return nil
}
