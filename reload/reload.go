package reload

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/internal/errs"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/mem"
)

// ErrKind, ErrClosed and the decoding errors of package sift are what a
// reload reports; these are the same values, for callers that import only
// this package.
var (
	// ErrKind is returned when the file holds a kind of filter that
	// cannot be served in place (scalable, counting, classic): see Open.
	ErrKind = sift.ErrKind
	// ErrClosed is returned by Reload after Close, and wrapped in the
	// panic of a lookup after Close.
	ErrClosed = sift.ErrClosed
)

// Option configures Open. A value out of range is an error from Open.
type Option func(*options)

type options struct {
	interval     time.Duration
	onError      func(error)
	onSwap       func(Version)
	skipChecksum bool
	maxBytes     uint64
	mmap         bool
}

// DefaultInterval is how often a Filter checks its path for a new file
// unless WithInterval says otherwise.
const DefaultInterval = time.Second

// WithInterval sets how often the Filter checks whether the file at its
// path was replaced (default DefaultInterval). A check is a stat(2) of the
// path and a read of its first 128 bytes, tens of microseconds; only a
// changed file (another inode, size, modification time or header; for a
// file that failed, also its status-change time) is opened and validated.
// 0 turns the polling off: the file is then reloaded only by Reload.
// Negative intervals are an error from Open.
func WithInterval(d time.Duration) Option {
	return func(o *options) { o.interval = d }
}

// WithOnError sets a function that is called with every error of a reload
// the Filter attempted, by the polling goroutine or by Reload: a file that
// is damaged, truncated, of a kind that cannot be served, or gone. The
// Filter keeps serving the version it had. Each replacement file is
// reported once, however often the poll sees it. fn runs while the Filter
// holds its reload lock: it may call Err, Version and the lookups, and must
// not call the Filter's Reload or Close.
func WithOnError(fn func(error)) Option {
	return func(o *options) { o.onError = fn }
}

// WithOnSwap sets a function that is called, by the goroutine that
// reloaded, after each swap to a new file, with the version now served. As
// for WithOnError, fn may call Err, Version and the lookups, and must not
// call the Filter's Reload or Close.
func WithOnSwap(fn func(Version)) Option {
	return func(o *options) { o.onSwap = fn }
}

// WithoutChecksum skips the payload's CRC-32C when a file is opened (the
// header's CRC is always checked), as the filters' own WithoutChecksum:
// opening then costs no pass over the file. Use it only where the storage
// is trusted; the check is what keeps a damaged replacement from being
// served.
func WithoutChecksum() Option {
	return func(o *options) { o.skipChecksum = true }
}

// WithMaxSize refuses files whose payload is larger than maxBytes (the
// error wraps sift.ErrTooLarge; the old file keeps being served). 0 means
// no limit beyond the platform's.
func WithMaxSize(maxBytes uint64) Option {
	return func(o *options) { o.maxBytes = maxBytes }
}

// WithMmap serves each file from a read-only mapping of it (zero copy)
// instead of a copy in the process's own memory: opening a file then costs
// its checksum pass only, and processes that serve one file share its page
// cache. The price is a rule the operator must keep: the served file may
// only be replaced by renaming another file over its path (sift build -o,
// sift merge -o, sift.WriteFile). Truncating it in place (cp over it,
// truncate, rsync --inplace) makes the next lookup that touches a page past
// the new end fault with SIGBUS, which ends the process; rewriting it in
// place changes the bits under running lookups, which can then report keys
// absent that both versions hold. Without WithMmap nothing done to the path
// can reach the lookups (see the package documentation, "Copy or mapping").
func WithMmap() Option {
	return func(o *options) { o.mmap = true }
}

// Version identifies the file a Filter serves.
type Version struct {
	Kind sift.Kind
	// Generation is the sequence number recorded in the file's header
	// at build time (sift build -generation, sift.WriteFile), 0 when it
	// records none.
	Generation uint64
	// HeaderCRC and PayloadCRC are the file's checksums from its header
	// (HeaderCRC covers the generation and PayloadCRC): with Generation
	// they tell two builds apart even when nobody set a generation.
	HeaderCRC, PayloadCRC uint32
	// Size is the file's length in bytes and ModTime its modification
	// time, as the Filter saw them when it opened it.
	Size    int64
	ModTime time.Time
	// Loaded is when the Filter began serving the file, and Swaps how many
	// files it served before this one (0 for the file Open opened).
	Loaded time.Time
	Swaps  uint64
}

