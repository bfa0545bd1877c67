package mem

import (
	"bufio"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sift-go/sift/internal/errs"
)

// StaleAge is the age from which RemoveStale removes a temporary file of
// WriteAtomic that no writer is known to hold even when the process id in
// its name is alive (ids are reused) or cannot be checked: where the
// writers' locks are not available (systems without flock(2), file systems
// that refuse it, files this process cannot open).
const StaleAge = 24 * time.Hour

// TempGrace is the age from which RemoveStale removes a temporary file
// whose lock it can take (no writer holds it) even when the process id in
// its name is alive: a writer locks its file the moment after creating
// it, and this covers that moment.
const TempGrace = time.Minute

// nameMax is the longest file name (in bytes) TempPrefix makes room for:
// NAME_MAX of Linux, the BSDs and macOS file systems.
const nameMax = 255

// tempSuffixMax is the longest "PID-RANDOM" that follows TempPrefix: a
// process id of up to 10 digits, "-", and a uint32 of up to 10.
const tempSuffixMax = 10 + 1 + 10

// tempMarker follows the base name in a temporary file's name.
const tempMarker = ".sift-tmp-"

// TempPrefix returns the prefix of the names of the temporary files
// WriteAtomic creates beside path: "." + the base name + ".sift-tmp-". The
// writer's process id and a random suffix follow ("PID-RANDOM"), so that a
// later writer can tell its own kind's leftovers from anyone else's files
// and from those of a writer still running. A base name too long for the
// whole to fit in 255 bytes (longer than 223 bytes) is shortened in it to
// a prefix of itself, "~" and 16 hex digits of a hash of the whole base
// name, so that every name a file system takes can be written and two long
// names that share their beginning do not share their temporary files.
func TempPrefix(path string) string {
	base := filepath.Base(path)
	if 1+len(base)+len(tempMarker)+tempSuffixMax <= nameMax {
		return "." + base + tempMarker
	}
	h := fnv.New64a()
	h.Write([]byte(base))
	tag := fmt.Sprintf("~%016x", h.Sum64())
	keep := nameMax - tempSuffixMax - len(tempMarker) - 1 - len(tag)
	for keep > 0 && !utf8.RuneStart(base[keep]) {
		keep-- // whole characters: some file systems take only UTF-8 names
	}
	return "." + base[:keep] + tag + tempMarker
}

// AtomicOptions are WriteAtomic's optional settings.
type AtomicOptions struct {
	// Mode is the new file's permission bits. 0 keeps those of the file
	// at path when it exists (following a symbolic link to it), else
	// gives 0666 less the process's umask (0644 with the usual 022).
	Mode os.FileMode
	// OnTemp, if set, is called with the temporary file's name once it
	// exists, and the function it returns once the file is renamed or
	// removed: a command registers a removal on SIGINT/SIGTERM there.
	OnTemp func(name string) (done func())
	// Publish, if set, renames the complete temporary file over path: it
	// is called with the rename and returns its error, or an error without
	// calling it to abandon the write (path untouched, the temporary file
	// removed). A command makes the rename exclusive with its signal
	// handler's cleanup there, so that an interrupted command never
	// replaces path.
	Publish func(rename func() error) error
}

