package cuckoo

import (
	"io"
	"sync"
	"sync/atomic"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/kernel"
)

// Concurrent is a cuckoo filter safe for concurrent Add, Remove and Contains
// from any number of goroutines. It stores exactly what a Filter stores and
// serializes to the same format.
//
// Lookups take no lock: they read the two buckets and the victim with atomic
// loads and validate the read against a sequence counter that is odd while a
// relocation chain runs (an optimistic, versioned read); a lookup that races
// with a relocation retries under a shared lock. Adds and Removes that touch
// a single bucket update it with one compare-and-swap under a shared lock,
// so they proceed in parallel; only relocation chains (both buckets full),
// victim changes and snapshots take the exclusive lock. Adds and Removes are
// linearizable, and a key whose Add returned nil is reported present by
// every lookup that starts after it, until it is removed.
//
// The zero value is ready only for UnmarshalBinary or ReadFrom; build one
// with NewConcurrent or NewConcurrentFrom. A zero or closed Concurrent
// fails loudly (see Close). Do not copy a Concurrent value (go vet's
// copylocks check reports it).
type Concurrent struct {
	// mu is held shared by single-bucket updates and exclusively by
	// relocation chains, victim updates, Reset and snapshots.
	mu     sync.RWMutex
	seq    atomic.Uint64 // odd while a relocation chain runs
	victim atomic.Uint64 // the victim tag (kernel.CuckooTag), 0 if none
	count  atomic.Uint64
	f      *Filter // geometry, seed and the bucket words (accessed atomically)
}

// NewConcurrent returns an empty concurrent filter; see New for capacity
// and options.
func NewConcurrent(capacity uint64, opts ...Option) (*Concurrent, error) {
	f, err := New(capacity, opts...)
	if err != nil {
		return nil, err
	}
	f.shared = true
	return &Concurrent{f: f}, nil
}

// NewConcurrentFrom returns a concurrent filter holding a copy of f (for a
// View, of its Clone). It panics as f.Clone does.
func NewConcurrentFrom(f *Filter) *Concurrent {
	g := f.Clone()
	g.shared = true
	c := &Concurrent{f: g}
	c.victim.Store(g.t.Victim)
	c.count.Store(g.count)
	g.t.Victim, g.count = 0, 0
	return c
}

// load reads bucket i atomically. The word index is below len(Words) for
// every bucket of an open filter; a closed one has no words, and the one
// compare, the bounds check the indexing makes anyway (the compiler drops
// that one after it), panics with a message that names the misuse.
func (c *Concurrent) load(i uint64) uint64 {
	f := c.f
	w := i >> f.wordShift
	if w >= uint64(len(f.t.Words)) {
		panic(errUse)
	}
	return atomic.LoadUint64(&f.t.Words[w]) >> ((i & f.wordMask) << 5)
}

// open returns c's filter, or nil if c is closed or a zero value.
func (c *Concurrent) open() *Filter {
	if f := c.f; f != nil && f.t.Buckets != 0 {
		return f
	}
	return nil
}

// mustOpen returns c's filter, or panics with an error wrapping
// sift.ErrClosed.
func (c *Concurrent) mustOpen() *Filter {
	f := c.open()
	if f == nil {
		panic(errUse)
	}
	return f
}

// probe is Filter.ContainsHash with atomic loads.
func (c *Concurrent) probe(h uint64) bool {
	f := c.f
	if f == nil { // a zero Concurrent; a closed one panics in load
		panic(errUse)
	}
	i1, fp, i2 := f.locate(h)
	b1, b2 := c.load(i1), c.load(i2)
	lo, pat := f.lo, fp*f.lo
	x1, x2 := b1^pat, b2^pat
	hit := ((x1-lo)&^x1 | (x2-lo)&^x2) & f.hi
	if v := c.victim.Load(); v != 0 { // predicted: see Filter.probe
		hit |= kernel.CuckooVictimHit(kernel.CuckooTag(fp, min(i1, i2)), v)
	}
	return hit != 0
}

// ContainsHash reports whether a key with hash h may be in the filter (see
// Filter.ContainsHash). It takes no lock unless it races with a relocation.
func (c *Concurrent) ContainsHash(h uint64) bool {
	if s := c.seq.Load(); s&1 == 0 {
		if c.probe(h) {
			return true
		}
		if c.seq.Load() == s {
			return false
		}
	}
	// A relocation chain ran during the probe: a fingerprint may have been
	// in flight between two buckets. The shared lock excludes chains.
	c.mu.RLock()
	r := c.probe(h)
	c.mu.RUnlock()
	return r
}

