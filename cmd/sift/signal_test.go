//go:build unix

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterrupt stops a build that is reading a pipe: it must exit at once
// with 128+SIGTERM, say so in one line, and leave no output file.
func TestInterrupt(t *testing.T) {
	needBinary(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "f.sift")
	argv := append(append([]string{}, siftRunner...), siftBin, "build", "-n", "100", "-o", out)
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Write([]byte("a\nb\n"))
	time.Sleep(300 * time.Millisecond) // let it start reading (and install its handler)
	cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	stdin.Close()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("build after SIGTERM: %v", err)
	}
	if code := ee.ExitCode(); code != 128+int(syscall.SIGTERM) && code != -1 {
		t.Errorf("exit status %d, want %d", code, 128+int(syscall.SIGTERM))
	}
	if msg := strings.TrimSpace(stderr.String()); strings.Contains(msg, "goroutine") || strings.Count(msg, "\n") > 0 {
		t.Errorf("stderr after SIGTERM: %q", stderr.String())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("files left after SIGTERM: %v", entries)
	}
}

// TestInterruptRenameExclusive: the signal handler's decision (interrupted)
// and the rename that publishes an output file (publish) exclude each
// other. A signal before the rename removes the temporary file and holds
// the rename back until the process exits, so FILE keeps its old bytes; a
// signal after it lets the command finish (no exit), so that 128+signal
// always means FILE was not replaced.
func TestInterruptRenameExclusive(t *testing.T) {
	published = false // in-process builds of other tests published theirs
	defer func() { published = false }()
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A signal while the file is being written.
	signaled := make(chan int)
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := writeAtomic(path, func(w io.Writer) (int64, error) {
			code, exit := interrupted(syscall.SIGTERM)
			if !exit {
				code = -1
			}
			signaled <- code
			<-release
			n, err := w.Write([]byte("new"))
			return int64(n), err
		})
		done <- err
	}()
	if code := <-signaled; code != 128+int(syscall.SIGTERM) {
		t.Fatalf("a signal before the rename: exit status %d, want %d", code, 128+int(syscall.SIGTERM))
	}
	// The handler holds cleanupMu, as for a process about to exit: a
	// failure below must not leave it held for the tests after this one.
	held := true
	t.Cleanup(func() {
		if held {
			cleanupMu.Unlock()
		}
	})
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".f.sift.sift-tmp-*")); len(tmp) != 0 {
		t.Errorf("the signal left the temporary file %v", tmp)
	}
	close(release)
	select {
	case err := <-done:
		t.Fatalf("the rename went ahead while the handler held the lock: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("FILE after a signal before the rename: %q", b)
	}
	held = false
	cleanupMu.Unlock() // the process would have exited: let the writer see its temp file gone
	if err := <-done; err == nil {
		t.Error("the write succeeded after the signal removed its temporary file")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("FILE after an interrupted write: %q", b)
	}
	if published {
		t.Error("published set by a rename that did not happen")
	}

	// A signal after the rename: no exit.
	if _, err := writeAtomic(path, func(w io.Writer) (int64, error) {
		n, err := w.Write([]byte("new"))
		return int64(n), err
	}); err != nil {
		t.Fatal(err)
	}
	if _, exit := interrupted(syscall.SIGINT); exit {
		t.Error("a signal after the rename would exit with 128+signal although FILE was replaced")
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Fatalf("FILE after the write: %q", b)
	}
}

// TestBadOutput: an -o FILE the final write would fail on is refused
// before any input is read (stdin here is a pipe that never ends), naming
// the problem: a directory that does not exist, a directory, a device,
// "-" (standard output); merge the same.
func TestBadOutput(t *testing.T) {
	needBinary(t)
	dir := t.TempDir()
	shard := filepath.Join(dir, "s.sift")
	mustRun(t, []byte("a\n"), "build", "-n", "10", "-o", shard)
	for _, c := range []struct{ out, want string }{
		{filepath.Join(dir, "nodir", "f.sift"), "no such file or directory"},
		{dir, "a directory"},
		{"/dev/null", "not a regular file"},
		{"-", "not to standard output"},
	} {
		for _, args := range [][]string{{"build", "-n", "10", "-o", c.out}, {"merge", "-o", c.out, shard}} {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			argv := append(append(append([]string{}, siftRunner...), siftBin), args...)
			cmd := exec.Command(argv[0], argv[1:]...)
			var stderr bytes.Buffer
			cmd.Stdin, cmd.Stderr = pr, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("sift %s: still running: it waited for input before checking -o", strings.Join(args, " "))
			}
			pw.Close()
			pr.Close()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitError || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("sift %s: %v, stderr %q; want exit 2 saying %q", strings.Join(args, " "), err, stderr.String(), c.want)
			}
		}
	}
}
