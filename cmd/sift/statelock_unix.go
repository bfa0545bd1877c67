//go:build unix && !aix

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/sift-go/sift/internal/mem"
)

// lockState takes an exclusive advisory lock (flock) on the -state file at
// path for one sift dedup run, and returns the function that releases it,
// and a warning when the file could not be locked and the run goes on
// without the lock. A state file that another run holds is refused at
// once, with errStateInUse: both runs would write it back, and the last
// rename would drop the other's keys. A path that names no regular file
// yet (a new state) is claimed (claimState): the run creates it, empty
// and already locked, so that a second run on the same new state is
// refused as for an existing one. (Both used to run, and the last rename
// dropped the other's keys.) An error opening the path is left for the
// state's reader to report, with a no-op release.
//
// The lock is taken on a descriptor opened for writing where the file
// allows it: NFSv4 emulates flock with POSIX locks, which refuse an
// exclusive lock on a read-only descriptor (EBADF). The lock is on the
// file the path names once it is held: a run that renamed its new state
// over the path between this open and the lock (and released the old
// file's lock by ending) is seen by comparing the two, and the new file is
// locked instead, so no run reads a state that has been replaced.
func lockState(path string) (release func(), warning string, err error) {
	for range 100 {
		f, st, err := openForLock(path)
		if errors.Is(err, fs.ErrNotExist) {
			release, retry, warning := claimState(path)
			if !retry {
				return release, warning, nil
			}
			continue // created meanwhile by another run: lock that file
		}
		if err != nil {
			return func() {}, "", nil
		}
		stateOpened(path)
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, "", fmt.Errorf("-state %s: %w", path, errStateInUse)
			}
			return func() {}, fmt.Sprintf("-state %s: cannot lock it (%v): running without the lock, so another run on it at the same time would drop this one's keys", path, err), nil
		}
		if now, err := os.Stat(path); err == nil && os.SameFile(now, st) {
			if now.Size() == 0 {
				// Not this run's claim: one a killed run left, or a file
				// emptied by accident (a cut copy, a full disk), whose
				// keys are gone. Say so: every line is new to the run.
				warning = fmt.Sprintf("-state %s is empty: it holds no keys, so this run starts a new state", path)
			}
			return func() { f.Close() }, warning, nil
		}
		f.Close() // replaced since it was opened: lock the file it names now
	}
	return nil, "", fmt.Errorf("-state %s: replaced again and again while sift tried to lock it", path)
}

// openForLock opens the regular file at path for lockState: for reading
// and writing where its permissions and file system allow (nothing is
// written through it), else for reading; never blocking on a FIFO.
func openForLock(path string) (*os.File, fs.FileInfo, error) {
	if f, st, err := mem.OpenRegularFor(path, os.O_RDWR); err == nil {
		return f, st, nil
	}
	return mem.OpenRegular(path)
}

// claimState creates the state file at path, which does not exist, for
// this run: an empty file, locked before it appears at path (it is made
// under a temporary name, locked, and hard-linked to path, which fails if
// the path exists by then), so that no other run can open it unlocked.
// An empty state file is a new state to dedup (stateExists). It returns
// retry true when path appeared meanwhile (the caller locks that file
// instead); a warning and a no-op release when the file cannot be made or
// the file system cannot do this (no hard links, no flock), and the run
// goes on without the lock; a no-op release alone when the directory is
// missing or refuses a new file, which stateExists reports. The release
// removes the empty file again unless the run published its state over
// it or another process wrote into it or truncated it, and so does an
// interrupt at any point from the temporary file's creation on: a run
// that saves nothing leaves no file behind, as before.
// The temporary file is one of WriteAtomic's (mem.CreateTemp), so that
// the same name length fits and mem.RemoveStale removes one a killed run
// left.
func claimState(path string) (release func(), retry bool, warning string) {
	noop := func() {}
	var mu sync.Mutex // the interrupt's cleanup against the steps below
	var tmpName string
	var claimed fs.FileInfo
	unclaim := func() {
		mu.Lock()
		defer mu.Unlock()
		if tmpName != "" {
			os.Remove(tmpName)
		}
		if claimed != nil {
			// Still the claim, untouched: empty, with the modification
			// time it was made with. A file written into in place
			// meanwhile (cp over it; flock binds only sift dedup), or
			// only opened with O_TRUNC so far (which moves the
			// modification time), is another writer's, not the run's to
			// remove.
			if now, err := os.Stat(path); err == nil && mem.SameVersion(now, claimed) {
				os.Remove(path)
			}
		}
	}
	cancel := atInterrupt(unclaim)
	var tmp *os.File
	// undo is the release of the claim, as far as it went: unclaim before
	// cancel, so that an interrupt in between still unclaims.
	undo := func() {
		unclaim()
		cancel()
		if tmp != nil {
			tmp.Close()
		}
	}
	mu.Lock()
	// 0666 less the umask, a new state file's permissions: the state
	// written over the claim keeps them.
	tmp, err := mem.CreateTemp(path, 0o666)
	if err == nil {
		tmpName = tmp.Name()
	}
	mu.Unlock()
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		cancel()
		return noop, false, "" // the directory's problem: stateExists reports it
	}
	fail := func(what string, err error) (func(), bool, string) {
		undo()
		return noop, false, fmt.Sprintf("-state %s: cannot claim the new file (%s: %v): running without the lock, so another run on it at the same time would drop this one's keys", path, what, err)
	}
	if err != nil {
		return fail("create", err)
	}
	if err := unix.Flock(int(tmp.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return fail("flock", err)
	}
	st, err := tmp.Stat()
	if err != nil {
		return fail("fstat", err)
	}
	mu.Lock()
	err = os.Link(tmpName, path)
	if err == nil {
		claimed = st
	}
	mu.Unlock()
	if errors.Is(err, fs.ErrExist) {
		undo()
		return noop, true, ""
	}
	if err != nil {
		return fail("link", err)
	}
	mu.Lock()
	os.Remove(tmpName)
	tmpName = ""
	mu.Unlock()
	return undo, false, ""
}
