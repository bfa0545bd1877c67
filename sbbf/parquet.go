package sbbf

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"unsafe"

	"github.com/sift-go/sift/internal/errs"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/mem"
)

// A column chunk's Bloom filter data in a Parquet file, at its
// bloom_filter_offset, is a Thrift compact-protocol BloomFilterHeader
// followed by the bitset:
//
//	struct BloomFilterHeader {
//	  1: required i32 numBytes;                          // bitset size
//	  2: required BloomFilterAlgorithm algorithm;        // union { 1: SplitBlockAlgorithm BLOCK }
//	  3: required BloomFilterHash hash;                  // union { 1: XxHash XXHASH }
//	  4: required BloomFilterCompression compression;    // union { 1: Uncompressed UNCOMPRESSED }
//	}
//
// (SplitBlockAlgorithm, XxHash and Uncompressed are empty structs.) The
// writer below emits exactly that, 16 to 20 bytes; the reader accepts any
// valid compact encoding of it: long-form field headers, fields in any
// order, and fields it does not know, of any of the compact protocol's
// types (1 to 13: bools, byte, i16, i32, i64, double, binary, list, set,
// map, struct and Thrift 0.17's 16-byte UUID, in fields and as
// collection elements), skipped, since writers may add fields. A union
// member it does not know (another algorithm, hash or compression, such
// as parquet-go's gzip member 2 of the compression) is ErrUnsupported.

// Thrift compact protocol type codes.
const (
	tcStop   = 0
	tcTrue   = 1
	tcFalse  = 2
	tcByte   = 3
	tcI16    = 4
	tcI32    = 5
	tcI64    = 6
	tcDouble = 7
	tcBinary = 8
	tcList   = 9
	tcSet    = 10
	tcMap    = 11
	tcStruct = 12
	tcUUID   = 13 // Thrift 0.17 and later: 16 bytes
)

// Decoder limits. The specification's header is about 17 bytes; these are
// generous for unknown fields and still bound the work on hostile input.
const (
	maxParquetHeader = 64 << 10 // bytes
	maxThriftDepth   = 32       // nested structs, lists and maps
)

// AppendParquetHeader appends the compact encoding of a BloomFilterHeader
// for a bitset of numBytes bytes (split-block, XXH64, uncompressed).
func AppendParquetHeader(dst []byte, numBytes int32) []byte {
	dst = append(dst, 1<<4|tcI32)
	z := uint32(numBytes<<1) ^ uint32(numBytes>>31) // zigzag
	for z >= 0x80 {
		dst = append(dst, byte(z)|0x80)
		z >>= 7
	}
	dst = append(dst, byte(z))
	// Fields 2, 3 and 4: a union holding member 1, an empty struct.
	for range 3 {
		dst = append(dst, 1<<4|tcStruct, 1<<4|tcStruct, tcStop, tcStop)
	}
	return append(dst, tcStop)
}

// thriftReader reads the compact protocol from a byte source with a budget:
// every byte counts against maxParquetHeader, and binary fields are skipped
// without being stored.
type thriftReader struct {
	next  func() (byte, error) // one byte, or io.EOF
	n     int                  // bytes consumed
	depth int
	head  [8]byte // the first bytes consumed (see notSiftFile)
}

func (t *thriftReader) byte() (byte, error) {
	if t.n >= maxParquetHeader {
		return 0, errorf(ErrCorrupt, "Parquet Bloom filter header longer than %d bytes", maxParquetHeader)
	}
	c, err := t.next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return 0, errorf(ErrTruncated, "Parquet Bloom filter header ends after %d bytes", t.n)
		}
		return 0, errs.Errorf(pkg, []error{err}, "reading a Parquet Bloom filter header: %s", errs.Detail(err))
	}
	if t.n < len(t.head) {
		t.head[t.n] = c
	}
	t.n++
	return c, nil
}

// notSiftFile returns err, or in its place, when err is a decoding error
// (ErrCorrupt, ErrTruncated) and the bytes the header's reader went
// through (head, as far as it read) begin with a sift file's magic, an
// error that says so: a sift file's header parses as Thrift
// fields for a while, and failed as "lacks its required field numBytes".
func notSiftFile(err error, head []byte) error {
	if len(head) < 8 || !format.HasMagic(head) || !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTruncated) {
		return err // a read error or a size refusal says what it is
	}
	return errorf(ErrCorrupt, "the input is a sift file, not a Parquet Bloom filter header and bitset: read it with FromBytes or ReadFrom (or sift.Open)")
}

