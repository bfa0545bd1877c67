package mem

import (
	"fmt"
	"io/fs"
)

// notRegular returns the error for a path that names something other than
// a regular file: "open PATH: not a regular file (a named pipe)".
func notRegular(path string, mode fs.FileMode) error {
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