// WriteAtomic writes a file through write and publishes it at path so that
// a reader of path sees the old file or the complete new one, never a mix,
// also after a crash or a SIGKILL at any moment: it removes the leftovers
// of earlier writers of path that died (RemoveStale), writes into a new
// temporary file beside path (TempPrefix), syncs it, renames it over path
// and syncs the directory. It returns what write returned.
//
// The new file has the permission bits opt.Mode gives (by default those of
// the file at path, through a symbolic link, or 0666 less the umask for a
// new path). It is owned by the user running the writer, as any new file
// is: the old file's owner and group are not kept (setting them takes
// privileges). The rename replaces path itself: a symbolic link at path is
// replaced by the new file, and the file it pointed to is left as it was,
// as a deploy that flips links expects.
//
// Every error names the step and the file and wraps the system's error
// (errors.Is(err, syscall.ENOSPC) for a full disk); on an error before the
// rename, path is untouched and the temporary file removed. An error
// syncing the directory after the rename says that path holds the new
// file but the rename may not survive a crash. A path that exists and is
// not a regular file, and a name too long for the file system, are refused
// before anything is written.
func WriteAtomic(path string, write func(io.Writer) (int64, error), opt AtomicOptions) (n int64, err error) {
	dir := filepath.Dir(path)
	mode, fresh := opt.Mode, false
	if st, err := os.Stat(path); err == nil {
		if !st.Mode().IsRegular() {
			return 0, NotRegular(path, st.Mode())
		}
		if opt.Mode == 0 {
			mode = st.Mode().Perm()
		}
	} else if nameTooLong(err) {
		return 0, fmt.Errorf("writing %s: the file name is too long (%d bytes): %w", path, len(filepath.Base(path)), unwrapPath(err))
	} else {
		fresh = opt.Mode == 0
	}
	RemoveStale(path)
	// The temporary file is private (0600) until the chmod gives it mode,
	// except a new file's, which the system creates with 0666 less the
	// umask (as cp and the shell's > do) and which keeps that mode.
	perm := os.FileMode(0o600)
	if fresh {
		perm = 0o666
	}
	tmp, err := CreateTemp(path, perm)
	if err != nil {
		return 0, fmt.Errorf("creating a temporary file for %s: %w", path, err)
	}
	name := tmp.Name()
	// The file stays locked (or counted among this process's, liveTemps)
	// until it is renamed or removed, after the close step: release runs
	// at the rename, or deferred (the deferred functions run last to
	// first) after the removal.
	var unlock func()
	release := func() {
		if unlock != nil {
			unlock()
			unlock = nil
		}
		forgetTemp(name)
	}
	defer release()
	if opt.OnTemp != nil {
		done := opt.OnTemp(name)
		defer done()
	}
	renamed := false
	defer func() {
		if !renamed {
			os.Remove(name)
			tmp.Close()
		}
	}()
	step := func(op string, f func() error) error {
		if err == nil {
			if err = fault(op); err == nil {
				err = f()
			}
			if err != nil {
				err = stepError(path, op, name, unwrapPath(err))
			}
		}
		return err
	}
	bw := bufio.NewWriterSize(tmp, 1<<20)
	_ = step("write", func() (e error) { n, e = write(bw); return e })
	_ = step("write", bw.Flush)
	if !fresh {
		_ = step("chmod", func() error { return tmp.Chmod(mode) })
	}
	_ = step("fsync", tmp.Sync)
	if err == nil {
		if unlock = holdLock(tmp); unlock == nil {
			keepTemp(name) // no lock, or it could not be kept: as one
		}
	}
	_ = step("close", tmp.Close)
	if err != nil {
		return 0, err
	}
	if err := fault("rename"); err != nil {
		return 0, fmt.Errorf("writing %s: rename %s: %w", path, name, err)
	}
	rename := func() error {
		if err := os.Rename(name, path); err != nil {
			return err
		}
		renamed = true
		// The file is path now: its lock would be path's, seen by
		// whoever flocks path (sift dedup -state) until the directory
		// is synced.
		release()
		return nil
	}
	if opt.Publish != nil {
		err = opt.Publish(rename)
	} else {
		err = rename()
	}
	if err != nil {
		return 0, fmt.Errorf("writing %s: %w", path, err)
	}
	if err := syncDir(dir); err != nil {
		return n, fmt.Errorf("wrote %s, but syncing its directory failed, so the rename may not survive a crash: %w", path, err)
	}
	return n, nil
}

// CreateTemp creates a new file beside path, open for reading and
// writing, named as WriteAtomic's temporary files (TempPrefix, the process
// id, a random suffix), so that RemoveStale removes it once its writer is
// gone. perm is the permission bits less the umask.
//
// Where flock(2) is available (Linux, macOS, the BSDs) the file is
// returned locked (an exclusive flock, held by the returned file's open
// file description: until it is closed, unless the caller duplicated the
// descriptor): RemoveStale leaves a locked file alone, and takes one that
// is not locked for a leftover once its process is gone, or its name has
// this process's id and this process did not make it (a container's
// writer is process 1 at every start), or it is older than TempGrace. The
// caller removes or renames the file before it closes it. Where the file
// system cannot lock, this process counts the name as its own (RemoveStale
// leaves it alone) for as long as it runs.
func CreateTemp(path string, perm os.FileMode) (*os.File, error) {
	// os.CreateTemp's naming, with the permission bits perm (less the
	// umask) where CreateTemp always gives 0600.
	prefix := filepath.Join(filepath.Dir(path), TempPrefix(path)+strconv.Itoa(os.Getpid())+"-")
	for try := 0; ; try++ {
		name := prefix + strconv.FormatUint(uint64(rand.Uint32()), 10)
		// Counted as this process's from before it exists until it is
		// locked: RemoveStale in this process leaves it alone meanwhile.
		keepTemp(name)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if err != nil {
			forgetTemp(name)
			if errors.Is(err, fs.ErrExist) && try < 10000 {
				continue
			}
			return nil, err
		}
		if lockTemp(f) == nil {
			forgetTemp(name)
		}
		return f, nil
	}
}

