//go:build !race

package sift_test

// raceEnabled: see race_test.go.
const raceEnabled = false
