package cuckoo

import (
	"encoding"
	"encoding/binary"
	"io"
	"math/bits"
	"runtime"
	"unsafe"

	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/mem"
	"github.com/sift-go/sift/internal/nocopy"
)

// Indexes of the cuckoo parameters in the header's Params (see the package
// doc, "File format").
const (
	paramBuckets = iota
	paramFPBits
	paramCount
	paramVictimFP
	paramVictimBucket
	paramVictimUsed
	paramMaxKicks
	paramRNG
)

func (f *Filter) header() format.Header {
	var vfp, vi, used uint64
	if f.t.Victim != 0 {
		vfp, vi = f.victim()
		used = 1
	}
	return format.Header{
		Kind: format.KindCuckoo,
		Hash: format.HashXXH3,
		Seed: f.seed,
		Params: [format.NumParams]uint64{
			paramBuckets:      f.t.Buckets,
			paramFPBits:       uint64(f.t.FPBits),
			paramCount:        f.count,
			paramVictimFP:     vfp,
			paramVictimBucket: vi,
			paramVictimUsed:   used,
			paramMaxKicks:     uint64(f.maxKicks),
			paramRNG:          f.rng,
		},
	}
}

// The encodings every type implements, checked at compile time.
var (
	_ encoding.BinaryMarshaler   = (*Filter)(nil)
	_ encoding.BinaryAppender    = (*Filter)(nil)
	_ encoding.BinaryUnmarshaler = (*Filter)(nil)
	_ io.WriterTo                = (*Filter)(nil)
	_ io.ReaderFrom              = (*Filter)(nil)

	_ encoding.BinaryMarshaler   = (*Concurrent)(nil)
	_ encoding.BinaryAppender    = (*Concurrent)(nil)
	_ encoding.BinaryUnmarshaler = (*Concurrent)(nil)
	_ io.WriterTo                = (*Concurrent)(nil)
	_ io.ReaderFrom              = (*Concurrent)(nil)

	// A View is read-only: it encodes, and Open and FromBytes make it.
	_ encoding.BinaryMarshaler = (*View)(nil)
	_ encoding.BinaryAppender  = (*View)(nil)
	_ io.WriterTo              = (*View)(nil)
)

// MarshalBinary encodes the filter in sift's file format (see the package
// doc). The bytes are the same on every architecture and kernel. For a
// closed or zero filter it returns an error wrapping sift.ErrClosed.
func (f *Filter) MarshalBinary() ([]byte, error) {
	if f.t.Buckets == 0 {
		return nil, errClosed
	}
	return f.AppendBinary(make([]byte, 0, format.HeaderSize+8*len(f.t.Words)))
}

// AppendBinary appends MarshalBinary's bytes to b and returns the extended
// slice (encoding.BinaryAppender). For a closed or zero filter it returns b
// unchanged and an error wrapping sift.ErrClosed.
func (f *Filter) AppendBinary(b []byte) ([]byte, error) {
	if f.t.Buckets == 0 {
		return b, errClosed
	}
	payload := format.WordBytes(f.t.Words)
	b = format.AppendHeader(b, f.header(), payload)
	b = append(b, payload...)
	runtime.KeepAlive(f)
	return b, nil
}

// WriteTo writes the filter in sift's file format to w, without copying the
// bucket array on little-endian machines (or returns MarshalBinary's
// error).
func (f *Filter) WriteTo(w io.Writer) (int64, error) {
	if f.t.Buckets == 0 {
		return 0, errClosed
	}
	n, err := format.Write(w, f.header(), format.WordBytes(f.t.Words))
	runtime.KeepAlive(f)
	return n, err
}

// UnmarshalBinary replaces f with the filter encoded in data, which must be
// exactly one encoding. It validates everything before changing f and
// returns errors wrapping sift's sentinels (sift.ErrMagic, ErrVersion,
// ErrKind, ErrTruncated, ErrChecksum, ErrCorrupt, ErrTooLarge); f is left
// unchanged on error. The result owns a copy of the buckets. A filter made
// with WithMaxSize refuses a larger encoding (sift.ErrTooLarge) and keeps
// the bound.
func (f *Filter) UnmarshalBinary(data []byte) error {
	h, payload, n, err := format.Decode(data, format.KindCuckoo, format.Options{MaxPayload: f.maxBytes})
	if err != nil {
		return formatErr(err, h)
	}
	if n != len(data) {
		return corrupt(ErrCorrupt, "%d trailing bytes after the filter", len(data)-n)
	}
	g, err := decode(h, payload, false, true)
	if err != nil {
		return err
	}
	f.replace(g)
	return nil
}

// ReadFrom replaces f with a filter read from r: exactly one encoding, no
// bytes beyond it. Memory grows with the bytes actually read, never with
// what a header claims, and a declared payload larger than f's maximum size
// is refused (sift.ErrTooLarge) before any of it is read: the WithMaxSize
// f was made with, or for a zero Filter the default maximum, the machine's
// memory (RAM and swap, where the system reports them). ReadFilter reads
// into a new filter with options. On error f is unchanged.
func (f *Filter) ReadFrom(r io.Reader) (int64, error) {
	g, n, err := readFilter(r, format.Options{MaxPayload: f.maxBytes})
	if err != nil {
		return n, err
	}
	f.replace(g)
	return n, nil
}

