//go:build race

package cuckoo

// raceEnabled: under the race detector, the kernels' race annotations
// (runtime.RaceReadRange on AddHashes' stack buffers) make those buffers
// escape, so allocation counts of AddHashes only hold without it.
const raceEnabled = true
