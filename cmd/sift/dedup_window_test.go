package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/classic"
)

// timedLine is one line of a synthetic timestamped log: its time, key and
// sequence number (which makes every line's text unique, so that an output
// line tells which input line it is).
type timedLine struct {
	t   int64 // Unix nanoseconds
	key string
	seq int
}

// timedLog returns count lines over keys keys whose times go up by random
// steps of 0..maxStep (steps of 0 make runs of lines at one time), starting
// at start, so that the gaps between sightings of a key fall inside,
// around and beyond any window of a few hundred steps.
func timedLog(rng *rand.Rand, count, keys int, start int64, maxStep time.Duration) []timedLine {
	ls := make([]timedLine, count)
	t := start
	for i := range ls {
		if rng.IntN(3) > 0 {
			t += rng.Int64N(int64(maxStep) + 1)
		}
		ls[i] = timedLine{t: t, key: fmt.Sprintf("k%d", rng.IntN(keys)), seq: i}
	}
	return ls
}

// formatTimed writes ls as "TIME KEY SEQ" lines with the time in the given
// -time-format.
func formatTimed(ls []timedLine, format string) string {
	var b strings.Builder
	for i, l := range ls {
		var ts string
		switch format {
		case "rfc3339":
			// Alternate the zones and the fraction's length: all one time.
			zone := time.FixedZone("", (i%5-2)*3600+(i%2)*1800)
			layouts := []string{time.RFC3339Nano, "2006-01-02T15:04:05.000Z07:00", time.RFC3339}
			layout := layouts[i%3]
			tt := time.Unix(0, l.t).In(zone)
			if layout != time.RFC3339Nano {
				tt = tt.Truncate(time.Millisecond) // the times are ms multiples in this format
			}
			ts = tt.Format(layout)
		case "unix", "unixms", "unixus":
			sign, abs := "", l.t
			if abs < 0 {
				sign, abs = "-", -abs
			}
			switch format {
			case "unix":
				ts = fmt.Sprintf("%s%d.%09d", sign, abs/1e9, abs%1e9)
				ts = strings.TrimRight(strings.TrimRight(ts, "0"), ".")
			case "unixms":
				ts = fmt.Sprintf("%s%d.%06d", sign, abs/1e6, abs%1e6)
			default:
				ts = fmt.Sprintf("%s%d", sign, abs/1e3)
			}
		case "unixns", "auto":
			ts = strconv.FormatInt(l.t, 10)
		}
		fmt.Fprintf(&b, "%s %s %d\n", ts, l.key, l.seq)
	}
	return b.String()
}

// windowVerdicts is the reference: a map of each key's last sighting. A
// line must be printed when its key was never seen or was last seen more
// than window + window/(gens-1) before (forgotten), and must not be when
// it was seen at most window before (remembered); in between either is
// right. Every line is a sighting, printed or not. Times go back only as
// the window treats them: a late line counts at the latest time seen.
func windowVerdicts(ls []timedLine, window time.Duration, gens int) (mustPrint, mustDrop []bool) {
	mustPrint, mustDrop = make([]bool, len(ls)), make([]bool, len(ls))
	last := map[string]int64{}
	latest := int64(math.MinInt64)
	forget := int64(window + window/time.Duration(gens-1))
	for i, l := range ls {
		latest = max(latest, l.t)
		s, seen := last[l.key]
		switch {
		case !seen || latest-s > forget:
			mustPrint[i] = true
		case latest-s <= int64(window):
			mustDrop[i] = true
		}
		last[l.key] = latest
	}
	return mustPrint, mustDrop
}

// checkWindowOutput checks sift dedup's output against the verdicts: lines
// in input order, each once, every must-print printed, no must-drop printed.
// It returns how many lines were in the undecided zone.
func checkWindowOutput(t *testing.T, out string, ls []timedLine, mustPrint, mustDrop []bool) {
	t.Helper()
	printed := make([]bool, len(ls))
	prev := -1
	for _, line := range lines(out) {
		f := strings.Fields(line)
		seq, err := strconv.Atoi(f[len(f)-1])
		if err != nil || seq <= prev || seq >= len(ls) {
			t.Fatalf("output line %q: out of order or not an input line", line)
		}
		prev = seq
		printed[seq] = true
	}
	bad := 0
	for i, l := range ls {
		switch {
		case mustPrint[i] && !printed[i]:
			t.Errorf("line %d (%s at %d) was not printed, but its key was never seen or was forgotten", i, l.key, l.t)
			bad++
		case mustDrop[i] && printed[i]:
			t.Errorf("line %d (%s at %d) was printed, but its key was seen within the window (a false negative)", i, l.key, l.t)
			bad++
		}
		if bad > 10 {
			t.FailNow()
		}
	}
}

