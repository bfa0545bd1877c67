package reload_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/reload"
)

// panicOf runs fn and returns what it panicked with (nil if it returned).
func panicOf(fn func()) (r any) {
	defer func() { r = recover() }()
	fn()
	return nil
}

// wantPanic fails t unless p is an error wrapping ErrClosed whose message
// contains msg.
func wantPanic(t *testing.T, what string, p any, msg string) {
	t.Helper()
	err, _ := p.(error)
	if !errors.Is(err, reload.ErrClosed) || !strings.Contains(err.Error(), msg) {
		t.Errorf("%s: panic %v; want an error wrapping ErrClosed that says %q", what, p, msg)
	}
}

// openKeysA publishes a blocked filter of keysOf("a", 100), generation 1,
// at a new path and opens it with no reload interval.
func openKeysA(t *testing.T) (*reload.Filter, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.sift")
	publish(t, path, encode(t, sift.KindBlocked, keysOf("a", 100), 1, 0))
	f, err := reload.Open(path, reload.WithInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	return f, path
}

// TestSnapshotReleasedTwice: defer s.Release() plus an early s.Release()
// panics at the second call, and that Release takes no count away: a
// Snapshot held across a swap still answers from its file (findings R, 1;
// the tester's snaprel). Before, the second Release subtracted a reader
// another lookup was counted under, the swap freed the file under the held
// Snapshot, and its lookup panicked with sift's "use of a closed View".
func TestSnapshotReleasedTwice(t *testing.T) {
	f, path := openKeysA(t)
	p := panicOf(func() {
		s := f.Acquire()
		defer s.Release()
		if s.ContainsString("a-1") {
			s.Release() // an early Release on one path
		}
	})
	wantPanic(t, "defer s.Release() after s.Release()", p, "reload: Snapshot released twice")
	held := f.Acquire()
	publish(t, path, encode(t, sift.KindBlocked, keysOf("b", 100), 2, 0))
	if err := f.Reload(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // a drain that (wrongly) saw no reader has run
	if p := panicOf(func() {
		if !held.ContainsString("a-5") || held.Version().Generation != 1 {
			t.Error("the held Snapshot does not answer from its file")
		}
	}); p != nil {
		t.Fatalf("the held Snapshot's lookup panicked: %v", p)
	}
	held.Release()
	closeWithin(t, f, 5*time.Second)
}

// closeWithin closes f and fails t if Close does not return within d (a
// reader count that went below zero keeps the drain waiting for ever).
func closeWithin(t *testing.T, f *reload.Filter, d time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(d):
		t.Fatalf("Close did not return within %v", d)
	}
}

// TestSnapshotUseAfterRelease: every method of a released Snapshot panics
// with "use of a released Snapshot" instead of reading the file, which a
// swap may have freed; a zero Snapshot's say so too. Before, a released
// Snapshot went on reading its file (freed or not), and a zero one
// panicked with a nil dereference.
func TestSnapshotUseAfterRelease(t *testing.T) {
	f, _ := openKeysA(t)
	defer closeWithin(t, f, 5*time.Second)
	s := f.Acquire()
	s.Release()
	var zero reload.Snapshot
	for _, c := range []struct {
		what string
		s    *reload.Snapshot
		msg  string
	}{
		{"released", &s, "reload: use of a released Snapshot"},
		{"zero", &zero, "reload: use of a zero Snapshot"},
	} {
		s := c.s
		out := make([]bool, 1)
		for name, call := range map[string]func(){
			"Contains":       func() { s.Contains([]byte("a-1")) },
			"ContainsString": func() { s.ContainsString("a-1") },
			"ContainsUint64": func() { s.ContainsUint64(1) },
			"Hash":           func() { s.Hash([]byte("a-1")) },
			"HashString":     func() { s.HashString("a-1") },
			"ContainsHash":   func() { s.ContainsHash(1) },
			"ContainsHashes": func() { s.ContainsHashes([]uint64{1}, out) },
			"Version":        func() { s.Version() },
		} {
			wantPanic(t, fmt.Sprintf("%s of a %s Snapshot", name, c.what), panicOf(call), c.msg)
		}
	}
	wantPanic(t, "Release of a zero Snapshot", panicOf(zero.Release), "reload: use of a zero Snapshot")
	wantPanic(t, "a second Release", panicOf(s.Release), "reload: Snapshot released twice")
}

// TestSnapshotCopyReleased: Release of a second copy of a Snapshot, when no
// other lookup is counted with it, panics rather than take the count below
// zero. Before, the count went to -1 and the next lookup counted there
// made it 0: a swap then freed the file under that lookup.
func TestSnapshotCopyReleased(t *testing.T) {
	f, _ := openKeysA(t)
	s := f.Acquire()
	c := s
	c.Release()
	wantPanic(t, "Release of the copy's original", panicOf(s.Release), "a copy of this Snapshot was released already")
	if !f.ContainsString("a-1") {
		t.Error("the Filter lost a key")
	}
	closeWithin(t, f, 5*time.Second)
}

// TestStrayReleaseRace is the tester's snaprace (findings R, 1), made
// short: goroutines run plain lookups while the file is swapped, and each
// swap follows a Snapshot released twice. The second Release panics and
// no lookup ever reads a freed file. Before, the stray Release let each
// swap free the old file under a lookup in flight: lookups panicked with
// "use of a closed View" (a large mapped copy faulted the process), and
// Close could wait for ever for a count that stayed below zero.
func TestStrayReleaseRace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.sift")
	common := keysOf("common", 200)
	version := func(i int) []byte {
		return encode(t, sift.KindBlocked, append(keysOf(fmt.Sprint("v", i), 50), common...), uint64(i+1), uint64(i))
	}
	publish(t, path, version(0))
	f, err := reload.Open(path, reload.WithInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	var panics, missing atomic.Int64
	var first atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := r; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if p := panicOf(func() {
					for _, k := range common {
						if !f.ContainsString(k) {
							missing.Add(1)
						}
					}
				}); p != nil {
					panics.Add(1)
					first.CompareAndSwap(nil, fmt.Sprint(p))
				}
			}
		}()
	}
	swaps := 40
	if testing.Short() {
		swaps = 20
	}
	var stray any // the first stray Release's panic that is not the one wanted
	for i := 1; i <= swaps; i++ {
		s := f.Acquire()
		s.Release()
		if p := panicOf(s.Release); stray == nil {
			if err, _ := p.(error); !errors.Is(err, reload.ErrClosed) || !strings.Contains(err.Error(), "Snapshot released twice") {
				stray = fmt.Sprintf("panic %v", p)
			}
		}
		publish(t, path, version(i))
		if err := f.Reload(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if stray != nil {
		t.Errorf("a stray Release: %v; want one wrapping ErrClosed that says \"Snapshot released twice\"", stray)
	}
	if n := panics.Load(); n != 0 {
		t.Errorf("%d lookups panicked, the first with %v", n, first.Load())
	}
	if n := missing.Load(); n != 0 {
		t.Errorf("%d false negatives", n)
	}
	closeWithin(t, f, 5*time.Second)
}
