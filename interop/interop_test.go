package interop

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	pqa "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/bloom"
	"github.com/parquet-go/parquet-go/format"
	"github.com/sift-go/sift/sbbf"
)

// The interop tests write Parquet files with parquet-go and arrow-go over
// known values of every physical type that carries Bloom filters, then
// check that sift reads each column chunk's filter and answers exactly as
// the library that wrote it for every present and absent value, and that a
// filter sift builds from the same values at the same size is byte for
// byte the library's.

// valuesPerType is how many present (and as many absent) values each
// column gets: 10^6 in the full run.
func valuesPerType() int {
	if testing.Short() {
		return 20000
	}
	return 1000000
}

// rowGroups is how many row groups each file has (each with its own
// filters): the values are split evenly among them in order.
const rowGroups = 2

// column describes one test column: its name, its physical type, and the
// value for index i (present values are i < n, absent ones n <= i < 2n).
type column struct {
	name  string
	typ   format.Type
	value func(i int) parquet.Value
}

const golden = 0x9e3779b97f4a7c15

var columns = []column{
	{"i32", format.Int32, func(i int) parquet.Value { return parquet.Int32Value(int32(uint32(i) * 2654435761)) }},
	{"i64", format.Int64, func(i int) parquet.Value { return parquet.Int64Value(int64(uint64(i) * golden)) }},
	{"f32", format.Float, func(i int) parquet.Value { return parquet.FloatValue(float32Value(i)) }},
	{"f64", format.Double, func(i int) parquet.Value { return parquet.DoubleValue(float64Value(i)) }},
	{"ba", format.ByteArray, func(i int) parquet.Value { return parquet.ByteArrayValue([]byte("value-" + strconv.Itoa(i))) }},
	{"fl", format.FixedLenByteArray, func(i int) parquet.Value { return parquet.FixedLenByteArrayValue(flbaValue(i)) }},
}

// float32Value: the first present values are the special ones (negative
// zero, a NaN, the infinities); the first absent one is positive zero.
func float32Value(i int) float32 {
	switch i {
	case 0:
		return float32(math.Copysign(0, -1))
	case 1:
		return float32(math.NaN())
	case 2:
		return float32(math.Inf(1))
	case 3:
		return float32(math.Inf(-1))
	case valuesPerType():
		return 0
	}
	return float32(i) + 0.5
}

func float64Value(i int) float64 {
	switch i {
	case 0:
		return math.Copysign(0, -1)
	case 1:
		return math.NaN()
	case 2:
		return math.Inf(1)
	case 3:
		return math.Inf(-1)
	case valuesPerType():
		return 0
	}
	return float64(i) + 0.25
}

func flbaValue(i int) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(i)*golden)
	return binary.LittleEndian.AppendUint64(b, ^uint64(i))
}

// row is a parquet-go row of every column.
type row struct {
	I32 int32    `parquet:"i32"`
	I64 int64    `parquet:"i64"`
	F32 float32  `parquet:"f32"`
	F64 float64  `parquet:"f64"`
	BA  []byte   `parquet:"ba"`
	FL  [16]byte `parquet:"fl"`
}

func rowOf(i int) row {
	r := row{
		I32: columns[0].value(i).Int32(),
		I64: columns[1].value(i).Int64(),
		F32: float32Value(i),
		F64: float64Value(i),
		BA:  columns[4].value(i).ByteArray(),
	}
	copy(r.FL[:], flbaValue(i))
	return r
}

