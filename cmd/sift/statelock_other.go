//go:build !unix || aix

package main

// lockState takes no lock where flock does not exist (Windows, AIX; the
// usage says the lock is taken "where the system has flock"): two sift
// dedup runs on one -state file both write it back, and the last one's
// keys are kept.
func lockState(path string) (release func(), warning string, err error) {
	return func() {}, "", nil
}
