//go:build !linux

package main

import (
	"fmt"
	"os"
)

// peercmp times with CLOCK_THREAD_CPUTIME_ID and advises huge pages with
// madvise: Linux only.
func main() {
	fmt.Fprintln(os.Stderr, "peercmp: Linux only (thread CPU clock, madvise)")
	os.Exit(2)
}
