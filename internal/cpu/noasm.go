//go:build purego || !gc || !(amd64 || arm64)

package cpu

// AsmBuilt reports whether this build contains sift's assembly kernels.
const AsmBuilt = false