// String formats v for logs: "blocked gen 7 crc 1a2b3c4d/5e6f7a8b".
func (v Version) String() string {
	return fmt.Sprintf("%v gen %d crc %08x/%08x", v.Kind, v.Generation, v.HeaderCRC, v.PayloadCRC)
}

// stripe is one reader counter, alone on its cache lines (128 bytes: the
// line and the one adjacent-line prefetchers pull with it).
type stripe struct {
	n atomic.Int64
	_ [120]byte
}

// gen is one opened file: the view that serves it and its readers.
type gen struct {
	v       *sift.View  // the file's view, of any kind; nil in the sentinels (closedGen, ...)
	region  *mem.Region // the memory the view reads: the copy or the mapping
	pin     *os.File    // the file served, kept open (see openPath)
	version Version
	id      fs.FileInfo // what stat said of the file opened (nil: closed)
	head    head        // the first bytes of the file opened
	stripes []stripe    // readers in flight, per stripe
	mask    uintptr
	freed   sync.Once
	dead    error // a sentinel's panic value (v is nil): see closedGen
}

// The sentinel generations, which hold no file (v is nil): every lookup on
// one panics with its dead error. closedGen is what a Filter serves after
// Close, zeroGen what a zero Filter's lookups see, and releasedGen what a
// Snapshot holds after its Release.
var (
	closedGen   = &gen{stripes: make([]stripe, 1), dead: errLookupClosed}
	zeroGen     = &gen{stripes: make([]stripe, 1), dead: errLookupZero}
	releasedGen = &gen{stripes: make([]stripe, 1), dead: errSnapshotUse}
)

// Filter serves lookups from the filter file at a path and follows its
// replacements: see the package documentation.
type Filter struct {
	path string
	o    options
	cur  atomic.Pointer[gen]

	mu         sync.Mutex  // serialises reloads and Close
	failed     fs.FileInfo // the file the last failed attempt saw (nil: none, or no file)
	failedPin  *os.File    // failed, kept open where files are pinned (see openPath)
	failedReg  bool        // failed was a regular file, opened
	failedHead head
	failedRacy bool                  // failed's attempt may succeed later without its stat changing
	failedSeen time.Time             // when this process first saw failed as it is (clock; see load)
	lastErr    atomic.Pointer[error] // the last attempt's error (nil: none); Err reads it without f.mu
	swaps      uint64
	closed     bool
	closeDone  chan struct{} // closed when the first Close has released everything
	stop       chan struct{}
	done       chan struct{}
	drains     sync.WaitGroup
}

// Open reads the filter file at path into memory of its own (or maps it,
// WithMmap) and serves it, checking every interval (WithInterval) whether
// the path names another file or the file changed. The file may hold any
// kind sift.Open serves: a blocked filter (blocked.Filter, Concurrent), a
// cuckoo filter, a split-block filter, or a window (blocked.Window,
// ConcurrentWindow: decoded into memory of its own, even WithMmap, and
// forgetting by blocked.WithClock's default clock while it is served).
// Another kind is an error wrapping ErrKind; a damaged file one of sift's
// decoding errors. Open fails if the first file cannot be served; later
// bad files are reported (WithOnError) and the last good one stays served.
func Open(path string, opts ...Option) (*Filter, error) {
	o := options{interval: DefaultInterval}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.interval < 0 {
		return nil, errs.Annotatef(pkg, []error{sift.ErrInvalidArgument}, "negative interval %v", o.interval)
	}
	fd, st, h, err := openPath(path)
	if err != nil {
		return nil, errs.Wrap(pkg, err)
	}
	g, _, err := load(path, fd, st, h, clock(), o)
	if err != nil {
		fd.Close()
		return nil, err
	}
	f := &Filter{path: path, o: o}
	g.version.Loaded = time.Now()
	f.cur.Store(g)
	if o.interval > 0 {
		f.stop, f.done = make(chan struct{}), make(chan struct{})
		go f.poll()
	}
	return f, nil
}