// ReadFilter reads one filter from r as Filter.ReadFrom does, into a new
// Filter. Options: WithMaxSize (refuses a larger payload before reading
// it; the filter keeps the bound), WithoutChecksum.
func ReadFilter(r io.Reader, opts ...Option) (*Filter, error) {
	o := collect(opts)
	g, _, err := readFilter(r, format.Options{MaxPayload: o.maxBytes, SkipPayloadCRC: o.skipChecksum})
	if err != nil {
		return nil, err
	}
	g.maxBytes = o.maxBytes
	return g, nil
}

func readFilter(r io.Reader, opt format.Options) (*Filter, int64, error) {
	h, payload, n, err := format.Read(r, format.KindCuckoo, opt)
	if err != nil {
		return nil, n, formatErr(err, h)
	}
	g, err := decode(h, payload, false, true)
	if err != nil {
		return nil, n, err
	}
	return g, n, nil
}

// replace moves g into f, releasing f's old memory; f keeps its maximum
// size.
func (f *Filter) replace(g *Filter) {
	_ = f.region.Free()
	maxBytes := f.maxBytes
	nocopy.Move(f, g)
	f.maxBytes = maxBytes
}

// FromBytes returns a read-only View that serves lookups straight from b,
// an encoding made by MarshalBinary or WriteTo, without copying it. b must
// stay unmodified while the View is in use. When b's payload is not 8-byte
// aligned (or the machine is big-endian) the buckets are copied instead. b
// must hold exactly one encoding. Options: WithoutChecksum, WithMaxSize,
// WithCountCheck.
func FromBytes(b []byte, opts ...Option) (*View, error) {
	o := collect(opts)
	h, payload, n, err := format.Decode(b, format.KindCuckoo, format.Options{MaxPayload: o.maxBytes, SkipPayloadCRC: o.skipChecksum})
	if err != nil {
		return nil, formatErr(err, h)
	}
	if n != len(b) {
		return nil, corrupt(ErrCorrupt, "%d trailing bytes after the filter", len(b)-n)
	}
	f, err := decode(h, payload, true, o.countCheck)
	if err != nil {
		return nil, err
	}
	v := new(View)
	nocopy.Move(&v.f, f)
	return v, nil
}

// Open maps the filter file at path read-only and returns a View that
// serves lookups straight from the mapping (zero copy): opening costs the
// checksum pass over the file, or nothing with WithoutChecksum. A View has
// no methods that change it; Clone makes a writable Filter. Close unmaps
// the file (a finalizer does, once the View is unreachable). The file must
// only be replaced by renaming another file over its path while the View
// is used: truncating it in place (cp over it, truncate, rsync --inplace)
// makes the next lookup that touches a page past the new end fault with
// SIGBUS, which ends the process, and rewriting it in place changes the
// buckets under running lookups, which can then report added keys absent.
// Load reads a copy instead. Options: WithoutChecksum, WithMaxSize,
// WithCountCheck. On systems without mmap the file is read into memory
// instead.
//
// A path that names no regular file (a directory, a FIFO, a device) is an
// error wrapping *fs.PathError, returned at once: Open never blocks on a
// FIFO without a writer, it opens without waiting and checks the type of
// the file it opened.
func Open(path string, opts ...Option) (*View, error) {
	b, region, err := mem.MapFile(path)
	v, err := viewFile(b, region, err, opts)
	if v != nil && v.f.region == region {
		v.mapped = region.Mapped() && mem.FilesMapped
	}
	return v, err
}

// Load reads the filter file at path into memory of the process's own
// and returns a View of that copy. It checks what Open checks, costs one
// sequential read of the file more than Open (and the filter's size in
// memory), and in exchange nothing another process does to the file
// afterwards can reach the View: see "Open or Load" in the package
// documentation. A file that changes while it is read is an error
// (wrapping sift.ErrTruncated when it shrank), as is a path that names no
// regular file (an *fs.PathError, at once: it never blocks on a FIFO).
// Close frees the copy. Options: WithoutChecksum, WithMaxSize,
// WithCountCheck.
func Load(path string, opts ...Option) (*View, error) {
	b, region, err := format.LoadFile(pkg, path, format.KindCuckoo, collect(opts).maxBytes)
	return viewFile(b, region, err, opts)
}

// viewFile is Open's and Load's View of a file's bytes, b in region, or err
// (from mapping or reading them) wrapped as a decoding error. The View
// keeps region when it reads b in place, and region is freed otherwise
// (the payload was copied: unaligned or big-endian) or when the View
// cannot be made.
func viewFile(b []byte, region *mem.Region, err error, opts []Option) (*View, error) {
	if err != nil {
		return nil, wrapDecode(err)
	}
	v, err := FromBytes(b, opts...)
	if err != nil {
		_ = region.Free()
		return nil, err
	}
	if !aliases(v.f.t.Words, b) {
		_ = region.Free()
		return v, nil
	}
	v.f.setRegion(region)
	return v, nil
}

