//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/classic"
	"github.com/sift-go/sift/internal/mem"
)

// siftTemps returns the names of the temporary files of writers of any
// target in dir.
func siftTemps(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".sift-tmp-") {
			names = append(names, e.Name())
		}
	}
	return names
}

// TestKillBuild SIGKILLs sift build -o at random moments (40 times; 10
// with -short), from before it has read its input to after it renamed its
// file. After every kill the target is a complete filter, the old one or
// the new one (sift info passes), and at most one temporary file exists
// (the killed run's: each run removes the leftovers of dead runs before
// it writes); after a run that completes, none.
func TestKillBuild(t *testing.T) {
	needBinary(t)
	kills := 40
	if testing.Short() {
		kills = 10
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "f.sift")
	inputs := [2]string{
		writeFile(t, dir, "a.txt", keyLines("a", 200_000)),
		writeFile(t, dir, "b.txt", keyLines("b", 200_000)),
	}
	args := func(i int) []string { return []string{"build", "-n", "2000000", "-q", "-o", target, inputs[i%2]} }
	start := time.Now()
	mustRun(t, nil, args(0)...)
	full := time.Since(start) // how long a whole run takes here
	rng := rand.New(rand.NewPCG(1, 2))
	outcomes := map[string]int{}
	for i := 1; i <= kills; i++ {
		argv := append(append([]string{}, siftRunner...), append([]string{siftBin}, args(i)...)...)
		cmd := exec.Command(argv[0], argv[1:]...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Int64N(int64(full))))
		_ = cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
			outcomes["finished"]++
		case errors.As(err, &ee) && ee.ProcessState.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL:
			outcomes["killed"]++
		default:
			t.Fatalf("run %d: %v", i, err)
		}
		if r := runSift(t, nil, "info", target); r.code != 0 {
			t.Fatalf("after kill %d the target is not a complete filter: exit %d, %s", i, r.code, r.stderr)
		}
		if left := siftTemps(t, dir); len(left) > 1 {
			t.Fatalf("after kill %d: %d temporary files: %v", i, len(left), left)
		}
	}
	mustRun(t, nil, args(0)...)
	if left := siftTemps(t, dir); len(left) != 0 {
		t.Fatalf("after a complete run: temporary files %v", left)
	}
	t.Logf("%d runs of %v: %v", kills, full.Round(time.Millisecond), outcomes)
}

// TestReadersOfAChangingFile runs sift info, query and merge over and over
// while another goroutine rewrites their filter file in place, as cp does
// (truncate, then write in chunks), and truncates it. Every run ends with
// exit 0 (it read a complete file), 1 (query: no key found) or 2 with one
// line naming the file: never a fault. (With the file mapped, as before,
// a run whose file shrank under it died with SIGBUS, "fatal error: fault",
// and a stack dump.)
func TestReadersOfAChangingFile(t *testing.T) {
	needBinary(t)
	runs := 40
	if testing.Short() || slowBinary() {
		runs = 10
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	f, err := blocked.NewWithSize(64<<20, 7) // 8 MiB
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		f.AddString(fmt.Sprintf("k-%d", i))
	}
	enc, _ := f.MarshalBinary()
	if err := os.WriteFile(path, enc, 0o644); err != nil {
		t.Fatal(err)
	}
	queries := keyLines("k", 1000)
	merged := filepath.Join(t.TempDir(), "merged.sift")

	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; ctx.Err() == nil; n++ {
			w, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				return
			}
			for off := 0; off < len(enc) && ctx.Err() == nil; off += 256 << 10 {
				w.Write(enc[off:min(off+256<<10, len(enc))])
			}
			w.Close()
			if n%3 == 2 {
				os.Truncate(path, int64(len(enc)/2))
			}
			time.Sleep(time.Duration(n%4) * 40 * time.Millisecond) // sometimes complete for a while
		}
	}()
	codes := map[int]int{}
	messages := map[string]bool{}
	for i := range runs {
		var r result
		switch i % 3 {
		case 0:
			r = runSift(t, nil, "info", path)
		case 1:
			r = runSift(t, queries, "query", "-c", path)
		case 2:
			r = runSift(t, nil, "merge", "-q", "-o", merged, path, path)
		}
		codes[r.code]++
		switch r.code {
		case 0, 1:
		case exitError:
			if !strings.Contains(r.stderr, path) {
				t.Errorf("exit 2 without naming the file: %s", r.stderr)
			}
			if len(messages) < 4 {
				messages[strings.TrimSpace(r.stderr)] = true
			}
		default:
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
		if r.code == 0 && i%3 == 1 && strings.TrimSpace(r.stdout) != "1000" {
			t.Errorf("query of a complete file counted %s of 1000 keys", r.stdout)
		}
	}
	stop()
	wg.Wait()
	t.Logf("%d runs, exit statuses %v; errors such as:", runs, codes)
	for m := range messages {
		t.Log(m)
	}
}

