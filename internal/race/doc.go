// Package race reports to the race detector the writes it cannot see by
// itself (see Clear); without the race detector its functions are the
// plain operations and cost nothing more.
package race
