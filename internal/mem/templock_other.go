//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package mem

import (
	"errors"
	"os"
)

// tempLocks: the writers do not lock their temporary files here (no
// flock(2) with the semantics of the BSDs and Linux), and RemoveStale
// judges a file by its process id and age alone.
const tempLocks = false

var errNoLock = errors.New("no flock here")

func lockTemp(f *os.File) error { return errNoLock }

func holdLock(f *os.File) (release func()) { return nil }

func probeTemp(name string) (state lockState, release func()) { return lockUnknown, nil }
