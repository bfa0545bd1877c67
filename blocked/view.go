package blocked

import (
	"io"
	"runtime"
	"unsafe"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/mem"
	"github.com/sift-go/sift/internal/nocopy"
)

// View is a read-only blocked Bloom filter served straight from encoded
// bytes: a file mapped by Open, or a caller's buffer given to FromBytes. It
// answers exactly as the Filter that was saved, costs no copy and no
// decoding, and has no methods that add: the type system, not a run-time
// check, keeps writes away from read-only memory. Clone returns a writable
// Filter.
//
// All of View's methods but Close may be called from many goroutines at
// once. Do not copy a View value: a copy shares its memory, and closing
// either unmaps it under the other; share the pointer, or Clone a Filter
// (go vet's copylocks check reports a copy).
type View struct {
	_ nocopy.NoCopy // go vet reports copies; no space
	core
	mapped bool // the memory is Open's file mapping, unmapped by Close
}

// Open maps the filter file at path read-only and returns a View of it. It
// verifies the header and, unless WithoutChecksum is given, the payload's
// CRC-32C (one sequential pass, the only cost of opening); then lookups read
// the page cache directly, and pages come in on demand. Call Close to unmap
// the file; a finalizer unmaps it if the View becomes unreachable first.
// Options: WithoutChecksum, WithMaxSize.
//
// The file must only be replaced by renaming another file over its path
// while the View is used: lookups read the file itself. Truncating it
// (cp over it, truncate, rsync --inplace) makes the next lookup that
// touches a page past the new end fault with SIGBUS, which ends the
// process; rewriting it in place changes the bits under running lookups,
// which can then report added keys absent. Load reads a copy instead.
//
// A path that names no regular file (a directory, a FIFO, a device) is an
// error wrapping *fs.PathError, returned at once: Open never blocks on a
// FIFO without a writer, it opens without waiting and checks the type of
// the file it opened.
//
// Open reads files written by Filter and Concurrent (MarshalBinary,
// WriteTo). On systems without mmap the file is read into memory instead.
func Open(path string, opts ...Option) (*View, error) {
	data, region, err := mem.MapFile(path)
	return viewFile(data, region, err, collect(opts))
}

// Load reads the filter file at path into memory of the process's own
// and returns a View of that copy. It checks what Open checks, costs one
// sequential read of the file more than Open (and the filter's size in
// memory), and in exchange nothing another process does to the file
// afterwards can reach the View: see "Open or Load" in the package
// documentation. A file that changes while it is read is an error
// (wrapping sift.ErrTruncated when it shrank), as is a path that names no
// regular file (an *fs.PathError, at once: it never blocks on a FIFO).
// Close frees the copy. Options: WithoutChecksum, WithMaxSize.
func Load(path string, opts ...Option) (*View, error) {
	o := collect(opts)
	data, region, err := format.LoadFile(pkg, path, format.KindBlocked, o.maxBytes)
	v, err := viewFile(data, region, err, o)
	if v != nil {
		v.mapped = false // a copy, whatever memory holds it
	}
	return v, err
}

// viewFile is Open's and Load's View of a file's bytes, data in region, or
// err (from mapping or reading them) under this package's prefix; the
// region is freed when the View cannot be made.
func viewFile(data []byte, region *mem.Region, err error, o options) (*View, error) {
	if err != nil {
		return nil, prefix(err)
	}
	v, err := viewOf(data, region, o)
	if err != nil {
		_ = region.Free()
		return nil, err
	}
	return v, nil
}

// FromBytes returns a View of the filter encoded in data, which must be
// exactly one encoding as written by MarshalBinary or WriteTo. When data
// starts at a 64-byte-aligned address (a file mapping, or a buffer the
// caller aligned; Go's allocator guarantees that only for large slices) on
// a little-endian machine, the View uses data in place: data must then stay
// unmodified and alive while the View is used. Otherwise the blocks are
// copied into aligned memory. It checks the header and, unless
// WithoutChecksum is given, the payload's CRC-32C. Options:
// WithoutChecksum, WithMaxSize.
func FromBytes(data []byte, opts ...Option) (*View, error) {
	return viewOf(data, &mem.Region{}, collect(opts))
}

func viewOf(data []byte, region *mem.Region, o options) (*View, error) {
	h, payload, n, err := format.Decode(data, format.KindBlocked, format.Options{MaxPayload: o.maxBytes, SkipPayloadCRC: o.skipChecksum})
	if err != nil {
		return nil, formatErr(err, h)
	}
	if n != len(data) {
		return nil, errorf(ErrCorrupt, "%d bytes after the filter", len(data)-n)
	}
	blocks, k, err := blockedParams(h, uint64(len(payload)), false)
	if err != nil {
		return nil, err
	}
	v := &View{}
	words, shared := format.Words(payload)
	if shared && uintptr(unsafe.Pointer(unsafe.SliceData(payload)))%kernel.BlockBytes == 0 {
		v.setWords(words, region, k, h.Seed)
		v.mapped = region.Mapped() && mem.FilesMapped
	} else {
		// Unaligned or big-endian: a private aligned copy; the input is
		// not needed afterwards.
		err := v.alloc(blocks, k, h.Seed)
		_ = region.Free()
		if err != nil {
			return nil, err
		}
		copy(v.words, words)
	}
	return v, nil
}

// Hash returns the hash the filter uses for key (see Filter.Hash).
func (v *View) Hash(key []byte) uint64 { return hash.Bytes(key, v.seed) }

// HashString is Hash for a string key.
func (v *View) HashString(key string) uint64 { return hash.String(key, v.seed) }

// HashUint64 is Hash for x's eight little-endian bytes.
func (v *View) HashUint64(x uint64) uint64 { return v.h64.Hash(x) }

// Contains reports whether key may have been added.
func (v *View) Contains(key []byte) bool { return v.ContainsHash(hash.Bytes(key, v.seed)) }

// ContainsString is Contains for a string key.
func (v *View) ContainsString(key string) bool { return v.ContainsHash(hash.String(key, v.seed)) }

// ContainsUint64 is Contains for x's eight little-endian bytes.
func (v *View) ContainsUint64(x uint64) bool { return v.ContainsHash(v.h64.Hash(x)) }

// ContainsHash is Contains for a key whose hash is h.
func (v *View) ContainsHash(h uint64) bool {
	// BlockedContains1 keeps &v.t, so v and its mapping, alive to its end
	// (see Filter.ContainsHash).
	return kernel.BlockedContains1(&v.t, h)
}

// ContainsHashes sets out[i] = ContainsHash(hs[i]) for every i and returns
// how many are true. It panics if len(out) < len(hs); out beyond len(hs) is
// left alone.
func (v *View) ContainsHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("blocked: ContainsHashes: len(out) < len(hs)")
	}
	mustOpen(&v.core)
	if !useKernel(len(hs)) {
		n := probeAll(&v.t, hs, out)
		runtime.KeepAlive(v)
		return n
	}
	n := kernel.BlockedContains(v.t.Blocks, v.t.K, hs, out)
	runtime.KeepAlive(v)
	return n
}

// EstimatedCount estimates how many distinct keys were added (see
// Filter.EstimatedCount).
func (v *View) EstimatedCount() uint64 { return v.estimatedCount() }

// FPP returns the filter's current false-positive rate (see Filter.FPP).
func (v *View) FPP() float64 { return v.fpp() }

// Bits returns the filter's size in bits.
func (v *View) Bits() uint64 { return uint64(len(v.t.Blocks)) * BlockBits }

// Blocks returns the number of 64-byte blocks.
func (v *View) Blocks() uint64 { return uint64(len(v.t.Blocks)) }

// SizeBytes returns the memory the blocks take, 64 bytes each.
func (v *View) SizeBytes() uint64 { return uint64(len(v.t.Blocks)) * kernel.BlockBytes }

// K returns the number of probes per key.
func (v *View) K() int { return v.t.K }

// Seed returns the hash seed.
func (v *View) Seed() uint64 { return v.seed }

// Mapped reports whether the View reads a file mapping (Open on a Unix
// system, little-endian) rather than heap memory.
func (v *View) Mapped() bool { return v.mapped }

// Clone returns a writable Filter holding the same keys, in memory of its
// own (it panics as Filter.Clone does).
func (v *View) Clone() *Filter {
	mustOpen(&v.core)
	f := &Filter{}
	f.mustAlloc(uint64(len(v.t.Blocks)), v.t.K, v.seed)
	copy(f.words, v.words)
	runtime.KeepAlive(v)
	return f
}

// MarshalBinary returns the filter's encoding (see Filter.MarshalBinary).
func (v *View) MarshalBinary() ([]byte, error) {
	return v.AppendBinary(make([]byte, 0, format.HeaderSize+len(v.words)*8))
}

// AppendBinary appends the filter's encoding to b (see
// Filter.AppendBinary).
func (v *View) AppendBinary(b []byte) ([]byte, error) {
	if v.closed() {
		return b, errorf(ErrClosed, "cannot encode a closed or zero View")
	}
	b = appendEncoding(b, v.words, v.t.K, v.seed, 0, 0)
	runtime.KeepAlive(v)
	return b, nil
}

// WriteTo writes the filter's encoding to w.
func (v *View) WriteTo(w io.Writer) (int64, error) {
	if v.closed() {
		return 0, errorf(ErrClosed, "cannot encode a closed or zero View")
	}
	n, err := format.Write(w, blockedHeader(uint64(len(v.t.Blocks)), v.t.K, v.seed, 0, 0), format.WordBytes(v.words))
	runtime.KeepAlive(v)
	return n, err
}

// Close unmaps the file of a View from Open (or frees a copy). Afterwards
// the View fails loudly as a closed Filter does (see Filter.Close), never
// touching unmapped memory; a zero View behaves the same. Close must not
// run concurrently with other methods. A View from FromBytes that used the
// caller's buffer leaves the buffer alone.
func (v *View) Close() error {
	v.mapped = false
	return v.free()
}
