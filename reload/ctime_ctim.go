//go:build linux || aix || dragonfly || openbsd || solaris

package reload

import (
	"io/fs"
	"syscall"
	"time"
)

// changeTime returns the status-change time (ctime) of the file st
// describes: the kernel sets it to its own clock at every write and
// attribute change, and no system call sets it back (see lastChange). A
// stat without one (not from this system) gives the modification time.
func changeTime(st fs.FileInfo) time.Time {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return time.Unix(s.Ctim.Unix())
	}
	return st.ModTime()
}
