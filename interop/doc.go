// Package interop connects sift's split-block filter (sbbf.Filter)
// to Parquet files and to the Go Parquet libraries. It is its own module,
// so the library's go.mod never depends on a Parquet implementation.
//
// ReadFilters takes the Bloom filters out of a .parquet file: it reads the
// footer with parquet-go (github.com/parquet-go/parquet-go) and opens each
// column chunk's filter, the BloomFilterHeader and bitset at its
// bloom_filter_offset, with sbbf.ReadParquet, as a *sbbf.Filter
// that answers exactly as the writer's own reader does. ColumnFilter.Contains
// hashes a parquet.Value as Parquet writers do.
//
// The other direction, putting sift-built filters where a Parquet writer
// puts its own: neither parquet-go nor arrow-go (github.com/apache/arrow-go)
// lets a caller hand their writers a prebuilt filter (parquet-go's writer
// recognises only its own filter type when writing the header, and
// arrow-go's builder interface has unexported methods). Two things do
// instead. A filter sift builds from a column chunk's values, at the size
// the writer chose, is byte for byte the writer's, header included
// (sbbf.Filter.MarshalParquet), so a program that writes Parquet
// itself can emit sift's filters. And AttachFilters rewrites a finished
// file with sift-built filters for the column chunks a callback picks
// (every byte of the row groups copied unchanged, the filters appended, the
// footer's bloom_filter_offset and bloom_filter_length set): parquet-go,
// arrow-go and DuckDB then read and use them (TestAttachFilters). It
// refuses footers it cannot re-encode without loss, and filters over 128
// MiB, which parquet-mr, arrow-go and Arrow C++ do not read. Arrow C++
// (pyarrow) reads only filters whose size is a power of two: for a file it
// may read, size them with sbbf.ParquetSize rather than sbbf.New.
//
// The tests of this module are the interop evidence for package sbbf:
// for each physical type (INT32, INT64, FLOAT, DOUBLE, BYTE_ARRAY,
// FIXED_LEN_BYTE_ARRAY) 10^6 present and 10^6 absent values (fewer with
// -short), every answer of every row group's filter compared with the
// library's, and every filter compared byte for byte with sift's.
// BenchmarkVsParquetGo compares the speed of the two implementations of the
// same filter.
package interop