// liveTemps holds the names of the temporary files this process is
// creating, and those it holds without a lock (where the file system
// cannot lock, or while WriteAtomic could not keep its lock through the
// close): RemoveStale does not take them for a dead writer's, although
// their process id is this process's.
var (
	liveMu    sync.Mutex
	liveTemps = map[string]struct{}{}
)

// keepTemp adds name to liveTemps; forgetTemp removes it, and does nothing
// for a name not there.
func keepTemp(name string) {
	liveMu.Lock()
	liveTemps[name] = struct{}{}
	liveMu.Unlock()
}

func forgetTemp(name string) {
	liveMu.Lock()
	delete(liveTemps, name)
	liveMu.Unlock()
}

func isLiveTemp(name string) bool {
	liveMu.Lock()
	defer liveMu.Unlock()
	_, ok := liveTemps[name]
	return ok
}

// lockState is what probeTemp found of a temporary file's lock.
type lockState int

const (
	lockUnknown lockState = iota // no lock here, or the file cannot be opened
	lockHeld                     // a writer holds it
	lockFree                     // nobody held it: probeTemp took it
)

// stepError is the error of WriteAtomic's step op on the temporary file
// name: "writing PATH: OP NAME: CAUSE", matching cause. It has no package
// prefix, and a cause from this module (the write callback's, such as
// "sift: not a sift filter (bad magic)") appears without its own: the
// caller's errs.Wrap puts its prefix in front, and a message carries one
// (DESIGN.md, section 1). A cause from elsewhere (the system's) keeps its
// whole text.
func stepError(path, op, name string, cause error) error {
	return errs.Errorf("", []error{cause}, "writing %s: %s %s: %s", path, op, name, errs.Detail(cause))
}

// unwrapPath drops an *os.PathError's own op and path (the step's message
// names both), keeping the system's error.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// RenameDurable renames oldpath, a file already synced, over newpath and
// syncs newpath's directory, so that the rename survives a crash (what
// WriteAtomic does after its write, for a file written another way).
func RenameDurable(oldpath, newpath string) error {
	if err := os.Rename(oldpath, newpath); err != nil {
		return err
	}
	return syncDir(filepath.Dir(newpath))
}