// Contains reports whether key may be in the filter.
func (c *Concurrent) Contains(key []byte) bool { return c.ContainsHash(hash.Bytes(key, c.Seed())) }

// ContainsString reports whether key may be in the filter.
func (c *Concurrent) ContainsString(key string) bool {
	return c.ContainsHash(hash.String(key, c.Seed()))
}

// ContainsUint64 reports whether key may be in the filter.
func (c *Concurrent) ContainsUint64(key uint64) bool {
	return c.ContainsHash(c.mustOpen().h64.Hash(key))
}

// ContainsHashes sets out[i] to ContainsHash(hs[i]) and returns how many are
// true. It panics if len(out) < len(hs); out beyond len(hs) is left alone.
// It runs ContainsHash for each key (the batch kernels' plain loads are not
// synchronized with concurrent writers), with the buckets of the keys two
// batches ahead prefetched where an assembly kernel is in use (see
// prefetcher): for filters larger than the caches that makes it several
// times faster than a loop of ContainsHash.
func (c *Concurrent) ContainsHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("cuckoo: ContainsHashes: len(out) < len(hs)")
	}
	c.mustOpen()
	out = out[:len(hs)]
	var p prefetcher
	p.start(c, hs)
	n := 0
	for i, h := range hs {
		if i%prefetchAhead == 0 {
			p.next(i)
		}
		out[i] = c.ContainsHash(h)
		if out[i] {
			n++
		}
	}
	return n
}

// prefetchAhead is the batch size of a Concurrent's batch calls: keys are
// located (and their buckets prefetched) in batches of this many, two
// batches ahead of the key being processed. It was Filter.AddHashes's
// addAhead when both were 16; the Concurrent calls, which run a single-key
// call per key, were not measured with more.
const prefetchAhead = 16

// prefetcher has the buckets of keys ahead of a batch call's current one
// brought into the cache: kernel.CuckooLocate computes them and, with an
// assembly kernel, prefetches them, and the bucket pairs it writes are not
// used. A prefetch reads nothing a concurrent writer could race with, and
// the call that processes the key makes its own synchronized reads. As in
// Filter.AddHashes, keys go in batches of prefetchAhead, located two batches
// ahead of the one being processed. The zero value does nothing.
type prefetcher struct {
	t       *kernel.CuckooTable // nil: nothing to do
	hs      []uint64
	scratch [prefetchAhead]uint64
}

// start readies p for a batch call of c on hs and has the first two
// batches on their way. It leaves p doing nothing when the kernel in use
// does not prefetch (locating would only add work) or hs is one batch.
func (p *prefetcher) start(c *Concurrent, hs []uint64) {
	if !kernel.CuckooLocatePrefetches() || len(hs) <= prefetchAhead {
		return
	}
	p.t, p.hs = &c.f.t, hs
	p.locate(0)
	p.locate(prefetchAhead)
}

// next is called as the call reaches key i (a multiple of prefetchAhead): it
// prefetches the batch two ahead of i.
func (p *prefetcher) next(i int) {
	if p.t != nil {
		p.locate(i + 2*prefetchAhead)
	}
}

func (p *prefetcher) locate(lo int) {
	if lo < len(p.hs) {
		b := p.hs[lo:min(lo+prefetchAhead, len(p.hs))]
		kernel.CuckooLocate(p.t, b, p.scratch[:len(b)])
	}
}

// casInsertEither is the placement of Filter.add with a compare-and-swap: fp goes
// into a free slot of the emptier of buckets i1 and i2, retrying while
// other writers change the chosen word; false when both are full.
func (c *Concurrent) casInsertEither(i1, i2, fp uint64) bool {
	return c.casInsert(i1, i2, fp, false) == casPlaced
}

// What casInsert did.
const (
	casFull    = iota // both buckets were full: nothing changed
	casPlaced         // fp was placed
	casPresent        // (ifNew) fp was in one of the buckets: nothing changed
)

