package reload_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/internal/edgetest"
	"github.com/sift-go/sift/internal/mem"
	"github.com/sift-go/sift/reload"
)

// fireCase is one thing an operator does to a served file in place: it
// runs between the readers' start and the check that the new file is
// served. step is called between the writes, so the test can poll the
// file in every intermediate state.
type fireCase struct {
	name string
	// act changes the file at path, which holds old, into new (nil: it
	// leaves the path broken and the old filter must stay served).
	act func(t *testing.T, path string, old, new []byte, step func())
}

// writeInPlace writes data over the file at path through one descriptor
// opened with flag, chunk bytes at a time, calling step after each write:
// what cp (O_TRUNC) or a same-size rewrite (no O_TRUNC) does.
func writeInPlace(t *testing.T, path string, data []byte, flag, chunk int, step func()) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|flag, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	step()
	for off := 0; off < len(data); off += chunk {
		if _, err := f.Write(data[off:min(off+chunk, len(data))]); err != nil {
			t.Fatal(err)
		}
		step()
	}
}

var fireCases = []fireCase{
	{"cp over it (O_TRUNC, then 16 chunks)", func(t *testing.T, path string, _, new []byte, step func()) {
		writeInPlace(t, path, new, os.O_TRUNC, len(new)/16+1, step)
	}},
	{"rewritten in place at the same size", func(t *testing.T, path string, _, new []byte, step func()) {
		writeInPlace(t, path, new, 0, len(new)/16+1, step)
	}},
	{"truncated to 0, then written", func(t *testing.T, path string, _, new []byte, step func()) {
		if err := os.Truncate(path, 0); err != nil {
			t.Fatal(err)
		}
		step()
		writeInPlace(t, path, new, 0, len(new)/4+1, step)
	}},
	{"truncated mid-payload, then written", func(t *testing.T, path string, old, new []byte, step func()) {
		if err := os.Truncate(path, int64(len(old)/2)); err != nil {
			t.Fatal(err)
		}
		step()
		writeInPlace(t, path, new, os.O_TRUNC, len(new)/4+1, step)
	}},
	{"truncated to every length", func(t *testing.T, path string, old, new []byte, step func()) {
		for _, n := range []int{len(old) - 1, len(old) - 4096, len(old) / 3, 4096, 129, 128, 127, 1, 0} {
			if err := os.Truncate(path, int64(n)); err != nil {
				t.Fatal(err)
			}
			step()
		}
		writeInPlace(t, path, new, os.O_TRUNC, len(new)/4+1, step)
	}},
	{"renamed over (the safe way)", func(t *testing.T, path string, _, new []byte, step func()) {
		publish(t, path, new)
		step()
	}},
}

// TestUnderFire: readers on every core look keys up through a Filter
// while its file is rewritten in place (as cp does, in chunks, and at the
// same size) or truncated (to 0, mid-payload, to many lengths). Every
// intermediate state is polled (the poll trigger runs between the writes,
// and a 1 ms ticker besides). Nothing crashes, no key present in both
// versions is ever reported absent, the broken file is reported once, and
// the first poll after the copy completes serves the new file.
//
// With the mapping served in place (before the copy became the default)
// the truncations killed the test binary with SIGBUS and the same-size
// rewrite reported common keys absent; the scenarios run in a child
// process so that a fault fails this test instead of ending the run.
func TestUnderFire(t *testing.T) {
	if arg := edgetest.Arg(); strings.HasPrefix(arg, "fire") {
		underFire(t, arg == "fire-short")
		return
	}
	arg := "fire"
	if testing.Short() {
		arg = "fire-short" // the child runs without -test.short
	}
	out, err := edgetest.Run("TestUnderFire", arg)
	if err != nil || !bytes.Contains(out, []byte("--- PASS: TestUnderFire")) {
		t.Fatalf("the scenarios failed (%v):\n%s\n...\n%s", err, summary(out), tail(out, 1500))
	}
	if testing.Verbose() {
		t.Logf("child:\n%s", tail(out, 2000))
	}
}

func tail(b []byte, n int) []byte { return b[max(0, len(b)-n):] }

