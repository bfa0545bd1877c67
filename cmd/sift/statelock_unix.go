//go:build unix && !aix

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"

	"github.com/sift-go/sift/internal/mem"
)

// lockState takes an exclusive advisory lock (flock) on the -state file at
// path for one sift dedup run, and returns the function that releases it,
// and a warning when the file could not be locked and the run goes on
// without the lock. A state file that another run holds is refused at
// once, with errStateInUse: both runs would write it back, and the last
// rename would drop the other's keys. A path that names no regular file
// yet (a new state) has nothing to lock, and an error opening it is left
// for the state's reader to report: both get a no-op release.
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
			return func() { f.Close() }, "", nil
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
