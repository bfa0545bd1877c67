//go:build race

package sift_test

// raceEnabled: under the race detector, the kernels' race annotations of
// the slices they are given make a caller's stack buffer escape, so a
// lookup that passes one (a window's ContainsHashes, for its generations'
// answers) allocates there and only there; TestViewAllocs skips it then.
const raceEnabled = true
