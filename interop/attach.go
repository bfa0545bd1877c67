package interop

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"github.com/sift-go/sift/sbbf"
)

// ColumnChunk describes one column chunk of a Parquet file for
// AttachFilters.
type ColumnChunk struct {
	RowGroup  int
	Column    int
	Path      []string
	Type      format.Type // physical type: how its values are hashed
	NumValues int64       // values in the chunk, nulls included
	HasFilter bool        // the chunk already has a Bloom filter
}

// ErrFooter is returned by AttachFilters for a file whose footer it will
// not rewrite: encrypted, or holding fields that parquet-go's format
// (v0.32.0) does not know, which rewriting would drop.
var ErrFooter = errors.New("interop: footer cannot be rewritten safely")

// AttachFilters copies the Parquet file in src (size bytes) to dst and
// gives its column chunks the Bloom filters that filter returns for them:
// this is how sift-built filters (from a column's values, or folded, or
// merged with Union) get into a Parquet file written by anything. For each
// column chunk filter returns a filter, or nil to keep the chunk as it is
// (with its filter, if it has one). The filters' data (MarshalParquet:
// header and bitset) is appended after the row groups, and the footer is
// rewritten with each chunk's bloom_filter_offset and bloom_filter_length;
// every other byte is copied unchanged, so pages, page indexes and other
// filters stay where they are. It returns the number of filters attached.
//
// The footer is decoded and re-encoded with parquet-go's format package.
// So that nothing is lost, AttachFilters first checks that the footer
// re-encodes to exactly its own bytes, and otherwise returns ErrFooter
// (files written by parquet-go and arrow-go pass; DuckDB 1.5.6's footers
// carry fields parquet-go v0.32.0 does not decode, and are refused).
// Encrypted files are refused too. On a refusal nothing is written to
// dst; an error after the copy has begun (from dst, or a filter too large)
// leaves dst incomplete.
//
// A filter larger than sbbf.ParquetMaxBytes (128 MiB) is refused with an
// error wrapping sbbf.ErrTooLarge: parquet-mr skips such a filter, and
// arrow-go and Arrow C++ fail on it. Any smaller multiple of 32 bytes is
// written as it is, which parquet-go, arrow-rs, DuckDB, parquet-mr and
// arrow-go read; but Arrow C++ (pyarrow, Velox, Doris and other readers
// built on its code) reads only powers of two and throws on any other
// size, so for a file it may read give the filters a power-of-two size,
// sbbf.NewWithSize(sbbf.ParquetSize(n, fpp)), rather than sbbf.New's.
func AttachFilters(dst io.Writer, src io.ReaderAt, size int64, filter func(ColumnChunk) *sbbf.Filter) (int, error) {
	if size < 12 {
		return 0, fmt.Errorf("interop: a %d-byte file is not Parquet", size)
	}
	var tail [8]byte
	if _, err := src.ReadAt(tail[:], size-8); err != nil {
		return 0, fmt.Errorf("interop: reading the footer: %w", err)
	}
	switch string(tail[4:]) {
	case "PAR1":
	case "PARE":
		return 0, fmt.Errorf("%w: the footer is encrypted", ErrFooter)
	default:
		return 0, errors.New("interop: not a Parquet file (no PAR1 at the end)")
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	footerStart := size - 8 - n
	if n == 0 || footerStart < 4 {
		return 0, fmt.Errorf("interop: footer length %d does not fit the %d-byte file", n, size)
	}
	footer := make([]byte, n)
	if _, err := src.ReadAt(footer, footerStart); err != nil {
		return 0, fmt.Errorf("interop: reading the footer: %w", err)
	}
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, &md); err != nil {
		return 0, fmt.Errorf("interop: decoding the footer: %w", err)
	}
	if again, err := thrift.Marshal(new(thrift.CompactProtocol), &md); err != nil || !bytes.Equal(again, footer) {
		return 0, fmt.Errorf("%w: it does not re-encode to its own %d bytes (fields unknown to parquet-go's format?)", ErrFooter, n)
	}
	for i, rg := range md.RowGroups {
		for j, cc := range rg.Columns {
			if len(cc.EncryptedColumnMetadata) > 0 {
				return 0, fmt.Errorf("%w: row group %d column %d is encrypted", ErrFooter, i, j)
			}
		}
	}
	// Nothing has been written yet: every refusal above leaves dst empty.
	if _, err := io.Copy(dst, io.NewSectionReader(src, 0, footerStart)); err != nil {
		return 0, fmt.Errorf("interop: copying the row groups: %w", err)
	}
	offset, attached := footerStart, 0
	for i := range md.RowGroups {
		for j := range md.RowGroups[i].Columns {
			m := &md.RowGroups[i].Columns[j].MetaData
			f := filter(ColumnChunk{RowGroup: i, Column: j, Path: m.PathInSchema, Type: m.Type, NumValues: m.NumValues, HasFilter: m.BloomFilterOffset > 0})
			if f == nil {
				continue
			}
			if nb := f.NumBytes(); nb > sbbf.ParquetMaxBytes {
				return attached, fmt.Errorf("interop: row group %d column %d: a %d-byte filter exceeds the %d bytes (sbbf.ParquetMaxBytes) that parquet-mr, arrow-go and Arrow C++ read: %w", i, j, nb, sbbf.ParquetMaxBytes, sbbf.ErrTooLarge)
			}
			data, err := f.MarshalParquet()
			if err != nil {
				return attached, fmt.Errorf("interop: row group %d column %d: %w", i, j, err)
			}
			if _, err := dst.Write(data); err != nil {
				return attached, err
			}
			// At most ParquetMaxBytes and a header of about 20 bytes
			// (checked above): the length fits bloom_filter_length, an i32.
			m.BloomFilterOffset, m.BloomFilterLength = offset, int32(len(data))
			offset += int64(len(data))
			attached++
		}
	}
	out, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		return attached, fmt.Errorf("interop: encoding the footer: %w", err)
	}
	out = binary.LittleEndian.AppendUint32(out, uint32(len(out)))
	if _, err := dst.Write(append(out, "PAR1"...)); err != nil {
		return attached, err
	}
	return attached, nil
}