// syncDir makes a rename in dir durable. File systems that cannot sync a
// directory (EINVAL, as some network and FUSE file systems answer) are not
// an error: there is nothing more the writer can do.
func syncDir(dir string) error {
	if err := fault("fsync-dir"); err != nil {
		return err
	}
	d, err := openDir(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !syncUnsupported(err) {
		return err
	}
	return nil
}

// openDir opens dir as syncDir does, and CheckWritable to see that syncDir
// will be able to: a directory a user may write and enter but not read
// (mode 0733, a drop box) takes the file and its rename, but not this
// open.
func openDir(dir string) (*os.File, error) {
	if err := fault("open-dir"); err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return os.Open(dir)
}

// RemoveStale removes the temporary files that WriteAtomic left beside path
// in processes that died before finishing (killed, or the machine lost
// power), and returns how many it removed; failures to remove are ignored
// (the next writer tries again). It looks only at the names WriteAtomic
// makes for path: TempPrefix(path), a process id, "-" and a number.
//
// Where the writers lock their temporary files (CreateTemp: Linux, macOS,
// the BSDs), a file whose lock a writer holds is never removed, and one
// whose lock RemoveStale can take is removed when the process id in its
// name no longer runs, or is this process's but this process did not make
// the file (a leftover of an earlier process with the same id: a
// container's writer is process 1 at every start), or the file is older
// than TempGrace (ids are reused, and a writer in another pid namespace
// has an id that means nothing here; the grace covers the moment between
// a writer's creating its file and locking it). Where the lock cannot be
// tested (other systems, a file system that refuses flock, a file this
// process cannot open), a file is removed when its process id is not this
// process's and no longer runs, or it is older than StaleAge; a writer in
// another container sharing the directory can then lose its temporary
// file to this cleanup, and fails with an error when it renames. path is
// not harmed either way.
func RemoveStale(path string) int {
	dir, prefix := filepath.Dir(path), TempPrefix(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		pid, ok := tempPID(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		name := filepath.Join(dir, e.Name())
		if staleTemp(name, pid) {
			removed++
		}
	}
	return removed
}

// tempPID returns the process id in name, a temporary file's name made
// with prefix (TempPrefix): prefix, a process id, "-" and a number, all
// decimal digits.
func tempPID(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	pidText, suffix, ok := strings.Cut(rest, "-")
	if !ok || !allDigits(pidText) || !allDigits(suffix) {
		return 0, false
	}
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// staleTemp removes the temporary file name, of process pid, if it is a
// leftover (see RemoveStale), and reports whether it did.
func staleTemp(name string, pid int) bool {
	state, release := probeTemp(name)
	if release != nil {
		defer release() // removed while locked, so no writer can be mid-lock
	}
	info, err := os.Lstat(name)
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	age := time.Since(info.ModTime())
	self := pid == os.Getpid()
	var stale bool
	switch state {
	case lockHeld:
		return false // its writer runs
	case lockFree:
		if self {
			stale = !isLiveTemp(name) // not this process's: a leftover
		} else {
			stale = !processAlive(pid) || age > TempGrace
		}
	default:
		stale = !self && !processAlive(pid) || age > StaleAge
	}
	return stale && os.Remove(name) == nil
}

// faultMu guards writeFault, the failure tests inject into WriteAtomic's
// steps.
var (
	faultMu    sync.Mutex
	writeFault func(op string) error
)

// SetWriteFault makes WriteAtomic fail the step named op ("write", "chmod",
// "fsync", "close", "rename", "fsync-dir", and "open-dir": the open of the
// directory to sync it, which CheckWritable tries too) with the error f
// returns for it (nil: no failure), until the returned function restores
// normal operation. It is for tests of the writers' error paths; it
// affects every WriteAtomic (and CheckWritable) in the process.
func SetWriteFault(f func(op string) error) (restore func()) {
	faultMu.Lock()
	prev := writeFault
	writeFault = f
	faultMu.Unlock()
	return func() {
		faultMu.Lock()
		writeFault = prev
		faultMu.Unlock()
	}
}

func fault(op string) error {
	faultMu.Lock()
	f := writeFault
	faultMu.Unlock()
	if f == nil {
		return nil
	}
	return f(op)
}

// CheckWritable reports, before any work, the errors WriteAtomic would meet
// at its end for path: a path that exists and is not a regular file, a
// name too long for the file system, a directory that does not exist or is
// not one, a directory where no file can be created (read-only, no
// permission; the check creates and removes a temporary file named as
// WriteAtomic's, so a leftover is removed by RemoveStale), and a directory
// that cannot be opened to sync the rename (one the user may write and
// enter but not read, mode 0733: WriteAtomic would replace path and then
// fail). It first removes the leftovers of earlier writers of path that
// died (RemoveStale, as WriteAtomic does), so that a writer killed during
// the check leaves at most its own temporary file. A disk that fills up
// later is still WriteAtomic's error.
func CheckWritable(path string) error {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return NotRegular(path, st.Mode())
	} else if nameTooLong(err) {
		return fmt.Errorf("cannot write %s: the file name is too long (%d bytes): %w", path, len(filepath.Base(path)), unwrapPath(err))
	}
	RemoveStale(path)
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("cannot write %s: %s is not a directory", path, dir)
	}
	tmp, err := CreateTemp(path, 0o600)
	if nameTooLong(err) {
		// Not the directory's fault: the temporary file's name (at most
		// 255 bytes, TempPrefix) is more than this file system takes, or
		// its path more than the system does.
		var pe *fs.PathError
		name := path
		if errors.As(err, &pe) {
			name = pe.Path
		}
		return fmt.Errorf("cannot write %s: the name is too long for the temporary file sift writes beside it (%s, %d bytes): %w", path, filepath.Base(name), len(filepath.Base(name)), unwrapPath(err))
	}
	if err != nil {
		// The system's error, without the probe file's name (which the
		// caller never made): "cannot write DIR/F: no files can be
		// created in DIR: permission denied".
		return fmt.Errorf("cannot write %s: no files can be created in %s: %w", path, dir, unwrapPath(err))
	}
	os.Remove(tmp.Name()) // before the close, which releases its lock
	tmp.Close()
	forgetTemp(tmp.Name())
	d, err := openDir(dir)
	if err != nil {
		return fmt.Errorf("cannot write %s: its directory %s cannot be opened, which syncing the rename needs: %w", path, dir, unwrapPath(err))
	}
	d.Close()
	return nil
}
