package blocked

import (
	"io"
	"runtime"
	"unsafe"

	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/mem"
)

// A split-block filter in sift's file format is one record of kind 6
// (sbbf), hash algorithm 3 (XXH64, seed 0: the header's seed is 0), with
// Params[0] the block count and the other parameters 0; the payload is the
// Parquet bitset, exactly 32 bytes a block (see "File format" in the
// package documentation).

// splitHeader returns the format header of a split-block filter of blocks
// blocks.
func splitHeader(blocks uint64) format.Header {
	h := format.Header{Kind: format.KindSplitBlock, Hash: format.HashXXH64}
	h.Params[0] = blocks
	return h
}

// splitParams checks a decoded split-block header against its payload and
// returns the block count.
func splitParams(h format.Header, payloadLen uint64) (uint64, error) {
	blocks := h.Params[0]
	switch {
	case h.Hash != format.HashXXH64:
		return 0, errorf(ErrCorrupt, "hash algorithm %v, split-block filters use %v", h.Hash, format.HashXXH64)
	case h.Seed != 0:
		return 0, errorf(ErrCorrupt, "seed %#x, split-block filters hash with seed 0", h.Seed)
	case blocks < 1 || blocks > SplitBlockMaxBlocks:
		return 0, errorf(ErrCorrupt, "block count %d is not in 1..%d", blocks, SplitBlockMaxBlocks)
	case blocks > splitBlockLimit():
		return 0, errorf(ErrTooLarge, "%d blocks do not fit in this platform's memory", blocks)
	case payloadLen != blocks*SplitBlockBytes:
		return 0, errorf(ErrCorrupt, "payload of %d bytes does not hold %d blocks of %d bytes", payloadLen, blocks, SplitBlockBytes)
	}
	for i := 1; i < format.NumParams; i++ {
		if h.Params[i] != 0 {
			return 0, errorf(ErrCorrupt, "parameter %d is %d, must be 0", i, h.Params[i])
		}
	}
	return blocks, nil
}

func (c *splitCore) marshal() ([]byte, error) {
	return c.appendBinary(make([]byte, 0, format.HeaderSize+len(c.blocks)*SplitBlockBytes))
}

func (c *splitCore) appendBinary(b []byte) ([]byte, error) {
	if c.closed() {
		return b, errorf(ErrClosed, "cannot encode a closed or zero filter")
	}
	payload := format.Word32Bytes(blockWords(c.blocks))
	b = format.AppendHeader(b, splitHeader(uint64(len(c.blocks))), payload)
	b = append(b, payload...)
	runtime.KeepAlive(c)
	return b, nil
}

func (c *splitCore) writeTo(w io.Writer) (int64, error) {
	if c.closed() {
		return 0, errorf(ErrClosed, "cannot encode a closed or zero filter")
	}
	n, err := format.Write(w, splitHeader(uint64(len(c.blocks))), format.Word32Bytes(blockWords(c.blocks)))
	runtime.KeepAlive(c)
	return n, err
}

// MarshalBinary returns the filter in sift's file format: a 128-byte
// header with checksums, then the Parquet bitset, identical on every
// architecture.
func (f *SplitBlock) MarshalBinary() ([]byte, error) { return f.marshal() }

// AppendBinary appends MarshalBinary's bytes to b and returns the extended
// slice (encoding.BinaryAppender). For a closed or zero filter it returns b
// unchanged and an error wrapping ErrClosed.
func (f *SplitBlock) AppendBinary(b []byte) ([]byte, error) { return f.appendBinary(b) }

// WriteTo writes MarshalBinary's bytes to w, without copying the bitset on
// little-endian machines.
func (f *SplitBlock) WriteTo(w io.Writer) (int64, error) { return f.writeTo(w) }

// UnmarshalBinary replaces f with the filter encoded in data, which must be
// exactly one encoding as MarshalBinary writes it. It checks every field
// and both checksums before using anything, and copies the bitset. On
// error f is unchanged.
func (f *SplitBlock) UnmarshalBinary(data []byte) error {
	h, payload, n, err := format.Decode(data, format.KindSplitBlock, format.Options{})
	if err != nil {
		return prefix(err)
	}
	if n != len(data) {
		return errorf(ErrCorrupt, "%d bytes after the filter", len(data)-n)
	}
	blocks, err := splitParams(h, uint64(len(payload)))
	if err != nil {
		return err
	}
	var d splitCore
	if err := d.alloc(blocks); err != nil {
		return err
	}
	copyFromBitset(d.blocks, payload)
	f.replace(d)
	return nil
}

