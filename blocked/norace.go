//go:build !race

package blocked

// raceEnabled: see race.go.
const raceEnabled = false
