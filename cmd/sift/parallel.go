package main

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/internal/mem"
)

// parallelBuilder is a builder that can take keys from several goroutines:
// workers returns n builders, one per goroutine, whose hash and add (or
// addKey) that goroutine alone calls, and finish, which folds what they
// built into the builder after the last add (merging shards, counting
// keys). Kinds build in parallel in one of two ways (see DESIGN.md's
// section on parallel builds for the measurements behind the choice):
// per-worker shards of the same geometry merged with Union at the end
// (blocked, sbbf, classic), or one shared blocked.Concurrent (blocked, when
// shards would not fit in memory); a filter whose copies would not fit at
// all is filled alone (one worker, which newSink runs on build's own
// goroutine). cuckoo is no parallelBuilder: its
// shards' merge reinserts every fingerprint, and a shared
// cuckoo.Concurrent measured slower than one goroutine (kind_cuckoo.go).
type parallelBuilder interface {
	builder
	workers(n int) (ws []builder, finish func() error, err error)
}

// keySink takes build's keys one at a time.
type keySink interface {
	key(k []byte) error
	// finish adds what is pending and returns the first error of any add.
	finish() error
}

// newSink returns the sink build feeds: jobs goroutines for a
// parallelBuilder when jobs > 1, else build's own goroutine.
func newSink(b builder, jobs int) (keySink, error) {
	if pb, ok := b.(parallelBuilder); ok && jobs > 1 {
		ws, finish, err := pb.workers(jobs)
		if err != nil {
			return nil, err
		}
		if len(ws) == 1 {
			// One worker (the filter filled alone): build's goroutine
			// adds, as without -j, and skips copying keys into chunks
			// for another (kind_cuckoo.go measured that copy at 15-17M
			// keys a second against 21-22M without it).
			return &finishingSink{newSerialSink(ws[0]), finish}, nil
		}
		return newParallelSink(ws, finish), nil
	}
	return newSerialSink(b), nil
}

// finishingSink is a serialSink whose finish also runs a parallel build's
// finish, for a build with one worker.
type finishingSink struct {
	*serialSink
	end func() error
}

func (s *finishingSink) finish() error {
	err := s.serialSink.finish()
	if end := s.end(); err == nil {
		err = end
	}
	return err
}

// serialSink hashes keys in batches of batchSize and hands each batch to
// the builder's batch add (or calls addKey for kinds that hash themselves).
type serialSink struct {
	b     builder
	ka    keyAdder
	batch []uint64
}

func newSerialSink(b builder) *serialSink {
	ka, _ := b.(keyAdder)
	return &serialSink{b: b, ka: ka, batch: make([]uint64, 0, batchSize)}
}

func (s *serialSink) key(k []byte) error {
	if s.ka != nil {
		return s.ka.addKey(k)
	}
	s.batch = append(s.batch, s.b.hash(k))
	if len(s.batch) == cap(s.batch) {
		return s.flush()
	}
	return nil
}

func (s *serialSink) flush() error {
	err := s.b.add(s.batch)
	s.batch = s.batch[:0]
	return err
}

func (s *serialSink) finish() error { return s.flush() }

// chunk is a run of keys copied out of the reader's buffer: key i is
// buf[ends[i-1]:ends[i]].
type chunk struct {
	buf  []byte
	ends []int
}

const (
	chunkKeys  = 4096
	chunkBytes = 256 << 10
)

// parallelSink copies keys into chunks and hands them to one goroutine per
// worker builder, each of which hashes and adds them as serialSink does.
// The reader (build's goroutine) only splits lines and copies keys, so the
// hashing and the filter's memory traffic run on every core.
type parallelSink struct {
	cur    *chunk
	work   chan *chunk
	free   chan *chunk
	wg     sync.WaitGroup
	failed atomic.Bool
	errMu  sync.Mutex
	err    error
	end    func() error
}

func newParallelSink(ws []builder, finish func() error) *parallelSink {
	p := &parallelSink{
		work: make(chan *chunk, 2*len(ws)),
		free: make(chan *chunk, 3*len(ws)+1),
		end:  finish,
	}
	p.cur = p.newChunk()
	for _, w := range ws {
		p.wg.Add(1)
		go p.run(newSerialSink(w))
	}
	return p
}

