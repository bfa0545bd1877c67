package sift

import (
	"io"
	"runtime"

	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/internal/errs"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/mem"
)

// View is a read-only filter of any kind that is served in place (blocked,
// cuckoo, split-block), from a file mapped by Open, a copy read by Load or
// bytes given to FromBytes, or decoded into memory of its own (a windowed
// filter: Open unmaps its file before it returns, so the file is only
// read while it decodes): one type for a caller that opens a filter file without
// knowing its kind. It answers as the kind's own view (blocked.View,
// cuckoo.View, sbbf.View) does, allocating nothing, describes its file
// (Kind, Info), and writes its encoding as the kind's view does (WriteTo).
//
// Contains of a key's bytes means the same key for every kind, and
// ContainsUint64(x) is the key of x's eight little-endian bytes (a
// split-block filter's INT64 value). For batch lookups hash with the
// View's own Hash or HashString and call ContainsHashes: hashes belong to
// one file, since kinds and seeds differ.
//
// All of View's methods but Close may be called from many goroutines at
// once. After Close, and on a zero View, the lookups panic with an error
// wrapping ErrClosed.
type View struct {
	m lookup // the kind's view; closedView after Close
	// b is m when the kind is blocked, for ContainsHash: blocked's probe
	// inlines into a direct call, and an interface call cannot inline it.
	// BenchmarkViewLookup (view_bench_test.go; Zen 5 "Oxide Virtual
	// Turin-like Processor", go test -c, then 10 interleaved runs of
	// -test.bench ViewLookup -test.benchtime 50ms, medians): ContainsHash
	// through b 4.1 ns against 5.1 through m in cache (n=1e4; 3.4 for a
	// direct *blocked.View, 4.0 for a switch over every kind), 8.3
	// against 12.1 in memory (n=1e7; direct 5.2, switch 7.8).
	// ContainsString measured the same every way (9.9, 9.9 and 10.1 ns in
	// cache, 8.5 direct: the hash is a call anyway), so every other lookup
	// goes through m and its registry line.
	b      *blocked.View
	info   Info        // the header's facts
	region *mem.Region // Open's mapping or Load's copy, freed by Close (nil for FromBytes and windows)
}

// Option configures Open and FromBytes.
type Option func(*options)

type options struct {
	maxBytes   uint64
	noChecksum bool
}

// WithMaxSize makes Open, Load and FromBytes refuse, with an error wrapping
// ErrTooLarge, a filter whose payload is larger than maxBytes bytes, before
// reading it; 0 (the default) sets no limit beyond the platform's.
func WithMaxSize(maxBytes uint64) Option { return func(o *options) { o.maxBytes = maxBytes } }

// WithoutChecksum makes Open and FromBytes skip the payload's CRC-32C, the
// one pass over the data that opening costs, for storage that is trusted.
// The header's checksum and every size are still checked.
func WithoutChecksum() Option { return func(o *options) { o.noChecksum = true } }

// Open maps the filter file at path read-only and returns a View of it,
// whatever its kind: it reads the header (Inspect), then checks the filter
// as its kind's Open does (blocked.Open, cuckoo.Open,
// sbbf.Open): sizes, parameters and, unless WithoutChecksum is
// given, the payload's CRC-32C. Lookups then read the page cache directly.
// Call Close to unmap the file; a finalizer unmaps it if the View becomes
// unreachable first. (A windowed filter is decoded into memory of its own
// and its file unmapped before Open returns.) The file must not be
// modified or truncated while mapped (replace it by renaming a new file over it, as WriteFile does): a
// truncated mapping faults the process (SIGBUS) and a rewrite in place
// changes the bits under running lookups. Load reads a copy instead.
//
// Errors wrap ErrKind for a kind that cannot be served in place (scalable,
// counting, classic: the message names the function that reads it,
// blocked.ReadScalable, classic.ReadCounting or classic.ReadFilter), the
// decoding errors (ErrMagic, ErrTruncated,
// ErrChecksum, ErrCorrupt, ...), ErrTooLarge beyond WithMaxSize, and the
// *fs.PathError of a path that names no regular file. Each names path:
// "sift: PATH: truncated input: ...", or the *fs.PathError's own text.
func Open(path string, opts ...Option) (*View, error) {
	data, region, err := mem.MapFile(path)
	if err != nil {
		return nil, errs.Wrap("sift", err) // an *fs.PathError: it names path
	}
	// Load's check of the file before it reads it, on the mapping: the
	// same file fails Open and Load with the same error (a cut file read
	// "header declares 1408 payload bytes at offset 128, input has 1535
	// bytes" here and "the file has 1535 bytes, its header declares 1536"
	// there), and a kind no View serves is refused before its payload is
	// checked, as Load refuses it.
	if err := checkFile(data[:min(len(data), format.HeaderSize)], int64(len(data)), collect(opts).maxBytes); err != nil {
		_ = region.Free()
		return nil, fileError(path, err)
	}
	return viewOwning(path, data, region, opts)
}

