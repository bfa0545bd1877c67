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

	"github.com/sift-go/sift/hash"
)

// errHelp is returned by parseFlags when -h or -help was given: the command
// prints its usage on stdout and exits 0.
var errHelp = errors.New("help requested")

// newFlagSet returns a flag set that reports nothing itself: parseFlags turns
// its errors into one line.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("sift "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args allowing flags after positional arguments (as in
// "sift query f.sift -v"); "--" ends the flags. It returns the positional
// arguments in order.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
			return nil, fmt.Errorf("%v (run '%s -h' for usage)", err, fs.Name())
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// fs.Parse stops at the first non-flag, or just after "--".
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// countValue is a flag holding a non-negative key count. It accepts plain
// integers ("1000000", "1_000_000"), scientific notation for integral values
// ("1e6") and the suffixes k, M, G (powers of 1000).
type countValue struct {
	n   int64
	set bool
}

func (c *countValue) String() string { return strconv.FormatInt(c.n, 10) }

func (c *countValue) Set(s string) error {
	n, err := parseCount(s)
	if err != nil {
		return err
	}
	c.n, c.set = n, true
	return nil
}

func parseCount(s string) (int64, error) {
	t := strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	mult := 1.0
	if t != "" {
		switch t[len(t)-1] {
		case 'k', 'K':
			mult = 1e3
		case 'm', 'M':
			mult = 1e6
		case 'g', 'G':
			mult = 1e9
		}
		if mult != 1 {
			t = t[:len(t)-1]
		}
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil && mult == 1 {
		if n < 0 {
			return 0, fmt.Errorf("%q is negative", s)
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a count (examples: 1000000, 1e6, 1M)", s)
	}
	f *= mult
	if f < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	if f != math.Trunc(f) || f >= 1<<62 {
		return 0, fmt.Errorf("%q is not a whole number of keys below 2^62", s)
	}
	return int64(f), nil
}

// fppValue is a flag holding a false-positive probability in (0, 1). A
// trailing "%" divides by 100 ("1%" = 0.01).
type fppValue struct {
	p   float64
	set bool
}

func (v *fppValue) String() string { return strconv.FormatFloat(v.p, 'g', -1, 64) }

func (v *fppValue) Set(s string) error {
	t := strings.TrimSpace(s)
	div := 1.0
	if strings.HasSuffix(t, "%") {
		t, div = strings.TrimSuffix(t, "%"), 100
	}
	p, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return fmt.Errorf("%q is not a probability (examples: 0.01, 1e-3, 1%%)", s)
	}
	p /= div
	if !(p > 0 && p < 1) {
		return fmt.Errorf("%q is not in (0, 1)", s)
	}
	v.p, v.set = p, true
	return nil
}

// seedValue is a flag holding a hash seed: decimal, 0x-prefixed hex, or
// "random" for a seed from the operating system's random source.
type seedValue struct {
	seed uint64
	set  bool
}

func (v *seedValue) String() string { return fmt.Sprintf("%#x", v.seed) }

func (v *seedValue) Set(s string) error {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "random" {
		v.seed, v.set = hash.RandomSeed(), true
		return nil
	}
	n, err := parseUint(t)
	if err != nil {
		return fmt.Errorf("%q is not a seed (a 64-bit unsigned integer, 0x-hex, or \"random\")", s)
	}
	v.seed, v.set = n, true
	return nil
}

// parseUint parses a 64-bit unsigned integer as the usages describe it:
// decimal, or hex after 0x, with optional underscores. A leading zero is
// a decimal digit: strconv's base 0 would read 017 as octal (15), so a
// zero-padded -seed, -blocks or -generation from a script silently
// differed from the number written.
func parseUint(s string) (uint64, error) {
	t := strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	if h, ok := strings.CutPrefix(strings.ToLower(t), "0x"); ok {
		return strconv.ParseUint(h, 16, 64)
	}
	return strconv.ParseUint(t, 10, 64)
}

// uintValue is a flag holding a positive 64-bit count given exactly:
// decimal, 0x-hex, with optional underscores.
type uintValue struct {
	n   uint64
	set bool
}

func (v *uintValue) String() string { return strconv.FormatUint(v.n, 10) }

func (v *uintValue) Set(s string) error {
	n, err := parseUint(s)
	if err != nil || n == 0 {
		return fmt.Errorf("%q is not a positive integer", s)
	}
	v.n, v.set = n, true
	return nil
}

// generationValue is the -generation flag: a positive 64-bit integer, or
// "now" for the current Unix time in seconds.
type generationValue struct{ uintValue }

func (v *generationValue) Set(s string) error {
	if strings.EqualFold(strings.TrimSpace(s), "now") {
		v.n, v.set = uint64(time.Now().Unix()), true
		return nil
	}
	if err := v.uintValue.Set(s); err != nil {
		return fmt.Errorf("%q is not a generation (a positive 64-bit integer, or \"now\")", s)
	}
	return nil
}

// choiceValue is a flag that takes one of a fixed set of words.
type choiceValue struct {
	val     string
	choices []string
	set     bool
}

func (v *choiceValue) String() string { return v.val }

func (v *choiceValue) Set(s string) error {
	t := strings.ToLower(strings.TrimSpace(s))
	for _, c := range v.choices {
		if t == c {
			v.val, v.set = t, true
			return nil
		}
	}
	return fmt.Errorf("%q is not one of %s", s, strings.Join(v.choices, ", "))
}