// racyWindow is how long after a file's last change (lastChange) a read of
// it may miss a later write that leaves the time unchanged: file systems
// with coarse timestamps (whole seconds; two seconds on FAT) give two
// writes within one tick the same time. A failed read that began within
// this window is retried at the next poll even when the stat shows no
// change, so a file completed in place at the same size is not missed.
// The window is measured by this machine's clock, from the file's last
// change or from when this process first saw the file as it is, whichever
// is earlier (see load): a time ahead of this clock (a file server's clock
// ahead, tar, rsync -t or touch -d from a machine whose clock leads) does
// not keep a damaged file's failure "racy", read again in full at every
// poll, until that time comes.
const racyWindow = 2 * time.Second

// lastChange is when the file st describes last changed, as far as the
// stat tells: the later of its modification time and its status-change
// time (changeTime). The modification time alone is not enough: a writer
// may set it (cp -p, rsync -t, tar, touch -d). A write in place of the
// same size whose modification time was set more than two seconds into the
// past looked settled to a poll that read it half written, which recorded
// the failure as final and served the old file until the stat changed,
// that is never (TestInPlaceRewriteOldModTime in reload/refuse_test.go).
// The status-change time moves at every write and attribute change, and no
// system call sets it to a given time. (A file server whose clock lags
// this one's puts both times in the past: check then relies on the
// status-change time moving, whatever the clock, as the write goes on.)
func lastChange(st fs.FileInfo) time.Time {
	m, c := st.ModTime(), changeTime(st)
	if c.After(m) {
		return c
	}
	return m
}

// clock is time.Now, replaced by tests that need every file to be outside
// racyWindow.
var clock = time.Now