// TestENOSPC fills a small file system (the directory named by
// SIFT_TEST_ENOSPC_DIR, a 3 MiB tmpfs that .ci/run mounts as root; skipped
// without it): sift build -o, sift merge -o and sift.WriteFile each fail
// with "no space left on device", exit 2 for the commands, the old target
// intact and no temporary file left.
func TestENOSPC(t *testing.T) {
	dir := os.Getenv("SIFT_TEST_ENOSPC_DIR")
	if dir == "" {
		t.Skip("SIFT_TEST_ENOSPC_DIR names no small file system (.ci/run mounts one)")
	}
	needBinary(t)
	// Inputs live elsewhere; only the targets are on the small file system.
	in := t.TempDir()
	keys := writeFile(t, in, "keys.txt", keyLines("k", 1000))
	shard := filepath.Join(in, "shard.sift")
	mustRun(t, nil, "build", "-n", "1000000", "-q", "-o", shard, keys) // 1.2 MiB
	target := filepath.Join(dir, "f.sift")
	mustRun(t, nil, "build", "-n", "1000", "-q", "-o", target, keys) // small: fits
	old, _ := os.ReadFile(target)
	// Fill what is left but a little, so every bigger write fails.
	filler := filepath.Join(dir, "filler")
	if err := fill(filler, 64<<10); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(filler)
	check := func(what string, err error) {
		t.Helper()
		if got, _ := os.ReadFile(target); !bytes.Equal(got, old) {
			t.Errorf("%s: the old target changed", what)
		}
		if left := siftTemps(t, dir); len(left) != 0 {
			t.Errorf("%s: temporary files left: %v", what, left)
		}
		if err != nil && !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%s: %v, want ENOSPC", what, err)
		}
	}
	r := runSift(t, nil, "build", "-n", "1000000", "-q", "-o", target, keys)
	wantError(t, r, "no space left on device", target)
	check("sift build -o", nil)
	t.Log(strings.TrimSpace(r.stderr))
	r = runSift(t, nil, "merge", "-o", target, shard, shard)
	wantError(t, r, "no space left on device", target)
	check("sift merge -o", nil)
	t.Log(strings.TrimSpace(r.stderr))
	big, _ := blocked.New(1_000_000, 0.01)
	err := sift.WriteFile(target, big, 1)
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Errorf("sift.WriteFile: %v", err)
	}
	check("sift.WriteFile", err)
	t.Log(err)
	if n := mem.RemoveStale(target); n != 0 {
		t.Errorf("%d stale temporary files", n)
	}
}

// fill writes zeros to path until the file system is full, then frees
// keep bytes of it.
func fill(path string, keep int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	var n int64
	for {
		m, err := f.Write(buf)
		n += int64(m)
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			return err
		}
	}
	return f.Truncate(max(0, n-keep))
}

// TestReadFilterFileChanged writes a Guava stream of other keys over the
// file (same size, in place, as cp or dd conv=notrunc do) after
// readFilterFile opened it and before it decodes it, as a writer racing a
// query does: the read must end with the file reported as changed, not
// with a filter. A Guava stream has no checksum, so before the check
// after decoding such a read gave a filter, and wrong answers with exit
// status 0.
func TestReadFilterFileChanged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.guava")
	streams := make([][]byte, 2)
	for i := range streams {
		f, err := classic.New(1000, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		f.PutString(fmt.Sprint("key-", i))
		var b bytes.Buffer
		if _, err := f.WriteGuava(&b); err != nil {
			t.Fatal(err)
		}
		streams[i] = b.Bytes()
	}
	if len(streams[0]) != len(streams[1]) {
		t.Fatalf("streams of %d and %d bytes: the test wants one size", len(streams[0]), len(streams[1]))
	}
	if err := os.WriteFile(path, streams[0], 0o644); err != nil {
		t.Fatal(err)
	}
	err := readFilterFile(path, func(r io.Reader) error {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(streams[1]); err != nil {
			t.Fatal(err)
		}
		w.Close()
		// A timestamp the write cannot share with the open's fstat,
		// whatever the file system's clock granularity.
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(path, later, later); err != nil {
			t.Fatal(err)
		}
		_, err = classic.ReadGuava(r)
		return err
	})
	if !errors.Is(err, mem.ErrChanged) {
		t.Fatalf("a file written over while read: err = %v, want one wrapping mem.ErrChanged", err)
	}
	msg := filterErr(path, err).Error()
	if !strings.Contains(msg, path) || !strings.Contains(msg, "changed while it was read") || !strings.Contains(msg, "run again") {
		t.Errorf("message %q: want the path, what happened and what to do", msg)
	}
	// Unchanged since: the same read succeeds.
	if err := readFilterFile(path, func(r io.Reader) error { _, err := classic.ReadGuava(r); return err }); err != nil {
		t.Errorf("the file at rest: %v", err)
	}
}
