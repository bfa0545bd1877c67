package sbbf

import (
	"io"
	"runtime"
	"unsafe"

	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/mem"
	"github.com/sift-go/sift/internal/nocopy"
)

// A split-block filter in sift's file format is one record of kind 6
// (sbbf), hash algorithm 3 (XXH64, seed 0: the header's seed is 0), with
// Params[0] the block count and the other parameters 0; the payload is the
// Parquet bitset, exactly 32 bytes a block (FORMAT.md, kind 6).

// fileHeader returns the format header of a split-block filter of blocks
// blocks.
func fileHeader(blocks uint64) format.Header {
	h := format.Header{Kind: format.KindSplitBlock, Hash: format.HashXXH64}
	h.Params[0] = blocks
	return h
}

// checkParams checks a decoded split-block header against its payload and
// returns the block count.
func checkParams(h format.Header, payloadLen uint64) (uint64, error) {
	blocks := h.Params[0]
	switch {
	case h.Hash != format.HashXXH64:
		return 0, errorf(ErrCorrupt, "hash algorithm %v, split-block filters use %v", h.Hash, format.HashXXH64)
	case h.Seed != 0:
		return 0, errorf(ErrCorrupt, "seed %#x, split-block filters hash with seed 0", h.Seed)
	case blocks < 1 || blocks > MaxBlocks:
		return 0, errorf(ErrCorrupt, "block count %d is not in 1..%d", blocks, MaxBlocks)
	case blocks > blockLimit():
		return 0, errorf(ErrTooLarge, "%d blocks do not fit in this platform's memory", blocks)
	case payloadLen != blocks*BlockBytes:
		return 0, errorf(ErrCorrupt, "payload of %d bytes does not hold %d blocks of %d bytes", payloadLen, blocks, BlockBytes)
	}
	for i := 1; i < format.NumParams; i++ {
		if h.Params[i] != 0 {
			return 0, errorf(ErrCorrupt, "parameter %d is %d, must be 0", i, h.Params[i])
		}
	}
	return blocks, nil
}

func (c *core) marshal() ([]byte, error) {
	return c.appendBinary(make([]byte, 0, format.HeaderSize+len(c.blocks)*BlockBytes))
}

func (c *core) appendBinary(b []byte) ([]byte, error) {
	if c.closed() {
		return b, errorf(ErrClosed, "cannot encode a closed or zero filter")
	}
	payload := format.Word32Bytes(blockWords(c.blocks))
	b = format.AppendHeader(b, fileHeader(uint64(len(c.blocks))), payload)
	b = append(b, payload...)
	runtime.KeepAlive(c)
	return b, nil
}

func (c *core) writeTo(w io.Writer) (int64, error) {
	if c.closed() {
		return 0, errorf(ErrClosed, "cannot encode a closed or zero filter")
	}
	n, err := format.Write(w, fileHeader(uint64(len(c.blocks))), format.Word32Bytes(blockWords(c.blocks)))
	runtime.KeepAlive(c)
	return n, err
}

// MarshalBinary returns the filter in sift's file format: a 128-byte
// header with checksums, then the Parquet bitset, identical on every
// architecture.
func (f *Filter) MarshalBinary() ([]byte, error) { return f.marshal() }

// AppendBinary appends MarshalBinary's bytes to b and returns the extended
// slice (encoding.BinaryAppender). For a closed or zero filter it returns b
// unchanged and an error wrapping ErrClosed.
func (f *Filter) AppendBinary(b []byte) ([]byte, error) { return f.appendBinary(b) }

// WriteTo writes MarshalBinary's bytes to w, without copying the bitset on
// little-endian machines.
func (f *Filter) WriteTo(w io.Writer) (int64, error) { return f.writeTo(w) }

// UnmarshalBinary replaces f with the filter encoded in data, which must be
// exactly one encoding as MarshalBinary writes it. It checks every field
// and both checksums before using anything, and copies the bitset. A
// bitset larger than the WithMaxSize bound f was made with is refused
// (ErrTooLarge). On error f is unchanged.
func (f *Filter) UnmarshalBinary(data []byte) error {
	h, payload, n, err := format.Decode(data, format.KindSplitBlock, format.Options{MaxPayload: f.maxBytes})
	if err != nil {
		return formatErr(err, h)
	}
	if n != len(data) {
		return errorf(ErrCorrupt, "%d bytes after the filter", len(data)-n)
	}
	blocks, err := checkParams(h, uint64(len(payload)))
	if err != nil {
		return err
	}
	var d core
	if err := d.alloc(blocks); err != nil {
		return err
	}
	copyFromBitset(d.blocks, payload)
	f.replace(d)
	return nil
}

// ReadFrom replaces f with one filter read from r in sift's file format,
// reading exactly its bytes; memory grows only as bytes arrive. A payload
// larger than the WithMaxSize bound f was made with is refused before it
// is read (ErrTooLarge). On error f is unchanged.
func (f *Filter) ReadFrom(r io.Reader) (int64, error) {
	return f.readFrom(r, format.Options{MaxPayload: f.maxBytes})
}

