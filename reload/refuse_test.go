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
		publishSparse(t, path, c.data, c.size)
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

// publishSparse renames into place at path a file that holds data and,
// when size is larger, a hole up to size bytes (costing no disk).
func publishSparse(t *testing.T, path string, data []byte, size int64) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if size > int64(len(data)) {
		if err := os.Truncate(tmp, size); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestKindRefusedFromHead: a file of a kind no View serves (here a
// classic filter whose header declares a 64 MiB payload, sparse on disk)
// is refused from its header, with the error a whole read gave, without
// its payload being read. Before, Reload read the whole file and then
// refused it (a 229 MiB classic file: 232 MiB of RSS), and the
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
	publishSparse(t, path, b[:off], int64(off)+payload)
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

// writeAt writes data in place at offset off of the file at path (no
// truncation: the inode and the size stay) and sets its modification time
// to mtime, as cp -p or rsync -t --inplace leave it.
func writeAt(t *testing.T, path string, data []byte, off int64, mtime time.Time) {
	t.Helper()
	w, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteAt(data, off); err != nil {
		w.Close()
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// inPlaceUpdate serves a blocked file (generation 1) whose modification
// time is pinned in the past, and returns the Filter, polled only by Poll,
// and the next file (generation 2), of the same size.
func inPlaceUpdate(t *testing.T, path string, mtime time.Time) (*reload.Filter, []byte) {
	t.Helper()
	a := encode(t, sift.KindBlocked, keysOf("a", 1000), 1, 0)
	b := encode(t, sift.KindBlocked, keysOf("b", 1000), 2, 0)
	if len(a) != len(b) {
		t.Fatalf("the two files differ in size: %d and %d", len(a), len(b))
	}
	publish(t, path, a)
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	f, err := reload.Open(path, reload.WithInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, b
}

// TestInPlaceRewriteOldModTime: a file rewritten in place at the same size
// whose modification time the writer keeps in the past (cp -p, rsync -t,
// tar; or a file server whose clock lags) is served at the first poll after
// the write completes, although a poll read it half written: the failure
// is within the racy window of the file's status-change time, and the
// completing write moves that time too. Before, the
// racy window was measured from the modification time alone: the half
// written file looked settled, its failure was recorded as final, and the
// poll skipped the completed file, whose stat and head had not changed,
// serving the old one for good.
func TestInPlaceRewriteOldModTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.sift")
	old := time.Unix(1700000000, 0)
	f, b := inPlaceUpdate(t, path, old)
	half := len(b) / 2
	writeAt(t, path, b[:half], 0, old)
	if st, err := os.Stat(path); err != nil || reload.ChangeTime(st).Equal(old) {
		t.Skip("no status-change time on this system (ctime_other.go): the rewrite is not seen")
	}
	if err := f.Poll(); !errors.Is(err, sift.ErrChecksum) {
		t.Fatalf("poll of the half-written file: %v, want a checksum error", err)
	}
	// Retried by the racy window alone, for timestamps too coarse for
	// the completing write to move the status-change time (whole seconds on
	// some file systems).
	if !f.RetriesUnchanged() {
		t.Error("a file written a moment ago failed, and is not retried unless its stat changes")
	}
	writeAt(t, path, b[half:], int64(half), old)
	if err := f.Poll(); err != nil {
		t.Fatalf("poll of the completed file: %v", err)
	}
	if v := f.Version(); v.Generation != 2 {
		t.Fatalf("after the write in place: serving %+v, want generation 2", v)
	}
}

// TestFailedFileRetriedWhenChanged: a file that failed outside the racy
// window is not read again while it is unchanged (a damaged file must not
// cost a whole read at every poll), and is read again once a write moves
// its status-change time, even with its size, head and modification time
// unchanged and the write long after the failure (the clock is set an hour
// ahead, so no file is within the racy window). Before, only the stat
// (inode, size, modification time) and the head were compared, so a
// writer that paused more than two seconds mid-file and kept the
// modification time left the old file served for good.
func TestFailedFileRetriedWhenChanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.sift")
	old := time.Unix(1700000000, 0)
	f, b := inPlaceUpdate(t, path, old)
	t.Cleanup(reload.SetClock(func() time.Time { return time.Now().Add(time.Hour) }))
	reads, restore := reload.CountObtain()
	t.Cleanup(restore)

	half := len(b) / 2
	writeAt(t, path, b[:half], 0, old)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	failedAt := reload.ChangeTime(st)
	if failedAt.Equal(old) {
		t.Skip("no status-change time on this system")
	}
	for i := range 3 {
		if err := f.Poll(); !errors.Is(err, sift.ErrChecksum) {
			t.Fatalf("poll %d of the half-written file: %v, want a checksum error", i, err)
		}
	}
	if n := reads.Load(); n != 1 {
		t.Fatalf("the unchanged half-written file was read %d times in 3 polls, want once", n)
	}

	// The rest, with the modification time kept. The status-change time
	// has the kernel's timestamp granularity (a jiffy on Linux): write
	// until it differs from the failed read's, as any later write's does.
	deadline := time.Now().Add(5 * time.Second)
	for {
		writeAt(t, path, b[half:], int64(half), old)
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reload.ChangeTime(st).Equal(failedAt) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the status-change time did not move in 5 s of writes")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := f.Poll(); err != nil {
		t.Fatalf("poll of the completed file: %v", err)
	}
	if v := f.Version(); v.Generation != 2 || reads.Load() != 2 {
		t.Fatalf("after the write in place: serving %+v after %d reads, want generation 2 after 2", v, reads.Load())
	}
}

// TestFutureModTimeDamagedSettles: a damaged file whose modification time
// is ahead of this machine's clock (a file server's clock ahead, tar or
// rsync -t from a machine whose clock leads, touch -d) is read again while
// it is within the racy window counted from when the Filter first saw it,
// and then no more while it does not change: it is reported once and
// costs a stat and a head a poll. Before, the window ran to the
// modification time plus two seconds, and every poll read the whole file
// again for as long as the clocks differed (an hour here; findings K, 2).
// A later change is still read.
func TestFutureModTimeDamagedSettles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.sift")
	publish(t, path, encode(t, sift.KindBlocked, keysOf("k", 100), 1, 0))
	var reported []error
	f, err := reload.Open(path, reload.WithInterval(0), reload.WithOnError(func(err error) { reported = append(reported, err) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	reads, restore := reload.CountObtain()
	t.Cleanup(restore)

	bad := encode(t, sift.KindBlocked, keysOf("k", 100), 2, 0)
	bad[len(bad)-1] ^= 1 // in the payload: the read fails its checksum
	publish(t, path, bad)
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, future, future); err != nil {
		t.Fatal(err)
	}
	now := time.Now() // the Filters' clock, moved by hand
	t.Cleanup(reload.SetClock(func() time.Time { return now }))
	poll := func(want int64) {
		t.Helper()
		if err := f.Poll(); !errors.Is(err, sift.ErrChecksum) {
			t.Fatalf("poll: %v, want a checksum error", err)
		}
		if n := reads.Load(); n != want {
			t.Fatalf("%d reads of the damaged file, want %d", n, want)
		}
	}
	poll(1)
	if !f.RetriesUnchanged() {
		t.Error("a file seen a moment ago failed, and is not retried unless its stat changes")
	}
	now = now.Add(time.Second)
	poll(2) // within the window: it may still be being written
	now = now.Add(time.Second + time.Millisecond)
	poll(3) // the window is over: this failure is final
	if f.RetriesUnchanged() {
		t.Error("the damaged file, unchanged for two seconds of this clock, is still retried at every poll")
	}
	for range 5 {
		now = now.Add(time.Second)
		poll(3)
	}
	if len(reported) != 1 {
		t.Errorf("reported %d times, want once: %v", len(reported), reported)
	}
	if v := f.Version(); v.Generation != 1 {
		t.Errorf("serving %+v, want generation 1", v)
	}
	// A new file, with the same future time: served.
	publish(t, path, encode(t, sift.KindBlocked, keysOf("k", 100), 3, 0))
	if err := os.Chtimes(path, future, future); err != nil {
		t.Fatal(err)
	}
	if err := f.Poll(); err != nil || f.Version().Generation != 3 || reads.Load() != 4 {
		t.Errorf("a new file: %v, serving %+v after %d reads", err, f.Version(), reads.Load())
	}
}

// refusedUpdate serves a window file, opens it for polling (with opts),
// makes the next n attempts of the way fail (reload.FailObtain or
// FailServe) with refusal, then replaces the file (generation 2) and sets
// the Filters' clock an hour ahead, so that the file is outside the racy
// window and only the refusal's kind decides whether the poll tries the
// unchanged file again. (Pinning the modification time in the past no
// longer does: the window runs from the status-change time too.) The
// hooks are undone at the end of the test; the failure's, also by calling
// restore.
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
	t.Cleanup(reload.SetClock(func() time.Time { return time.Now().Add(time.Hour) }))
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
