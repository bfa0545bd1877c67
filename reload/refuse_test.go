package reload_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/classic"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/mem"
	"github.com/sift-go/sift/reload"
)

// TestRefusedFromHead: a file the header already condemns (not a sift
// file; a valid header with a long tail; a payload over WithMaxSize) is
// refused without being read: the check reads its head only. Before, a
// replacement that was not a sift file, or had bytes after the filter, was
// read whole (a GiB file took seconds and a GiB of memory) and then
// refused.
func TestRefusedFromHead(t *testing.T) {
	if _, ok := reload.ReadBytes(); !ok {
		t.Skip("no /proc/self/io on this system")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	good := encode(t, sift.KindBlocked, keysOf("k", 1000), 1, 0)
	publish(t, path, good)
	f, err := reload.Open(path, reload.WithInterval(0), reload.WithMaxSize(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	const tail = 256 << 20 // sparse: costs no disk
	for _, c := range []struct {
		name string
		data []byte
		size int64
		want error
	}{
		{"not a sift file", []byte(strings.Repeat("not a filter\n", 20)), tail, sift.ErrMagic},
		{"a filter with a long tail", good, tail, sift.ErrCorrupt},
		{"a filter cut short", good[:len(good)-64], 0, sift.ErrTruncated},
	} {
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if c.size > 0 {
			if err := os.Truncate(tmp, c.size); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		before, _ := reload.ReadBytes()
		err := f.Reload()
		after, _ := reload.ReadBytes()
		if !errors.Is(err, c.want) {
			t.Errorf("%s: Reload = %v, want %v", c.name, err, c.want)
		}
		if read := after - before; read > 1<<20 {
			t.Errorf("%s: %d bytes read to refuse it", c.name, read)
		}
		if v := f.Version(); v.Generation != 1 {
			t.Errorf("%s: serving %+v", c.name, v)
		}
	}
}

// TestKindRefusedFromHead: a file of a kind no View serves (here a
// classic filter whose header declares a 64 MiB payload, sparse on disk)
// is refused from its header, with the error a whole read gave, without
// its payload being read. Before, Reload read the whole file and then
// refused it (a 229 MiB classic file: 92 ms and 232 MiB of RSS), and the
// poll read it again while it was within the racy window.
func TestKindRefusedFromHead(t *testing.T) {
	if _, ok := reload.ReadBytes(); !ok {
		t.Skip("no /proc/self/io on this system")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	publish(t, path, encode(t, sift.KindBlocked, keysOf("k", 1000), 1, 0))
	f, err := reload.Open(path, reload.WithInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	c, err := classic.New(1000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	// The same header declaring a larger payload (its CRC recomputed), the
	// payload a hole: the size matches the header, so only the kind is
	// wrong.
	const payload = 64 << 20
	off := binary.LittleEndian.Uint64(b[24:])
	binary.LittleEndian.PutUint64(b[32:], payload)
	binary.LittleEndian.PutUint32(b[124:], format.Checksum(b[:124]))
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b[:off], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(tmp, int64(off)+payload); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	for _, way := range []string{"Reload", "Poll"} {
		before, _ := reload.ReadBytes()
		if way == "Reload" {
			err = f.Reload()
		} else {
			err = f.Poll()
		}
		after, _ := reload.ReadBytes()
		if !errors.Is(err, sift.ErrKind) || !strings.Contains(err.Error(), "a classic filter cannot be viewed in place") {
			t.Errorf("%s: %v, want the classic kind refused", way, err)
		} else {
			checkErrorModel(t, way, err)
		}
		if read := after - before; read > 1<<20 {
			t.Errorf("%s: %d bytes read to refuse a classic file", way, read)
		}
	}
	if v := f.Version(); v.Generation != 1 {
		t.Errorf("serving %+v", v)
	}
}

// refusedUpdate serves a window file, opens it for polling (with opts),
// makes the next n attempts of the way fail (reload.FailObtain or
// FailServe) with refusal, then replaces the file (generation 2) and pins
// its modification time outside the racy window, so that only the
// refusal's kind decides whether the poll tries the unchanged file again.
// The hook is undone at the end of the test, or by calling restore.
func refusedUpdate(t *testing.T, fail func(int, error) func(), n int, refusal error, opts ...reload.Option) (f *reload.Filter, restore func()) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.sift")
	publish(t, path, encode(t, sift.KindWindow, keysOf("k", 1000), 1, 0))
	f, err := reload.Open(path, append([]reload.Option{reload.WithInterval(0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	restore = fail(n, refusal)
	t.Cleanup(restore)
	publish(t, path, encode(t, sift.KindWindow, keysOf("n", 1000), 2, 0))
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	return f, restore
}

// refusalWays are the two places a refusal of memory comes from: the
// file's copy, and the view's own memory (a window's generations).
var refusalWays = map[string]func(int, error) func(){"copy": reload.FailObtain, "view": reload.FailServe}

// TestMemoryRefusalRetried: a file refused for want of memory (the memory
// available now), for its copy or for the view's own memory (a window's
// generations), is tried again by the poll, without Reload and although
// it does not change: when memory is free again, it is served. Before, the
// poll skipped an unchanged file that had failed, as it does a damaged one,
// and the old version stayed served until the file changed.
func TestMemoryRefusalRetried(t *testing.T) {
	refusal := fmt.Errorf("read: %w: %w: 1000 bytes", sift.ErrTooLarge, mem.ErrMemoryNow)
	for name, fail := range refusalWays {
		var reported []error
		f, restore := refusedUpdate(t, fail, 3, refusal, reload.WithOnError(func(err error) { reported = append(reported, err) }))
		for i := range 3 {
			if err := f.Poll(); !errors.Is(err, sift.ErrTooLarge) {
				t.Fatalf("%s: poll %d: %v, want the memory refusal", name, i, err)
			}
		}
		if len(reported) != 1 {
			t.Errorf("%s: reported %d times, want once: %v", name, len(reported), reported)
		}
		if err := f.Poll(); err != nil {
			t.Fatalf("%s: poll with memory free: %v", name, err)
		}
		if v := f.Version(); v.Generation != 2 || f.Err() != nil {
			t.Fatalf("%s: after memory came back: serving %+v, Err %v", name, v, f.Err())
		}
		restore()
	}
}

// TestPermanentSizeRefusalNotRetried: an ErrTooLarge that is not about
// the memory available now (a size beyond the machine or the platform)
// is final for an unchanged file, as a damaged file is: the poll does not
// read it again, even once the same read would succeed.
func TestPermanentSizeRefusalNotRetried(t *testing.T) {
	refusal := fmt.Errorf("read: %w: 2^50 bytes are more than this machine's memory", sift.ErrTooLarge)
	for name, fail := range refusalWays {
		f, restore := refusedUpdate(t, fail, 1, refusal)
		if err := f.Poll(); !errors.Is(err, sift.ErrTooLarge) {
			t.Fatalf("%s: first poll: %v, want the refusal", name, err)
		}
		restore()
		for range 2 {
			f.Poll()
		}
		if v := f.Version(); v.Generation != 1 {
			t.Fatalf("%s: an unchanged file refused for its size was read again: serving %+v", name, v)
		}
	}
}

// TestErrAfterRollback: when the path names the served file again (moved
// away and back), Err is nil, as Reload's result. Before, Err kept the
// error of the file's absence until the next swap.
func TestErrAfterRollback(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	publish(t, path, encode(t, sift.KindBlocked, keysOf("k", 1000), 1, 0))
	f, err := reload.Open(path, reload.WithInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, meanwhile := range []string{"", "garbage"} {
		if err := os.Rename(path, path+".bak"); err != nil {
			t.Fatal(err)
		}
		if meanwhile != "" {
			publish(t, path, []byte(strings.Repeat(meanwhile, 30)))
		}
		if err := f.Reload(); err == nil || f.Err() == nil {
			t.Fatalf("%q: Reload %v, Err %v: want errors", meanwhile, err, f.Err())
		}
		if err := os.Rename(path+".bak", path); err != nil {
			t.Fatal(err)
		}
		if err := f.Reload(); err != nil || f.Err() != nil {
			t.Fatalf("%q: the served file is back: Reload %v, Err %v", meanwhile, err, f.Err())
		}
	}
}

// TestErrInCallbacks: WithOnError and WithOnSwap functions may call Err
// (and Version). Err took the lock the reload holds while it calls them,
// and the Filter deadlocked: polling stopped and Close hung.
func TestErrInCallbacks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	publish(t, path, encode(t, sift.KindBlocked, keysOf("k", 1000), 1, 0))
	var f *reload.Filter
	var inError, inSwap error
	var swapped reload.Version
	f, err := reload.Open(path, reload.WithInterval(0),
		reload.WithOnError(func(error) { inError = f.Err() }),
		reload.WithOnSwap(func(v reload.Version) { inSwap, swapped = f.Err(), f.Version() }))
	if err != nil {
		t.Fatal(err)
	}
	next := encode(t, sift.KindBlocked, keysOf("n", 1000), 2, 0)
	done := make(chan error, 1)
	go func() {
		err := publishFile(path, []byte("garbage"))
		f.Reload()
		if err == nil {
			err = publishFile(path, next)
		}
		f.Reload()
		f.Close()
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Reload with callbacks calling Err: still running after 20 s (deadlock)")
	}
	if !errors.Is(inError, sift.ErrTruncated) && !errors.Is(inError, sift.ErrMagic) {
		t.Errorf("Err in WithOnError: %v, want the failure", inError)
	}
	if inSwap != nil || swapped.Generation != 2 {
		t.Errorf("in WithOnSwap: Err %v, Version %+v", inSwap, swapped)
	}
}
