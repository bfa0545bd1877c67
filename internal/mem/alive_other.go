//go:build !unix

package mem

// processAlive cannot tell here: every writer counts as alive, and
// RemoveStale removes only files older than StaleAge.
func processAlive(pid int) bool { return true }

// syncUnsupported: syncing a directory is not possible on these systems
// (Windows opens no directory for writing), so any error means that.
func syncUnsupported(err error) bool { return true }

// nameTooLong: only the Unix systems' ENAMETOOLONG is recognised.
func nameTooLong(err error) bool { return false }