// Load reads the filter file at path into memory the process owns and
// returns a View of that copy, whatever its kind, checked as Open checks
// it. Unlike Open's mapping, nothing another process later does to the
// file (cp over it, truncating it, rewriting it in place, removing it) can
// reach the View: it costs one sequential read of the file and memory of
// the file's size, and is the choice for a file that other processes may
// write while it is served. A file that changes while it is read is an
// error; read it again once the writer is done. Close frees the copy.
// Errors are Open's.
func Load(path string, opts ...Option) (*View, error) {
	maxBytes := collect(opts).maxBytes
	data, region, _, err := mem.ReadFileChecked(path, format.HeaderSize, func(head []byte, size int64) error {
		if err := checkFile(head, size, maxBytes); err != nil {
			return fileError(path, err)
		}
		return nil
	})
	if err != nil {
		return nil, errs.Wrap("sift", err) // fileError's, or an *fs.PathError: either names path
	}
	return viewOwning(path, data, region, opts)
}

// checkFile is Open's and Load's check of a file of size bytes that begins
// with head (its first format.HeaderSize bytes, fewer if it is shorter),
// made before the file is read: format.ReadFileHeader's check of the head
// and the file's size, and the kind's, so that a kind no View serves is
// refused before the file is read (a large scalable file was read whole,
// then refused).
func checkFile(head []byte, size int64, maxBytes uint64) error {
	if h, _, err := format.ParseHeader(head, 0, format.Options{}); err == nil {
		if err := viewable(Kind(h.Kind)); err != nil {
			return err
		}
	}
	return format.CheckHead(head, size, 0, maxBytes)
}

// fileError is err, met in the contents of the file at path, as this
// package's error naming the file: "sift: <path>: <err's message without
// its package prefix>", matching everything err matches. (Errors from
// the system name the file already: *fs.PathError.)
func fileError(path string, err error) error {
	return errs.Errorf("sift", []error{err}, "%s: %s", path, errs.Detail(err))
}

// viewOwning returns a View of data, the contents of the file at path,
// that frees region on Close; the region is freed when the View cannot be
// made, and the error names path.
func viewOwning(path string, data []byte, region *mem.Region, opts []Option) (*View, error) {
	v, err := viewOf(data, opts)
	if err != nil {
		_ = region.Free()
		return nil, fileError(path, err)
	}
	if v.info.Kind == KindWindow {
		// A window is always a copy (it changes as time passes): the
		// mapping or the buffer read is no longer needed.
		_ = region.Free()
		return v, nil
	}
	v.region = region
	return v, nil
}

// FromBytes returns a View of the filter encoded in data, which must be
// exactly one encoding of a blocked, cuckoo, split-block or window filter
// (as their MarshalBinary and WriteTo write it). Like the kind's own
// FromBytes, the View may use data in place: it does on a little-endian
// machine when data is aligned as the kind needs (a 64-byte-aligned start
// for blocked, an 8-byte-aligned one for cuckoo, a 32-byte-aligned payload
// for split-block), and copies it otherwise; a window is always copied.
// So data must stay unmodified and alive while the View is used. Errors
// are Open's.
func FromBytes(data []byte, opts ...Option) (*View, error) { return viewOf(data, opts) }

// collect applies opts to the zero options.
func collect(opts []Option) options {
	var o options
	for _, opt := range opts {
		if opt != nil { // as the kinds' packages: a nil Option does nothing
			opt(&o)
		}
	}
	return o
}

func viewOf(data []byte, opts []Option) (*View, error) {
	o := collect(opts)
	h, off, err := format.ParseHeader(data, 0, format.Options{MaxPayload: o.maxBytes})
	if err != nil {
		return nil, err
	}
	info := infoOf(h, off, headerCRC(data))
	if err := viewable(info.Kind); err != nil {
		return nil, err
	}
	open := viewers[h.Kind] // ParseHeader checked h.Kind <= MaxKind
	m, err := open(data, o.maxBytes, o.noChecksum)
	if err != nil {
		return nil, err
	}
	b, _ := m.(*blocked.View)
	return &View{m: m, b: b, info: info}, nil
}

// Kind returns the kind of filter the View serves.
func (v *View) Kind() Kind { return v.info.Kind }