// uvarint reads an unsigned LEB128 varint of at most 64 bits.
func (t *thriftReader) uvarint() (uint64, error) {
	var x uint64
	for shift := uint(0); ; shift += 7 {
		c, err := t.byte()
		if err != nil {
			return 0, err
		}
		if shift == 63 && c > 1 {
			return 0, errorf(ErrCorrupt, "varint overflows 64 bits in the Parquet Bloom filter header")
		}
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x, nil
		}
	}
}

// varint reads a zigzag varint.
func (t *thriftReader) varint() (int64, error) {
	u, err := t.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

// skipBytes consumes n bytes.
func (t *thriftReader) skipBytes(n uint64) error {
	if n > maxParquetHeader {
		return errorf(ErrCorrupt, "a %d-byte field in the Parquet Bloom filter header", n)
	}
	for range n {
		if _, err := t.byte(); err != nil {
			return err
		}
	}
	return nil
}

// field reads a field header and returns its type and id; typ 0 is the
// struct's end.
func (t *thriftReader) field(last int16) (typ byte, id int16, err error) {
	c, err := t.byte()
	if err != nil || c == tcStop {
		return tcStop, 0, err
	}
	typ = c & 0x0f
	if delta := c >> 4; delta != 0 {
		id = last + int16(delta)
	} else {
		v, err := t.varint()
		if err != nil {
			return 0, 0, err
		}
		if v < math.MinInt16 || v > math.MaxInt16 {
			return 0, 0, errorf(ErrCorrupt, "field id %d in the Parquet Bloom filter header", v)
		}
		id = int16(v)
	}
	if typ > tcUUID {
		return 0, 0, errorf(ErrCorrupt, "unknown Thrift type %d in the Parquet Bloom filter header", typ)
	}
	return typ, id, nil
}

// skip consumes a value of type typ (as a field's type: a bool's value is
// in its type).
func (t *thriftReader) skip(typ byte) error {
	switch typ {
	case tcTrue, tcFalse:
		return nil
	case tcByte:
		_, err := t.byte()
		return err
	case tcI16, tcI32, tcI64:
		_, err := t.uvarint()
		return err
	case tcDouble:
		return t.skipBytes(8)
	case tcUUID:
		return t.skipBytes(16)
	case tcBinary:
		n, err := t.uvarint()
		if err != nil {
			return err
		}
		return t.skipBytes(n)
	case tcList, tcSet:
		c, err := t.byte()
		if err != nil {
			return err
		}
		size, elem := uint64(c>>4), c&0x0f
		if size == 15 {
			if size, err = t.uvarint(); err != nil {
				return err
			}
		}
		return t.skipElems(size, elem)
	case tcMap:
		size, err := t.uvarint()
		if err != nil || size == 0 {
			return err
		}
		c, err := t.byte()
		if err != nil {
			return err
		}
		return t.skipElems(size, c>>4, c&0x0f)
	case tcStruct:
		return t.skipStruct()
	}
	return errorf(ErrCorrupt, "unknown Thrift type %d in the Parquet Bloom filter header", typ)
}

// skipElems consumes size elements, each a value of every type of types
// in turn (a list's element type; a map's key and value types). Inside
// collections a bool takes a byte.
func (t *thriftReader) skipElems(size uint64, types ...byte) error {
	if err := t.enter(); err != nil {
		return err
	}
	defer t.leave()
	for i, typ := range types {
		if typ == tcStop || typ > tcUUID {
			return errorf(ErrCorrupt, "collection element type %d in the Parquet Bloom filter header", typ)
		}
		if typ == tcTrue || typ == tcFalse {
			types[i] = tcByte
		}
	}
	// Every element takes at least one byte, so the budget bounds size.
	if size > maxParquetHeader {
		return errorf(ErrCorrupt, "a collection of %d elements in the Parquet Bloom filter header", size)
	}
	for range size {
		for _, typ := range types {
			if err := t.skip(typ); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *thriftReader) enter() error {
	t.depth++
	if t.depth > maxThriftDepth {
		return errorf(ErrCorrupt, "Parquet Bloom filter header nested deeper than %d", maxThriftDepth)
	}
	return nil
}

func (t *thriftReader) leave() { t.depth-- }

// skipStruct consumes a struct whose fields are all unknown or ignored.
func (t *thriftReader) skipStruct() error {
	return t.readStruct(func(typ byte, id int16) (bool, error) { return false, nil })
}

// readStruct reads a struct's fields, offering each to known, which
// consumes the field's value and returns true, or returns false to have it
// skipped.
func (t *thriftReader) readStruct(known func(typ byte, id int16) (bool, error)) error {
	if err := t.enter(); err != nil {
		return err
	}
	defer t.leave()
	var last int16
	for {
		typ, id, err := t.field(last)
		if err != nil {
			return err
		}
		if typ == tcStop {
			return nil
		}
		last = id
		ok, err := known(typ, id)
		if err != nil {
			return err
		}
		if !ok {
			if err := t.skip(typ); err != nil {
				return err
			}
		}
	}
}

// readUnion reads one of the header's unions, which must hold exactly one
// member: member 1 (an empty struct, whose unknown fields are skipped) is
// the one this package implements, any other is ErrUnsupported.
func (t *thriftReader) readUnion(what string, others map[int16]string) error {
	members, unknown, other := 0, int16(0), false
	err := t.readStruct(func(typ byte, id int16) (bool, error) {
		members++
		if id == 1 && typ == tcStruct {
			return false, nil // skipped as a struct: its contents do not matter
		}
		if id == 1 {
			return false, errorf(ErrCorrupt, "%s member 1 has Thrift type %d, not a struct", what, typ)
		}
		unknown, other = id, true // any other id, 0 and negative ones too
		return false, nil
	})
	switch {
	case err != nil:
		return err
	case members == 0:
		return errorf(ErrCorrupt, "the %s union is empty", what)
	case members > 1:
		return errorf(ErrCorrupt, "the %s union holds %d members", what, members)
	case other:
		name := others[unknown]
		if name == "" {
			name = fmt.Sprintf("member %d", unknown)
		}
		return errorf(ErrUnsupported, "%s %s (this package implements the specification's only one, member 1)", what, name)
	}
	return nil
}

// readParquetHeader reads a BloomFilterHeader and returns numBytes, checked
// against maxBytes (0: no limit beyond MaxBlocks).
func (t *thriftReader) readParquetHeader(maxBytes uint64) (uint64, error) {
	var numBytes int64
	var seen [5]bool
	err := t.readStruct(func(typ byte, id int16) (bool, error) {
		if id < 1 || id > 4 {
			return false, nil
		}
		want := byte(tcStruct)
		if id == 1 {
			want = tcI32
		}
		if typ != want {
			return false, errorf(ErrCorrupt, "BloomFilterHeader field %d has Thrift type %d, want %d", id, typ, want)
		}
		if seen[id] {
			return false, errorf(ErrCorrupt, "BloomFilterHeader field %d appears twice", id)
		}
		seen[id] = true
		var err error
		switch id {
		case 1:
			numBytes, err = t.varint()
		case 2:
			err = t.readUnion("algorithm", nil)
		case 3:
			err = t.readUnion("hash", nil)
		case 4:
			err = t.readUnion("compression", map[int16]string{2: "gzip (parquet-go's extension)"})
		}
		return true, err
	})
	if err != nil {
		return 0, err
	}
	for id, name := range [...]string{1: "numBytes", 2: "algorithm", 3: "hash", 4: "compression"} {
		if id > 0 && !seen[id] {
			return 0, errorf(ErrCorrupt, "BloomFilterHeader lacks its required field %s", name)
		}
	}
	switch {
	case numBytes < BlockBytes || numBytes > math.MaxInt32:
		return 0, errorf(ErrCorrupt, "Parquet Bloom filter of %d bytes (at least %d, at most 2^31-1)", numBytes, BlockBytes)
	case numBytes%BlockBytes != 0:
		return 0, errorf(ErrCorrupt, "Parquet Bloom filter of %d bytes is not a whole number of %d-byte blocks", numBytes, BlockBytes)
	case maxBytes != 0 && uint64(numBytes) > maxBytes:
		return 0, errorf(ErrTooLarge, "Parquet Bloom filter of %d bytes exceeds the limit of %d", numBytes, maxBytes)
	case uint64(numBytes)/BlockBytes > blockLimit():
		return 0, errorf(ErrTooLarge, "Parquet Bloom filter of %d bytes does not fit in this platform's memory", numBytes)
	}
	return uint64(numBytes), nil
}

// DecodeParquetHeader decodes the BloomFilterHeader at the start of data
// and returns the bitset size it declares and the header's length: the
// bitset is data[n : n+numBytes]. It checks the header as ParseParquet
// does, not the bitset. Options: WithMaxSize.
func DecodeParquetHeader(data []byte, opts ...Option) (numBytes uint64, n int, err error) {
	t := thriftReader{}
	t.next = func() (byte, error) {
		if t.n >= len(data) {
			return 0, io.EOF
		}
		return data[t.n], nil
	}
	numBytes, err = t.readParquetHeader(collect(opts).maxBytes)
	return numBytes, t.n, notSiftFile(err, data[:min(len(data), 8)])
}

// ParseParquet decodes the Bloom filter data of a Parquet column chunk, the
// BloomFilterHeader and the bitset that follow its bloom_filter_offset, at
// the start of data, and returns the filter (a copy: data may be reused)
// and the number of bytes it spanned. data may run on past the filter (a
// reader without bloom_filter_length may pass the rest of the file). It
// returns ErrUnsupported for a header naming another algorithm, hash or
// compression; ErrTruncated, ErrCorrupt and ErrTooLarge (the bitset is
// larger than WithMaxSize allows) for bad input, never panicking and never
// allocating more than the input's length justifies. Options: WithMaxSize.
func ParseParquet(data []byte, opts ...Option) (*Filter, int, error) {
	numBytes, n, err := DecodeParquetHeader(data, opts...)
	if err != nil {
		return nil, 0, err
	}
	if uint64(len(data)-n) < numBytes {
		return nil, 0, errorf(ErrTruncated, "the header declares a %d-byte bitset, %d bytes follow it", numBytes, len(data)-n)
	}
	// Not FromBitset, whose refusal of a bitset that begins with a sift
	// header is for callers who hand it a file: behind a Parquet header
	// any bytes are a bitset, as ReadParquet and ViewParquet take them.
	f, err := copyBitset(data[n : n+int(numBytes)])
	if err != nil {
		return nil, 0, err
	}
	return f, n + int(numBytes), nil
}

// ReadParquet reads one column chunk's Bloom filter data (header and
// bitset, as ParseParquet decodes them) from r, exactly its bytes and
// nothing after them, for example from an io.SectionReader at the column
// chunk's bloom_filter_offset. Memory grows only as bytes arrive, never
// with the header's claims. It returns the bytes read. Options:
// WithMaxSize.
func ReadParquet(r io.Reader, opts ...Option) (*Filter, int64, error) {
	t := thriftReader{}
	if br, ok := r.(io.ByteReader); ok {
		t.next = br.ReadByte
	} else {
		var b [1]byte
		t.next = func() (byte, error) {
			_, err := io.ReadFull(r, b[:])
			return b[0], err
		}
	}
	numBytes, err := t.readParquetHeader(collect(opts).maxBytes)
	n := int64(t.n)
	if err != nil {
		return nil, n, notSiftFile(err, t.head[:min(t.n, len(t.head))])
	}
	buf, m, err := format.ReadBytes(r, int(numBytes))
	n += int64(m)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, n, errorf(ErrTruncated, "the header declares a %d-byte bitset, %d bytes follow it", numBytes, m)
		}
		return nil, n, errs.Errorf(pkg, []error{err}, "reading a Parquet Bloom filter bitset: %s", errs.Detail(err))
	}
	f := &Filter{}
	if err := f.adoptBitset(buf); err != nil {
		return nil, n, err
	}
	return f, n, nil
}

// FromBitset returns a filter holding a copy of a Parquet bitset: numBytes
// bytes of little-endian 32-bit words, block b at byte 32*b (for example
// the bitset of a column's filter after decryption). It returns ErrCorrupt
// unless len(bitset) is a positive multiple of 32, or when it begins with
// a valid sift header (a sift file, which FromBytes reads), and
// ErrTooLarge beyond MaxBlocks blocks.
func FromBitset(bitset []byte) (*Filter, error) {
	if err := checkBitset(len(bitset)); err != nil {
		return nil, err
	}
	if _, _, err := format.ParseHeader(bitset, 0, format.Options{}); err == nil {
		// A valid sift header (magic, version, fields and CRC) does not
		// begin a Parquet bitset by chance.
		return nil, errorf(ErrCorrupt, "the bitset is a sift file, not a raw Parquet bitset: read it with FromBytes (or sift.FromBytes)")
	}
	return copyBitset(bitset)
}

// copyBitset returns a filter holding a copy of bitset, whose length
// checkBitset accepted.
func copyBitset(bitset []byte) (*Filter, error) {
	f := &Filter{}
	if err := f.alloc(uint64(len(bitset) / BlockBytes)); err != nil {
		return nil, err
	}
	copyFromBitset(f.blocks, bitset)
	return f, nil
}

func checkBitset(n int) error {
	switch {
	case n == 0 || n%BlockBytes != 0:
		return errorf(ErrCorrupt, "a bitset of %d bytes is not a positive number of %d-byte blocks", n, BlockBytes)
	case uint64(n)/BlockBytes > blockLimit():
		return errorf(ErrTooLarge, "a bitset of %d bytes exceeds %d blocks", n, blockLimit())
	}
	return nil
}

// copyFromBitset decodes the little-endian words of bitset into blocks.
func copyFromBitset(blocks []kernel.SBBFBlock, bitset []byte) {
	words, _ := format.Words32(bitset)
	copy(blockWords(blocks), words)
}

// blockWords views blocks as their words.
func blockWords(blocks []kernel.SBBFBlock) []uint32 {
	if len(blocks) == 0 {
		return []uint32{}
	}
	return unsafe.Slice(&blocks[0][0], len(blocks)*kernel.SBBFBlockWords)
}

// adoptBitset makes a freshly read, 64-byte-aligned bitset buffer c's
// memory where it can (little-endian, below the mapped-memory threshold),
// else copies it.
func (c *core) adoptBitset(buf []byte) error {
	words, shared := format.Words32(buf)
	if shared && len(buf) < mem.HugeThreshold {
		c.setBlocks(unsafe.Slice((*kernel.SBBFBlock)(unsafe.Pointer(&words[0])), len(buf)/BlockBytes), &mem.Region{})
		return nil
	}
	if err := c.alloc(uint64(len(buf) / BlockBytes)); err != nil {
		return err
	}
	copy(blockWords(c.blocks), words)
	return nil
}

// AppendBitset appends the filter's bitset, the Parquet bytes of its
// blocks (little-endian words), to dst. On a closed or zero filter it
// panics with an error wrapping ErrClosed (it has no bitset: an empty one
// is no Parquet filter).
func (f *Filter) AppendBitset(dst []byte) []byte { return f.appendBitset(dst) }

func (c *core) appendBitset(dst []byte) []byte {
	c.mustOpen()
	dst = append(dst, format.Word32Bytes(blockWords(c.blocks))...)
	runtime.KeepAlive(c)
	return dst
}

// MarshalParquet returns the filter as a Parquet file stores it at a column
// chunk's bloom_filter_offset: the BloomFilterHeader (split-block, XXH64,
// uncompressed; AppendParquetHeader) and the bitset. Its length is what
// the column chunk's bloom_filter_length holds. It returns ErrTooLarge for
// a filter of 2^31 bytes or more, which numBytes (an i32) cannot declare.
// It writes any other size, but not every reader accepts every size:
// parquet-mr and arrow-go none above ParquetMaxBytes (128 MiB), and Arrow
// C++ (pyarrow, Velox, Doris) only powers of two from 32 bytes to 128 MiB,
// throwing on any other; a filter sized with ParquetSize suits them all
// (see the package documentation's Sizing).
func (f *Filter) MarshalParquet() ([]byte, error) { return f.marshalParquet() }

// WriteParquet writes MarshalParquet's bytes to w, without copying the
// bitset on little-endian machines. Which Parquet readers accept which
// sizes: see MarshalParquet.
func (f *Filter) WriteParquet(w io.Writer) (int64, error) { return f.writeParquet(w) }

func (c *core) parquetSize() (int32, error) {
	if c.closed() {
		return 0, errorf(ErrClosed, "cannot encode a closed or zero filter")
	}
	size := uint64(len(c.blocks)) * BlockBytes
	if size > math.MaxInt32 {
		return 0, errorf(ErrTooLarge, "a %d-byte bitset exceeds what a Parquet header declares (2^31-1 bytes)", size)
	}
	return int32(size), nil
}

func (c *core) marshalParquet() ([]byte, error) {
	size, err := c.parquetSize()
	if err != nil {
		return nil, err
	}
	return c.appendBitset(AppendParquetHeader(make([]byte, 0, 24+int(size)), size)), nil
}

func (c *core) writeParquet(w io.Writer) (int64, error) {
	size, err := c.parquetSize()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(AppendParquetHeader(nil, size))
	if err != nil {
		return int64(n), err
	}
	m, err := w.Write(format.Word32Bytes(blockWords(c.blocks)))
	runtime.KeepAlive(c)
	return int64(n + m), err
}

// UnmarshalParquet replaces f with the filter in data, which must be
// exactly one column chunk's Bloom filter data (header and bitset, as
// MarshalParquet writes them). A bitset larger than the WithMaxSize bound
// f was made with is refused (ErrTooLarge). On error f is unchanged.
func (f *Filter) UnmarshalParquet(data []byte) error {
	g, n, err := ParseParquet(data, WithMaxSize(f.maxBytes))
	if err != nil {
		return err
	}
	if n != len(data) {
		_ = g.Close()
		return errorf(ErrCorrupt, "%d bytes after the Parquet Bloom filter", len(data)-n)
	}
	f.replace(g.core)
	return nil
}
