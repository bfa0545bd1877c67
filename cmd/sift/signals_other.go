//go:build !unix

package main

import "os"

// moreSignals is empty where there is no SIGHUP or SIGPIPE: SIGINT and
// SIGTERM alone are handled, and a failed write is an error as any other.
var moreSignals []os.Signal

// brokenPipe reports false: a write to a pipe whose reader is gone is an
// error as any other here.
func brokenPipe(err error) (os.Signal, bool) { return nil, false }

// quietSignal reports false: every handled signal is named on stderr.
func quietSignal(sig os.Signal) bool { return false }
