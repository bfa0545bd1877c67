// Package sbbf is Apache Parquet's split-block Bloom filter (SBBF), bit for
// bit: the filter Parquet files carry for their column chunks, as
// parquet-format's BloomFilter.md specifies it and parquet-mr, Arrow (C++,
// Rust, Go), parquet-go, Spark, Trino and DuckDB write and read it. Build
// one and write it into a Parquet file, read a Parquet file's filter and
// query it, or keep it in sift's checksummed file format and serve it
// mapped.
//
// Like every Bloom filter it answers "definitely not added" or "possibly
// added": a value that was added is always reported present (no false
// negatives), and a value that was not is reported present with a small
// probability, the false-positive rate. Values cannot be removed.
//
//	f, err := sbbf.New(10_000, 0.01) // 10,000 distinct values at 1%
//	f.AddInt64(42)
//	f.ContainsInt64(42) // true
//	data, err := f.MarshalParquet() // the bytes at bloom_filter_offset
//
// (For a Parquet file that Arrow C++ may read, size the filter with
// NewWithSize(ParquetSize(n, fpp)) instead: see Sizing.)
//
// Filter is the filter; View is a read-only one served in place from a
// mapped sift file (Open), a buffer in sift's format (FromBytes) or a
// Parquet file's bytes (ViewParquet).
//
// # Design and hashing
//
// A filter is B blocks of 256 bits, eight 32-bit words (B is any count
// from 1 to MaxBlocks; Sizing says which counts each Parquet reader
// accepts). A value's 64-bit hash h
// chooses the block by multiply-shift, (h>>32)*B>>32, and its low 32 bits
// set one bit in each of the block's eight words, with the
// specification's eight salts: always eight probes, all in one block.
//
// The hash is XXH64 with seed 0 of the value's Parquet plain encoding, so
// the methods are per physical type: Add for the bytes of a BYTE_ARRAY,
// FIXED_LEN_BYTE_ARRAY or INT96 value (no length prefix), AddString for a
// UTF8 string, AddInt32, AddInt64, AddFloat32 and AddFloat64 for the
// little-endian bytes of numbers (floats by their bits: -0.0 and +0.0 are
// different values, and so are NaNs with different payloads), and the
// same Contains methods. Hash, HashString, HashInt32, HashInt64,
// HashFloat32 and HashFloat64 return the hash, so a caller can hash once
// and probe many filters, or feed AddHashes and ContainsHashes. There is
// no seed: a Parquet filter has none.
//
// Tests compare the filter with a model written from the specification's
// text, and the interop module (a separate Go module in this repository)
// with the bytes parquet-go and arrow-go write and with DuckDB's answers.
//
// # Sizing
//
// The specification sizes a filter with the classic formula for eight
// hash functions, -8n/ln(1 - fpp^(1/8)) bits, which ignores the uneven
// load of the blocks, and the writers round that up to a power of two:
// ParquetSize reproduces Arrow C++'s and arrow-go's size, and
// ParquetMRSize parquet-mr's (which rounds differently, so that for some
// n its size is twice Arrow's, and caps it at 1 MiB by default), so that
// NewWithSize of that size built from the same values is byte for byte
// their filter.
// FalsePositiveRate computes the rate of this design exactly: the number
// of values sharing the queried block is binomial, and given that load
// the chance that all eight probes find set bits follows from the bits per
// word (the model package blocked uses for its filter, with one probe per
// 32-bit word). It reproduces the specification's own measured figures
// (1.26% for 26,214 values in 1024 blocks). New and OptimalSize take the
// least block count (any count) whose expected rate plus three standard
// deviations of the rate across filters is at most fpp: 10.6 bits per
// value at 1% and 17.0 at 0.1% for a million values, where the
// specification's formula with the power-of-two rounding gives 16.8 bits
// per value for both, and a rate of 0.103% at the 0.1% target. FPP
// reports the rate of a filter from its actual bits, EstimatedCount the
// number of values from its fill.
//
// Parquet readers differ in the sizes they accept. parquet-go, arrow-rs
// and DuckDB read a filter of any multiple of 32 bytes; parquet-mr and
// arrow-go any multiple of 32 bytes up to ParquetMaxBytes, 128 MiB
// (parquet-mr skips a larger filter, arrow-go returns an error); Arrow C++
// only a power of two from 32 bytes to 128 MiB, and throws "Given length
// of bitset is illegal" on any other size rather than skip the filter. So
// does every reader built on Arrow C++'s code: pyarrow, and engines with a
// copy of it, such as Velox and Doris. New's size is seldom a power of
// two, which Arrow C++ refuses, and exceeds 128 MiB from about 102 million
// values at 1%, which only the first group reads (sift's own format has no
// such limits). For a Parquet file that any reader may open, build the
// filter with NewWithSize(ParquetSize(n, fpp)): a power of two of at most
// 128 MiB, Arrow's own size (Fold keeps it a power of two).
//
// # Folding
//
// A writer that does not know how many distinct values a column chunk
// holds sizes the filter for the most there can be (a power-of-two size
// from ParquetSize), adds the values, and calls Fold with its target rate:
// each halving ORs blocks 2j and 2j+1 into block j. Since the block index
// is a multiply-shift of the hash, a value in block i of B blocks is in
// block i>>1 of B/2 with the same bits, so the folded filter is bit for bit
// the one built at that size, and its rate is what FalsePositiveRate
// predicts for the size (TestFold and TestFoldStatistical check both).
// Fold keeps halving while the rate computed from the bits stays within
// the target, so the result is at most twice the size New would have
// chosen. FoldN halves a given number of times, for example to bring a
// filter to another's size for Union.
//
// # Bytes
//
// In a Parquet file, a column chunk's bloom_filter_offset points at a
// Thrift compact-protocol BloomFilterHeader followed by the bitset.
// MarshalParquet and WriteParquet write that (AppendParquetHeader writes
// the header alone); ParseParquet, ReadParquet (from a stream, memory
// growing only as bytes arrive), UnmarshalParquet and ViewParquet (in
// place, for a mapped Parquet file) read it, and DecodeParquetHeader reads
// only the header. They skip header fields they do not know and return
// ErrUnsupported for an algorithm, hash or compression other than the
// specification's, which a Parquet reader skips. The bitset alone is
// AppendBitset and FromBitset (for example after decryption).
//
// sift's own format (MarshalBinary, AppendBinary, WriteTo, UnmarshalBinary,
// ReadFrom, Open and FromBytes) holds the same bitset after a 128-byte
// header with CRC-32C checksums: a record of kind 6. FORMAT.md, at the
// root of the repository, defines both byte layouts; they are
// little-endian and identical on every architecture, and a golden test
// locks them. Open maps a file read-only and serves lookups from the page
// cache (WithoutChecksum skips the checksum pass for trusted storage);
// the file must not be modified or truncated while mapped.
//
// Every decoder treats its input as hostile: it checks every field (and,
// for sift's format, both checksums) before using anything, never panics,
// never allocates more than the input justifies, refuses a bitset beyond
// WithMaxSize before reading it, and returns errors that read
// "sbbf: ..." and wrap the sift package's sentinels (ErrTruncated,
// ErrCorrupt, ErrTooLarge, ..., re-exported here) or ErrUnsupported.
//
// # Concurrency and memory
//
// Lookups (the Contains methods, ContainsHashes and the other read-only
// methods) may run from many goroutines at once; adds, Union, Fold, Reset
// and decoding into a filter must not run concurrently with anything else.
// Blocks are 64-byte aligned; filters of 4 MiB and more live in memory
// mapped outside the Go heap, which Close returns at once (a finalizer
// does otherwise). A constructor never ends the process for lack of
// memory: a size beyond MaxBlocks, WithMaxSize or what the machine can
// provide is an error wrapping ErrTooLarge. After Close, and in a zero
// Filter or View, the methods that return errors return one wrapping
// ErrClosed and the others panic with one, never touching freed memory.
//
// # Kernels and purego
//
// ContainsHash and AddHash inline into the caller with one call of a
// per-key kernel (AVX2 assembly on amd64, with the AVX-512 kernel set too;
// the unrolled Go probe elsewhere); ContainsHashes and AddHashes run batch
// kernels that compute block addresses ahead and prefetch, so cache misses
// overlap (AVX-512, AVX2, NEON, or portable Go), chosen once at start-up
// (DESIGN.md §6). Every path produces the same bits and answers; tests
// compare them with each other and with the specification's model. The
// build tag purego removes sift's own assembly.
package sbbf
