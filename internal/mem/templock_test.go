//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package mem

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// leftover writes a temporary file of path named for process pid, unlocked
// (its writer was killed), with modification time mtime (zero: now), and
// returns its name.
func leftover(t *testing.T, path string, pid int, mtime time.Time) string {
	t.Helper()
	name := filepath.Join(filepath.Dir(path), TempPrefix(path)+strconv.Itoa(pid)+"-"+strconv.Itoa(int(time.Now().UnixNano()%1e9)))
	if err := os.WriteFile(name, []byte("half a filter"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !mtime.IsZero() {
		if err := os.Chtimes(name, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	return name
}

func exists(name string) bool {
	_, err := os.Lstat(name)
	return err == nil
}

// TestRemoveStaleOwnPID: the leftover of a writer that was killed while it
// ran with this process's id (a container's entrypoint is process 1 at
// every start) is removed by the next write, however young: this process
// did not make it and nobody holds its lock. It was kept for StaleAge (a
// day), and a restart loop that was killed during its writes filled the
// disk (findings K, 1). A leftover of process 1 seen from outside (where
// process 1 is init, alive) is removed once it is older than TempGrace
// (it was kept for a day too), and kept before (a writer may be between
// creating and locking it).
func TestRemoveStaleOwnPID(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	mine := leftover(t, path, os.Getpid(), time.Time{})
	if n := RemoveStale(path); n != 1 || exists(mine) {
		t.Errorf("RemoveStale = %d; the leftover with this process's id is still there: %v", n, exists(mine))
	}
	if os.Getpid() != 1 {
		young := leftover(t, path, 1, time.Time{})
		old := leftover(t, path, 1, time.Now().Add(-2*TempGrace))
		if n := RemoveStale(path); n != 1 || exists(old) || !exists(young) {
			t.Errorf("RemoveStale = %d; process 1's leftover older than TempGrace there: %v; a young one there: %v", n, exists(old), exists(young))
		}
	}
	// The next write removes it, as the finding's reproducer expected.
	mine = leftover(t, path, os.Getpid(), time.Time{})
	if _, err := WriteAtomic(path, writeBytes([]byte("new")), AtomicOptions{}); err != nil {
		t.Fatal(err)
	}
	if exists(mine) {
		t.Errorf("WriteAtomic kept %s", mine)
	}
}

// TestRemoveStaleLocked: a temporary file whose lock a writer holds (here
// another open file description of this process; a child process in the
// second case) is never removed, whatever its name says (this process's
// id, a dead one) and however old it is.
func TestRemoveStaleLocked(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	ancient := time.Now().Add(-2 * StaleAge)
	for _, pid := range []int{os.Getpid(), deadPID(t), 1} {
		name := leftover(t, path, pid, ancient)
		f, err := os.OpenFile(name, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := flockFile(f, unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			t.Skipf("flock: %v", err)
		}
		if n := RemoveStale(path); n != 0 || !exists(name) {
			t.Errorf("pid %d: RemoveStale removed %d, a locked file (kept: %v)", pid, n, exists(name))
		}
		// The probe's descriptor, closed, did not release the writer's
		// lock.
		g, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := flockFile(g, unix.LOCK_SH|unix.LOCK_NB); !errors.Is(err, unix.EWOULDBLOCK) {
			t.Errorf("pid %d: after RemoveStale the writer's lock is gone: %v", pid, err)
		}
		g.Close()
		f.Close() // the writer dies: its lock goes with it
		if n := RemoveStale(path); n != 1 || exists(name) {
			t.Errorf("pid %d: the file unlocked and a day old: RemoveStale = %d", pid, n)
		}
	}

	// A writer in another process: flock(1) holds the lock while sleep
	// runs. sleep, flock's child, inherits the locked descriptor: the
	// whole process group is killed at the end, or an orphaned sleep
	// would hold the lock (and run) for 30 s after the test.
	if _, err := exec.LookPath("flock"); err != nil {
		return
	}
	name := leftover(t, path, os.Getpid(), ancient)
	cmd := exec.Command("flock", "-x", name, "sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }()
	g, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for deadline := time.Now().Add(10 * time.Second); flockFile(g, unix.LOCK_SH|unix.LOCK_NB) == nil; { // until flock(1) has it
		flockFile(g, unix.LOCK_UN)
		if time.Now().After(deadline) {
			t.Skip("flock(1) did not take the lock")
		}
		time.Sleep(time.Millisecond)
	}
	if n := RemoveStale(path); n != 0 || !exists(name) {
		t.Errorf("RemoveStale removed %d, a file another process holds locked", n)
	}
}

// TestWriteAtomicHoldsLock: WriteAtomic's temporary file is locked from
// its creation until its rename, the close step included, so that
// another writer's RemoveStale leaves it alone even when its name means
// nothing there (another pid namespace).
func TestWriteAtomicHoldsLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	locked := func(when, name string) {
		t.Helper()
		g, err := os.Open(name)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		defer g.Close()
		if err := flockFile(g, unix.LOCK_SH|unix.LOCK_NB); !errors.Is(err, unix.EWOULDBLOCK) {
			t.Errorf("%s: the temporary file is not locked: %v", when, err)
		}
		if RemoveStale(path) != 0 || !exists(name) {
			t.Errorf("%s: RemoveStale removed the temporary file", when)
		}
	}
	var tmp string
	_, err := WriteAtomic(path, func(w io.Writer) (int64, error) {
		locked("writing", tmp)
		n, err := w.Write([]byte("new"))
		return int64(n), err
	}, AtomicOptions{
		OnTemp: func(name string) func() { tmp = name; return func() {} },
		Publish: func(rename func() error) error {
			locked("closed, before the rename", tmp)
			return rename()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Fatalf("target holds %q", got)
	}
	if isLiveTemp(tmp) {
		t.Errorf("%s is still counted as this process's", tmp)
	}

	// CreateTemp's file is locked by the file it returns.
	f, err := CreateTemp(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	locked("CreateTemp", f.Name())
	f.Close()
	if RemoveStale(path) != 1 || exists(f.Name()) {
		t.Errorf("CreateTemp's file, closed and left: not removed")
	}
}

// TestWriteAtomicPublishedUnlocked: once the rename has made the temporary
// file path, the writer's lock on it is gone, also while the directory is
// synced: a program that flocks path itself (sift dedup -state) must not
// find a file that sift build or WriteFile has just published locked, and
// refuse it as in use by another run. Before, the lock was held until
// WriteAtomic returned, after the directory sync.
func TestWriteAtomicPublishedUnlocked(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	probed := false
	restore := SetWriteFault(func(op string) error {
		if op != "fsync-dir" {
			return nil
		}
		probed = true
		g, err := os.Open(path)
		if err != nil {
			t.Errorf("opening the published file: %v", err)
			return nil
		}
		defer g.Close()
		if err := flockFile(g, unix.LOCK_EX|unix.LOCK_NB); err != nil {
			t.Errorf("the published file is locked while its directory is synced: %v", err)
		}
		return nil
	})
	defer restore()
	if _, err := WriteAtomic(path, writeBytes([]byte("new")), AtomicOptions{}); err != nil {
		t.Fatal(err)
	}
	if !probed {
		t.Fatal("the directory sync was not reached")
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Fatalf("target holds %q", got)
	}
}