// casInsert is casInsertEither, and with ifNew an insert that does nothing
// when fp is in either bucket, tested on the same loads as the free slots:
// a compare-and-swap that places fp has checked, in the words it read, that
// neither held fp, and the word it swaps was unchanged meanwhile.
func (c *Concurrent) casInsert(i1, i2, fp uint64, ifNew bool) int {
	f := c.f
	w1, w2 := &f.t.Words[i1>>f.wordShift], &f.t.Words[i2>>f.wordShift]
	for {
		old1, old2 := atomic.LoadUint64(w1), atomic.LoadUint64(w2)
		b1, b2 := old1>>((i1&f.wordMask)<<5), old2>>((i2&f.wordMask)<<5)
		if ifNew && f.matchLanes(b1, fp)|f.matchLanes(b2, fp) != 0 {
			return casPresent
		}
		f1, f2 := f.emptyLanes(b1), f.emptyLanes(b2)
		if f1|f2 == 0 {
			return casFull
		}
		i, free := emptier(i1, f1, i2, f2)
		w, old := w1, old1
		if i != i1 {
			w, old = w2, old2
		}
		if atomic.CompareAndSwapUint64(w, old, old|fp<<f.laneShift(i, free)) {
			return casPlaced
		}
	}
}

// casDelete clears a slot of bucket i holding fp with a compare-and-swap.
func (c *Concurrent) casDelete(i, fp uint64) bool {
	f := c.f
	w := &f.t.Words[i>>f.wordShift]
	base := (i & f.wordMask) << 5
	for {
		old := atomic.LoadUint64(w)
		m := f.matchLanes(old>>base, fp)
		if m == 0 {
			return false
		}
		if atomic.CompareAndSwapUint64(w, old, old&^(f.fpMax<<f.laneShift(i, m))) {
			return true
		}
	}
}

// AddHash adds a key by its hash; see Filter.AddHash for the semantics
// (ErrFull once the victim slot is in use, ErrNoSlot for a key walled in
// below 90% load, ErrDuplicateLimit, and no key is ever lost).
func (c *Concurrent) AddHash(h uint64) error {
	_, err := c.add(h, false)
	return err
}

