//go:build race

package cuckoo

// raceEnabled: under the race detector, the kernels' race annotations
// (runtime.RaceReadRange on the stack buffers of AddHashes and of
// Concurrent's batch calls) make those buffers escape, so their allocation
// counts only hold without it.
const raceEnabled = true
