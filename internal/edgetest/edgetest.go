// Package edgetest holds what the tests of sift's edges share: running a
// test in a child process (for failures that would end the test binary,
// such as the Go runtime's fatal out-of-memory error), checking that
// constructors fail cleanly on sizes beyond the machine, that Open refuses
// special files without blocking, and that misuse fails with the right
// error or panic; and the goroutine fan-out of the Concurrent scaling
// benchmarks.
package edgetest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sift-go/sift/internal/errs"
)

// Case is one constructor call for Huge: Make asks for about Bytes bytes.
type Case struct {
	Name  string
	Bytes uint64
	Make  func() error
}

// Huge runs every case in a child process of test, the calling test
// function, which must call Huge with the same cases: in the child it runs
// the case the parent asked for and exits 3 on an error other than one
// wrapping sift.ErrTooLarge. The parent fails the test when a child
// crashed, or succeeded where machine, the machine's memory
// (mem.MachineMemory; 0 when unknown), is smaller than the case's size.
// Cases that may fit the machine (all below 1 TiB when its memory is
// unknown) are not run: their constructor would succeed and, since new
// mappings are prefaulted, really take the memory.
// (This package does not import internal/mem, whose own tests use it.)
func Huge(t *testing.T, test string, machine uint64, cases []Case) {
	t.Helper()
	if arg := Arg(); arg != "" {
		for _, c := range cases {
			if c.Name == arg {
				err := c.Make()
				fmt.Printf("child %s: %v\n", arg, err)
				if err != nil && !errors.Is(err, errs.TooLarge) {
					os.Exit(3)
				}
			}
		}
		return
	}
	for _, c := range cases {
		beyond := machine != 0 && machine < c.Bytes
		if !beyond && (machine != 0 || c.Bytes < 1<<40) {
			// The constructor might succeed and touch every page of
			// c.Bytes (internal/mem prefaults new mappings): too much for
			// a test to take from the machine.
			t.Logf("%s: %d bytes may fit this machine (memory %d, 0 = unknown): not run", c.Name, c.Bytes, machine)
			continue
		}
		out, err := Run(test, c.Name)
		switch {
		case err != nil:
			t.Errorf("%s: child failed: %v\n%s", c.Name, err, out)
		case !bytes.Contains(out, []byte("child "+c.Name+": ")):
			t.Errorf("%s: the child did not run it:\n%s", c.Name, out)
		case beyond && bytes.Contains(out, []byte("child "+c.Name+": <nil>")):
			t.Errorf("%s: no error on a machine with %d bytes:\n%s", c.Name, machine, out)
		}
	}
}

// Recovered runs f and returns what it panicked with, or nil.
func Recovered(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// WantPanic fails unless f panics; with a sentinel, unless it panics with
// an error that wraps it and whose message starts with prefix.
func WantPanic(t *testing.T, prefix, what string, sentinel error, f func()) {
	t.Helper()
	v := Recovered(f)
	if v == nil {
		t.Errorf("%s: no panic", what)
		return
	}
	if sentinel == nil {
		return
	}
	if err, ok := v.(error); !ok || !errors.Is(err, sentinel) || !strings.HasPrefix(err.Error(), prefix) {
		t.Errorf("%s: panicked with %v, want a %q error wrapping %v", what, v, prefix, sentinel)
	}
}

// WantErr fails unless err wraps sentinel, starts with prefix and carries
// no other package prefix ("sift: ").
func WantErr(t *testing.T, prefix, what string, err, sentinel error) {
	t.Helper()
	msg := fmt.Sprint(err)
	if !errors.Is(err, sentinel) || !strings.HasPrefix(msg, prefix) || strings.Contains(msg, "sift: ") {
		t.Errorf("%s: %v, want a %q error wrapping %v", what, err, prefix, sentinel)
	}
}