// add is AddHash and, with ifNew, AddNewHash.
func (c *Concurrent) add(h uint64, ifNew bool) (bool, error) {
	f := c.open()
	if f == nil {
		return false, errClosed
	}
	if c.victim.Load() != 0 {
		if ifNew && c.ContainsHash(h) {
			return false, nil
		}
		return false, ErrFull
	}
	i1, fp, i2 := f.locate(h)
	c.mu.RLock()
	// The victim changes only under the exclusive lock: if a relocation
	// parked this very fingerprint since the check above, it is present.
	r := casPresent
	if !ifNew || c.victim.Load() != kernel.CuckooTag(fp, min(i1, i2)) {
		r = c.casInsert(i1, i2, fp, ifNew)
	}
	if r == casPlaced {
		// Counted under the shared lock: Snapshot (exclusive) sees the
		// slot and the count together, or neither.
		c.count.Add(1)
	}
	c.mu.RUnlock()
	switch r {
	case casPlaced:
		return true, nil
	case casPresent:
		return false, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.victim.Load() != 0 {
		if ifNew && c.probe(h) {
			return false, nil
		}
		return false, ErrFull
	}
	switch c.casInsert(i1, i2, fp, ifNew) {
	case casPresent:
		return false, nil
	case casFull:
		// Both buckets are full, and no shared-lock writer runs now: the
		// insert is Filter's (see insertFull), with atomic stores (f is
		// shared), inside an odd sequence number so that lock-free
		// lookups racing with the relocation retry. The victim is parked
		// before the number turns even: a fingerprint moved out of the
		// table is in the victim slot by the time a lookup can trust
		// what it read.
		c.seq.Add(1)
		v, err := f.insertFull(i1, i2, fp, f.bucket(i1), f.bucket(i2), c.count.Load())
		if v != 0 {
			c.victim.Store(v)
		}
		c.seq.Add(1)
		if err != nil {
			return false, err
		}
	}
	c.count.Add(1)
	return true, nil
}

// Add adds key (see AddHash).
func (c *Concurrent) Add(key []byte) error { return c.AddHash(hash.Bytes(key, c.Seed())) }

// AddString adds key (see AddHash).
func (c *Concurrent) AddString(key string) error { return c.AddHash(hash.String(key, c.Seed())) }

// AddUint64 adds key (see AddHash).
func (c *Concurrent) AddUint64(key uint64) error {
	if c.f == nil {
		return errClosed
	}
	return c.AddHash(c.f.h64.Hash(key))
}

// AddHashes adds every hash of hs in order, stopping at the first error,
// and returns how many were added (see Filter.AddHashes).
func (c *Concurrent) AddHashes(hs []uint64) (int, error) {
	if c.open() == nil {
		return 0, errClosed
	}
	var p prefetcher
	p.start(c, hs)
	for i, h := range hs {
		if i%prefetchAhead == 0 {
			p.next(i)
		}
		if err := c.AddHash(h); err != nil {
			return i, err
		}
	}
	return len(hs), nil
}

// RemoveHash removes one copy of a key's fingerprint and reports whether one
// was found, re-homing the victim if there is one (see Filter.RemoveHash for
// the caveat on keys never added, and for what it does on a closed filter).
func (c *Concurrent) RemoveHash(h uint64) bool {
	f := c.mustOpen()
	i1, fp, i2 := f.locate(h)
	c.mu.RLock()
	ok := c.casDelete(i1, fp) || c.casDelete(i2, fp)
	if ok {
		c.count.Add(^uint64(0)) // under the shared lock, as add's
	}
	c.mu.RUnlock()
	if ok {
		if c.victim.Load() != 0 {
			c.mu.Lock()
			c.rehome()
			c.mu.Unlock()
		}
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v := c.victim.Load(); v != 0 && v == kernel.CuckooTag(fp, min(i1, i2)) {
		c.victim.Store(0)
		c.count.Add(^uint64(0))
		return true
	}
	// A relocation may have moved the fingerprint since the shared pass.
	if c.casDelete(i1, fp) || c.casDelete(i2, fp) {
		c.count.Add(^uint64(0))
		c.rehome()
		return true
	}
	return false
}

// rehome moves the victim into the table if there is room for it (see
// Filter.RemoveHash). The caller holds the exclusive lock.
func (c *Concurrent) rehome() {
	v := c.victim.Load()
	if v == 0 {
		return
	}
	c.seq.Add(1)
	defer c.seq.Add(1)
	if c.f.rehome(v) {
		c.victim.Store(0)
	}
}

// Remove removes key (see RemoveHash).
func (c *Concurrent) Remove(key []byte) bool { return c.RemoveHash(hash.Bytes(key, c.Seed())) }

// RemoveString removes key (see RemoveHash).
func (c *Concurrent) RemoveString(key string) bool {
	return c.RemoveHash(hash.String(key, c.Seed()))
}

// RemoveUint64 removes key (see RemoveHash).
func (c *Concurrent) RemoveUint64(key uint64) bool {
	return c.RemoveHash(c.mustOpen().h64.Hash(key))
}

// Count returns the number of fingerprints stored, the victim included.
// While adds and removes run it may lag them; a remove that has just
// deleted a fingerprint whose add has not counted it yet reads as 0, not
// as a count below zero.
func (c *Concurrent) Count() uint64 {
	if n := c.count.Load(); int64(n) >= 0 {
		return n
	}
	return 0
}

// Capacity returns the number of fingerprint slots (see Filter.Capacity);
// 0 for a closed or zero filter.
func (c *Concurrent) Capacity() uint64 {
	if f := c.open(); f != nil {
		return f.Capacity()
	}
	return 0
}

// LoadFactor returns Count / Capacity. It panics on a closed or zero
// filter (see Close).
func (c *Concurrent) LoadFactor() float64 {
	c.mustOpen()
	return float64(c.Count()) / float64(c.Capacity())
}

// FPP returns the predicted false positive probability at the current load
// (see Filter.FPP).
func (c *Concurrent) FPP() float64 { return fppAt(c.LoadFactor(), c.f.t.FPBits) }

// Seed returns the hash seed (0 for a zero Concurrent).
func (c *Concurrent) Seed() uint64 {
	if c.f == nil {
		return 0
	}
	return c.f.seed
}

// Hash returns the hash the filter uses for key: hash.Bytes(key, seed), for
// AddHash, ContainsHash, RemoveHash and the batch methods (as Filter.Hash).
func (c *Concurrent) Hash(key []byte) uint64 { return hash.Bytes(key, c.Seed()) }

// HashString returns the hash the filter uses for key: hash.String(key,
// seed).
func (c *Concurrent) HashString(key string) uint64 { return hash.String(key, c.Seed()) }

// HashUint64 returns the hash the filter uses for key: hash.Uint64(key,
// seed).
func (c *Concurrent) HashUint64(key uint64) uint64 {
	var h hash.Uint64Hasher // seed 0: the zero Concurrent's, as Seed's
	if f := c.f; f != nil {
		h = f.h64
	}
	return h.Hash(key)
}

// FingerprintBits returns the fingerprint width, 8 or 16 (0 for a zero
// Concurrent).
func (c *Concurrent) FingerprintBits() int {
	if c.f == nil {
		return 0
	}
	return c.f.FingerprintBits()
}

// Reset empties the filter. It panics on a closed or zero filter (see
// Close).
func (c *Concurrent) Reset() {
	c.mustOpen()
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.f.t.Words {
		atomic.StoreUint64(&c.f.t.Words[i], 0)
	}
	c.victim.Store(0)
	c.count.Store(0)
	c.f.rng = rngSeed(c.f.seed)
}

// Snapshot returns a consistent copy as a plain Filter: it briefly excludes
// writers (not lookups). It panics as Filter.Clone does.
func (c *Concurrent) Snapshot() *Filter {
	c.mustOpen()
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.f.Clone()
	g.t.Victim = c.victim.Load()
	g.count = c.count.Load()
	return g
}

// MarshalBinary encodes a consistent snapshot (see Filter.MarshalBinary); a
// Filter and a Concurrent with the same contents encode identically. For a
// closed or zero filter it returns an error wrapping sift.ErrClosed.
func (c *Concurrent) MarshalBinary() ([]byte, error) {
	if c.open() == nil {
		return nil, errClosed
	}
	s := c.Snapshot()
	defer s.Close()
	return s.MarshalBinary()
}

// AppendBinary appends MarshalBinary's bytes to b and returns the extended
// slice (encoding.BinaryAppender). For a closed or zero filter it returns b
// unchanged and an error wrapping sift.ErrClosed.
func (c *Concurrent) AppendBinary(b []byte) ([]byte, error) {
	if c.open() == nil {
		return b, errClosed
	}
	s := c.Snapshot()
	defer s.Close()
	return s.AppendBinary(b)
}

// WriteTo writes a consistent snapshot to w (see Filter.WriteTo).
func (c *Concurrent) WriteTo(w io.Writer) (int64, error) {
	if c.open() == nil {
		return 0, errClosed
	}
	s := c.Snapshot()
	defer s.Close()
	return s.WriteTo(w)
}

// UnmarshalBinary replaces c's contents with the decoded filter (see
// Filter.UnmarshalBinary, also for the maximum size); it must not run
// concurrently with other methods.
func (c *Concurrent) UnmarshalBinary(data []byte) error {
	g := Filter{maxBytes: c.maxBytes()}
	if err := g.UnmarshalBinary(data); err != nil {
		return err
	}
	c.set(&g)
	return nil
}

// ReadFrom replaces c's contents with a filter read from r (see
// Filter.ReadFrom, also for the maximum size); it must not run concurrently
// with other methods.
func (c *Concurrent) ReadFrom(r io.Reader) (int64, error) {
	g := Filter{maxBytes: c.maxBytes()}
	n, err := g.ReadFrom(r)
	if err != nil {
		return n, err
	}
	c.set(&g)
	return n, nil
}

// maxBytes is the WithMaxSize bound c was made with (0 for a zero
// Concurrent).
func (c *Concurrent) maxBytes() uint64 {
	if c.f == nil {
		return 0
	}
	return c.f.maxBytes
}

func (c *Concurrent) set(g *Filter) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.victim.Store(g.t.Victim)
	c.count.Store(g.count)
	g.t.Victim, g.count = 0, 0
	g.shared = true
	old := c.f
	c.f = g
	if old != nil {
		_ = old.Close() // no other method runs meanwhile (see ReadFrom)
	}
}

// Close releases the filter's memory promptly (see Filter.Close, also for
// what using the filter afterwards does: here the single-key lookups panic
// with an error wrapping sift.ErrClosed, and so does Snapshot). Close must
// not run concurrently with other methods; it is harmless more than once.
func (c *Concurrent) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.victim.Store(0)
	c.count.Store(0)
	if c.f == nil {
		return nil
	}
	return c.f.Close()
}
