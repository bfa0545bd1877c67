//go:build unix

package mem

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this id exists: kill(pid, 0)
// succeeds, or fails only for want of permission.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// syncUnsupported reports whether err says the file system cannot sync a
// directory.
func syncUnsupported(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP)
}

// nameTooLong reports whether err says a file name (or a path) is too long.
func nameTooLong(err error) bool { return errors.Is(err, syscall.ENAMETOOLONG) }
