package errs

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestError(t *testing.T) {
	cause := &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrNotExist}
	for _, c := range []struct {
		err   error
		want  string
		match []error
	}{
		{Truncated, "sift: truncated input", nil},
		{New("", "bare"), "bare", nil},
		{Annotatef("cuckoo", []error{InvalidArgument}, "capacity %d", 0), "cuckoo: invalid argument: capacity 0", []error{InvalidArgument}},
		{Annotatef("classic", []error{InvalidArgument, TooLarge}, "n"), "classic: invalid argument: n", []error{InvalidArgument, TooLarge}},
		{Errorf("blocked", []error{Corrupt}, "k = %d", 0), "blocked: k = 0", []error{Corrupt}},
		// Wrap takes the inner message without its prefix, once.
		{Wrap("blocked", Annotatef("sift", []error{Truncated}, "header")), "blocked: truncated input: header", []error{Truncated}},
		{Wrap("blocked", Wrap("blocked", Magic)), "blocked: not a sift filter (bad magic)", []error{Magic}},
		// A foreign error keeps its whole message and stays reachable.
		{Wrap("cuckoo", cause), "cuckoo: open /x: file does not exist", []error{cause, fs.ErrNotExist}},
		// A sentinel that is a special case of another.
		{Errorf("blocked", []error{New("blocked", "k must be in 1..16", InvalidArgument)}, "k"), "blocked: k", []error{InvalidArgument}},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
		for _, m := range c.match {
			if !errors.Is(c.err, m) {
				t.Errorf("%q does not match %v", c.err, m)
			}
		}
		if errors.Is(c.err, Closed) {
			t.Errorf("%q matches Closed", c.err)
		}
		var e *Error
		if !errors.As(c.err, &e) || e != c.err {
			t.Errorf("%q: errors.As", c.err)
		}
	}
	if Wrap("sift", nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
	var pe *fs.PathError
	if !errors.As(Wrap("sift", cause), &pe) || pe != cause {
		t.Error("errors.As does not reach the cause")
	}
	if Detail(cause) != cause.Error() || Detail(Truncated) != "truncated input" {
		t.Error("Detail")
	}
}

func ExampleWrap() {
	// The format reader's error, under package blocked's prefix.
	inner := Annotatef("sift", []error{Truncated}, "header needs %d bytes, have %d", 128, 100)
	err := Wrap("blocked", inner)
	fmt.Println(err)
	fmt.Println(errors.Is(err, Truncated))
	// Output:
	// blocked: truncated input: header needs 128 bytes, have 100
	// true
}
