package reload

import (
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sift-go/sift/internal/mem"
)

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

// RetriesUnchanged reports whether the next poll reads the file that
// failed last again even if it shows no change (its failure was within
// racyWindow, or a refusal of memory).
func (f *Filter) RetriesUnchanged() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failedRacy
}

// LittleEndianHost is littleEndian: whether the views use the bytes in
// place.
var LittleEndianHost = littleEndian

// Mapped reports whether the filter served now holds a mapping (the
// file's, with WithMmap, or a large read copy).
func (f *Filter) Mapped() bool { return f.cur.Load().region.Mapped() }

// FailObtain makes the next n reads of a file fail with err (as a
// refusal of memory does), and returns a function that undoes it.
func FailObtain(n int, err error) (restore func()) {
	fail := firstN(n)
	obtainFile = func(fd *os.File, st fs.FileInfo, o options) ([]byte, *mem.Region, error) {
		if fail() {
			return nil, nil, err
		}
		return obtain(fd, st, o)
	}
	return func() { obtainFile = obtain }
}

// FailServe makes the next n views of a file's bytes fail with err (as a
// window's decode refused memory does), and returns a function that undoes
// it.
func FailServe(n int, err error) (restore func()) {
	fail := firstN(n)
	serveBytes = func(path string, data []byte, region *mem.Region, o options) (*gen, error) {
		if fail() {
			return nil, err
		}
		return serve(path, data, region, o)
	}
	return func() { serveBytes = serve }
}

// CountObtain counts the reads (or mappings) of whole files from now on,
// and returns the count and a function that undoes it.
func CountObtain() (reads *atomic.Int64, restore func()) {
	reads = new(atomic.Int64)
	obtainFile = func(fd *os.File, st fs.FileInfo, o options) ([]byte, *mem.Region, error) {
		reads.Add(1)
		return obtain(fd, st, o)
	}
	return reads, func() { obtainFile = obtain }
}

// SetClock makes the Filters read now instead of time.Now where they judge
// whether a file changed recently (racyWindow), and returns a function
// that undoes it.
func SetClock(now func() time.Time) (restore func()) {
	clock = now
	return func() { clock = time.Now }
}

// ChangeTime is changeTime: the file's status-change time, or its
// modification time where the stat has none.
var ChangeTime = changeTime

// firstN returns a function that reports whether its call is one of its
// first n, safely from several goroutines.
func firstN(n int) func() bool {
	var left atomic.Int64
	left.Store(int64(n))
	return func() bool { return left.Add(-1) >= 0 }
}

// ReadBytes returns how many bytes this process has read with read system
// calls (/proc/self/io's rchar), and false where that is not known.
func ReadBytes() (uint64, bool) {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
