package mem

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"unsafe"

	"github.com/sift-go/sift/internal/errs"
)

// ErrChanged is the cause in the *fs.PathError ReadFile returns when the
// file's size or modification time changed while it was read, or it ended
// before the size fstat reported (that error also wraps sift.ErrTruncated):
// the bytes read may mix two versions of the file. Reading it again once
// its writer has finished gives a consistent copy.
var ErrChanged = errors.New("the file changed while it was read")

// ReadFile reads the whole regular file at path into memory the process
// owns: 64-byte aligned, from Alloc (an anonymous mapping from
// HugeThreshold up, the Go heap below). Unlike a file mapping, nothing
// another process later does to the file (truncating it, rewriting it in
// place, removing it) can reach the returned bytes: they are a copy. Free
// the region when done (or leave it to its finalizer, keeping the region
// reachable while the bytes are used).
//
// It opens the path once (OpenRegular: never blocks on a FIFO, refuses what
// is not a regular file), takes the size from fstat of that descriptor,
// reads exactly that many bytes and checks that the file ends there and
// that fstat still reports the same size and modification time. A file
// that changed while it was read is an error wrapping ErrChanged (see
// there); the returned FileInfo is what fstat said before the read, the
// identity of the file whose bytes were returned, and it is returned with
// every error that came after the file was opened.
func ReadFile(path string) ([]byte, *Region, fs.FileInfo, error) {
	return ReadFileChecked(path, 0, nil)
}

// ReadFileChecked is ReadFile with a look at the file's head first: when
// check is not nil, it is called with the file's first min(headLen, size)
// bytes (read with pread) and the size fstat reported, before any memory
// is allocated for the whole file or the rest of it read, and an error it
// returns is returned as it is: format.ReadFileHeader refuses there a file
// whose header is not one a Load accepts, or which is longer than its
// header declares, without reading the file into memory.
func ReadFileChecked(path string, headLen int, check func(head []byte, size int64) error) ([]byte, *Region, fs.FileInfo, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	if check != nil {
		head := make([]byte, min(int64(headLen), max(st.Size(), 0)))
		n, err := f.ReadAt(head, 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, nil, st, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if err := check(head[:n], st.Size()); err != nil {
			return nil, nil, st, err
		}
	}
	b, r, err := ReadOpen(f, st)
	if err != nil {
		return nil, nil, st, err
	}
	return b, r, st, nil
}

// ReadOpen reads the open regular file f, whose fstat said st, from its
// current offset (the start, for a file just opened) into memory from
// Alloc, as ReadFile does, with the same checks.
func ReadOpen(f *os.File, st fs.FileInfo) ([]byte, *Region, error) {
	path := f.Name()
	size := st.Size()
	if size < 0 || uint64(size) > uint64(^uint(0)>>1)-7 {
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: tooLarge("%d bytes are more than this platform can hold", size)}
	}
	var b []byte
	r := &Region{}
	if size > 0 {
		w, wr, err := Alloc(int((size + 7) / 8))
		if err != nil {
			return nil, nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		b, r = unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), size), wr
	} else {
		b = []byte{}
	}
	fail := func(err error) ([]byte, *Region, error) {
		_ = r.Free()
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	n, err := io.ReadFull(f, b)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fail(changed(fmt.Sprintf("it ended after %d of the %d bytes fstat reported", n, size), errs.Truncated))
	}
	if err != nil {
		return fail(err)
	}
	// The file must end where fstat said: a byte more means it grew.
	var one [1]byte
	if m, err := f.Read(one[:]); m > 0 {
		return fail(changed(fmt.Sprintf("it grew beyond the %d bytes fstat reported", size)))
	} else if err != nil && !errors.Is(err, io.EOF) {
		return fail(err)
	}
	if err := Unchanged(f, st); err != nil {
		return fail(err)
	}
	return b, r, nil
}

// Unchanged returns an error wrapping ErrChanged when fstat of f no longer
// reports the size and modification time of st, its fstat before a read:
// a writer went over the file meanwhile, so the bytes read may mix two
// versions. It is ReadOpen's last check, and the one the CLI's streaming
// readers make after decoding (a Guava stream has no checksum to catch a
// mix). It cannot see a write that ended before st was taken, nor one
// whose writer paused for the whole read: files replaced by rename never
// mix.
func Unchanged(f *os.File, st fs.FileInfo) error {
	after, err := f.Stat()
	if err != nil {
		return err
	}
	if !SameVersion(st, after) { // the same inode, f's: size or time moved
		return changed(fmt.Sprintf("size %d, modified %v before; size %d, modified %v after", st.Size(), st.ModTime().UTC(), after.Size(), after.ModTime().UTC()))
	}
	return nil
}

// changedError reads as "the file changed while it was read (why)" and
// matches ErrChanged and any extra sentinels.
type changedError struct {
	why  string
	errs []error
}

func (e *changedError) Error() string   { return ErrChanged.Error() + " (" + e.why + ")" }
func (e *changedError) Unwrap() []error { return e.errs }

func changed(why string, more ...error) error {
	return &changedError{why: why, errs: append([]error{ErrChanged}, more...)}
}