// TestDedupWindowMatchesReference runs sift dedup -window -time-field over
// synthetic logs whose keys repeat inside, around and beyond the window,
// for several generations and time formats, and checks every line against
// the map-with-times reference. The filters are sized far above the keys,
// so no false positive is expected.
func TestDedupWindowMatchesReference(t *testing.T) {
	count := 20_000
	if testing.Short() {
		count = 4_000
	}
	for _, c := range []struct {
		format  string
		gens    int
		window  time.Duration
		maxStep time.Duration
		start   int64
	}{
		{"unixns", 2, 100 * time.Second, time.Second, 1_764_000_000e9},
		{"unix", 4, 90 * time.Second, 1500 * time.Millisecond, 1_764_000_123_456_789_000},
		{"unixms", 8, time.Minute, 700 * time.Millisecond, 1_000_000_000_000_000},
		{"unixus", 8, 50 * time.Second, time.Second, 1_764_000_000e9},
		{"rfc3339", 4, 2 * time.Minute, 2 * time.Second, 1_764_000_000e9},
		{"auto", 2, 77 * time.Second, time.Second, 1_764_000_000e9},
		{"unix", 4, 100 * time.Second, time.Second, -1_000_000e9}, // before 1970
	} {
		name := fmt.Sprintf("%s G=%d W=%v", c.format, c.gens, c.window)
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.gens), uint64(c.window)))
			// The mean step is maxStep/3: about as many keys as steps
			// in 3 windows put a key's mean gap at one window.
			ls := timedLog(rng, count, int(3*c.window/c.maxStep), c.start, c.maxStep)
			if c.format == "rfc3339" || c.format == "unixus" {
				for i := range ls {
					ls[i].t -= ls[i].t % 1e6 // whole ms (rfc3339 below) or us
				}
			}
			mustPrint, mustDrop := windowVerdicts(ls, c.window, c.gens)
			var nPrint, nDrop int
			for i := range ls {
				nPrint += b2i(mustPrint[i])
				nDrop += b2i(mustDrop[i])
			}
			// The log must exercise all three zones.
			if nPrint < count/20 || nDrop < count/20 || nPrint+nDrop > count-count/50 {
				t.Fatalf("log does not exercise the window: %d must print, %d must drop, %d either", nPrint, nDrop, count-nPrint-nDrop)
			}
			args := []string{"dedup", "-n", "1e5", "-window", c.window.String(), "-generations", strconv.Itoa(c.gens), "-f", "2", "-time-field", "1"}
			if c.format != "auto" {
				args = append(args, "-time-format", c.format)
			}
			r := runInProcess(formatTimed(ls, c.format), args...)
			if r.code != exitOK || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			checkWindowOutput(t, r.stdout, ls, mustPrint, mustDrop)
			t.Logf("%d lines: %d must be printed, %d dropped, %d either; %d printed", count, nPrint, nDrop, count-nPrint-nDrop, len(lines(r.stdout)))
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestDedupWindowForgets pins the two bounds with hand-made times: a key
// seen again within W is dropped, after more than W + W/(G-1) printed, and
// a dropped repeat starts the key's window again.
func TestDedupWindowForgets(t *testing.T) {
	// -window 60s, G = 4: slices of 20 s; remembered 60 s, forgotten by 80 s.
	in := "1000 a\n" + // new
		"1060 a\n" + // 60 s after: remembered (dropped), and seen again
		"1120 a\n" + // 60 s after the repeat: dropped
		"1201 a\n" + // 81 s after: forgotten, printed
		"1201 b\n" + // new
		"1201 b\n" + // same time: dropped
		"1300 b\n" // 99 s after: printed
	want := "1000 a\n1201 a\n1201 b\n1300 b\n"
	r := runInProcess(in, "dedup", "-n", "100", "-window", "60s", "-f", "2", "-time-field", "1")
	if r.code != exitOK || r.stdout != want {
		t.Errorf("exit %d stderr %q\ngot  %q\nwant %q", r.code, r.stderr, r.stdout, want)
	}
	// -window 1s with G = 4 is 3 slices of 333333334 ns (rounded up): a
	// repeat exactly 1 s later is still remembered, even from the last
	// nanosecond of a slice of 333333333 ns (slices begin at multiples of
	// the slice from the Unix epoch).
	r = runInProcess("333333332 a\n1333333332 a\n", "dedup", "-n", "100", "-window", "1s", "-f", "2", "-time-field", "1", "-time-format", "unixns")
	if r.stdout != "333333332 a\n" {
		t.Errorf("repeat after exactly -window: got %q", r.stdout)
	}
}

// TestDedupWindowOutOfOrder checks what a time that goes back means: a late
// line is judged, and its key remembered, as of the latest time seen.
func TestDedupWindowOutOfOrder(t *testing.T) {
	in := "100 a\n" +
		"200 b\n" +
		"50 a\n" + // late: as of 200, a was seen 100 s before: forgotten, printed
		"250 a\n" + // 50 s after the late line's latest time: dropped
		"150 b\n" + // late: as of 250, b was seen 50 s before: dropped
		"150 c\n" // late and new: printed
	want := "100 a\n200 b\n50 a\n150 c\n"
	r := runInProcess(in, "dedup", "-n", "100", "-window", "60s", "-f", "2", "-time-field", "1")
	if r.code != exitOK || r.stdout != want {
		t.Errorf("exit %d stderr %q\ngot  %q\nwant %q", r.code, r.stderr, r.stdout, want)
	}
}

