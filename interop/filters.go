package interop

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/sift-go/sift/sbbf"
)

// ColumnFilter is the Bloom filter of one column chunk of a Parquet file,
// opened as a sift split-block filter.
type ColumnFilter struct {
	RowGroup int         // row group index
	Column   int         // leaf column index in the schema
	Path     []string    // the column's path in the schema
	Type     format.Type // its physical type, which says how values are hashed
	Offset   int64       // bloom_filter_offset: where the header starts
	Length   int64       // header and bitset, in bytes
	// Filter is the filter; nil when Err is set.
	Filter *sbbf.Filter
	// Err says why the filter could not be opened: an error wrapping
	// sbbf.ErrUnsupported (another algorithm, hash or compression,
	// such as parquet-go's gzip-compressed filters), which a reader skips
	// as Parquet readers do.
	Err error
}

// Name returns the column's dotted path.
func (c *ColumnFilter) Name() string { return strings.Join(c.Path, ".") }

// Contains reports whether the filter may hold v, hashing v as Parquet
// writers hash a value of its kind (parquet.Value.Kind): the 4 or 8
// little-endian bytes of INT32, FLOAT, INT64 and DOUBLE values, the bytes
// of BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY and INT96 values, one byte (0 or 1)
// for BOOLEAN. A null value is not in any filter. It panics if Filter is
// nil.
func (c *ColumnFilter) Contains(v parquet.Value) bool {
	f := c.Filter
	switch v.Kind() {
	case parquet.Boolean:
		if v.Boolean() {
			return f.Contains([]byte{1})
		}
		return f.Contains([]byte{0})
	case parquet.Int32:
		return f.ContainsInt32(v.Int32())
	case parquet.Int64:
		return f.ContainsInt64(v.Int64())
	case parquet.Float:
		return f.ContainsFloat32(v.Float())
	case parquet.Double:
		return f.ContainsFloat64(v.Double())
	case parquet.ByteArray, parquet.FixedLenByteArray, parquet.Int96:
		return f.Contains(v.ByteArray())
	}
	return false
}

// ReadFilters returns the Bloom filters of every column chunk of the
// Parquet file in r (size bytes) that has one, row group by row group,
// column by column. It reads the footer with parquet-go and each filter
// (the BloomFilterHeader and bitset at bloom_filter_offset) with package
// sbbf's decoder, which checks every field and allocates only as bytes
// arrive. Options are sbbf's decoder options: WithMaxSize bounds each
// filter. A filter sift cannot use (sbbf.ErrUnsupported) is returned
// with Err set; any other problem with a filter, or with the file, is an
// error. Encrypted footers are not supported.
func ReadFilters(r io.ReaderAt, size int64, opts ...sbbf.Option) ([]ColumnFilter, error) {
	f, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("interop: %w", err)
	}
	var out []ColumnFilter
	for i, rg := range f.Metadata().RowGroups {
		for j, cc := range rg.Columns {
			md := &cc.MetaData
			if md.BloomFilterOffset <= 0 {
				continue
			}
			c := ColumnFilter{RowGroup: i, Column: j, Path: md.PathInSchema, Type: md.Type, Offset: md.BloomFilterOffset}
			if c.Offset >= size {
				return nil, fmt.Errorf("interop: row group %d column %s: bloom_filter_offset %d is past the end of the %d-byte file", i, c.Name(), c.Offset, size)
			}
			end := size
			if md.BloomFilterLength > 0 {
				end = min(size, c.Offset+int64(md.BloomFilterLength))
			}
			sec := io.NewSectionReader(r, c.Offset, end-c.Offset)
			// bufio reads the header ahead inside the section: no ReadAt per byte.
			filter, n, err := sbbf.ReadParquet(bufio.NewReaderSize(sec, 512), opts...)
			c.Length = n
			switch {
			case errors.Is(err, sbbf.ErrUnsupported):
				c.Err = err
			case err != nil:
				return nil, fmt.Errorf("interop: row group %d column %s: %w", i, c.Name(), err)
			case md.BloomFilterLength > 0 && n != int64(md.BloomFilterLength):
				filter.Close()
				return nil, fmt.Errorf("interop: row group %d column %s: bloom_filter_length is %d, the filter spans %d bytes", i, c.Name(), md.BloomFilterLength, n)
			default:
				c.Filter = filter
			}
			out = append(out, c)
		}
	}
	return out, nil
}