// writeParquetGo writes the present values with parquet-go, 10 bits of
// filter per value, in rowGroups row groups.
func writeParquetGo(t testing.TB, n int) []byte {
	t.Helper()
	var filters []parquet.BloomFilterColumn
	for _, c := range columns {
		filters = append(filters, parquet.SplitBlockFilter(10, c.name))
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf, parquet.BloomFilters(filters...))
	rows := make([]row, 0, 4096)
	per := n / rowGroups
	for g := 0; g < rowGroups; g++ {
		for i := g * per; i < (g+1)*per; i++ {
			rows = append(rows, rowOf(i))
			if len(rows) == cap(rows) || i == (g+1)*per-1 {
				if _, err := w.Write(rows); err != nil {
					t.Fatal(err)
				}
				rows = rows[:0]
			}
		}
		if err := w.Flush(); err != nil { // ends the row group
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeArrowGo writes the present values with arrow-go's file writer,
// with its NDV-based sizing (the power-of-two sizes parquet-mr and Arrow
// C++ use) at 1% and rowGroups row groups.
func writeArrowGo(t testing.TB, n int) []byte {
	t.Helper()
	rep := pqa.Repetitions.Required
	fields := schema.FieldList{
		schema.NewInt32Node("i32", rep, -1), schema.NewInt64Node("i64", rep, -1),
		schema.NewFloat32Node("f32", rep, -1), schema.NewFloat64Node("f64", rep, -1),
		schema.NewByteArrayNode("ba", rep, -1), schema.NewFixedLenByteArrayNode("fl", rep, 16, -1),
	}
	root, err := schema.NewGroupNode("schema", pqa.Repetitions.Required, fields, -1)
	if err != nil {
		t.Fatal(err)
	}
	per := n / rowGroups
	props := pqa.NewWriterProperties(pqa.WithBloomFilterEnabled(true), pqa.WithBloomFilterNDV(int64(per)),
		pqa.WithBloomFilterFPP(0.01), pqa.WithMaxBloomFilterBytes(sbbf.ParquetMaxBytes), pqa.WithDictionaryDefault(false))
	var buf bytes.Buffer
	w := file.NewParquetWriter(&buf, root, file.WithWriterProps(props))
	for g := 0; g < rowGroups; g++ {
		lo, hi := g*per, (g+1)*per
		rg := w.AppendRowGroup()
		for c := range columns {
			cw, err := rg.NextColumn()
			if err != nil {
				t.Fatal(err)
			}
			switch cw := cw.(type) {
			case *file.Int32ColumnChunkWriter:
				vals := make([]int32, 0, hi-lo)
				for i := lo; i < hi; i++ {
					vals = append(vals, columns[c].value(i).Int32())
				}
				_, err = cw.WriteBatch(vals, nil, nil)
			case *file.Int64ColumnChunkWriter:
				vals := make([]int64, 0, hi-lo)
				for i := lo; i < hi; i++ {
					vals = append(vals, columns[c].value(i).Int64())
				}
				_, err = cw.WriteBatch(vals, nil, nil)
			case *file.Float32ColumnChunkWriter:
				vals := make([]float32, 0, hi-lo)
				for i := lo; i < hi; i++ {
					vals = append(vals, float32Value(i))
				}
				_, err = cw.WriteBatch(vals, nil, nil)
			case *file.Float64ColumnChunkWriter:
				vals := make([]float64, 0, hi-lo)
				for i := lo; i < hi; i++ {
					vals = append(vals, float64Value(i))
				}
				_, err = cw.WriteBatch(vals, nil, nil)
			case *file.ByteArrayColumnChunkWriter:
				vals := make([]pqa.ByteArray, 0, hi-lo)
				for i := lo; i < hi; i++ {
					vals = append(vals, columns[c].value(i).ByteArray())
				}
				_, err = cw.WriteBatch(vals, nil, nil)
			case *file.FixedLenByteArrayColumnChunkWriter:
				vals := make([]pqa.FixedLenByteArray, 0, hi-lo)
				for i := lo; i < hi; i++ {
					vals = append(vals, flbaValue(i))
				}
				_, err = cw.WriteBatch(vals, nil, nil)
			default:
				t.Fatalf("column %d: writer %T", c, cw)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := cw.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if err := rg.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// oracle answers for one library: does row group g's filter of column c
// hold value i?
type oracle func(g, c, i int) bool

// parquetGoOracle asks parquet-go's own reader.
func parquetGoOracle(t testing.TB, data []byte) oracle {
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	bfs := make([][]parquet.BloomFilter, len(f.RowGroups()))
	for g, rg := range f.RowGroups() {
		for _, cc := range rg.ColumnChunks() {
			bfs[g] = append(bfs[g], cc.BloomFilter())
		}
	}
	return func(g, c, i int) bool {
		ok, err := bfs[g][c].Check(columns[c].value(i))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
}

// arrowGoOracle asks arrow-go's reader, hashing with arrow-go's typed
// filter (metadata.TypedBloomFilter).
func arrowGoOracle(t testing.TB, data []byte) oracle {
	r, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	bfr := r.GetBloomFilterReader()
	bfs := make([][]metadata.BloomFilter, r.NumRowGroups())
	for g := range bfs {
		rg, err := bfr.RowGroup(g)
		if err != nil {
			t.Fatal(err)
		}
		for c := range columns {
			bf, err := rg.GetColumnBloomFilter(c)
			if err != nil || bf == nil {
				t.Fatalf("arrow-go: row group %d column %d: no filter (%v)", g, c, err)
			}
			bfs[g] = append(bfs[g], bf)
		}
	}
	return func(g, c, i int) bool {
		bf := bfs[g][c]
		switch c {
		case 0:
			return (&metadata.TypedBloomFilter[int32]{BloomFilter: bf}).Check(columns[0].value(i).Int32())
		case 1:
			return (&metadata.TypedBloomFilter[int64]{BloomFilter: bf}).Check(columns[1].value(i).Int64())
		case 2:
			return (&metadata.TypedBloomFilter[float32]{BloomFilter: bf}).Check(float32Value(i))
		case 3:
			return (&metadata.TypedBloomFilter[float64]{BloomFilter: bf}).Check(float64Value(i))
		case 4:
			return (&metadata.TypedBloomFilter[pqa.ByteArray]{BloomFilter: bf}).Check(columns[4].value(i).ByteArray())
		default:
			return (&metadata.TypedBloomFilter[pqa.FixedLenByteArray]{BloomFilter: bf}).Check(flbaValue(i))
		}
	}
}

// addTyped adds value i of column c to f through the typed method a user
// would call.
func addTyped(f *sbbf.Filter, c, i int) {
	v := columns[c].value(i)
	switch columns[c].typ {
	case format.Int32:
		f.AddInt32(v.Int32())
	case format.Int64:
		f.AddInt64(v.Int64())
	case format.Float:
		f.AddFloat32(v.Float())
	case format.Double:
		f.AddFloat64(v.Double())
	default:
		f.Add(v.ByteArray())
	}
}

// checkFile runs the comparison for one library's file.
func checkFile(t *testing.T, lib string, data []byte, ask oracle) {
	n := valuesPerType()
	per := n / rowGroups
	filters, err := ReadFilters(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(filters) != rowGroups*len(columns) {
		t.Fatalf("%s: %d filters, want %d", lib, len(filters), rowGroups*len(columns))
	}
	checked := 0
	for _, cf := range filters {
		g, c := cf.RowGroup, cf.Column
		if cf.Err != nil || cf.Name() != columns[c].name || cf.Type != columns[c].typ {
			t.Fatalf("%s: filter %d/%d: %q %v %v", lib, g, c, cf.Name(), cf.Type, cf.Err)
		}
		// Byte for byte: the library's bitset is what sift builds from the
		// row group's values at the same size, and the data at
		// bloom_filter_offset is what MarshalParquet writes.
		own, err := sbbf.NewWithSize(cf.Filter.NumBytes())
		if err != nil {
			t.Fatal(err)
		}
		for i := g * per; i < (g+1)*per; i++ {
			addTyped(own, c, i)
		}
		if !bytes.Equal(own.AppendBitset(nil), cf.Filter.AppendBitset(nil)) {
			t.Errorf("%s: %s row group %d: sift's filter of the same %d values at %d bytes differs from the file's", lib, cf.Name(), g, per, cf.Filter.NumBytes())
		}
		enc, _ := own.MarshalParquet()
		if !bytes.Equal(enc, data[cf.Offset:cf.Offset+cf.Length]) {
			t.Errorf("%s: %s row group %d: the header and bitset in the file differ from MarshalParquet's", lib, cf.Name(), g)
		}
		own.Close()
		// Answer for answer, present and absent values, every row group's
		// filter against every value.
		for i := 0; i < 2*n; i++ {
			want := ask(g, c, i)
			got := cf.Contains(columns[c].value(i))
			if got != want {
				t.Fatalf("%s: %s row group %d value %d (%v): sift %v, %s %v", lib, cf.Name(), g, i, columns[c].value(i), got, lib, want)
			}
			if i >= g*per && i < (g+1)*per && !got {
				t.Fatalf("%s: %s row group %d: value %d added but absent", lib, cf.Name(), g, i)
			}
			checked++
		}
	}
	t.Logf("%s: %d filters, %d (value, filter) answers agree; %d present and %d absent values per column", lib, len(filters), checked, n, n)
}

func TestParquetGoFiles(t *testing.T) {
	data := writeParquetGo(t, valuesPerType())
	checkFile(t, "parquet-go", data, parquetGoOracle(t, data))
}

func TestArrowGoFiles(t *testing.T) {
	data := writeArrowGo(t, valuesPerType())
	checkFile(t, "arrow-go", data, arrowGoOracle(t, data))
}

// TestBuildersIdentical: the libraries' in-memory filter builders, given
// the same values, produce sift's bytes, including arrow-go's complete
// output (header and bitset).
func TestBuildersIdentical(t *testing.T) {
	for _, numBytes := range []int{32, 1024, 96 * 32, 1 << 20} {
		n := numBytes / 2
		s, _ := sbbf.NewWithSize(uint64(numBytes))
		p := make(bloom.SplitBlockFilter, numBytes/bloom.BlockSize)
		a := metadata.NewBloomFilter(uint32(numBytes), uint32(max(numBytes, 1<<20)), memory.DefaultAllocator)
		i64 := make([]int64, n)
		for i := range i64 {
			i64[i] = columns[1].value(i).Int64()
			s.AddInt64(i64[i])
			p.Insert(bloom.XXH64{}.Sum64Uint64(uint64(i64[i])))
		}
		metadata.InsertHashes(a, i64)
		if !bytes.Equal(s.AppendBitset(nil), p.Bytes()) {
			t.Errorf("%d bytes: parquet-go's SplitBlockFilter differs", numBytes)
		}
		var ab bytes.Buffer
		if _, err := a.WriteTo(&ab, nil); err != nil {
			t.Fatal(err)
		}
		if numBytes&(numBytes-1) == 0 && !bytes.Equal(s.AppendBitset(nil), ab.Bytes()) {
			t.Errorf("%d bytes: arrow-go's filter differs", numBytes)
		}
		s.Close()
	}
}

// TestParquetSizeMatchesArrow: sbbf.ParquetSize is arrow-go's sizing
// (NewBloomFilterFromNDVAndFPP with the 128 MiB maximum) everywhere.
func TestParquetSizeMatchesArrow(t *testing.T) {
	fpps := []float64{0.5, 0.1, 0.05, 0.01, 0.005, 0.001, 1e-4, 1e-5, 1e-9}
	for _, ndv := range []uint32{0, 1, 2, 10, 100, 1000, 4095, 4096, 12345, 1e5, 1 << 20, 1e6, 3e6, 1e7, 5e7, 1e8, 1e9, math.MaxUint32} {
		if ndv >= 5e7 {
			fpps = []float64{0.5, 0.01} // the large sizes allocate up to 128 MiB each
		}
		for _, fpp := range fpps {
			if size, _ := sbbf.ParquetSize(uint64(ndv), fpp); testing.Short() && size > 8<<20 {
				continue // arrow-go allocates the filter
			}
			want := metadata.NewBloomFilterFromNDVAndFPP(ndv, fpp, sbbf.ParquetMaxBytes, memory.DefaultAllocator)
			got, err := sbbf.ParquetSize(uint64(ndv), fpp)
			if err != nil || int64(got) != want.Size() {
				t.Errorf("ndv=%d fpp=%v: sift %d bytes (%v), arrow-go %d", ndv, fpp, got, err, want.Size())
			}
			want.Release()
		}
	}
}

// TestParquetSizeArrowBoundary: sbbf.ParquetSize against arrow-go at
// (ndv, fpp) where the estimate lands just above a power of two in bits,
// so that computing ln(1 - x) as log1p instead of arrow-go's
// math.Log(1 - x) gives twice or half its size, and where the estimate is
// 0/0 (ndv 0 at an fpp so small that 1 - fpp^(1/8) rounds to 1).
func TestParquetSizeArrowBoundary(t *testing.T) {
	for _, c := range []struct {
		ndv uint32
		fpp float64
	}{
		{999999, 0.00042801642562587014},
		{5000000, 0.0016522716348272405},
		{1000000, 4.0998711832176101e-06},
		{12345, 7.5506911982857407e-07},
		{0, 1e-300},
	} {
		want := metadata.NewBloomFilterFromNDVAndFPP(c.ndv, c.fpp, sbbf.ParquetMaxBytes, memory.DefaultAllocator)
		got, err := sbbf.ParquetSize(uint64(c.ndv), c.fpp)
		if err != nil || int64(got) != want.Size() {
			t.Errorf("ndv=%d fpp=%.17g: sift %d bytes (%v), arrow-go %d", c.ndv, c.fpp, got, err, want.Size())
		}
		want.Release()
	}
}

func TestReadFiltersErrors(t *testing.T) {
	data := writeParquetGo(t, 1000)
	filters, err := ReadFilters(bytes.NewReader(data), int64(len(data)))
	if err != nil || len(filters) == 0 {
		t.Fatal(err)
	}
	off := filters[0].Offset
	// Damage the first filter's numBytes field.
	bad := bytes.Clone(data)
	bad[off+1] ^= 0x40
	if _, err := ReadFilters(bytes.NewReader(bad), int64(len(bad))); err == nil {
		t.Error("a damaged filter header was accepted")
	}
	// A gzip filter (parquet-go's extension) is reported, not fatal.
	gz := bytes.Clone(data)
	hdr := sbbf.AppendParquetHeader(nil, int32(filters[0].Filter.NumBytes()))
	if !bytes.Equal(gz[off:off+int64(len(hdr))], hdr) {
		t.Fatal("unexpected header")
	}
	gz[off+int64(len(hdr))-4] = 2<<4 | 12 // the compression union's member 2
	fs, err := ReadFilters(bytes.NewReader(gz), int64(len(gz)))
	if err != nil || len(fs) != len(filters) || !errors.Is(fs[0].Err, sbbf.ErrUnsupported) || fs[0].Filter != nil || fs[1].Filter == nil {
		t.Fatalf("gzip member: %v", err)
	}
	if _, err := ReadFilters(bytes.NewReader(data[:len(data)-10]), int64(len(data)-10)); err == nil {
		t.Error("a truncated file was accepted")
	}
}
