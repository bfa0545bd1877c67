package interop_test

import (
	"bytes"
	"fmt"

	"github.com/parquet-go/parquet-go"
	"github.com/sift-go/sift/interop"
	"github.com/sift-go/sift/sbbf"
)

type order struct {
	ID       int64  `parquet:"id"`
	Customer string `parquet:"customer"`
}

// writeOrders writes a Parquet file with parquet-go, with Bloom filters
// (10 bits per value) on both columns.
func writeOrders() []byte {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[order](&buf, parquet.BloomFilters(
		parquet.SplitBlockFilter(10, "id"), parquet.SplitBlockFilter(10, "customer")))
	for i := int64(0); i < 1000; i++ {
		w.Write([]order{{ID: i * 3, Customer: fmt.Sprintf("customer-%d", i%50)}})
	}
	w.Close()
	return buf.Bytes()
}

// Take the Bloom filters out of a Parquet file and query them with sift.
func ExampleReadFilters() {
	data := writeOrders()
	filters, err := interop.ReadFilters(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		panic(err)
	}
	for _, f := range filters {
		fmt.Printf("row group %d, column %s (%v): %d bytes\n", f.RowGroup, f.Name(), f.Type, f.Filter.NumBytes())
	}
	ids, customers := filters[0].Filter, filters[1].Filter
	fmt.Println(ids.ContainsInt64(300), ids.ContainsInt64(301))
	fmt.Println(customers.ContainsString("customer-7"), customers.ContainsString("customer-70"))
	// Output:
	// row group 0, column id (INT64): 1280 bytes
	// row group 0, column customer (BYTE_ARRAY): 1280 bytes
	// true false
	// true false
}

// A filter sift builds from a column chunk's values, at the size the writer
// chose, is byte for byte the one the writer put in the file, header
// included: sift-built filters go where a Parquet writer puts its own.
func Example_sameBytes() {
	data := writeOrders()
	filters, _ := interop.ReadFilters(bytes.NewReader(data), int64(len(data)))
	col := filters[0]

	mine, _ := sbbf.NewWithSize(col.Filter.NumBytes())
	for i := int64(0); i < 1000; i++ {
		mine.AddInt64(i * 3)
	}
	enc, _ := mine.MarshalParquet()
	fmt.Println(bytes.Equal(enc, data[col.Offset:col.Offset+col.Length]))
	// Output: true
}

// Put sift-built filters into a Parquet file that was written without
// them, where any Parquet reader finds them: here parquet-go's.
func ExampleAttachFilters() {
	var plain bytes.Buffer
	w := parquet.NewGenericWriter[order](&plain) // no Bloom filters
	for i := int64(0); i < 1000; i++ {
		w.Write([]order{{ID: i * 3, Customer: fmt.Sprintf("customer-%d", i%50)}})
	}
	w.Close()

	var out bytes.Buffer
	n, err := interop.AttachFilters(&out, bytes.NewReader(plain.Bytes()), int64(plain.Len()), func(c interop.ColumnChunk) *sbbf.Filter {
		if c.Path[0] != "id" {
			return nil // leave the other columns alone
		}
		f, _ := sbbf.New(uint64(c.NumValues), 0.01)
		for i := int64(0); i < 1000; i++ {
			f.AddInt64(i * 3)
		}
		return f
	})
	if err != nil {
		panic(err)
	}
	file, _ := parquet.OpenFile(bytes.NewReader(out.Bytes()), int64(out.Len()))
	bf := file.RowGroups()[0].ColumnChunks()[0].BloomFilter() // parquet-go's own reader
	hit, _ := bf.Check(parquet.Int64Value(300))
	miss, _ := bf.Check(parquet.Int64Value(301))
	fmt.Println(n, hit, miss)
	// Output: 1 true false
}
