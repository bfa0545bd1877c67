package reload

// Poll runs one check as the polling goroutine does (a failure that
// continues the last one is not reported again), for tests that must not
// depend on a ticker.
func (f *Filter) Poll() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	return f.check(false)
}

// LittleEndianHost is littleEndian: whether the views use the bytes in
// place.
var LittleEndianHost = littleEndian

// Mapped reports whether the filter served now holds a mapping (the
// file's, with WithMmap, or a large read copy).
func (f *Filter) Mapped() bool { return f.cur.Load().region.Mapped() }
