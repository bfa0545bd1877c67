//go:build unix && !aix

package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestDedupStateLocked: a sift dedup run on a -state file that another run
// holds exits with status 2 before reading a line, leaving the file as it
// was; once the lock is released the same run works. (Before the lock both
// ran, and the last one's rename dropped the other's keys.)
func TestDedupStateLocked(t *testing.T) {
	state := filepath.Join(t.TempDir(), "seen.sift")
	if r := runInProcess("a\nb\n", "dedup", "-n", "1000", "-state", state); r.code != exitOK {
		t.Fatalf("first run: exit %d: %s", r.code, r.stderr)
	}
	before, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	holder, err := os.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(holder.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"dedup", "-state", state},
		{"dedup", "-state", state, "-window", "1h", "-n", "1000"},
	} {
		r := runInProcess("c\n", args...)
		if r.code != exitError || !strings.Contains(r.stderr, state) || !strings.Contains(r.stderr, "in use by another sift dedup") || r.stdout != "" {
			t.Errorf("%v while another run holds the state: exit %d, stdout %q, stderr %q; want exit %d, nothing printed, the file named as in use", args, r.code, r.stdout, r.stderr, exitError)
		}
	}
	if after, err := os.ReadFile(state); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the held state file changed (err %v)", err)
	}
	holder.Close() // releases the lock
	if r := runInProcess("a\nc\n", "dedup", "-state", state); r.code != exitOK || r.stdout != "c\n" {
		t.Errorf("after the lock was released: exit %d, stdout %q, stderr %q; want c alone", r.code, r.stdout, r.stderr)
	}
}

// TestDedupStateReplacedWhileLocking: when the state file is replaced (a
// finishing run renames its new state over it) between lockState's open
// and its lock, the run opens the path again and locks the new file (a
// lock on the replaced one would keep no other run out), and reads the
// new state.
func TestDedupStateReplacedWhileLocking(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "seen.sift")
	next := filepath.Join(dir, "next.sift")
	if r := runInProcess("a\n", "dedup", "-n", "1000", "-state", state); r.code != exitOK {
		t.Fatalf("first run: exit %d: %s", r.code, r.stderr)
	}
	if r := runInProcess("a\nb\n", "dedup", "-n", "1000", "-state", next); r.code != exitOK {
		t.Fatalf("second state: exit %d: %s", r.code, r.stderr)
	}
	opens := 0
	stateOpened = func(path string) {
		if opens++; opens == 1 {
			if err := os.Rename(next, path); err != nil {
				t.Error(err)
			}
		}
	}
	defer func() { stateOpened = func(string) {} }()
	r := runInProcess("a\nb\nc\n", "dedup", "-state", state)
	if opens != 2 {
		t.Errorf("the state was opened %d times, want 2 (once more after it was replaced)", opens)
	}
	if r.code != exitOK || r.stdout != "c\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want c alone (a and b are in the new state)", r.code, r.stdout, r.stderr)
	}
}

// TestDedupNewStateClaimed: a run on a -state file that does not exist
// yet claims it (lockState creates it empty and locked), so that a second
// run on the same new state is refused while the first runs, as for an
// existing state. (Both used to run, and the last rename dropped the
// other's keys: an outside check printed b1 and b2 twice after two
// concurrent first runs.) A claim the run does not write over is removed
// again, so a run that saves nothing leaves no file; an empty file (one a
// killed run left) is a new state; the state written over the claim has a
// new file's permissions; no claim file is left beside it.
func TestDedupNewStateClaimed(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "new.sift")
	release, warning, err := lockState(state)
	if err != nil || warning != "" {
		t.Fatalf("lockState of a new state: err %v, warning %q", err, warning)
	}
	st, err := os.Stat(state)
	if err != nil || st.Size() != 0 {
		t.Fatalf("the claimed state: %v, err %v; want an empty file", st, err)
	}
	r := runInProcess("x\n", "dedup", "-n", "1000", "-state", state)
	if r.code != exitError || !strings.Contains(r.stderr, "in use by another sift dedup") || r.stdout != "" {
		t.Errorf("a second run on the claimed new state: exit %d, stdout %q, stderr %q; want it refused as in use", r.code, r.stdout, r.stderr)
	}
	release()
	if _, err := os.Stat(state); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a claim released without a state written over it was left: %v", err)
	}

	// A run that fails before saving (no -n for a new state) leaves nothing.
	if r := runInProcess("x\n", "dedup", "-state", state); r.code != exitError || !strings.Contains(r.stderr, "give -n") {
		t.Errorf("a new state without -n: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(state); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed run left the state file: %v", err)
	}

	old := unix.Umask(0o022)
	r = runInProcess("a\nb\n", "dedup", "-n", "1000", "-state", state)
	unix.Umask(old)
	if r.code != exitOK || r.stdout != "a\nb\n" {
		t.Fatalf("first run on a new state: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if st, err := os.Stat(state); err != nil || st.Mode().Perm() != 0o644 || st.Size() == 0 {
		t.Errorf("the state written: %v, err %v; want a non-empty file with mode 0644 (0666 less the umask 022)", st, err)
	}
	if r := runInProcess("a\nc\n", "dedup", "-state", state); r.code != exitOK || r.stdout != "c\n" || r.stderr != "" {
		t.Errorf("second run: exit %d, stdout %q, stderr %q; want c alone, and no warning", r.code, r.stdout, r.stderr)
	}

	// An empty file is a new state.
	empty := filepath.Join(dir, "empty.sift")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runInProcess("a\na\n", "dedup", "-n", "100", "-state", empty); r.code != exitOK || r.stdout != "a\n" || !strings.Contains(r.stderr, "is empty: it holds no keys") {
		t.Errorf("an empty -state file: exit %d, stdout %q, stderr %q; want a new state, and a warning", r.code, r.stdout, r.stderr)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".sift-tmp-") {
			t.Errorf("left in the state's directory: %s", e.Name())
		}
	}
}

