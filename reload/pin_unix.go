//go:build unix

package reload

// pinFiles: a Filter keeps the file it serves, and the one that failed
// last, open (see openPath). An open file does not stop a rename over its
// path on Unix systems.
const pinFiles = true