// ReadFilter reads one filter from r as Filter.ReadFrom does, into a new
// Filter. Options: WithMaxSize (refuses a larger payload before reading
// it; the filter keeps the bound), WithoutChecksum.
func ReadFilter(r io.Reader, opts ...Option) (*Filter, error) {
	o := collect(opts)
	f := &Filter{maxBytes: o.maxBytes}
	if _, err := f.readFrom(r, format.Options{MaxPayload: o.maxBytes, SkipPayloadCRC: o.skipChecksum}); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *Filter) readFrom(r io.Reader, fo format.Options) (int64, error) {
	h, payload, n, err := format.Read(r, format.KindSplitBlock, fo)
	if err != nil {
		return n, formatErr(err, h)
	}
	if _, err := checkParams(h, uint64(len(payload))); err != nil {
		return n, err
	}
	var d core
	if err := d.adoptBitset(payload); err != nil {
		return n, err
	}
	f.replace(d)
	return n, nil
}

// View is a read-only split-block filter served in place from encoded
// bytes: a file in sift's format mapped by Open, or a caller's buffer given
// to FromBytes (sift's format) or ViewParquet (a Parquet column chunk's
// Bloom filter data). It answers exactly as the filter that was saved and
// has no methods that add. All its methods but Close may run from many
// goroutines at once. Do not copy a View value (a copy shares its memory,
// and closing either unmaps it under the other); share the pointer, or
// Clone a Filter (go vet's copylocks check reports a copy).
type View struct {
	_ nocopy.NoCopy // go vet reports copies; no space
	core
	mapped bool
}

// Open maps the split-block filter file at path (sift's format,
// as MarshalBinary and WriteTo write it) read-only and returns a View of
// it. It verifies the header and, unless WithoutChecksum is given, the
// payload's CRC-32C; then lookups read the page cache directly. Call Close
// to unmap the file; a finalizer unmaps it if the View becomes unreachable
// first. The file must not be modified or truncated while mapped (replace
// it by renaming a new file over it); Load reads a copy instead. Options:
// WithoutChecksum, WithMaxSize. On systems without mmap the file is read
// into memory instead.
func Open(path string, opts ...Option) (*View, error) {
	data, region, err := mem.MapFile(path)
	return viewFile(data, region, err, collect(opts))
}

