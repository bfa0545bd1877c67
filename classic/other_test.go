//go:build !unix

package classic

const isUnix = false
