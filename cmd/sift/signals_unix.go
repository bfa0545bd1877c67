//go:build unix

package main

import (
	"errors"
	"os"
	"syscall"
)

// moreSignals are the signals handled beside SIGINT and SIGTERM where
// they exist: SIGHUP (the terminal or the session went away), and SIGPIPE,
// so that a write to a pipe whose reader is gone returns EPIPE, which
// stdoutFile turns into the same exit, rather than the Go runtime killing
// the process on a write to standard output or error without the
// cleanups (a new dedup -state file's claim was left behind, empty).
var moreSignals = []os.Signal{syscall.SIGHUP, syscall.SIGPIPE}

// brokenPipe reports whether err is a write's to a pipe whose reader is
// gone (EPIPE), and returns the signal that ends the run for it, SIGPIPE.
func brokenPipe(err error) (os.Signal, bool) {
	if errors.Is(err, syscall.EPIPE) {
		return syscall.SIGPIPE, true
	}
	return nil, false
}

// quietSignal reports whether sig ends the run without a message:
// SIGPIPE, whose sender (the reader of the output, head) ended the
// pipeline on purpose, as the runtime's SIGPIPE exit was quiet.
func quietSignal(sig os.Signal) bool { return sig == syscall.SIGPIPE }