// openPath opens the regular file at path for a check or a load and reads
// its head. On Unix systems the descriptor of a file served, or of the
// file that failed last, stays open and pins the file: while it is open the
// file system cannot give its inode number to another file, so a later stat
// that names the same inode names the same file. (Not on Windows, where an
// open file cannot be renamed over: pinFiles.) It never blocks
// (mem.OpenRegular).
func openPath(path string) (*os.File, fs.FileInfo, head, error) {
	var h head
	fd, st, err := mem.OpenRegular(path)
	if err != nil {
		return nil, nil, h, err
	}
	h.n, err = io.ReadFull(fd, h.b[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		fd.Close()
		return nil, nil, h, err
	}
	if _, err := fd.Seek(0, io.SeekStart); err != nil {
		fd.Close()
		return nil, nil, h, err
	}
	return fd, st, h, nil
}

// load makes a new generation of the file open as fd (fstat st, head h),
// which it keeps open (as the generation's pin; closes where files are not
// pinned) on success and leaves to the caller on failure. racy reports
// whether a failed attempt may succeed later on the same unchanged file:
// it began within racyWindow of the file's last change (lastChange, or
// seen, when this process first saw the file as it is, if that is
// earlier: the change the stat shows came before that, whatever time the
// stat gives it), so a write after it may leave the stat as it was, or
// memory was refused for what is available now (mem.ErrMemoryNow), which
// changes while the file does not. (Other ErrTooLarge refusals, a size beyond the machine or the
// platform, are final, as a damaged file is.) The file is refused from its
// head, before it is read or memory for it is taken, when the head is not
// a sift header, the file is shorter (still being written, or cut) or
// longer than the encoding its header declares, its payload is larger than
// WithMaxSize allows, or it holds a kind no View serves (unservable).
func load(path string, fd *os.File, st fs.FileInfo, h head, seen time.Time, o options) (g *gen, racy bool, err error) {
	// The head was read just before: a failure it shows may be a write in
	// progress that the stat will not show (racyWindow), as a read's.
	changed := lastChange(st)
	if seen.Before(changed) {
		changed = seen // a time ahead of this machine's clock
	}
	racy = clock().Before(changed.Add(racyWindow))
	if err := format.CheckHead(h.b[:h.n], st.Size(), 0, o.maxBytes); err != nil {
		return nil, racy, pathError(path, err)
	}
	// A kind no View serves is refused from its header too, as sift.Load
	// refuses it: Reload of a 229 MiB classic file read it whole (232 MiB
	// of RSS) only to give this error, and the poll read it again while
	// the file was within racyWindow.
	if err := unservable(h.b[:h.n]); err != nil {
		return nil, racy, pathError(path, err)
	}
	// A refusal of memory (the file's copy, or a view's own memory: a
	// window's generations) depends on the memory available now, which
	// changes while the file does not: the poll tries again.
	data, region, err := obtainFile(fd, st, o)
	if err != nil {
		return nil, racy || errors.Is(err, mem.ErrMemoryNow), errs.Wrap(pkg, err)
	}
	var first head // copied before serve, which may free data (a copied view)
	first.n = copy(first.b[:], data)
	g, err = serveBytes(path, data, region, o)
	if err != nil {
		_ = region.Free()
		return nil, racy || errors.Is(err, mem.ErrMemoryNow), err
	}
	g.id = st
	if pinFiles {
		g.pin = fd
	} else {
		fd.Close()
	}
	g.head = first
	g.version.Size, g.version.ModTime = st.Size(), st.ModTime()
	return g, racy, nil
}

// unservable returns the error sift.FromBytes gives a file whose header
// names a kind no View serves (wrapping ErrKind), and nil for any other
// head, which CheckHead and serve judge. It asks sift, from the header
// alone, rather than keeping a list of the served kinds here, so that the
// two cannot disagree and the message is the one the whole file's read
// gave: FromBytes refuses the kind once the header parses, before it looks
// at the payload, and fails a served kind's 128 bytes as truncated without
// reading or allocating beyond them.
func unservable(head []byte) error {
	v, err := sift.FromBytes(head)
	if err == nil {
		// A whole encoding in the head (an empty payload): a kind served.
		v.Close()
		return nil
	}
	if errors.Is(err, ErrKind) {
		return err
	}
	return nil
}

// obtain returns the bytes of the open file fd (fstat st) and the memory
// that holds them: by default a private copy (mem.ReadOpen, which reports a
// file that changed while it was read), with WithMmap a read-only mapping.
// It is the only place that knows which; serve and the lookups see bytes.
func obtain(fd *os.File, st fs.FileInfo, o options) ([]byte, *mem.Region, error) {
	if o.mmap {
		return mem.MapOpen(fd, st)
	}
	return mem.ReadOpen(fd, st)
}

// obtainFile and serveBytes are obtain and serve, replaced by tests (a
// refusal of memory).
var obtainFile, serveBytes = obtain, serve

// littleEndian reports whether the views use the bytes in place: on a
// big-endian machine they decode into memory of their own.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// serve makes the view of the filter encoded in data, which region holds;
// when the view is a copy of its own (a window; every kind on a big-endian
// machine) it frees region, so data must not be used after it.
func serve(path string, data []byte, region *mem.Region, o options) (*gen, error) {
	var so []sift.Option
	if o.skipChecksum {
		so = append(so, sift.WithoutChecksum())
	}
	so = append(so, sift.WithMaxSize(o.maxBytes))
	v, err := sift.FromBytes(data, so...)
	if err != nil {
		return nil, pathError(path, err)
	}
	info := v.Info()
	g := &gen{v: v, region: region, version: Version{Kind: info.Kind, Generation: info.Generation, HeaderCRC: info.HeaderCRC, PayloadCRC: info.PayloadCRC}}
	if !littleEndian || info.Kind == sift.KindWindow {
		// The view decoded a copy of its own (a window always does: it
		// changes as time passes): the file's bytes are not needed any
		// more.
		_ = region.Free()
		g.region = &mem.Region{}
	}
	n := 4 * runtime.GOMAXPROCS(0)
	size := 8
	for size < n && size < 1024 {
		size *= 2
	}
	g.stripes, g.mask = make([]stripe, size), uintptr(size-1)
	return g, nil
}

// head is a file's first 128 bytes (fewer if it is shorter): its header,
// which names the build (generation, checksums). With the stat it tells
// files apart where the stat alone cannot: when a new file reuses the inode
// number of one that was closed (a damaged file, or a filter read into
// memory, which keeps no file open) and the file system's timestamps are
// too coarse to differ (whole seconds on some file systems, and under
// qemu-user).
type head struct {
	b [128]byte
	n int
}

// free releases the generation's memory (the copy, or the mapping); only
// the last reader (or the drain) calls it, once.
func (g *gen) free() {
	g.freed.Do(func() {
		if g.v != nil {
			g.v.Close()
		}
		if g.region != nil {
			_ = g.region.Free()
		}
		if g.pin != nil {
			g.pin.Close()
		}
	})
}

// readers returns the number of lookups in flight on g.
func (g *gen) readers() int64 {
	var n int64
	for i := range g.stripes {
		n += g.stripes[i].n.Load()
	}
	return n
}

// acquire returns the generation being served with one more reader
// counted on the caller's stripe, which release must be given. It is
// lock-free: a reader that lost a race with a swap retries on the new
// generation. The stripe is chosen by the address of the caller's stack,
// so a goroutine keeps using one counter, which stays in its core's cache,
// and goroutines running at the same time use different counters.
//
// Why this is safe: a swap stores the new generation and then waits until
// the old one's counters sum to zero. A reader increments its counter and
// then checks that the generation is still current; if it is, the
// increment came before the swap's store, so the swap's later reads of the
// counters see it and wait. If it is not, the reader backs out without
// touching the filter.
func (f *Filter) acquire() (*gen, *atomic.Int64) {
	var probe byte
	h := uintptr(uint64(uintptr(unsafe.Pointer(&probe))>>12) * 0x9e3779b97f4a7c15 >> 32) // stacks are 8 KiB apart at least
	for {
		p := f.cur.Load()
		g := p
		if g == nil { // a zero Filter
			g = zeroGen
		}
		c := &g.stripes[h&g.mask].n
		c.Add(1)
		if f.cur.Load() == p {
			return g, c
		}
		c.Add(-1)
	}
}

// closed panics with the error of a lookup on g, a sentinel (v is nil).
func (g *gen) closed() {
	panic(g.dead)
}

// pkg is the prefix of this package's messages.
const pkg = "reload"

// The panic values of a closed or zero Filter and of a Snapshot misused,
// and the error of Reload on a closed or zero Filter: all wrap ErrClosed.
var (
	errLookupClosed = errs.New(pkg, "lookup on a closed Filter", ErrClosed)
	errLookupZero   = errs.New(pkg, "lookup on a zero Filter, never opened (make Filters with Open)", ErrClosed)
	errReloadClosed = errs.New(pkg, "Reload of a closed or zero Filter", ErrClosed)

	errSnapshotUse   = errs.New(pkg, "use of a released Snapshot", ErrClosed)
	errSnapshotTwice = errs.New(pkg, "Snapshot released twice", ErrClosed)
	errSnapshotZero  = errs.New(pkg, "use of a zero Snapshot, never returned by Acquire", ErrClosed)
	errSnapshotCount = errs.New(pkg, "Release of a Snapshot whose file has no reader left: a copy of this Snapshot was released already", ErrClosed)
)

// pathError is err, met reading the file at path, as package reload's
// error: "reload: <path>: <err's message without its package prefix>",
// matching everything err matches (the sift error model, internal/errs).
func pathError(path string, err error) error {
	return errs.Errorf(pkg, []error{err}, "%s: %s", path, errs.Detail(err))
}

// stillServing is the error of a failed reload (err, package reload's or
// the operating system's) while version v stays served.
func stillServing(err error, v Version) error {
	return errs.Errorf(pkg, []error{err}, "%s (still serving %v)", errs.Detail(err), v)
}

// Contains reports whether key may be in the filter being served (as the
// served kind's Contains: for a split-block filter, key is a BYTE_ARRAY
// value). It never blocks on a reload and allocates nothing. It panics with
// an error wrapping ErrClosed after Close.
func (f *Filter) Contains(key []byte) bool {
	g, c := f.acquire()
	r := g.contains(key)
	c.Add(-1)
	return r
}

// ContainsString is Contains of the string's bytes, without copying them.
func (f *Filter) ContainsString(key string) bool {
	g, c := f.acquire()
	r := g.containsString(key)
	c.Add(-1)
	return r
}

// ContainsUint64 reports whether the key x may be in the filter: the same
// key as Contains of x's eight little-endian bytes, for every kind (a
// split-block filter's INT64 value).
func (f *Filter) ContainsUint64(x uint64) bool {
	g, c := f.acquire()
	r := g.containsUint64(x)
	c.Add(-1)
	return r
}

func (g *gen) contains(key []byte) bool {
	if g.v == nil {
		g.closed()
	}
	return g.v.Contains(key)
}

func (g *gen) containsString(key string) bool {
	if g.v == nil {
		g.closed()
	}
	return g.v.ContainsString(key)
}

func (g *gen) containsUint64(x uint64) bool {
	if g.v == nil {
		g.closed()
	}
	return g.v.ContainsUint64(x)
}

// Snapshot is the file a Filter served when Acquire was called, held open
// until Release: for batch lookups (hash once, ContainsHashes) and for
// several lookups that must see one version. Its methods are the served
// view's. A Snapshot must be released exactly once, and not used after: a
// snapshot never released keeps its file's memory (a copy or a mapping,
// never freed under a reader), and a Filter's Close waits for it.
//
// A second Release of the same Snapshot (defer s.Release() plus an early
// s.Release() on one path) panics, with an error wrapping ErrClosed, and
// changes nothing: it cannot take away the count of another lookup, which
// would let a swap free the file under that lookup. Any other use after
// Release panics too ("use of a released Snapshot"), without touching the
// file. A copy of a Snapshot (one passed by value) holds the same count:
// release exactly one of the copies. Releasing two is a double Release
// that the copies cannot see: it panics only when it finds the count
// already at zero, not when other lookups are counted with it.
type Snapshot struct {
	g *gen          // the file held; releasedGen after Release, nil in a zero Snapshot
	c *atomic.Int64 // the counter the snapshot counts itself in; nil after Release
}

// Acquire returns a Snapshot of the file being served. It never blocks on
// a reload. It panics with an error wrapping ErrClosed after Close, and on
// a zero Filter.
func (f *Filter) Acquire() Snapshot {
	g, c := f.acquire()
	if g.v == nil { // a sentinel: closed or zero
		c.Add(-1)
		g.closed()
	}
	return Snapshot{g, c}
}

// Release ends the snapshot: the file it held may be freed once no
// other lookup uses it. Afterwards the Snapshot's methods panic. A second
// Release panics with an error wrapping ErrClosed (see Snapshot).
func (s *Snapshot) Release() {
	c := s.c
	if c == nil {
		if s.g == nil {
			panic(errSnapshotZero)
		}
		panic(errSnapshotTwice)
	}
	s.g, s.c = releasedGen, nil
	// Never below zero: a count at zero means the reader this Release
	// would remove was removed already (by a copy of s), and taking
	// another would let a swap free the file under a lookup in flight.
	for {
		n := c.Load()
		if n <= 0 {
			panic(errSnapshotCount)
		}
		if c.CompareAndSwap(n, n-1) {
			return
		}
	}
}

// view returns the view of the file s holds, and panics for a Snapshot
// released or zero.
func (s Snapshot) view() *sift.View {
	g := s.g
	if g == nil {
		panic(errSnapshotZero)
	}
	if g.v == nil {
		g.closed()
	}
	return g.v
}

// Version is the version of the file the snapshot holds.
func (s Snapshot) Version() Version {
	s.view()
	return s.g.version
}

// Contains is Filter.Contains on the snapshot's file.
func (s Snapshot) Contains(key []byte) bool { return s.view().Contains(key) }

// ContainsString is Filter.ContainsString on the snapshot's file.
func (s Snapshot) ContainsString(key string) bool { return s.view().ContainsString(key) }

// ContainsUint64 is Filter.ContainsUint64 on the snapshot's file.
func (s Snapshot) ContainsUint64(x uint64) bool { return s.view().ContainsUint64(x) }

// Hash returns the hash the snapshot's filter uses for key, for
// ContainsHash and ContainsHashes of this snapshot only: another file may
// hash differently (another seed, or a split-block filter's XXH64).
func (s Snapshot) Hash(key []byte) uint64 { return s.view().Hash(key) }

// HashString is Hash of the string's bytes.
func (s Snapshot) HashString(key string) uint64 { return s.view().HashString(key) }

// ContainsHash reports whether the key with hash h (from this snapshot's
// Hash) may be in the filter.
func (s Snapshot) ContainsHash(h uint64) bool { return s.view().ContainsHash(h) }

// ContainsHashes sets out[i] to whether the key with hash hs[i] (from this
// snapshot's Hash) may be in the filter, with the kind's batch kernel, and
// returns how many are true. It panics if out is shorter than hs.
func (s Snapshot) ContainsHashes(hs []uint64, out []bool) int {
	return s.view().ContainsHashes(hs, out)
}

// Version returns the version of the file being served (the zero Version
// after Close).
func (f *Filter) Version() Version {
	g, c := f.acquire()
	v := g.version
	c.Add(-1)
	return v
}

// Path returns the path the Filter watches.
func (f *Filter) Path() string { return f.path }

// Err returns the error of the last reload attempt, or nil when it
// succeeded, none failed yet, or the path names the served file again. It
// does not wait for a reload in progress, so WithOnError and WithOnSwap
// functions may call it.
func (f *Filter) Err() error {
	if p := f.lastErr.Load(); p != nil {
		return *p
	}
	return nil
}

// setErr records err as the last attempt's error. f.mu is held.
func (f *Filter) setErr(err error) {
	if err == nil {
		f.lastErr.Store(nil)
	} else {
		f.lastErr.Store(&err)
	}
}

// Reload checks the path now and, if a different file is there, opens and
// validates it and swaps to it; it returns the error of that attempt (also
// reported to WithOnError), nil when the file is unchanged or was swapped.
// Unlike the poll it also retries a file that failed before. Reload waits
// for nothing but the open: the previous file is freed in the
// background once its last lookup has finished.
func (f *Filter) Reload() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || f.cur.Load() == nil {
		return errReloadClosed
	}
	return f.check(true)
}

