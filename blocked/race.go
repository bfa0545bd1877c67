//go:build race

package blocked

// raceEnabled is whether the race detector is on. Concurrent's batch calls
// then read with atomic loads in Go instead of the assembly kernels: the
// detector cannot see the kernels' reads, and the annotation the kernel
// wrappers make for them (a plain read of the whole block array) would be
// reported as racing with the atomic ORs of concurrent adds.
const raceEnabled = true