// TestDedupWindowBadTimes checks lines whose time field is missing or not a
// time: they are printed as they are, their keys not added, counted and
// reported in one line on stderr naming the first, with exit 2; the state
// is written with the other lines' keys.
func TestDedupWindowBadTimes(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "w.sift")
	in := "1000 a\n" +
		"yesterday a\n" + // bad: printed though a was seen
		"1001 a\n" + // dropped: a was seen at 1000
		"\n" + // no field 1: bad
		"1002\n" + // the whole line is field 1, the key (field 2) empty: a good line
		"1003.5.5 b\n" + // bad
		"1004 b\n" // new
	file := writeFile(t, dir, "log.txt", []byte(in))
	r := runInProcess("", "dedup", "-n", "100", "-window", "1h", "-f", "2", "-time-field", "1", "-state", state, file)
	want := "1000 a\nyesterday a\n\n1002\n1003.5.5 b\n1004 b\n"
	if r.code != exitError || r.stdout != want {
		t.Errorf("exit %d\ngot  %q\nwant %q", r.code, r.stdout, want)
	}
	if !strings.Contains(r.stderr, "3 lines without a valid time in field 1") || !strings.Contains(r.stderr, "log.txt line 2") ||
		!strings.Contains(r.stderr, `"yesterday"`) || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("stderr %q", r.stderr)
	}
	w, err := blocked.ReadWindow(bytes.NewReader(mustRead(t, state)), blocked.WithClock(func() time.Time { return time.Unix(1004, 0) }))
	if err != nil {
		t.Fatalf("state not written: %v", err)
	}
	if !w.ContainsString("a") || !w.ContainsString("b") {
		t.Errorf("state lacks the good lines' keys")
	}
	// A bad -time-format names what was expected, with the line of stdin.
	r = runInProcess("1000 a\n2026-11-25T10:00:00Z b\n", "dedup", "-n", "100", "-window", "1h", "-f", "2", "-time-field", "1", "-time-format", "unix")
	if r.code != exitError || r.stdout != "1000 a\n2026-11-25T10:00:00Z b\n" ||
		!strings.Contains(r.stderr, "1 line without a valid time") || !strings.Contains(r.stderr, "standard input line 2") || !strings.Contains(r.stderr, "Unix time in seconds") {
		t.Errorf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	// A time outside int64 nanoseconds is bad, not wrapped around.
	r = runInProcess("9300000000 a\n2263-01-01T00:00:00Z b\n", "dedup", "-n", "100", "-window", "1h", "-f", "2", "-time-field", "1")
	if r.code != exitError || !strings.Contains(r.stderr, "2 lines without a valid time") {
		t.Errorf("out-of-range times: exit %d stderr %q", r.code, r.stderr)
	}
}

// TestDedupWindowState de-duplicates one timestamped log in two runs that
// share a -state file: the two outputs together must meet the reference
// over the whole log, as one run would.
func TestDedupWindowState(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "w.sift")
	rng := rand.New(rand.NewPCG(7, 8))
	ls := timedLog(rng, 6000, 120, 1_764_000_000e9, time.Second)
	mustPrint, mustDrop := windowVerdicts(ls, time.Minute, 4)
	text := formatTimed(ls, "unixns")
	cut := strings.Index(text, fmt.Sprintf(" %d\n", len(ls)/2)) + len(fmt.Sprint(len(ls)/2)) + 2
	args := []string{"dedup", "-window", "1m", "-f", "2", "-time-field", "1", "-state", state}
	r1 := runInProcess(text[:cut], append(args, "-n", "1e4")...)
	if r1.code != exitOK {
		t.Fatalf("run 1: exit %d: %s", r1.code, r1.stderr)
	}
	h, err := sift.InspectFile(state)
	if err != nil || h.Kind != sift.KindWindow {
		t.Fatalf("state: %v, %v", h.Kind, err)
	}
	r2 := runInProcess(text[cut:], args...) // -n from the file
	if r2.code != exitOK {
		t.Fatalf("run 2: exit %d: %s", r2.code, r2.stderr)
	}
	checkWindowOutput(t, r1.stdout+r2.stdout, ls, mustPrint, mustDrop)
	// The same -n and -fpp, and -generations, are accepted.
	r := runInProcess("", append(args, "-n", "1e4", "-fpp", "0.01", "-generations", "4")...)
	if r.code != exitNoMatch || r.stderr != "" {
		t.Errorf("run 3 (all seen): exit %d stderr %q", r.code, r.stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("dir holds %d entries, want only the state", len(ents))
	}
}

// TestDedupWindowArrival runs -window on arrival time with a simulated
// clock and a -state file: a key is remembered within the window across
// runs and printed again once the window has passed.
func TestDedupWindowArrival(t *testing.T) {
	defer func(old func() time.Time) { arrivalClock = old }(arrivalClock)
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	arrivalClock = func() time.Time { return now }
	state := filepath.Join(t.TempDir(), "w.sift")
	// -window 1h, G = 4: remembered 60 min, forgotten by 80.
	steps := []struct {
		after   time.Duration
		in, out string
	}{
		{0, "a\nb\na\n", "a\nb\n"},
		{30 * time.Minute, "a\nc\n", "c\n"},             // a seen 30 min before
		{59 * time.Minute, "b\na\n", "b\n"},             // b seen 89 min before, a 59
		{3 * time.Hour, "a\nb\nc\nd\n", "a\nb\nc\nd\n"}, // all forgotten
		{time.Minute, "d\n", ""},
	}
	for i, s := range steps {
		now = now.Add(s.after)
		args := []string{"dedup", "-window", "1h", "-state", state}
		if i == 0 {
			args = append(args, "-n", "1000")
		}
		r := runInProcess(s.in, args...)
		if r.stdout != s.out || r.stderr != "" {
			t.Errorf("run %d, %v later: got %q, want %q (stderr %q)", i, s.after, r.stdout, s.out, r.stderr)
		}
	}
}

