//go:build !unix

package blocked

const isUnix = false
