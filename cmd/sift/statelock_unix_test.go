//go:build unix && !aix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
