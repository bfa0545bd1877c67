//go:build gc && !purego && (amd64 || arm64)

package cpu

// AsmBuilt reports whether this build contains sift's assembly kernels.
const AsmBuilt = true
