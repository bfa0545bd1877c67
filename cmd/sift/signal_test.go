//go:build unix

package main

import (
	"bytes"
	"errors"
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