// check reloads if the path names a file other than the one served, or
// the served file changed. Unless retry, a file that failed before is not
// read again while it shows no change (stat, status-change time and head;
// see racyWindow and lastChange), and another failure of the file that
// failed last (the same file, held open) is not reported again. f.mu is
// held.
func (f *Filter) check(retry bool) error {
	cur := f.cur.Load()
	st, err := os.Stat(f.path)
	if err != nil {
		if !retry && f.failed == nil && errors.Is(f.Err(), fs.ErrNotExist) && errors.Is(err, fs.ErrNotExist) {
			return f.Err() // reported already
		}
		return f.fail(nil, nil, head{}, false, time.Time{}, retry, stillServing(err, cur.version))
	}
	if !st.Mode().IsRegular() {
		if !retry && f.failed != nil && !f.failedReg && mem.SameVersion(st, f.failed) {
			return f.Err() // reported already
		}
		err := mem.NotRegular(f.path, st.Mode())
		return f.fail(nil, st, head{}, false, time.Time{}, retry, stillServing(err, cur.version))
	}
	fd, st, h, err := openPath(f.path)
	if err != nil {
		// Replaced between the stat and the open, or unreadable.
		return f.fail(nil, nil, head{}, false, time.Time{}, retry, stillServing(err, cur.version))
	}
	if mem.SameVersion(st, cur.id) && h == cur.head {
		// The served file, unchanged: a failure seen since (the path
		// named another file, or none, and names this one again) is over.
		fd.Close()
		if f.Err() != nil || f.failed != nil {
			f.setFailed(nil, nil, head{}, false)
			f.setErr(nil)
		}
		return nil
	}
	// The file that failed is unchanged when its stat, its status-change
	// time and its head are: a write in place of the same size that keeps
	// the head and sets the modification time back (rsync -t) moves only
	// the status-change time, however long after the failure it comes.
	unchanged := f.failedReg && mem.SameVersion(st, f.failed) && changeTime(st).Equal(changeTime(f.failed)) && h == f.failedHead
	if !retry && unchanged && !f.failedRacy {
		fd.Close()
		return f.Err() // reported already, and unchanged since
	}
	seen := clock()
	if unchanged {
		seen = f.failedSeen
	}
	g, racy, err := load(f.path, fd, st, h, seen, f.o)
	if err != nil {
		return f.fail(fd, st, h, racy, seen, retry, stillServing(err, cur.version))
	}
	f.swaps++
	g.version.Loaded, g.version.Swaps = time.Now(), f.swaps
	f.cur.Store(g)
	f.setFailed(nil, nil, head{}, false)
	f.setErr(nil)
	f.retire(cur)
	if f.o.onSwap != nil {
		f.o.onSwap(g.version)
	}
	return nil
}

