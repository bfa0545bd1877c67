package classic

// noCopy is the first field of the filter types that must not be copied
// (a copy shares the original's memory, which Close then frees or unmaps
// under it): go vet's copylocks check reports a copy of any struct holding
// one, as it does for sync.Mutex (the pattern of sync's own noCopy). It
// takes no space.
type noCopy struct{}

// Lock is a no-op; vet looks for it.
func (*noCopy) Lock() {}

// Unlock is a no-op; vet looks for it.
func (*noCopy) Unlock() {}

// move sets *dst to *src, for the few places that move a whole filter
// value on purpose: a decoder replacing its receiver with what it decoded,
// a Clone starting from a shallow copy whose memory it then replaces. The
// type parameter keeps vet's copylocks check, meant for users' copies,
// from reporting these.
func move[T any](dst, src *T) { *dst = *src }