// TestDedupWindowBadFlags checks that bad window flags and mismatched state
// files fail with one line and exit 2, before printing anything.
func TestDedupWindowBadFlags(t *testing.T) {
	dir := t.TempDir()
	blockedState := filepath.Join(dir, "blocked.sift")
	if r := runInProcess("a\n", "dedup", "-n", "1000", "-state", blockedState); r.code != exitOK {
		t.Fatal(r.stderr)
	}
	winState := filepath.Join(dir, "window.sift")
	if r := runInProcess("a\n", "dedup", "-n", "1000", "-window", "1h", "-state", winState); r.code != exitOK {
		t.Fatal(r.stderr)
	}
	countWin, err := blocked.NewWindow(100, 0.01, 0, blocked.WithSliceKeys(10))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := countWin.MarshalBinary()
	countState := writeFile(t, dir, "count.sift", data)
	huge, err := blocked.OptimalWindowSize(1e11, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-n", "10", "-window", "0"}, "not a positive duration"},
		{[]string{"-n", "10", "-window", "-1s"}, "not a positive duration"},
		{[]string{"-n", "10", "-window", "soon"}, "not a duration"},
		{[]string{"-n", "10", "-window", "1d-2h"}, "not a duration"},
		{[]string{"-n", "10", "-window", "NaNd"}, "not a duration"},
		{[]string{"-n", "10", "-window", "1e300d"}, "not a duration"},
		{[]string{"-n", "10", "-window", "106752d"}, "not a duration"},
		{[]string{"-n", "10", "-window", "d"}, "not a duration"},
		// The longest Duration: its 3 slices (the default 4 generations)
		// or 63 would not fit in one; 2 generations take it (below).
		{[]string{"-n", "10", "-window", "2562047h47m16.854775807s"}, "is too long for 4 generations: its 3 slices"},
		{[]string{"-n", "10", "-window", "2562047h47m16.854775807s", "-generations", "64"}, "is too long for 64 generations"},
		{[]string{"-window", "2562047h47m16.854775807s", "-state", winState}, "holds a window of 1h0m0s (3 slices of 20m0s): -window 2562047h47m16.854775807s is too long for 4 generations"},
		{[]string{"-n", "10", "-window", "1h", "-generations", "1"}, "not a power of two in 2..64"},
		{[]string{"-n", "10", "-window", "1h", "-generations", "65"}, "not a power of two in 2..64"},
		{[]string{"-n", "10", "-window", "1h", "-generations", "3"}, "not a power of two in 2..64"},
		{[]string{"-n", "10", "-window", "1h", "-generations", "x"}, "not a whole number"},
		{[]string{"-n", "10", "-generations", "4"}, "-generations needs -window"},
		{[]string{"-n", "10", "-time-field", "1"}, "-time-field needs -window"},
		{[]string{"-n", "10", "-window", "1h", "-time-format", "unix"}, "-time-format needs -time-field"},
		{[]string{"-n", "10", "-window", "1h", "-time-field", "1", "-time-format", "iso"}, "not one of auto, rfc3339"},
		{[]string{"-n", "10", "-window", "1h", "-time-field", "0"}, "numbered from 1"},
		{[]string{"-n", "10", "-window", "1h", "-time-field", "2", "-d", "ab"}, "one byte"},
		{[]string{"-n", "10", "-window", "1h", "-d", ","}, "-d needs -f"},
		{[]string{"-n", "10", "-window", "1h", "-fpp", "1e-9"}, "-fpp"},
		{[]string{"-window", "1h"}, "-n is required"},
		{[]string{"-window", "1h", "-state", blockedState}, "holds a blocked filter; sift dedup -window keeps a window filter"},
		{[]string{"-state", winState}, "holds a window filter: give -window"},
		{[]string{"-window", "2h", "-state", winState}, "holds a window of 1h0m0s (3 slices of 20m0s), but -window 2h0m0s asks for 3 slices of 40m0s"},
		{[]string{"-window", "1h", "-generations", "8", "-state", winState}, "window of 4 generations, but -generations is 8"},
		{[]string{"-window", "1h", "-n", "1e6", "-state", winState}, "leave out -n and -fpp"},
		// -fpp alone names no -n the user did not give (as the blocked
		// state's message).
		{[]string{"-window", "1h", "-fpp", "0.001", "-state", winState}, "keys a slice, which -fpp 0.001 does not give for that many keys (it asks for"},
		// ...nor where sizing for the rate fails.
		{[]string{"-window", "1h", "-fpp", "1e-8", "-state", winState}, "sift dedup: -fpp 1e-08: blocked: 4 generations need"},
		{[]string{"-fpp", "1e-9", "-state", blockedState}, "sift dedup: -fpp 1e-09: blocked: false-positive rate 1e-09 is below MinFPP"},
		// Compared without making a window of that size (240 GiB).
		{[]string{"-window", "1h", "-n", "1e11", "-state", winState}, fmt.Sprintf("but -n 100000000000 -fpp 0.01 ask for %d blocks with k = %d for %d keys a slice: leave out -n and -fpp", huge.Blocks(), huge.K, huge.Capacity)},
		{[]string{"-window", "1h", "-state", countState}, "advances every 10 keys"},
		{[]string{"-window", "1h", "-state", filepath.Join(dir, "new.sift")}, "does not exist yet"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := runInProcess("a\n", append([]string{"dedup"}, c.args...)...)
			if r.code != exitError || !strings.Contains(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
				t.Errorf("exit %d stdout %q stderr %q, want 2 and one line with %q", r.code, r.stdout, r.stderr, c.want)
			}
		})
	}
	// -d with -time-field alone splits the time field; the key is the line.
	r := runInProcess("5,a\n6,a\n6,b\n", "dedup", "-n", "10", "-window", "1h", "-time-field", "1", "-d", ",")
	if r.code != exitOK || r.stdout != "5,a\n6,a\n6,b\n" || r.stderr != "" {
		t.Errorf("-d with -time-field: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	// With 2 generations the longest Duration is one slice.
	r = runInProcess("a\na\n", "dedup", "-n", "10", "-window", "2562047h47m16.854775807s", "-generations", "2")
	if r.code != exitOK || r.stdout != "a\n" {
		t.Errorf("-window of the longest Duration, 2 generations: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	// -window 7d is a week.
	r = runInProcess("0 a\n604800 a\n604900 a\n", "dedup", "-n", "10", "-window", "7d", "-f", "2", "-time-field", "1", "-generations", "2")
	if r.stdout != "0 a\n" {
		t.Errorf("-window 7d: got %q", r.stdout)
	}
}

// TestDedupWindowHelp checks that -h with -n and -window prints the window's
// size, its forget bound and the expected false drops, also for a window
// larger than the machine's memory (the sizes are computed, not allocated).
func TestDedupWindowHelp(t *testing.T) {
	r := runInProcess("", "dedup", "-n", "1e6", "-window", "1h", "-h")
	for _, s := range []string{"usage: sift dedup", "-window 1h0m0s -generations 4: 4 generations of", "at least 1h0m0s and at most 1h20m0s", "expected to be dropped"} {
		if r.code != 0 || !strings.Contains(r.stdout, s) {
			t.Errorf("exit %d: stdout lacks %q:\n%s", r.code, s, clip(r.stdout[strings.LastIndex(r.stdout, "\n\n")+1:]))
		}
	}
	size, err := blocked.OptimalWindowSize(1e11, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	r = runInProcess("", "dedup", "-n", "1e11", "-window", "1h", "-h")
	want := fmt.Sprintf("-generations 4: 4 generations of %s (k = %d), %s in all; a key is remembered at least 1h0m0s and at most 1h20m0s",
		sizeString(int64(size.SizeBytes()/4)), size.K, sizeString(int64(size.SizeBytes())))
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("-n 1e11: exit %d stderr %q: stdout lacks %q:\n%s", r.code, r.stderr, want, r.stdout[strings.LastIndex(r.stdout, "\n\n")+1:])
	}
	// A window whose bound is beyond time.Duration's range prints it as a
	// sum, not wrapped around to a negative duration.
	r = runInProcess("", "dedup", "-n", "1000", "-window", "100000d", "-generations", "2", "-h")
	if want := "at least 2400000h0m0s and at most 2400000h0m0s + 2400000h0m0s after"; r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("-window 100000d: exit %d: stdout lacks %q:\n%s", r.code, want, r.stdout[strings.LastIndex(r.stdout, "\n\n")+1:])
	}
	// The usage's figures are windowFalseDrops'.
	for _, c := range []struct {
		fpp  float64
		text string
	}{{0.01, "about 0.77% are dropped at\n0.01"}, {0.001, "(0.075% at 0.001)"}} {
		size, err := blocked.OptimalWindowSize(1e6, c.fpp)
		if err != nil {
			t.Fatal(err)
		}
		pct := fmt.Sprintf("%.2g%%", 100*windowFalseDrops(size, 1e6)/1e6)
		if !strings.Contains(dedupUsage, c.text) || !strings.Contains(c.text, pct) {
			t.Errorf("usage lacks %q, or it does not say %s", c.text, pct)
		}
	}
}

// TestDedupWindowFalseDrops streams distinct keys at a steady n a window
// through a window sized for n: the keys dropped once the window is full are
// about as many as windowFalseDrops predicts (the figure -h prints).
func TestDedupWindowFalseDrops(t *testing.T) {
	n, windows := 40_000, 5
	if testing.Short() {
		n, windows = 8_000, 4
	}
	const window = time.Hour
	var in strings.Builder
	step := int64(window) / int64(n)
	for i := range n * windows {
		fmt.Fprintf(&in, "%d https://example.com/item/%d\n", int64(i)*step, i)
	}
	r := runInProcess(in.String(), "dedup", "-n", strconv.Itoa(n), "-window", "1h", "-f", "2", "-time-field", "1", "-time-format", "unixns")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	printed := map[int]bool{}
	for _, l := range lines(r.stdout) {
		i, _ := strconv.Atoi(l[strings.LastIndexByte(l, '/')+1:])
		printed[i] = true
	}
	drops := 0
	for i := n; i < n*windows; i++ { // after the first window
		if !printed[i] {
			drops++
		}
	}
	size, err := blocked.OptimalWindowSize(uint64(n), 0.01)
	if err != nil {
		t.Fatal(err)
	}
	predicted := float64(windows-1) * windowFalseDrops(size, uint64(n))
	if slack := 6*math.Sqrt(predicted) + 3; math.Abs(float64(drops)-predicted) > slack {
		t.Errorf("%d false drops among %d new keys in full windows, predicted %.1f", drops, n*(windows-1), predicted)
	}
	t.Logf("%d new keys in full windows: %d false drops, predicted %.1f", n*(windows-1), drops, predicted)
}

// TestParseTime checks the time formats, and that the allocation-free
// RFC 3339 reader agrees with time.Parse wherever it answers, on random
// valid times and on mutations of them.
func TestParseTime(t *testing.T) {
	for _, c := range []struct {
		in     string
		format timeFormat
		want   int64
		ok     bool
	}{
		{"2026-11-25T10:00:00Z", timeRFC3339, 1795600800e9, true},
		{"2026-11-25T10:00:00.5Z", timeRFC3339, 1795600800e9 + 5e8, true},
		{"2026-11-25T11:30:00.000000001+01:30", timeRFC3339, 1795600800e9 + 1, true},
		{"2026-11-25T10:00:00,5Z", timeRFC3339, 1795600800e9 + 5e8, true}, // time.Parse's comma
		{"2026-11-25 10:00:00Z", timeRFC3339, 0, false},
		{"2026-02-29T10:00:00Z", timeRFC3339, 0, false},
		// RFC 3339 §5.6: "t" and "z" may be lowercase.
		{"2026-11-25t10:00:00z", timeRFC3339, 1795600800e9, true},
		{"2026-11-25T10:00:00z", timeRFC3339, 1795600800e9, true},
		{"2026-11-25t10:00:00Z", timeRFC3339, 1795600800e9, true},
		{"2026-11-25t11:00:00.25+01:00", timeRFC3339, 1795600800e9 + 25e7, true},
		{"2026-11-25t10:00:00z", timeAuto, 1795600800e9, true},
		{"2026-11-25x10:00:00Z", timeRFC3339, 0, false},
		{"2026-11-25T10:00:00y", timeRFC3339, 0, false},
		{"2026-11-25T10:00:00.5", timeRFC3339, 0, false},
		// A leap second is the last instant of second 59.
		{"2016-12-31T23:59:60Z", timeRFC3339, 1483228800e9 - 1, true},
		{"2016-12-31T23:59:60.5Z", timeRFC3339, 1483228800e9 - 1, true},
		{"2016-12-31t23:59:60.999999999z", timeRFC3339, 1483228800e9 - 1, true},
		{"2017-01-01T08:59:60+09:00", timeRFC3339, 1483228800e9 - 1, true},
		{"2016-12-31T23:59:60Z", timeAuto, 1483228800e9 - 1, true},
		{"2026-11-25T10:30:60Z", timeRFC3339, 1795602660e9 - 1, true}, // any minute, as the grammar
		{"2016-12-31T23:59:61Z", timeRFC3339, 0, false},
		{"2016-12-31T23:59:99Z", timeRFC3339, 0, false},
		{"2016-12-31T23:60:00Z", timeRFC3339, 0, false},
		{"2016-12-31T24:00:00Z", timeRFC3339, 0, false},
		// The same through time.Parse (a comma, ten digits of fraction).
		{"2026-11-25t10:00:00,5z", timeRFC3339, 1795600800e9 + 5e8, true},
		{"2026-11-25T10:00:00.1234567891z", timeRFC3339, 1795600800e9 + 123456789, true},
		{"2016-12-31T23:59:60,5Z", timeRFC3339, 1483228800e9 - 1, true},
		{"2016-12-31t23:59:60.1234567891z", timeRFC3339, 1483228800e9 - 1, true},
		{"2016-12-31T23:59:61,5Z", timeRFC3339, 0, false},
		{"2016-12-31T23:59:60,5y", timeRFC3339, 0, false},
		{"2016-12-31x23:59:60,5Z", timeRFC3339, 0, false},
		// The bounds of int64 nanoseconds, with a leap second and
		// lowercase (time.Parse takes the last second).
		{"2262-04-11t23:47:16.854775807z", timeRFC3339, math.MaxInt64, true},
		{"2262-04-11T23:47:16.854775808Z", timeRFC3339, 0, false},
		{"2262-04-11T23:46:60Z", timeRFC3339, 9223372020e9 - 1, true},
		{"2262-04-11T23:47:60Z", timeRFC3339, 0, false},
		{"1677-09-21t00:12:43.145224192z", timeRFC3339, math.MinInt64, true},
		{"1677-09-21T00:12:42,5Z", timeRFC3339, 0, false},
		{"1764064800", timeUnix, 1764064800e9, true},
		{"1764064800.25", timeUnix, 1764064800e9 + 25e7, true},
		{"-1.5", timeUnix, -15e8, true},
		{"1764064800123", timeUnixMs, 1764064800123e6, true},
		{"1764064800123.4567", timeUnixMs, 1764064800123e6 + 456700, true},
		{"1764064800123456", timeUnixUs, 1764064800123456e3, true},
		{"1764064800123456789", timeUnixNs, 1764064800123456789, true},
		{"1764064800123456789.9", timeUnixNs, 1764064800123456789, true},
		{"1764064800", timeAuto, 1764064800e9, true},
		{"1764064800123", timeAuto, 1764064800123e6, true},
		{"1764064800123456", timeAuto, 1764064800123456e3, true},
		{"1764064800123456789", timeAuto, 1764064800123456789, true},
		{"2026-11-25T10:00:00Z", timeAuto, 1795600800e9, true},
		{"9223372036", timeUnix, 9223372036e9, true}, // 2262-04-11
		{"9223372037", timeUnix, 0, false},
		{"9223372036854775807", timeUnixNs, math.MaxInt64, true},
		{"9223372036854775808", timeUnixNs, 0, false},
		{"99999999999999999999999", timeUnixNs, 0, false},
		{"", timeAuto, 0, false},
		{"-", timeUnix, 0, false},
		{"1.", timeUnix, 0, false},
		{".5", timeUnix, 0, false},
		{"1e9", timeUnix, 0, false},
		{"+5", timeUnix, 0, false},
		{"12:00", timeAuto, 0, false},
	} {
		got, ok := parseTime([]byte(c.in), c.format)
		if ok != c.ok || got != c.want {
			t.Errorf("parseTime(%q, %s) = %d, %v; want %d, %v", c.in, timeFormatNames[c.format], got, ok, c.want, c.ok)
		}
	}
	// The fast path reads the lowercase forms and leap seconds itself.
	for _, in := range []string{"2026-11-25t10:00:00z", "2026-11-25T10:00:00.123456789z", "2016-12-31T23:59:60Z", "2016-12-31t23:59:60.5-01:00"} {
		if _, ok := fastRFC3339([]byte(in)); !ok {
			t.Errorf("fastRFC3339(%q) left it to time.Parse", in)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	fast := 0
	for i := range 200_000 {
		// Years 1678..2262 mostly, some beyond.
		sec := rng.Int64N(600*365*86400) - 292*365*86400
		tt := time.Unix(sec, rng.Int64N(1e9)).In(time.FixedZone("", (rng.IntN(48)-24)*1800))
		layout := []string{time.RFC3339, time.RFC3339Nano, "2006-01-02T15:04:05.000Z07:00"}[i%3]
		b := []byte(tt.Format(layout))
		if i%2 == 1 { // mutate a byte
			b[rng.IntN(len(b))] = "0123456789:-+.TZtz ,"[rng.IntN(20)]
		}
		if i%7 == 3 { // some leap seconds
			copy(b[17:19], "60")
		}
		got, ok := fastRFC3339(b)
		if slow, slowOK := slowRFC3339(b); ok && (!slowOK || slow != got) {
			t.Fatalf("fastRFC3339(%q) = %d, slowRFC3339 %d, %v", b, got, slow, slowOK)
		}
		if !ok {
			continue
		}
		fast++
		// time.Parse, which takes neither lowercase nor second 60.
		ref := bytes.ToUpper(b)
		leap := string(ref[17:19]) == "60"
		if leap {
			copy(ref[17:19], "59")
		}
		want, err := time.Parse(time.RFC3339, string(ref))
		if leap {
			want = want.Truncate(time.Second).Add(time.Second - time.Nanosecond)
		}
		if err != nil || want.UnixNano() != got {
			t.Fatalf("fastRFC3339(%q) = %d; time.Parse: %v, %v", b, got, want.UnixNano(), err)
		}
	}
	if fast < 100_000 {
		t.Errorf("the fast path answered only %d of 200000", fast)
	}
}

// TestDedupWindowRFC3339Forms: a -time-field in the RFC 3339 forms
// time.Parse refuses (lowercase "t" and "z", a leap second) is a time:
// the lines are de-duplicated, not printed as lines without a valid time
// (exit 2), and a leap second sits between second 59 and the next minute,
// keeping a key no shorter than the window.
func TestDedupWindowRFC3339Forms(t *testing.T) {
	// With G = 64 a key is remembered at least 1h and at most 1h57.2s.
	in := "2016-12-31t23:00:00z a\n" +
		"2016-12-31T23:59:59.5Z b\n" +
		"2016-12-31T23:59:60Z a\n" + // 59m60s after the first a: within 1h, dropped
		"2016-12-31t23:59:60.5z c\n" +
		"2017-01-01T00:00:00Z c\n" + // within 1h of the leap second's c: dropped
		"2017-01-01T00:59:59.9Z a\n" + // within 1h of the leap second's a: dropped
		"2017-01-01T01:59:60Z b\n" + // 2h after b: printed
		"2017-01-01T02:01:00Z a\n" // 1h1m after a: printed
	r := runInProcess(in, "dedup", "-n", "100", "-window", "1h", "-generations", "64", "-f", "2", "-time-field", "1", "-time-format", "rfc3339")
	want := "2016-12-31t23:00:00z a\n2016-12-31T23:59:59.5Z b\n2016-12-31t23:59:60.5z c\n2017-01-01T01:59:60Z b\n2017-01-01T02:01:00Z a\n"
	if r.code != exitOK || r.stderr != "" || r.stdout != want {
		t.Errorf("exit %d, stderr %q\ngot  %q\nwant %q", r.code, r.stderr, r.stdout, want)
	}
}

// TestWindowDays checks -window's day forms, alone and followed by a Go
// duration.
func TestWindowDays(t *testing.T) {
	for s, want := range map[string]time.Duration{
		"90s":    90 * time.Second,
		"7d":     7 * 24 * time.Hour,
		"1.5d":   36 * time.Hour,
		"1d12h":  36 * time.Hour,
		"2d30m":  48*time.Hour + 30*time.Minute,
		" 1d1s ": 24*time.Hour + time.Second,
		"0d1h":   time.Hour,
	} {
		var v durationValue
		if err := v.Set(s); err != nil || v.d != want {
			t.Errorf("-window %q: %v, %v; want %v", s, v.d, err, want)
		}
	}
	for _, s := range []string{"1d-2h", "1d+2h", "-1d", "d", "1dd", "1d12", "NaNd", "Infd", "106752d", "106751d24h"} {
		var v durationValue
		if err := v.Set(s); err == nil {
			t.Errorf("-window %q: accepted as %v", s, v.d)
		}
	}
}

// TestDedupFutureTime: a line dated more than the window after this
// machine's clock holds the window at its time (as documented: the clock
// does not go back); sift dedup says so on stderr at the end, naming the
// first such line, and keeps its exit status. Lines dated inside the
// window of now give no warning.
func TestDedupFutureTime(t *testing.T) {
	in := "2025-11-25T10:00:00Z a\n2200-01-01T00:00:00Z b\n2025-11-25T10:00:01Z c\n2025-11-25T10:00:02Z a\n"
	r := runInProcess(in, "dedup", "-n", "100", "-window", "1h", "-time-field", "1", "-f", "2")
	if r.code != exitOK || r.stdout != in {
		t.Fatalf("exit %d, stdout %q; want every line (a is judged as of 2200), exit 0", r.code, r.stdout)
	}
	for _, want := range []string{"warning: 1 line dated more than the window (1h0m0s) after this machine's clock", "standard input line 2: 2200-01-01T00:00:00Z"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q lacks %q", r.stderr, want)
		}
	}
	// Dated within the window of now, or long ago (1700: the difference
	// from now overflowed int64, and read as far ahead): no warning.
	soon := time.Now().Add(30 * time.Minute).UTC().Format(time.RFC3339)
	for _, in := range []string{"2025-11-25T10:00:00Z a\n" + soon + " b\n", "1700-01-01T00:00:00Z a\n"} {
		r = runInProcess(in, "dedup", "-n", "100", "-window", "1h", "-time-field", "1", "-f", "2")
		if r.code != exitOK || r.stderr != "" {
			t.Errorf("%q: exit %d, stderr %q; want no warning", in, r.code, r.stderr)
		}
	}
	// Every such line counts, however the input is cut into batches.
	dir := t.TempDir()
	f1 := writeFile(t, dir, "f1", []byte("2200-01-01T00:00:00Z a\n"))
	f2 := writeFile(t, dir, "f2", []byte("2200-01-01T00:00:00Z a\n"))
	for _, r := range []result{
		runInProcess("", "dedup", "-n", "100", "-window", "1h", "-time-field", "1", "-f", "2", f1, f2),
		runInProcess("2200-01-01T00:00:00Z a\n2200-01-01T00:00:00Z a\n", "dedup", "-n", "100", "-window", "1h", "-time-field", "1", "-f", "2"),
	} {
		if !strings.Contains(r.stderr, "warning: 2 lines dated") {
			t.Errorf("two far-future lines: stderr %q", r.stderr)
		}
	}
}

// TestDedupWindowTakesInfosWindow: the window sift info prints for a state
// file is one sift dedup -window takes back, also at the longest windows
// a Window of that many generations holds (how long depends on G).
func TestDedupWindowTakesInfosWindow(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		g      int
		window time.Duration
	}{
		{2, math.MaxInt64 - 1},
		{2, math.MaxInt64},
		{4, math.MaxInt64 / 3 * 3},
		{64, math.MaxInt64 / 63 * 63},
		{4, time.Hour},
	} {
		path := filepath.Join(dir, fmt.Sprintf("w-%d-%d.sift", c.g, c.window))
		w, err := blocked.NewWindow(100, 0.01, c.window, blocked.WithGenerations(c.g))
		if err != nil {
			t.Fatal(err)
		}
		w.AddString("a")
		if err := sift.WriteFile(path, w, 0); err != nil {
			t.Fatal(err)
		}
		w.Close()
		info := runInProcess("", "info", path)
		_, rest, ok := strings.Cut(info.stdout, ", window ")
		printed, _, ok2 := strings.Cut(rest, " ")
		if !ok || !ok2 {
			t.Fatalf("G %d window %v: sift info printed no window: %q", c.g, c.window, info.stdout)
		}
		r := runInProcess("a\nb\n", "dedup", "-window", printed, "-state", path)
		if r.code != exitOK || r.stdout != "b\n" {
			t.Errorf("G %d window %v: sift dedup -window %s (as sift info printed it): exit %d stdout %q stderr %q; want b alone",
				c.g, c.window, printed, r.code, r.stdout, strings.TrimSpace(r.stderr))
		}
	}
}

// TestDedupReportsOneLine: the reports at the end of a -time-field run
// (the lines without a valid time, the lines dated ahead of this machine's
// clock) are one line each, also when they name an input whose name holds
// a newline, as the message for an input that cannot be read is (they
// were printed without oneLine and came out in two lines).
func TestDedupReportsOneLine(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "probe\nname"), nil, 0o644); err != nil {
		t.Skip("no newline in file names here:", err)
	}
	bad := writeFile(t, dir, "x\ny", []byte("noon a\n"))
	future := writeFile(t, dir, "f\nuture", []byte("2200-01-01T00:00:00Z a\n"))
	for _, c := range []struct {
		in   string
		want string
	}{
		{bad, `1 line without a valid time in field 1 printed without de-duplication (first: ` + dir + `/x; y line 1: "noon" is not`},
		{future, "warning: 1 line dated more than the window (1h0m0s) after this machine's clock (first: " + dir + "/f; uture line 1: 2200-01-01T00:00:00Z)"},
	} {
		r := runInProcess("", "dedup", "-n", "100", "-window", "1h", "-f", "2", "-time-field", "1", c.in)
		if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("dedup of %q: stderr %q; want one line with %q", c.in, r.stderr, c.want)
		}
	}
}