func (p *parallelSink) newChunk() *chunk {
	select {
	case c := <-p.free:
		c.buf, c.ends = c.buf[:0], c.ends[:0]
		return c
	default:
		return &chunk{buf: make([]byte, 0, chunkBytes), ends: make([]int, 0, chunkKeys)}
	}
}

func (p *parallelSink) run(s *serialSink) {
	defer p.wg.Done()
	for c := range p.work {
		if !p.failed.Load() {
			start := 0
			for _, end := range c.ends {
				if err := s.key(c.buf[start:end]); err != nil {
					p.fail(err)
					break
				}
				start = end
			}
		}
		select {
		case p.free <- c:
		default:
		}
	}
	if !p.failed.Load() {
		if err := s.finish(); err != nil {
			p.fail(err)
		}
	}
}

func (p *parallelSink) fail(err error) {
	p.errMu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.errMu.Unlock()
	p.failed.Store(true)
}

func (p *parallelSink) key(k []byte) error {
	c := p.cur
	if len(c.ends) == cap(c.ends) || len(c.buf)+len(k) > cap(c.buf) && len(c.ends) > 0 {
		if p.failed.Load() {
			return p.firstErr()
		}
		p.work <- c
		c = p.newChunk()
		p.cur = c
	}
	c.buf = append(c.buf, k...)
	c.ends = append(c.ends, len(c.buf))
	return nil
}

func (p *parallelSink) firstErr() error {
	p.errMu.Lock()
	defer p.errMu.Unlock()
	return p.err
}

func (p *parallelSink) finish() error {
	if len(p.cur.ends) > 0 {
		p.work <- p.cur
	}
	close(p.work)
	p.wg.Wait()
	err := p.firstErr()
	if end := p.end(); err == nil {
		err = end
	}
	return err
}

// alone is a parallel build's workers when the filter is filled by one
// goroutine, b itself: nothing to merge at the end.
func alone(b builder) ([]builder, func() error, error) {
	return []builder{b}, func() error { return nil }, nil
}

// shardMemory is the memory a parallel build budgets its copies against:
// the machine's RAM (totalMemory), or the memory available now when that
// is less (mem.AvailableMemory: a container's limit, what other processes
// hold), which is the bound mem.Alloc holds every new filter to. Replaced
// by tests.
var shardMemory = func() uint64 {
	total := totalMemory()
	if a := mem.AvailableMemory(); a != 0 && (total == 0 || a < total) {
		return a
	}
	return total
}

// shardCount returns how many copies of a filter of size bytes a parallel build
// may make for n workers: n, or fewer when n copies would take more than
// half of shardMemory (at least 1, the filter itself).
func shardCount(n int, size uint64) int {
	total := shardMemory()
	if total == 0 || size == 0 {
		return n
	}
	return max(1, min(n, int(min(total/2/size, uint64(n)))))
}

// shardWorkers makes a parallel build of up to n per-worker shards: b
// itself and n-1 more from newShard (of b's geometry, empty), fewer when
// newShard is refused memory (sift.ErrTooLarge: memory ran short since
// shardCount looked). finish merges each extra shard into b with merge,
// adds its keys to b's with addKeys, and closes it.
func shardWorkers[T builder](b T, n int, newShard func() (T, error), merge func(into, from T) error, addKeys func(into, from T), closeShard func(T)) ([]builder, func() error, error) {
	shards := []T{b}
	for range n - 1 {
		s, err := newShard()
		if errors.Is(err, sift.ErrTooLarge) {
			break
		}
		if err != nil {
			for _, s := range shards[1:] {
				closeShard(s)
			}
			return nil, nil, err
		}
		shards = append(shards, s)
	}
	ws := make([]builder, len(shards))
	for i, s := range shards {
		ws[i] = s
	}
	finish := func() error {
		var err error
		for _, s := range shards[1:] {
			if err == nil {
				err = merge(b, s)
			}
			addKeys(b, s)
			closeShard(s)
		}
		return err
	}
	return ws, finish, nil
}

// withGeneration returns write with generation gen recorded in the header
// of the encoding it writes (sift.GenerationWriter), or write itself for
// gen 0.
func withGeneration(write func(io.Writer) (int64, error), gen uint64) func(io.Writer) (int64, error) {
	if gen == 0 {
		return write
	}
	return func(w io.Writer) (int64, error) {
		gw := &sift.GenerationWriter{W: w, Generation: gen}
		n, err := write(gw)
		if err == nil {
			err = gw.Close()
		}
		return n, err
	}
}