// ReadFrom replaces f with one filter read from r in sift's file format,
// reading exactly its bytes; memory grows only as bytes arrive. On error f
// is unchanged.
func (f *SplitBlock) ReadFrom(r io.Reader) (int64, error) {
	h, payload, n, err := format.Read(r, format.KindSplitBlock, format.Options{})
	if err != nil {
		return n, prefix(err)
	}
	if _, err := splitParams(h, uint64(len(payload))); err != nil {
		return n, err
	}
	var d splitCore
	if err := d.adoptBitset(payload); err != nil {
		return n, err
	}
	f.replace(d)
	return n, nil
}

// SplitBlockView is a read-only split-block filter served in place from
// encoded bytes: a file in sift's format mapped by OpenSplitBlock, or a
// caller's buffer given to SplitBlockFromBytes (sift's format) or
// ViewParquet (a Parquet column chunk's Bloom filter data). It answers
// exactly as the filter that was saved and has no methods that add. All
// its methods but Close may run from many goroutines at once.
type SplitBlockView struct {
	splitCore
	mapped bool
}

// OpenSplitBlock maps the split-block filter file at path (sift's format,
// as MarshalBinary and WriteTo write it) read-only and returns a View of
// it. It verifies the header and, unless WithoutChecksum is given, the
// payload's CRC-32C; then lookups read the page cache directly. Call Close
// to unmap the file; a finalizer unmaps it if the View becomes unreachable
// first. The file must not be modified or truncated while mapped. Options:
// WithoutChecksum, WithMaxSize. On systems without mmap the file is read
// into memory instead.
func OpenSplitBlock(path string, opts ...Option) (*SplitBlockView, error) {
	data, region, err := mem.MapFile(path)
	if err != nil {
		return nil, prefix(err)
	}
	v, err := splitViewOf(data, region, collect(opts))
	if err != nil {
		_ = region.Free()
		return nil, err
	}
	return v, nil
}

// SplitBlockFromBytes returns a View of the filter encoded in data in
// sift's format, which must be exactly one encoding. On a little-endian
// machine with data 32-byte aligned at the payload the View uses data in
// place (it must then stay unmodified and alive while the View is used);
// otherwise it copies. Options: WithoutChecksum, WithMaxSize.
func SplitBlockFromBytes(data []byte, opts ...Option) (*SplitBlockView, error) {
	return splitViewOf(data, &mem.Region{}, collect(opts))
}

