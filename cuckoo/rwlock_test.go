package cuckoo

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestStripedRWMutex checks exclusion: no reader runs while a writer does,
// and writers run one at a time. plain is written by writers and read by
// readers without atomics, so a broken exclusion is also a data race for
// -race to report.
func TestStripedRWMutex(t *testing.T) {
	var l stripedRWMutex
	var writers, readers atomic.Int32
	var bad atomic.Int64
	plain := 0
	rounds := 20000
	if testing.Short() {
		rounds = 5000
	}
	var wg sync.WaitGroup
	nr := max(4, 2*runtime.GOMAXPROCS(0))
	for range nr {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				r := l.RLock()
				readers.Add(1)
				if writers.Load() != 0 {
					bad.Add(1)
				}
				if plain < 0 {
					bad.Add(1)
				}
				if i%16 == 0 {
					runtime.Gosched()
				}
				readers.Add(-1)
				l.RUnlock(r)
			}
		}()
	}
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds / 8 {
				l.Lock()
				if writers.Add(1) != 1 || readers.Load() != 0 {
					bad.Add(1)
				}
				plain++
				if plain%8 == 0 {
					runtime.Gosched()
				}
				writers.Add(-1)
				l.Unlock()
			}
		}()
	}
	wg.Wait()
	if bad.Load() != 0 {
		t.Fatalf("%d violations of reader-writer exclusion", bad.Load())
	}
	if plain != 2*(rounds/8) {
		t.Fatalf("writers counted %d, want %d", plain, 2*(rounds/8))
	}
}