// fail records the failed attempt on the file st, open as fd (nil for what
// is not a regular file or could not be opened), with head h, first seen
// as it is at seen, and reports
// err unless it is another failure of the file that failed last (the same
// file: it is held open, so its inode number cannot have been reused; or,
// for what cannot be opened, the same error) and the attempt was not
// Reload's (force). A file written in place fails
// several ways while the copy runs (empty, short, a checksum that does not
// match): it is reported once.
func (f *Filter) fail(fd *os.File, st fs.FileInfo, h head, racy bool, seen time.Time, force bool, err error) error {
	prev := f.Err()
	again := fd != nil && f.failedReg && os.SameFile(st, f.failed) ||
		fd == nil && !f.failedReg && prev != nil && prev.Error() == err.Error()
	f.setFailed(fd, st, h, racy)
	f.failedSeen = seen
	f.setErr(err)
	if (force || !again) && f.o.onError != nil {
		f.o.onError(err)
	}
	return err
}

// setFailed replaces the record of the failed file, closing the previous
// one's descriptor.
func (f *Filter) setFailed(fd *os.File, st fs.FileInfo, h head, racy bool) {
	if f.failedPin != nil {
		f.failedPin.Close()
	}
	f.failedReg = fd != nil
	if fd != nil && !pinFiles {
		fd.Close()
		fd = nil
	}
	f.failedPin, f.failed, f.failedHead, f.failedRacy = fd, st, h, racy
	f.failedSeen = time.Time{}
}

