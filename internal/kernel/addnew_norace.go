//go:build gc && !purego && (amd64 || arm64) && !race

package kernel

// Without the race detector the annotation of addnew_race.go compiles away.
func raceBlockedAddNew(blocks []Block, hs []uint64, out []bool) {}
