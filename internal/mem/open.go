package mem

import (
	"fmt"
	"io/fs"
	"os"
)

// OpenRegular opens the file at path for reading if it is a regular file,
// and otherwise returns an *fs.PathError saying what it is ("open PATH: not
// a regular file (a named pipe)"). It never blocks: on Unix systems it
// opens with O_NONBLOCK, under which opening a FIFO with no writer returns
// at once, and it checks the type of what it opened with fstat, so the
// file checked is the file read (a Stat before the open could check one
// file and open another that replaced it).
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	return OpenRegularFor(path, os.O_RDONLY)
}

// OpenRegularFor is OpenRegular with the access mode flag (os.O_RDONLY,
// os.O_RDWR): sift dedup locks its state file through a descriptor open
// for writing, which NFSv4's emulated flock needs.
func OpenRegularFor(path string, flag int) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, flag|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, NotRegular(path, st.Mode())
	}
	return f, st, nil
}

// NotRegular returns the error for a path that names something other than
// a regular file: "open PATH: not a regular file (a named pipe)", an
// *fs.PathError.
func NotRegular(path string, mode fs.FileMode) error {
	what := "a special file"
	switch t := mode.Type(); {
	case t&fs.ModeDir != 0:
		what = "a directory"
	case t&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case t&fs.ModeSocket != 0:
		what = "a socket"
	case t&fs.ModeDevice != 0:
		what = "a device"
	}
	return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", errNotRegular, what)}
}

// SameVersion reports whether two stats describe the same file, unchanged
// between them: the same inode, size and modification time (reload's test
// of a served file, sift info's of a file it read twice).
func SameVersion(a, b fs.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
