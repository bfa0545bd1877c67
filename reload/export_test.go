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