func splitViewOf(data []byte, region *mem.Region, o options) (*SplitBlockView, error) {
	h, payload, n, err := format.Decode(data, format.KindSplitBlock, format.Options{MaxPayload: o.maxBytes, SkipPayloadCRC: o.skipChecksum})
	if err != nil {
		return nil, prefix(err)
	}
	if n != len(data) {
		return nil, errorf(ErrCorrupt, "%d bytes after the filter", len(data)-n)
	}
	if _, err := splitParams(h, uint64(len(payload))); err != nil {
		return nil, err
	}
	v := &SplitBlockView{}
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
func (c *splitCore) viewBitset(bitset []byte, region *mem.Region) (bool, error) {
	if format.LittleEndian() && uintptr(unsafe.Pointer(unsafe.SliceData(bitset)))%SplitBlockBytes == 0 {
		c.setBlocks(unsafe.Slice((*kernel.SBBFBlock)(unsafe.Pointer(unsafe.SliceData(bitset))), len(bitset)/SplitBlockBytes), region)
		return region.Mapped(), nil
	}
	if err := c.alloc(uint64(len(bitset) / SplitBlockBytes)); err != nil {
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
// little-endian machine (see SplitBlockFromBytes), for example in a mapped
// Parquet file, else copied. Options: WithMaxSize.
func ViewParquet(data []byte, opts ...Option) (*SplitBlockView, int, error) {
	numBytes, n, err := DecodeParquetHeader(data, opts...)
	if err != nil {
		return nil, 0, err
	}
	if uint64(len(data)-n) < numBytes {
		return nil, 0, errorf(ErrTruncated, "the header declares a %d-byte bitset, %d bytes follow it", numBytes, len(data)-n)
	}
	v := &SplitBlockView{}
	if _, err := v.viewBitset(data[n:n+int(numBytes):n+int(numBytes)], &mem.Region{}); err != nil {
		return nil, 0, err
	}
	return v, n + int(numBytes), nil
}

// Contains reports whether a BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY or INT96
// value may have been added.
func (v *SplitBlockView) Contains(b []byte) bool { return v.ContainsHash(SplitBlockHash(b)) }

// ContainsString is Contains for a string value.
func (v *SplitBlockView) ContainsString(s string) bool {
	return v.ContainsHash(SplitBlockHashString(s))
}

// ContainsInt32 is Contains for an INT32 value.
func (v *SplitBlockView) ContainsInt32(x int32) bool {
	return v.ContainsHash(SplitBlockHashInt32(x))
}

// ContainsInt64 is Contains for an INT64 value.
func (v *SplitBlockView) ContainsInt64(x int64) bool {
	return v.ContainsHash(SplitBlockHashInt64(x))
}

// ContainsFloat32 is Contains for a FLOAT value, by its bits.
func (v *SplitBlockView) ContainsFloat32(x float32) bool {
	return v.ContainsHash(SplitBlockHashFloat32(x))
}

// ContainsFloat64 is Contains for a DOUBLE value, by its bits.
func (v *SplitBlockView) ContainsFloat64(x float64) bool {
	return v.ContainsHash(SplitBlockHashFloat64(x))
}

// ContainsHash reports whether the value whose hash is h may have been
// added.
func (v *SplitBlockView) ContainsHash(h uint64) bool {
	return kernel.SBBFContains1(&v.blocks, h)
}

// ContainsHashes sets out[i] = ContainsHash(hs[i]) for every i and returns
// how many are true. It panics if len(out) < len(hs).
func (v *SplitBlockView) ContainsHashes(hs []uint64, out []bool) int {
	return v.containsHashes(hs, out)
}

// EstimatedCount estimates how many distinct keys were added (see
// SplitBlock.EstimatedCount).
func (v *SplitBlockView) EstimatedCount() uint64 {
	s := v.fill()
	return s.count()
}

// FPP returns the filter's current false-positive rate (see
// SplitBlock.FPP).
func (v *SplitBlockView) FPP() float64 {
	s := v.fill()
	return s.fpr()
}

// Blocks returns the number of 32-byte blocks.
func (v *SplitBlockView) Blocks() uint64 { return uint64(len(v.blocks)) }

// NumBytes returns the size of the bitset in bytes.
func (v *SplitBlockView) NumBytes() uint64 { return uint64(len(v.blocks)) * SplitBlockBytes }

// Mapped reports whether the View reads a file mapping rather than heap
// memory.
func (v *SplitBlockView) Mapped() bool { return v.mapped }

// Clone returns a writable SplitBlock holding the same keys, in memory of
// its own (see SplitBlock.Clone).
func (v *SplitBlockView) Clone() *SplitBlock {
	v.mustOpen()
	f := &SplitBlock{}
	f.mustAlloc(uint64(len(v.blocks)))
	copy(f.blocks, v.blocks)
	runtime.KeepAlive(v)
	return f
}

// AppendBitset appends the filter's Parquet bitset to dst.
func (v *SplitBlockView) AppendBitset(dst []byte) []byte { return v.appendBitset(dst) }

// MarshalParquet returns the filter's Parquet Bloom filter data (see
// SplitBlock.MarshalParquet).
func (v *SplitBlockView) MarshalParquet() ([]byte, error) { return v.marshalParquet() }

// WriteParquet writes MarshalParquet's bytes to w.
func (v *SplitBlockView) WriteParquet(w io.Writer) (int64, error) { return v.writeParquet(w) }

// MarshalBinary returns the filter in sift's file format.
func (v *SplitBlockView) MarshalBinary() ([]byte, error) { return v.marshal() }

// AppendBinary appends MarshalBinary's bytes to b (see
// SplitBlock.AppendBinary).
func (v *SplitBlockView) AppendBinary(b []byte) ([]byte, error) { return v.appendBinary(b) }

// WriteTo writes the filter in sift's file format to w.
func (v *SplitBlockView) WriteTo(w io.Writer) (int64, error) { return v.writeTo(w) }

// Close unmaps the file of a View from OpenSplitBlock (or frees a copy).
// Afterwards every query panics with an error wrapping ErrClosed. It must not run concurrently with other
// methods. A View that used a caller's buffer leaves the buffer alone.
func (v *SplitBlockView) Close() error {
	v.mapped = false
	return v.free()
}
