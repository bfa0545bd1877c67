//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package mem

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// tempLocks reports whether WriteAtomic's writers lock their temporary
// files here: flock(2), whose lock belongs to the open file description
// (so a second open of the file, in this process or another, cannot take
// it while the writer holds it, and closing that second descriptor does
// not release the writer's).
const tempLocks = true

// lockTemp takes the exclusive lock a writer holds on its temporary file
// f from its creation until it is renamed or removed (RemoveStale leaves a
// locked file alone). A file just created is locked by nobody but a
// RemoveStale judging it for a moment (probeTemp), so a lock that is
// taken is waited for, briefly: after about 100 ms the error is returned
// and the file stays unlocked (kept by its name's entry in liveTemps).
func lockTemp(f *os.File) error {
	for try := 0; ; try++ {
		err := flockFile(f, unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EWOULDBLOCK) || try >= 100 {
			return err
		}
		time.Sleep(time.Millisecond)
	}
}

// flockFile calls flock(2) on f's descriptor, retrying on EINTR.
func flockFile(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	for {
		var ferr error
		if err := rc.Control(func(fd uintptr) { ferr = unix.Flock(int(fd), how) }); err != nil {
			return err
		}
		if ferr != unix.EINTR {
			return ferr
		}
	}
}

// holdLock keeps the lock of f, which holds it, until the returned
// function is called, also after f is closed: it duplicates f's
// descriptor, which shares the open file description and so its lock.
// WriteAtomic closes its temporary file (a step that reports the file
// system's errors) before the rename, and the file must stay locked until
// then. Where the descriptor cannot be duplicated it returns nil.
func holdLock(f *os.File) (release func()) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	dup := -1
	var derr error
	if err := rc.Control(func(fd uintptr) { dup, derr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) }); err != nil || derr != nil {
		return nil
	}
	return func() { unix.Close(dup) }
}

// probeTemp tells whether a writer holds the lock of the temporary file
// name: lockHeld; lockFree, with the lock taken (shared, which needs only
// read access and excludes the writer's) until release is called; or
// lockUnknown when the file cannot be opened or the file system cannot
// lock, and then release is nil.
func probeTemp(name string) (state lockState, release func()) {
	f, _, err := OpenRegular(name)
	if err != nil {
		return lockUnknown, nil
	}
	switch err := flockFile(f, unix.LOCK_SH|unix.LOCK_NB); {
	case err == nil:
		return lockFree, func() { f.Close() }
	case errors.Is(err, unix.EWOULDBLOCK):
		f.Close()
		return lockHeld, nil
	default:
		f.Close()
		return lockUnknown, nil
	}
}
