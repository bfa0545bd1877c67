//go:build !unix

package reload

// pinFiles: files are not kept open here: on Windows a file that is open
// cannot be renamed over, which would block the writers that publish the
// next file. Identities are compared by stat alone (see openPath).
const pinFiles = false
