package kernel

// SetCuckooBatchMin sets the smallest batch the cuckoo assembly kernels take
// and returns a restore function, so tests can send short batches to them.
func SetCuckooBatchMin(n int) (restore func()) {
	prev := cuckooBatchMin
	cuckooBatchMin = n
	return func() { cuckooBatchMin = prev }
}

// SetCuckooScalar selects the scalar arm64 kernels instead of the NEON ones
// and returns a restore function; elsewhere it does nothing.
var SetCuckooScalar = func(scalar bool) (restore func()) { return func() {} }

// SetCuckooInsertAheadFrom sets the smallest bucket array, in bytes, that
// the insert kernels prefetch 128 keys ahead on, and returns a restore
// function, so tests can run that distance on small tables.
func SetCuckooInsertAheadFrom(bytes int) (restore func()) {
	prev := cuckooInsertAheadFrom
	cuckooInsertAheadFrom = bytes
	return func() { cuckooInsertAheadFrom = prev }
}