// retire frees g once its lookups in flight have finished. Lookups are
// short, so the first check almost always finds none; the wait backs off
// from 50µs to 10ms for a reader that was descheduled mid-lookup.
func (f *Filter) retire(g *gen) {
	if g.readers() == 0 {
		g.free()
		return
	}
	f.drains.Add(1)
	go func() {
		defer f.drains.Done()
		d := 50 * time.Microsecond
		for g.readers() != 0 {
			time.Sleep(d)
			d = min(2*d, 10*time.Millisecond)
		}
		g.free()
	}()
}

func (f *Filter) poll() {
	defer close(f.done)
	t := time.NewTicker(f.o.interval)
	defer t.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-t.C:
		}
		f.mu.Lock()
		if !f.closed {
			_ = f.check(false)
		}
		f.mu.Unlock()
	}
}

// Close stops watching the path and frees the file once the lookups in
// flight have finished; it returns after that, so no mapping or file
// descriptor of the Filter remains. Lookups after Close panic with an
// error wrapping ErrClosed. Close is idempotent: a call made while
// another is waiting for the lookups returns when that one does, so every
// Close returns with the file released. (So Close must not be called
// while the caller holds a Snapshot of the Filter: it would wait for
// itself.)
func (f *Filter) Close() error {
	f.mu.Lock()
	if f.closed {
		done := f.closeDone
		f.mu.Unlock()
		<-done
		return nil
	}
	f.closed = true
	f.closeDone = make(chan struct{})
	defer close(f.closeDone)
	g := f.cur.Swap(closedGen)
	f.setFailed(nil, nil, head{}, false)
	f.mu.Unlock()
	if g == nil { // a zero Filter
		return nil
	}
	if f.stop != nil {
		close(f.stop)
		<-f.done
	}
	f.retire(g)
	f.drains.Wait()
	return nil
}
