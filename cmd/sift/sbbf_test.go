package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sift-go/sift/sbbf"
)

// TestBuildSBBF: -kind sbbf writes, in sift's format, the Parquet
// split-block filter a library user would build from the same lines as
// BYTE_ARRAY values (so a Parquet writer's filter of that size), and info
// and query read it.
func TestBuildSBBF(t *testing.T) {
	dir := t.TempDir()
	var keys bytes.Buffer
	const n = 5000
	for i := range n {
		fmt.Fprintf(&keys, "sku-%d\n", i)
	}
	in := writeFile(t, dir, "keys.txt", keys.Bytes())
	out := filepath.Join(dir, "k.sift")
	mustRun(t, nil, "build", "-kind", "sbbf", "-fpp", "0.001", "-o", out, in)

	want, err := sbbf.New(n, 0.001)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		want.AddString(fmt.Sprintf("sku-%d", i))
	}
	wantBytes, _ := want.MarshalBinary()
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, wantBytes) {
		t.Fatal("sift build -kind sbbf differs from sbbf.New with AddString of the same lines")
	}

	info := mustRun(t, nil, "info", "-kind", "sbbf", out)
	for _, s := range []string{"kind:           sbbf", "hash:           xxh64, seed 0x0", "Parquet split-block", "checksum:       ok"} {
		if !strings.Contains(info.stdout, s) {
			t.Errorf("info lacks %q:\n%s", s, info.stdout)
		}
	}
	q := mustRun(t, []byte("sku-17\nnot-a-sku\nsku-4999\n"), "query", out)
	if !strings.Contains(q.stdout, "sku-17\n") || !strings.Contains(q.stdout, "sku-4999\n") {
		t.Errorf("query lost a key: %q", q.stdout)
	}
	if r := runSift(t, nil, "build", "-kind", "sbbf", "-seed", "7", "-o", out, in); r.code != 2 || !strings.Contains(r.stderr, "-seed does not apply") {
		t.Errorf("-kind sbbf -seed 7: exit %d, %s", r.code, r.stderr)
	}
	if r := runSift(t, nil, "query", "-kind", "blocked", out); r.code != 2 {
		t.Errorf("query -kind blocked of an sbbf file: exit %d", r.code)
	}
}
