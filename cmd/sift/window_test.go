package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
)

// TestWindowFiles: info describes a windowed filter's file (without a key
// count or a predicted rate, which a window's ageing keys do not have), and
// query answers from it with no false negatives for keys inside the window.
func TestWindowFiles(t *testing.T) {
	dir := t.TempDir()
	w, err := blocked.NewWindow(1000, 0.01, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	var in strings.Builder
	for i := range 500 {
		key := fmt.Sprint("key-", i)
		w.AddString(key)
		in.WriteString(key + "\n")
	}
	path := filepath.Join(dir, "w.sift")
	if err := sift.WriteFile(path, w, 0); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, nil, "info", path)
	for _, want := range []string{"kind:", "window", "4 generations", "window 1h0m0s", "checksum:  ok"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("info lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, bad := range []string{"keys:", "predicted FPR", "-1"} {
		if strings.Contains(r.stdout, bad) {
			t.Errorf("info has %q:\n%s", bad, r.stdout)
		}
	}
	q := mustRun(t, []byte(in.String()), "query", path)
	if q.stdout != in.String() {
		t.Errorf("query printed %d bytes, want every one of the %d keys' lines", len(q.stdout), 500)
	}
}