// Load reads the split-block filter file at path (sift's format) into
// memory of the process's own and returns a View of that copy. It checks
// what Open checks, costs one sequential read of the file more than Open
// (and the filter's size in memory), and in exchange nothing another
// process does to the file afterwards (cp over it, truncate, a rewrite in
// place) can reach the View, where Open's mapping faults (SIGBUS) on a
// truncated file and sees a rewrite's bits change under running lookups. A
// file that changes while it is read is an error, as is a path that names
// no regular file (at once: it never blocks on a FIFO). Close frees the
// copy. Options: WithoutChecksum, WithMaxSize.
func Load(path string, opts ...Option) (*View, error) {
	o := collect(opts)
	data, region, err := format.LoadFile(pkg, path, format.KindSplitBlock, o.maxBytes)
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

// FromBytes returns a View of the filter encoded in data in sift's format,
// which must be exactly one encoding. On a little-endian machine with data
// 32-byte aligned at the payload the View uses data in place (it must then
// stay unmodified and alive while the View is used); otherwise it copies.
// Options: WithoutChecksum, WithMaxSize.
func FromBytes(data []byte, opts ...Option) (*View, error) {
	return viewOf(data, &mem.Region{}, collect(opts))
}

func viewOf(data []byte, region *mem.Region, o options) (*View, error) {
	h, payload, n, err := format.Decode(data, format.KindSplitBlock, format.Options{MaxPayload: o.maxBytes, SkipPayloadCRC: o.skipChecksum})
	if err != nil {
		return nil, formatErr(err, h)
	}
	if n != len(data) {
		return nil, errorf(ErrCorrupt, "%d bytes after the filter", len(data)-n)
	}
	if _, err := checkParams(h, uint64(len(payload))); err != nil {
		return nil, err
	}
	v := &View{}
	mapped, err := v.viewBitset(payload, region)
	if err != nil {
		return nil, err
	}
	v.mapped = mapped
	return v, nil
}

// viewBitset makes bitset c's memory in place where it can (little-endian,
// 32-byte aligned) and reports whether that memory is region's mapping;
// otherwise it copies bitset and frees region.
func (c *core) viewBitset(bitset []byte, region *mem.Region) (bool, error) {
	if format.LittleEndian() && uintptr(unsafe.Pointer(unsafe.SliceData(bitset)))%BlockBytes == 0 {
		c.setBlocks(unsafe.Slice((*kernel.SBBFBlock)(unsafe.Pointer(unsafe.SliceData(bitset))), len(bitset)/BlockBytes), region)
		return region.Mapped(), nil
	}
	if err := c.alloc(uint64(len(bitset) / BlockBytes)); err != nil {
		return false, err
	}
	copyFromBitset(c.blocks, bitset)
	_ = region.Free()
	return false, nil
}

// ViewParquet returns a View of the Parquet Bloom filter data (header and
// bitset, as ParseParquet reads them) at the start of data, and the bytes
// it spans; data may run on past it. It checks the header as ParseParquet
// does; the bitset is used in place when data is suitably aligned on a
// little-endian machine (see FromBytes), for example in a mapped
// Parquet file, else copied. Options: WithMaxSize.
func ViewParquet(data []byte, opts ...Option) (*View, int, error) {
	numBytes, n, err := DecodeParquetHeader(data, opts...)
	if err != nil {
		return nil, 0, err
	}
	if uint64(len(data)-n) < numBytes {
		return nil, 0, errorf(ErrTruncated, "the header declares a %d-byte bitset, %d bytes follow it", numBytes, len(data)-n)
	}
	v := &View{}
	if _, err := v.viewBitset(data[n:n+int(numBytes):n+int(numBytes)], &mem.Region{}); err != nil {
		return nil, 0, err
	}
	return v, n + int(numBytes), nil
}

// Contains reports whether a BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY or INT96
// value may have been added.
func (v *View) Contains(b []byte) bool { return v.ContainsHash(Hash(b)) }

// ContainsString is Contains for a string value.
func (v *View) ContainsString(s string) bool {
	return v.ContainsHash(HashString(s))
}

// ContainsInt32 is Contains for an INT32 value.
func (v *View) ContainsInt32(x int32) bool {
	return v.ContainsHash(HashInt32(x))
}

// ContainsInt64 is Contains for an INT64 value.
func (v *View) ContainsInt64(x int64) bool {
	return v.ContainsHash(HashInt64(x))
}

// ContainsFloat32 is Contains for a FLOAT value, by its bits.
func (v *View) ContainsFloat32(x float32) bool {
	return v.ContainsHash(HashFloat32(x))
}

// ContainsFloat64 is Contains for a DOUBLE value, by its bits.
func (v *View) ContainsFloat64(x float64) bool {
	return v.ContainsHash(HashFloat64(x))
}

// ContainsHash reports whether the value whose hash is h may have been
// added.
func (v *View) ContainsHash(h uint64) bool {
	return kernel.SBBFContains1(&v.blocks, h)
}

// ContainsHashes sets out[i] = ContainsHash(hs[i]) for every i and returns
// how many are true. It panics if len(out) < len(hs); out beyond len(hs) is
// left alone.
func (v *View) ContainsHashes(hs []uint64, out []bool) int {
	return v.containsHashes(hs, out)
}

// EstimatedCount estimates how many distinct keys were added (see
// Filter.EstimatedCount).
func (v *View) EstimatedCount() uint64 {
	s := v.fill()
	return s.count()
}

// FPP returns the filter's current false-positive rate (see Filter.FPP).
func (v *View) FPP() float64 {
	s := v.fill()
	return s.fpr()
}

// Blocks returns the number of 32-byte blocks.
func (v *View) Blocks() uint64 { return uint64(len(v.blocks)) }

// NumBytes returns the size of the bitset in bytes.
func (v *View) NumBytes() uint64 { return uint64(len(v.blocks)) * BlockBytes }

// Mapped reports whether the View reads a file mapping rather than heap
// memory.
func (v *View) Mapped() bool { return v.mapped }

// Clone returns a writable Filter holding the same keys, in memory of
// its own (see Filter.Clone).
func (v *View) Clone() *Filter {
	v.mustOpen()
	f := &Filter{}
	f.mustAlloc(uint64(len(v.blocks)))
	copy(f.blocks, v.blocks)
	runtime.KeepAlive(v)
	return f
}

// AppendBitset appends the filter's Parquet bitset to dst. On a closed or
// zero View it panics with an error wrapping ErrClosed, as
// Filter.AppendBitset does.
func (v *View) AppendBitset(dst []byte) []byte { return v.appendBitset(dst) }

// MarshalParquet returns the filter's Parquet Bloom filter data (see
// Filter.MarshalParquet).
func (v *View) MarshalParquet() ([]byte, error) { return v.marshalParquet() }

// WriteParquet writes MarshalParquet's bytes to w.
func (v *View) WriteParquet(w io.Writer) (int64, error) { return v.writeParquet(w) }

// MarshalBinary returns the filter in sift's file format.
func (v *View) MarshalBinary() ([]byte, error) { return v.marshal() }

// AppendBinary appends MarshalBinary's bytes to b (see
// Filter.AppendBinary).
func (v *View) AppendBinary(b []byte) ([]byte, error) { return v.appendBinary(b) }

// WriteTo writes the filter in sift's file format to w.
func (v *View) WriteTo(w io.Writer) (int64, error) { return v.writeTo(w) }

// Close unmaps the file of a View from Open (or frees a copy).
// Afterwards every query panics with an error wrapping ErrClosed. It must not run concurrently with other
// methods. A View that used a caller's buffer leaves the buffer alone.
func (v *View) Close() error {
	v.mapped = false
	return v.free()
}