// TestClaimFilledKept: a claim that another process wrote into in place
// while the run held it (cp over an existing file writes into it; flock
// binds only sift dedup) is not removed by the release: it holds that
// writer's bytes now, not the empty claim. Before, the release removed
// whatever file was still the claimed one, so the copy was lost.
func TestClaimFilledKept(t *testing.T) {
	state := filepath.Join(t.TempDir(), "new.sift")
	release, warning, err := lockState(state)
	if err != nil || warning != "" {
		t.Fatalf("lockState of a new state: err %v, warning %q", err, warning)
	}
	if err := os.WriteFile(state, []byte("someone else's bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	release()
	if b, err := os.ReadFile(state); err != nil || string(b) != "someone else's bytes" {
		t.Errorf("the claim written into meanwhile, after the release: %q, %v; want it kept", b, err)
	}
}

// TestClaimTruncatedKept: a claim that another writer opened with O_TRUNC
// (cp, the shell's >) but has not written into yet when the run releases
// it is not removed: the open moved its modification time, so it is that
// writer's file now, though still empty. Before, the release removed any
// empty file that was still the claimed inode, and the writer's bytes went
// into a file no path named.
func TestClaimTruncatedKept(t *testing.T) {
	state := filepath.Join(t.TempDir(), "new.sift")
	release, warning, err := lockState(state)
	if err != nil || warning != "" {
		t.Fatalf("lockState of a new state: err %v, warning %q", err, warning)
	}
	claimed, err := os.Stat(state)
	if err != nil {
		t.Fatal(err)
	}
	// The open's timestamp has the kernel's granularity: open until it
	// differs from the claim's, as a later writer's does.
	var w *os.File
	deadline := time.Now().Add(5 * time.Second)
	for {
		if w, err = os.OpenFile(state, os.O_WRONLY|os.O_TRUNC, 0); err != nil {
			t.Fatal(err)
		}
		st, err := w.Stat()
		if err != nil {
			t.Fatal(err)
		}
		if !st.ModTime().Equal(claimed.ModTime()) {
			break
		}
		w.Close()
		if time.Now().After(deadline) {
			t.Skip("opening with O_TRUNC does not move the modification time here")
		}
		time.Sleep(5 * time.Millisecond)
	}
	defer w.Close()
	release()
	if _, err := w.WriteString("someone else's bytes"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(state); err != nil || string(b) != "someone else's bytes" {
		t.Errorf("the claim opened with O_TRUNC by another writer, after the release: %q, %v; want it kept", b, err)
	}
}

// TestDedupLockWarningOneLine: the warning for an empty -state file that
// is not this run's claim is one line, also for a name with a newline
// (it was printed without oneLine and came out in two lines).
func TestDedupLockWarningOneLine(t *testing.T) {
	state := filepath.Join(t.TempDir(), "se\nen.sift")
	if err := os.WriteFile(state, nil, 0o644); err != nil {
		t.Skip("no newline in file names here:", err)
	}
	r := runInProcess("a\n", "dedup", "-n", "100", "-state", state)
	if want := "se; en.sift is empty: it holds no keys"; r.code != exitOK || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want exit 0 and one line with %q", r.code, r.stderr, want)
	}
}
