//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runSiftTimeout is runSift that kills the command after d, and reports
// whether it had to.
func runSiftTimeout(t *testing.T, d time.Duration, stdin []byte, args ...string) (result, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	r, _ := execSift(t, ctx, stdin, args...)
	return r, ctx.Err() != nil
}

// TestSpecialFilterFiles: info and query refuse a filter FILE that is a
// FIFO or a device at once (they waited forever for a FIFO's writer).
func TestSpecialFilterFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	for _, path := range []string{fifo, os.DevNull} {
		for _, args := range [][]string{
			{"info", path}, {"info", "-guava", path}, {"query", path}, {"query", "-guava", path}, {"query", "-kind", "scalable", path},
		} {
			r, killed := runSiftTimeout(t, 10*time.Second, []byte("alpha\n"), args...)
			if killed {
				t.Errorf("sift %s: still running after 10 s", strings.Join(args, " "))
				continue
			}
			if r.code != exitError || !strings.Contains(r.stderr, "not a regular file") {
				t.Errorf("sift %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.stderr)
			}
			if n := strings.Count(r.stderr, path); n != 1 {
				t.Errorf("sift %s: stderr names the file %d times: %q", strings.Join(args, " "), n, r.stderr)
			}
		}
	}
}

// TestQueryFIFOInput: an input that is a FIFO is read, once, as grep reads
// it (the input check opened and closed it first, which let the writer
// finish writing into nothing and left the real read waiting forever).
func TestQueryFIFOInput(t *testing.T) {
	dir := t.TempDir()
	f := smallFilter(t, dir, "blocked")
	fifo := filepath.Join(dir, "in")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			_, err = w.Write([]byte("alpha\nnope\ngamma\n"))
			w.Close()
		}
		done <- err
	}()
	r, killed := runSiftTimeout(t, 10*time.Second, nil, "query", f, fifo)
	if killed {
		// Let the writer go.
		if rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			rd.Close()
		}
		t.Fatal("query of a FIFO input hung")
	}
	if werr := <-done; werr != nil || r.code != 0 || r.stdout != "alpha\ngamma\n" {
		t.Errorf("query of a FIFO input: exit %d, stdout %q, stderr %q, writer %v", r.code, r.stdout, r.stderr, werr)
	}
}

// TestOutputIsInput: query and dedup refuse, as grep does, an input that
// is the file their standard output appends to (query read back the lines
// it wrote, and the file grew without end), named or as standard input;
// query -c and -q write no lines and may read it.
func TestOutputIsInput(t *testing.T) {
	needBinary(t)
	dir := t.TempDir()
	f := smallFilter(t, dir, "blocked")
	data := filepath.Join(dir, "data.txt")
	for _, c := range []struct {
		args  []string
		stdin bool // the data file is standard input too
		ok    bool
	}{
		{[]string{"query", f, data}, false, false},
		{[]string{"query", "-v", f, data}, false, false},
		{[]string{"query", f}, true, false},
		{[]string{"query", f, "-"}, true, false},
		{[]string{"dedup", "-n", "100", data}, false, false},
		{[]string{"query", "-c", f, data}, false, true},
		{[]string{"query", "-q", f, data}, false, true},
	} {
		if err := os.WriteFile(data, []byte("alpha\nzeta\nalpha\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := os.OpenFile(data, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		argv := append(append([]string{}, siftRunner...), siftBin)
		cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], c.args...)...)
		var stderr strings.Builder
		cmd.Stdout, cmd.Stderr = out, &stderr
		if c.stdin {
			in, err := os.Open(data)
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stdin = in
			defer in.Close()
		}
		err = cmd.Run()
		timedOut := ctx.Err() != nil
		cancel()
		out.Close()
		name := strings.Join(c.args, " ")
		if timedOut {
			t.Errorf("sift %s >> its input: still running after 20 s", name)
			continue
		}
		refused := err != nil && strings.Contains(stderr.String(), "input file is also the output")
		if refused == c.ok {
			t.Errorf("sift %s >> its input: err %v, stderr %q; want refused = %v", name, err, stderr.String(), !c.ok)
		}
		if st, err := os.Stat(data); err != nil {
			t.Errorf("sift %s >> its input: %v", name, err)
		} else if st.Size() > 100 {
			t.Errorf("sift %s >> its input: the file grew to %d bytes", name, st.Size())
		}
	}
}

// TestInfoMemory: info holds one copy of a filter at a time. It read the
// file to verify it and then opened it with the kind's reader while the
// first copy was held, needing twice the file's size (and refusing, for
// memory, a file query could read).
func TestInfoMemory(t *testing.T) {
	if slowBinary() || runtime.GOOS != "linux" {
		t.Skip("peak memory of the command itself, measured natively on Linux")
	}
	needBinary(t)
	dir := t.TempDir()
	f := filepath.Join(dir, "big.sift")
	const blocks = 1 << 20 // 64 MiB
	mustRun(t, []byte("alpha\nbeta\n"), "build", "-q", "-blocks", fmt.Sprint(blocks), "-k", "7", "-o", f)
	// The peak is measured by a fresh copy of this test binary, which
	// starts sift: a child's ru_maxrss counts what its process held
	// before exec, which, started from this process, is this process's
	// memory (os/exec shares it until the exec).
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), peakRSSEnv+"="+siftBin+"\ninfo\n"+f)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sift info: %v\n%s", err, out)
	}
	var kib int64
	if _, err := fmt.Sscan(string(out), &kib); err != nil {
		t.Fatalf("peak: %q", out)
	}
	t.Logf("sift info of a %d MiB filter: peak RSS %d MiB", blocks*64>>20, kib>>10)
	if limit := int64(blocks*64) * 3 / 2; kib<<10 > limit {
		t.Errorf("sift info of a %d MiB filter peaked at %d MiB, more than 1.5 copies", blocks*64>>20, kib>>10)
	}
}

// peakRSSEnv names the command, one argument a line, that a copy of the
// test binary started with it runs, printing the command's peak RSS in
// KiB instead of testing (see TestInfoMemory).
const peakRSSEnv = "SIFT_TEST_PEAK_RSS_OF"

func init() {
	line := os.Getenv(peakRSSEnv)
	if line == "" {
		return
	}
	argv := strings.Split(line, "\n")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		os.Exit(1)
	}
	fmt.Println(ru.Maxrss)
	os.Exit(0)
}