// TestDedupWindowStateOtherKind: dedup -window on a -state file of a kind
// dedup does not keep says which kinds it keeps; only a blocked file gets
// the hint to leave out -window, since a run without -window refuses the
// other kinds too (the hint led there for every kind).
func TestDedupWindowStateOtherKind(t *testing.T) {
	dir := t.TempDir()
	keys := writeFile(t, dir, "keys.txt", []byte("a\nb\n"))
	files := map[string]string{}
	for _, kind := range []string{"blocked", "cuckoo", "classic", "sbbf", "scalable"} {
		files[kind] = filepath.Join(dir, kind+".sift")
		args := []string{"build", "-q", "-kind", kind, "-n", "100", "-o", files[kind], keys}
		stdin := ""
		if kind == "scalable" { // -kind blocked without -n, from standard input
			args, stdin = []string{"build", "-q", "-o", files[kind]}, "a\nb\n"
		}
		if r := runInProcess(stdin, args...); r.code != exitOK {
			t.Fatalf("sift %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	c, err := classic.NewCounting(100, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := c.MarshalBinary()
	files["counting"] = writeFile(t, dir, "counting.sift", data)
	for kind, path := range files {
		r := runInProcess("a\n", "dedup", "-window", "1h", "-state", path)
		want := "holds a " + kind + " filter; sift dedup keeps a blocked or window filter"
		if kind == "blocked" {
			want = "holds a blocked filter; sift dedup -window keeps a window filter (leave out -window to use this one)"
		}
		if r.code != exitError || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("-window -state %s: exit %d, stderr %q; want exit 2 and one line with %q", kind, r.code, r.stderr, want)
		}
		if kind == "blocked" {
			continue
		}
		if strings.Contains(r.stderr, "leave out -window") {
			t.Errorf("-window -state %s: stderr %q advises a run that refuses the file too", kind, r.stderr)
		}
		// Without -window: the same words.
		r = runInProcess("a\n", "dedup", "-state", path)
		if r.code != exitError || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("-state %s: exit %d, stderr %q; want exit 2 and one line with %q", kind, r.code, r.stderr, want)
		}
	}
}