// summary picks the lines of a child's output that say what went wrong: a
// fault, a fatal error, failed subtests and their messages.
func summary(out []byte) string {
	var keep []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "signal") || strings.Contains(l, "fatal error") || strings.Contains(l, "FAIL") ||
			strings.Contains(l, "fire_test.go") && !strings.Contains(l, "+0x") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func underFire(t *testing.T, short bool) {
	common := keysOf("both", 2000)
	n := 200_000 // ~240 KiB of blocks
	if short {
		n = 20_000
	}
	oldKeys := append(keysOf("old", n), common...)
	newKeys := append(keysOf("new", n), common...)
	gens := uint64(1)
	for _, kind := range kinds {
		for i, c := range fireCases {
			if short && kind != sift.KindBlocked && i > 1 {
				continue // -short: every case for one kind, the copies for the others
			}
			t.Run(fmt.Sprintf("%v/%s", kind, c.name), func(t *testing.T) {
				old := encode(t, kind, oldKeys, gens, 1)
				new := encode(t, kind, newKeys, gens+1, 2)
				gens += 2
				if len(old) != len(new) {
					t.Fatalf("the versions differ in size: %d, %d", len(old), len(new))
				}
				fire(t, c, old, new, common)
			})
		}
	}
}

func fire(t *testing.T, c fireCase, old, new []byte, common []string) {
	path := filepath.Join(t.TempDir(), "f.sift")
	publish(t, path, old)
	oldV, _ := sift.Inspect(old)
	newV, _ := sift.Inspect(new)
	var mu sync.Mutex
	var reported []error
	f, err := reload.Open(path, reload.WithInterval(time.Millisecond), reload.WithOnError(func(err error) {
		mu.Lock()
		reported = append(reported, err)
		mu.Unlock()
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	var stop atomic.Bool
	var lookups, absent atomic.Int64
	var wg, started sync.WaitGroup
	for r := range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		started.Add(1)
		go func() {
			defer wg.Done()
			var n, miss int64
			for i := r; !stop.Load(); i++ {
				if !f.ContainsString(common[i%len(common)]) {
					miss++
				}
				if n++; n == 1000 {
					started.Done()
				}
			}
			lookups.Add(n)
			absent.Add(miss)
		}()
	}
	started.Wait() // every reader is running
	polls := 0
	step := func() {
		polls++
		_ = f.Poll()
		v := f.Version()
		if v.Generation != oldV.Generation && v.Generation != newV.Generation {
			t.Errorf("serving generation %d mid-copy", v.Generation)
		}
		runtime.Gosched()
	}
	c.act(t, path, old, new, step)
	// The copy is complete: the next poll serves it, without another
	// signal (the same inode, possibly the same size and time stamp).
	if err := f.Poll(); err != nil {
		t.Fatalf("the poll after the copy completed: %v", err)
	}
	if v := f.Version(); v.Generation != newV.Generation {
		t.Fatalf("after the copy completed and one poll: serving generation %d, want %d", v.Generation, newV.Generation)
	}
	stop.Store(true)
	wg.Wait()
	if absent.Load() != 0 {
		t.Fatalf("%d of %d lookups reported a key of both versions absent", absent.Load(), lookups.Load())
	}
	if lookups.Load() == 0 {
		t.Fatal("no lookups ran")
	}
	mu.Lock()
	defer mu.Unlock()
	want := 1
	if strings.HasPrefix(c.name, "renamed") {
		want = 0
	}
	if len(reported) != want {
		t.Fatalf("%d errors reported, want %d: %v", len(reported), want, reported)
	}
	for _, err := range reported {
		if !errors.Is(err, sift.ErrTruncated) && !errors.Is(err, sift.ErrChecksum) && !errors.Is(err, mem.ErrChanged) {
			t.Errorf("reported %v, want an error wrapping ErrTruncated, ErrChecksum or mem.ErrChanged", err)
		}
	}
	t.Logf("%d lookups on %d goroutines, %d polls, 0 absent, reported: %v", lookups.Load(), runtime.GOMAXPROCS(0), polls, reported)
}
