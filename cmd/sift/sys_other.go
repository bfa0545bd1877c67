//go:build !linux

package main

import (
	"os"
	"time"
)

// fileIsTerminal approximates a terminal check where sift does not use the
// termios ioctl: a character device (a terminal, or /dev/null).
func fileIsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// totalMemory returns 0: unknown here, so memory checks are skipped.
func totalMemory() uint64 { return 0 }

// threadCPUTime reports false: bench uses the wall clock here.
func threadCPUTime() (time.Duration, bool) { return 0, false }
