package sbbf_test

import (
	"fmt"

	"github.com/sift-go/sift/sbbf"
)

// A Parquet split-block Bloom filter for an INT64 column and a string
// column, written as a Parquet file stores it and read back. Sized with
// ParquetSize, a power of two, the filter is one every Parquet reader
// accepts; New's smaller size (13,600 bytes here, not a power of two) is
// one Arrow C++ refuses.
func ExampleFilter() {
	size, err := sbbf.ParquetSize(10_000, 0.01) // Arrow's size for 10,000 values at 1%
	if err != nil {
		panic(err)
	}
	ids, err := sbbf.NewWithSize(size)
	if err != nil {
		panic(err)
	}
	for id := int64(0); id < 10_000; id++ {
		ids.AddInt64(id * 7)
	}
	fmt.Println(ids.ContainsInt64(700), ids.ContainsInt64(701))

	// The bytes at a column chunk's bloom_filter_offset: the Thrift
	// BloomFilterHeader, then the bitset.
	data, _ := ids.MarshalParquet()
	back, n, err := sbbf.ParseParquet(data)
	if err != nil {
		panic(err)
	}
	fmt.Println(n == len(data), back.NumBytes(), back.ContainsInt64(700))

	names, _ := sbbf.NewWithSize(1024) // a bitset of 1 KiB
	names.AddString("alice")
	fmt.Println(names.ContainsString("alice"), names.Contains([]byte("alice")))
	// Output:
	// true false
	// true 16384 true
	// true true
}

// Folding: size the filter for the most values a row group can hold, add
// the ones it actually holds, then halve it down to the target rate.
func ExampleFilter_Fold() {
	size, _ := sbbf.ParquetSize(1_000_000, 0.01) // the worst case: every row distinct
	f, _ := sbbf.NewWithSize(size)
	for v := int32(0); v < 5000; v++ { // only 5000 distinct values came
		f.AddInt32(v)
	}
	times, _ := f.Fold(0.01)
	fmt.Printf("%d bytes folded %d times to %d bytes; false-positive rate %.4f\n", size, times, f.NumBytes(), f.FPP())
	fmt.Println(f.ContainsInt32(4999))
	// Output:
	// 2097152 bytes folded 8 times to 8192 bytes; false-positive rate 0.0034
	// true
}

func ExampleFalsePositiveRate() {
	// The specification's example: 1024 blocks holding 26,214 values.
	fmt.Printf("%.4f\n", sbbf.FalsePositiveRate(1024*32, 26214))
	// Output: 0.0126
}

// A filter in sift's file format, served in place from a buffer (Open does
// the same from a mapped file), and the same filter's Parquet bytes read
// without copying the bitset.
func ExampleView() {
	f, _ := sbbf.NewWithSize(4096)
	f.AddString("alice")
	data, _ := f.MarshalBinary()
	v, err := sbbf.FromBytes(data)
	if err != nil {
		panic(err)
	}
	defer v.Close()
	fmt.Println(v.ContainsString("alice"), v.Blocks())

	pq, _ := f.MarshalParquet()
	pv, n, err := sbbf.ViewParquet(pq)
	if err != nil {
		panic(err)
	}
	defer pv.Close()
	fmt.Println(pv.ContainsString("alice"), n == len(pq))
	// Output:
	// true 128
	// true true
}

// The writers' sizes: Arrow C++ and arrow-go (ParquetSize) and parquet-mr
// at its default 1 MiB cap (ParquetMRSize), for the same distinct counts.
func ExampleParquetMRSize() {
	for _, n := range []uint64{100, 1000, 1_000_000} {
		arrow, _ := sbbf.ParquetSize(n, 0.01)
		mr, _ := sbbf.ParquetMRSize(n, 0.01, sbbf.ParquetMRDefaultMaxBytes)
		fmt.Printf("%d values: Arrow %d bytes, parquet-mr %d bytes\n", n, arrow, mr)
	}
	// Output:
	// 100 values: Arrow 128 bytes, parquet-mr 256 bytes
	// 1000 values: Arrow 2048 bytes, parquet-mr 2048 bytes
	// 1000000 values: Arrow 2097152 bytes, parquet-mr 1048576 bytes
}
