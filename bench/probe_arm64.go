//go:build gc && !purego

package bench

// probePrefetch is ProbePrefetch's loop, in probe_arm64.s.
//
//go:noescape
func probePrefetch(words *uint64, lines uint64, hs []uint64, dist int) uint64

// callFloor returns false: ProbeCall's empty call, in probe_arm64.s.
//
//go:noescape
func callFloor(t *callTable, h uint64) bool
