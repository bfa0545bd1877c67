package interop

import (
	"bytes"
	"crypto/md5"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sift-go/sift/sbbf"
)

// TestDuckDBFiles checks sift against DuckDB (the @duckdb/node-api npm
// package, run by duckdb/probe.mjs under node): DuckDB writes a Parquet
// file with Bloom filters over values of every physical type, and answers
// parquet_bloom_probe for present and absent values, row group by row
// group. sift reads every filter of the file and must:
//
//   - build, from each row group's values at the filter's size, the
//     filter DuckDB wrote, byte for byte (so it answers as DuckDB's filter
//     for every value there is), and
//   - answer every probe as DuckDB did.
//
// parquet_bloom_probe re-reads the file for every probe (about 2 ms per
// probe at 100 row groups here), so the sample is small by default: 20 row
// groups and 100 probes per column with -short, 50 and 1000 without
// (50,000 answers per physical type); SIFT_DUCKDB_PROBES=10000 with
// SIFT_DUCKDB_GROUPS=100 checks 10^6 per type (about half an hour).
//
// The test needs node and the npm package: cd interop/duckdb && npm install.
// Without them it skips, saying so, unless SIFT_REQUIRE_DUCKDB is set (CI
// sets it), when it fails.
func TestDuckDBFiles(t *testing.T) {
	skip := t.Skip
	if os.Getenv("SIFT_REQUIRE_DUCKDB") != "" {
		skip = t.Fatal
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("node is not installed: the DuckDB interop check needs node and `cd interop/duckdb && npm install`")
	}
	if _, err := os.Stat(filepath.Join("duckdb", "node_modules", "@duckdb", "node-api")); err != nil {
		skip("@duckdb/node-api is not installed: run `cd interop/duckdb && npm install` (CI does)")
	}
	groups, probes := 50, 1000
	if testing.Short() {
		groups, probes = 20, 100
	}
	if s := os.Getenv("SIFT_DUCKDB_GROUPS"); s != "" {
		groups, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("SIFT_DUCKDB_PROBES"); s != "" {
		probes, _ = strconv.Atoi(s)
	}
	dir := t.TempDir()
	cmd := exec.Command(node, "probe.mjs", dir, strconv.Itoa(groups), strconv.Itoa(probes))
	cmd.Dir = "duckdb"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node probe.mjs: %v\n%s", err, out)
	}
	t.Logf("%s", bytes.TrimSpace(out))
	var res struct {
		File     string
		Groups   int
		PerGroup int
		DuckDB   string
		Columns  map[string]struct {
			Values   []int64
			Excludes [][]*bool
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "probes.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, res.File))
	if err != nil {
		t.Fatal(err)
	}
	filters, err := ReadFilters(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string][]*sbbf.Filter{}
	for _, f := range filters {
		if f.Err != nil {
			t.Fatalf("row group %d column %s: %v", f.RowGroup, f.Name(), f.Err)
		}
		byName[f.Name()] = append(byName[f.Name()], f.Filter)
	}
	for _, col := range duckColumns {
		fs := byName[col.name]
		if len(fs) != res.Groups {
			t.Fatalf("column %s: %d filters, want one per row group (%d)", col.name, len(fs), res.Groups)
		}
		// Byte for byte, every row group.
		for g, f := range fs {
			own, err := sbbf.NewWithSize(f.NumBytes())
			if err != nil {
				t.Fatal(err)
			}
			for v := int64(g * res.PerGroup); v < int64((g+1)*res.PerGroup); v++ {
				own.AddHash(col.hash(v))
			}
			if !bytes.Equal(own.AppendBitset(nil), f.AppendBitset(nil)) {
				t.Errorf("column %s row group %d: sift's filter of the row group's %d values at %d bytes differs from DuckDB's", col.name, g, res.PerGroup, f.NumBytes())
			}
			own.Close()
		}
		// Answer for answer. DuckDB 1.5.6's parquet_bloom_probe does not
		// consult the filters of UUID columns (it excludes no value, present
		// or not): for fl only its consistency is checked (it never excludes
		// a present value); the byte-for-byte check above covers the
		// writer.
		p := res.Columns[col.name]
		answers, excluded := 0, 0
		for k, v := range p.Values {
			h := col.hash(v)
			for g, ex := range p.Excludes[k] {
				if ex == nil {
					t.Fatalf("column %s value %d: DuckDB gave no answer for row group %d", col.name, v, g)
				}
				if *ex {
					excluded++
				}
				got := fs[g].ContainsHash(h)
				if col.name == "fl" && !*ex {
					continue
				}
				if got == *ex {
					t.Fatalf("column %s value index %d row group %d: sift says present=%v, DuckDB's parquet_bloom_probe excludes=%v", col.name, v, g, got, *ex)
				}
				answers++
			}
		}
		if col.name == "fl" {
			t.Logf("fl: %d filters byte-identical; DuckDB's probe excluded %d of %d (value, row group) pairs (it does not use UUID filters)", len(fs), excluded, len(p.Values)*res.Groups)
			continue
		}
		t.Logf("%s: %d filters byte-identical, %d probes x %d row groups = %d answers agree", col.name, len(fs), len(p.Values), res.Groups, answers)
	}
}

// duckColumns are probe.mjs's columns: the hash of value index v (v = -1 is
// +0.0 in the float columns), by sift's typed hashes.
var duckColumns = []struct {
	name string
	hash func(v int64) uint64
}{
	{"i32", func(v int64) uint64 { return sbbf.HashInt32(int32(v)) }},
	{"i64", func(v int64) uint64 { return sbbf.HashInt64(v * 7) }},
	{"f32", func(v int64) uint64 {
		switch v {
		case -1:
			return sbbf.HashFloat32(0)
		case 0:
			return sbbf.HashFloat32(float32(math.Copysign(0, -1)))
		case 1:
			return sbbf.HashFloat32(float32(math.NaN()))
		}
		return sbbf.HashFloat32(float32(v) + 0.5)
	}},
	{"f64", func(v int64) uint64 {
		switch v {
		case -1:
			return sbbf.HashFloat64(0)
		case 0:
			return sbbf.HashFloat64(math.Copysign(0, -1))
		case 1:
			// DuckDB's NaN, the canonical quiet NaN of Java and C++:
			// Go's math.NaN() has a different payload (...0001), so it is
			// another key.
			return sbbf.HashFloat64(math.Float64frombits(0x7ff8000000000000))
		}
		return sbbf.HashFloat64(float64(v) + 0.25)
	}},
	{"ba", func(v int64) uint64 { return sbbf.HashString("value-" + strconv.FormatInt(v, 10)) }},
	{"fl", func(v int64) uint64 {
		sum := md5.Sum([]byte(strconv.FormatInt(v, 10)))
		return sbbf.Hash(sum[:])
	}},
}