// aliases reports whether words lies inside b's memory.
func aliases(words []uint64, b []byte) bool {
	if len(words) == 0 || len(b) == 0 {
		return false
	}
	w0 := uintptr(unsafe.Pointer(unsafe.SliceData(words)))
	b0 := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return w0 >= b0 && w0+8*uintptr(len(words)) <= b0+uintptr(len(b))
}

// decode validates the cuckoo parameters and payload against each other and
// builds a filter. view keeps the payload in place (read-only) when it can;
// otherwise the buckets are copied into fresh memory. scan checks that the
// stored count equals the occupied slots plus the victim.
func decode(h format.Header, payload []byte, view, scan bool) (*Filter, error) {
	p := h.Params
	if h.Hash != format.HashXXH3 {
		return nil, corrupt(ErrCorrupt, "hash algorithm %v (want %v)", h.Hash, format.HashXXH3)
	}
	fpBits := p[paramFPBits]
	if fpBits != 8 && fpBits != 16 {
		return nil, corrupt(ErrCorrupt, "fingerprint bits %d (must be 8 or 16)", fpBits)
	}
	n := p[paramBuckets]
	if n == 0 || n > MaxBuckets {
		return nil, corrupt(ErrCorrupt, "bucket count %d (must be in [1, %d])", n, uint64(MaxBuckets))
	}
	words := kernel.CuckooWords(n, uint(fpBits))
	if uint64(len(payload)) != 8*words {
		return nil, corrupt(ErrCorrupt, "payload of %d bytes, %d buckets of %d-bit fingerprints need %d", len(payload), n, fpBits, 8*words)
	}
	slots := SlotsPerBucket * n
	used := p[paramVictimUsed]
	vfp, vi := p[paramVictimFP], p[paramVictimBucket]
	fpMax := uint64(1)<<fpBits - 1
	switch used {
	case 0:
		if vfp != 0 || vi != 0 {
			return nil, corrupt(ErrCorrupt, "victim slot unused but holds fingerprint %d, bucket %d", vfp, vi)
		}
	case 1:
		if vfp == 0 || vfp > fpMax {
			return nil, corrupt(ErrCorrupt, "victim fingerprint %d (must be in [1, %d])", vfp, fpMax)
		}
		if vi >= n {
			return nil, corrupt(ErrCorrupt, "victim bucket %d of %d", vi, n)
		}
		if alt := kernel.CuckooAlt(vi, vfp, n); alt < vi {
			return nil, corrupt(ErrCorrupt, "victim bucket %d is not the smaller of its pair (%d)", vi, alt)
		}
	default:
		return nil, corrupt(ErrCorrupt, "victim flag %d (must be 0 or 1)", used)
	}
	count := p[paramCount]
	if count > slots+used || count < used {
		return nil, corrupt(ErrCorrupt, "count %d does not fit %d slots and %d victim", count, slots, used)
	}
	maxKicks := p[paramMaxKicks]
	if maxKicks > MaxMaxKicks {
		return nil, corrupt(ErrCorrupt, "max kicks %d (at most %d)", maxKicks, MaxMaxKicks)
	}
	if p[paramRNG] == 0 {
		return nil, corrupt(ErrCorrupt, "kick PRNG state is 0")
	}
	// 8-bit tables with an odd bucket count end in half a word of padding.
	if fpBits == 8 && n%2 == 1 {
		last := payload[len(payload)-4:]
		if last[0]|last[1]|last[2]|last[3] != 0 {
			return nil, corrupt(ErrCorrupt, "padding after the last bucket is not zero")
		}
	}
	var w []uint64
	var region *mem.Region
	shared := false
	if view {
		w, shared = format.Words(payload)
	}
	if !shared {
		var err error
		if w, region, err = allocWords(words); err != nil {
			return nil, err
		}
		for i := range w {
			w[i] = binary.LittleEndian.Uint64(payload[8*i:])
		}
	}
	f := newFilter(w, n, uint(fpBits), h.Seed, int(maxKicks))
	f.count = count
	f.rng = p[paramRNG]
	if used == 1 {
		f.t.Victim = kernel.CuckooTag(vfp, vi)
	}
	if scan {
		if occ := f.occupied(); occ+used != count {
			if region != nil {
				_ = region.Free()
			}
			return nil, corrupt(ErrCorrupt, "count %d, but %d slots are occupied and %d victim", count, occ, used)
		}
	}
	// The caller registers the region (setRegion) once the filter has its
	// final address.
	f.region = region
	return f, nil
}

// occupied counts the nonzero slots.
func (f *Filter) occupied() uint64 {
	var c int
	var hi, low uint64 = 0x8000800080008000, 0x7fff7fff7fff7fff
	if f.t.FPBits == 8 {
		hi, low = 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	}
	for _, x := range f.t.Words {
		c += bits.OnesCount64(((x&low + low) | x) & hi)
	}
	return uint64(c)
}