// Info returns what the header says: kind, format version, generation,
// seed, sizes, checksums and the kind's parameters (see Inspect).
func (v *View) Info() Info { return v.info }

// Contains reports whether key may have been added.
func (v *View) Contains(key []byte) bool {
	r := v.lookup().Contains(key)
	runtime.KeepAlive(v)
	return r
}

// ContainsString is Contains for a string key, without copying it.
func (v *View) ContainsString(key string) bool {
	r := v.lookup().ContainsString(key)
	runtime.KeepAlive(v)
	return r
}

// ContainsUint64 is Contains for x's eight little-endian bytes.
func (v *View) ContainsUint64(x uint64) bool {
	r := v.lookup().ContainsUint64(x)
	runtime.KeepAlive(v)
	return r
}

// ContainsHash is Contains for a key whose hash (from this View's Hash or
// HashString) is h.
func (v *View) ContainsHash(h uint64) bool {
	var r bool
	if b := v.b; b != nil {
		r = b.ContainsHash(h)
	} else {
		r = v.lookup().ContainsHash(h)
	}
	runtime.KeepAlive(v)
	return r
}

// ContainsHashes sets out[i] = ContainsHash(hs[i]) for every i, with the
// kind's batch kernel, and returns how many are true. It panics if
// len(out) < len(hs); out beyond len(hs) is left alone.
func (v *View) ContainsHashes(hs []uint64, out []bool) int {
	r := v.lookup().ContainsHashes(hs, out)
	runtime.KeepAlive(v)
	return r
}

// Hash returns the hash this View's filter uses for key (the kind's hash
// function with the file's seed), for ContainsHash and ContainsHashes.
func (v *View) Hash(key []byte) uint64 { return v.lookup().Hash(key) }

// HashString is Hash for a string key.
func (v *View) HashString(key string) uint64 { return v.lookup().HashString(key) }

// WriteTo writes the filter's encoding to w, as the kind's own view's
// WriteTo does (blocked.View, cuckoo.View, sbbf.View; for a window,
// blocked.Window: its state now), so that a View can be passed to
// WriteFile: the same bits and parameters, in a header that records no
// generation (WriteFile records one; Info().Generation is the file's). On
// a closed or zero View it returns an error wrapping ErrClosed. A View from
// Open reads its mapping, with Open's caveat: a file truncated under it
// faults the process (SIGBUS); write a View from Load where other
// processes may change the file.
func (v *View) WriteTo(w io.Writer) (int64, error) {
	if v.m == nil || v.m == lookup(closedView{}) {
		return 0, errWriteClosed
	}
	n, err := v.m.WriteTo(w)
	runtime.KeepAlive(v)
	return n, err
}

// Close unmaps the file of a View from Open, or frees Load's copy. Afterwards
// the lookups panic with an error wrapping ErrClosed, never touching
// unmapped memory. Close must not run concurrently with other methods; a
// second Close does nothing. A View from FromBytes that used the caller's
// buffer leaves the buffer alone.
func (v *View) Close() error {
	m := v.m
	if m == nil || m == lookup(closedView{}) {
		return nil
	}
	v.m, v.b = closedView{}, nil
	err := m.Close()
	if v.region != nil {
		if ferr := v.region.Free(); err == nil {
			err = errs.Wrap("sift", ferr)
		}
		v.region = nil
	}
	return err
}

// lookup returns the kind's view, or closedView for a zero View.
func (v *View) lookup() lookup {
	if v.m == nil {
		return closedView{}
	}
	return v.m
}

// errUse is the panic value of a lookup on a closed or zero View, and
// errWriteClosed the error of its WriteTo.
var (
	errUse         = errs.New("sift", "use of a closed View, or of a zero View never made by Open or FromBytes", ErrClosed)
	errWriteClosed = errs.New("sift", "cannot encode a closed View, or a zero View never made by Open or FromBytes", ErrClosed)
)

// closedView is the lookup of a closed or zero View: every lookup panics
// with errUse.
type closedView struct{}

func (closedView) Contains([]byte) bool                { panic(errUse) }
func (closedView) ContainsString(string) bool          { panic(errUse) }
func (closedView) ContainsUint64(uint64) bool          { panic(errUse) }
func (closedView) ContainsHash(uint64) bool            { panic(errUse) }
func (closedView) ContainsHashes([]uint64, []bool) int { panic(errUse) }
func (closedView) Hash([]byte) uint64                  { panic(errUse) }
func (closedView) HashString(string) uint64            { panic(errUse) }
func (closedView) WriteTo(io.Writer) (int64, error)    { return 0, errWriteClosed }
func (closedView) Close() error                        { return nil }
