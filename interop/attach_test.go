package interop

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/sift-go/sift/sbbf"
)

// writePlain writes the present values with parquet-go and no Bloom
// filters, in rowGroups row groups.
func writePlain(t testing.TB, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	per := n / rowGroups
	for g := 0; g < rowGroups; g++ {
		rows := make([]row, 0, per)
		for i := g * per; i < (g+1)*per; i++ {
			rows = append(rows, rowOf(i))
		}
		if _, err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestAttachFilters gives a file parquet-go wrote without Bloom filters
// sift-built ones (sbbf.New at 1%, any block count), then has
// parquet-go, arrow-go and DuckDB read it: the data is intact, and every
// library's filter answers are sift's, present values found.
func TestAttachFilters(t *testing.T) {
	n := valuesPerType() / 10
	per := n / rowGroups
	plain := writePlain(t, n)
	if fs, err := ReadFilters(bytes.NewReader(plain), int64(len(plain))); err != nil || len(fs) != 0 {
		t.Fatalf("the plain file has %d filters (%v)", len(fs), err)
	}
	built := map[[2]int]*sbbf.Filter{}
	var out bytes.Buffer
	attached, err := AttachFilters(&out, bytes.NewReader(plain), int64(len(plain)), func(c ColumnChunk) *sbbf.Filter {
		if c.HasFilter || c.NumValues != int64(per) || columns[c.Column].name != c.Path[0] {
			t.Fatalf("chunk %+v", c)
		}
		f, err := sbbf.New(uint64(per), 0.01)
		if err != nil {
			t.Fatal(err)
		}
		for i := c.RowGroup * per; i < (c.RowGroup+1)*per; i++ {
			addTyped(f, c.Column, i)
		}
		built[[2]int{c.RowGroup, c.Column}] = f
		return f
	})
	if err != nil || attached != rowGroups*len(columns) {
		t.Fatalf("AttachFilters: %d filters, %v", attached, err)
	}
	data := out.Bytes()
	if !bytes.Equal(data[:len(plain)-8-int(le32(plain[len(plain)-8:]))], plain[:len(plain)-8-int(le32(plain[len(plain)-8:]))]) {
		t.Fatal("the row groups were not copied unchanged")
	}

	// The data reads back.
	got, err := parquet.Read[row](bytes.NewReader(data), int64(len(data)))
	if err != nil || len(got) != n {
		t.Fatalf("parquet.Read: %d rows, %v", len(got), err)
	}
	for i, r := range got {
		if w := rowOf(i); r.I64 != w.I64 || !bytes.Equal(r.BA, w.BA) || r.FL != w.FL {
			t.Fatalf("row %d differs", i)
		}
	}
	// sift reads back its own filters, byte for byte.
	filters, err := ReadFilters(bytes.NewReader(data), int64(len(data)))
	if err != nil || len(filters) != attached {
		t.Fatalf("ReadFilters: %d, %v", len(filters), err)
	}
	for _, cf := range filters {
		if !bytes.Equal(cf.Filter.AppendBitset(nil), built[[2]int{cf.RowGroup, cf.Column}].AppendBitset(nil)) {
			t.Fatalf("row group %d column %s: the filter read back differs", cf.RowGroup, cf.Name())
		}
	}
	// parquet-go and arrow-go use them, and answer as sift.
	for lib, ask := range map[string]oracle{"parquet-go": parquetGoOracle(t, data), "arrow-go": arrowGoOracle(t, data)} {
		for key, f := range built {
			g, c := key[0], key[1]
			for i := 0; i < 2*n; i++ {
				want := ask(g, c, i)
				cf := ColumnFilter{Filter: f}
				if got := cf.Contains(columns[c].value(i)); got != want {
					t.Fatalf("%s: row group %d column %s value %d: sift %v, %s %v", lib, g, columns[c].name, i, got, lib, want)
				}
				if i/per == g && i < n && !want {
					t.Fatalf("%s: row group %d column %s: present value %d excluded", lib, g, columns[c].name, i)
				}
			}
		}
	}
	duckCheck(t, data, n, per, built)
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// duckCheck has DuckDB read the rewritten file and probe its i64 filters.
func duckCheck(t *testing.T, data []byte, n, per int, built map[[2]int]*sbbf.Filter) {
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join("duckdb", "node_modules", "@duckdb", "node-api"))
	}
	if err != nil {
		if os.Getenv("SIFT_REQUIRE_DUCKDB") != "" {
			t.Fatal("DuckDB is not installed: cd interop/duckdb && npm install")
		}
		t.Log("DuckDB is not installed (cd interop/duckdb && npm install): its check of the rewritten file is skipped")
		return
	}
	path := filepath.Join(t.TempDir(), "attached.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"check.mjs", path, "i64"}
	var probes []int
	count := 400
	if testing.Short() {
		count = 60 // parquet_bloom_probe takes tens of milliseconds a value
	}
	for i := 0; i < 2*n; i += max(1, 2*n/count) {
		probes = append(probes, i)
		args = append(args, strconv.FormatInt(columns[1].value(i).Int64(), 10)+"::BIGINT")
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = "duckdb"
	raw, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("node check.mjs: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var res struct {
		Rows     int
		Excludes [][]bool
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	if res.Rows != n || len(res.Excludes) != len(probes) {
		t.Fatalf("DuckDB read %d rows and %d answers, want %d and %d", res.Rows, len(res.Excludes), n, len(probes))
	}
	excluded := 0
	for k, i := range probes {
		for g, ex := range res.Excludes[k] {
			sift := built[[2]int{g, 1}].ContainsInt64(columns[1].value(i).Int64())
			if sift == ex {
				t.Fatalf("DuckDB: row group %d value %d: parquet_bloom_probe excludes=%v, sift present=%v", g, i, ex, sift)
			}
			if ex {
				excluded++
			}
		}
	}
	t.Logf("DuckDB read the %d rows and used sift's filters: %d probes x %d row groups agree (%d excluded)", res.Rows, len(probes), rowGroups, excluded)
}

// TestAttachFiltersRefuses: a footer parquet-go's format cannot re-encode
// exactly, an encrypted footer, and non-Parquet input are refused, and
// nothing is half-written on the first two.
func TestAttachFiltersRefuses(t *testing.T) {
	plain := writePlain(t, 1000)
	none := func(ColumnChunk) *sbbf.Filter { return nil }
	enc := bytes.Clone(plain)
	copy(enc[len(enc)-4:], "PARE")
	if _, err := AttachFilters(io.Discard, bytes.NewReader(enc), int64(len(enc)), none); !errors.Is(err, ErrFooter) {
		t.Errorf("encrypted footer: %v", err)
	}
	if _, err := AttachFilters(io.Discard, bytes.NewReader(plain[:100]), 100, none); err == nil {
		t.Error("a truncated file was accepted")
	}
	// An unknown field (id 30, an i32) appended to the FileMetaData struct:
	// its stop byte is the footer's last.
	n := int(le32(plain[len(plain)-8:]))
	footer := plain[len(plain)-8-n : len(plain)-8]
	ext := append(bytes.Clone(footer[:len(footer)-1]), 0x05, 0x3c, 0x02, 0x00) // long-form field 30 (zigzag 60), i32 1, stop
	bad := append(bytes.Clone(plain[:len(plain)-8-n]), ext...)
	bad = append(bad, byte(len(ext)), byte(len(ext)>>8), byte(len(ext)>>16), byte(len(ext)>>24))
	bad = append(bad, "PAR1"...)
	if _, err := parquet.OpenFile(bytes.NewReader(bad), int64(len(bad))); err != nil {
		t.Fatalf("the extended footer does not even open: %v", err)
	}
	var out bytes.Buffer
	if _, err := AttachFilters(&out, bytes.NewReader(bad), int64(len(bad)), none); !errors.Is(err, ErrFooter) || out.Len() != 0 {
		t.Errorf("footer with an unknown field: %v, %d bytes written", err, out.Len())
	}
}

// TestAttachFiltersSizeLimit: a filter over sbbf.ParquetMaxBytes (128 MiB),
// which parquet-mr skips and arrow-go and Arrow C++ fail on, is refused
// with sbbf.ErrTooLarge and not written; one of exactly 128 MiB is
// attached.
func TestAttachFiltersSizeLimit(t *testing.T) {
	plain := writePlain(t, 1000)
	// Mapped outside the Go heap and never touched: no memory is used.
	big, err := sbbf.NewWithSize(sbbf.ParquetMaxBytes + sbbf.BlockBytes)
	if err != nil {
		t.Skip(err)
	}
	defer big.Close()
	first := func(f *sbbf.Filter) func(ColumnChunk) *sbbf.Filter {
		return func(c ColumnChunk) *sbbf.Filter {
			if c.RowGroup == 0 && c.Column == 0 {
				return f
			}
			return nil
		}
	}
	var out bytes.Buffer
	n, err := AttachFilters(&out, bytes.NewReader(plain), int64(len(plain)), first(big))
	if !errors.Is(err, sbbf.ErrTooLarge) || n != 0 || out.Len() > len(plain) {
		t.Errorf("a filter of 128 MiB + 32 bytes: %d attached, %v, %d bytes written", n, err, out.Len())
	}
	if testing.Short() {
		return // the rest marshals 128 MiB
	}
	most, err := sbbf.NewWithSize(sbbf.ParquetMaxBytes)
	if err != nil {
		t.Skip(err)
	}
	defer most.Close()
	var cw countWriter
	if n, err := AttachFilters(&cw, bytes.NewReader(plain), int64(len(plain)), first(most)); err != nil || n != 1 || cw.n < sbbf.ParquetMaxBytes {
		t.Errorf("a filter of 128 MiB: %d attached, %v, %d bytes written", n, err, cw.n)
	}
}

// countWriter counts the bytes written to it.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }
