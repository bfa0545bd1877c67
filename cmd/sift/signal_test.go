//go:build unix

package main

import (
	"bufio"
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

// siftCmd returns the command that runs sift with args; with ignore, it
// is started through sh with those signals ignored (as nohup, or the
// shell's trap with an empty action, ignores them).
func siftCmd(ignore string, args ...string) *exec.Cmd {
	argv := append(append(append([]string{}, siftRunner...), siftBin), args...)
	if ignore != "" {
		argv = append([]string{"sh", "-c", "trap '' " + ignore + `; exec "$@"`, "sh"}, argv...)
	}
	return exec.Command(argv[0], argv[1:]...)
}

// exitStatus returns the exit status of a command that ended with err,
// or -1 when a signal killed it.
func exitStatus(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if err == nil {
		return 0
	}
	if !errors.As(err, &ee) {
		t.Fatalf("%v", err)
	}
	return ee.ExitCode()
}

// checkStatesKept reports, as what, a new -state FILE newState left
// behind (and removes it) and an existing one, old, changed from oldBytes
// (and puts them back), so that the next case starts as this one did.
func checkStatesKept(t *testing.T, what, newState, old string, oldBytes []byte) {
	t.Helper()
	if _, err := os.Lstat(newState); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s: the new -state file was left behind (%v)", what, err)
		os.Remove(newState)
	}
	if !bytes.Equal(mustRead(t, old), oldBytes) {
		t.Errorf("%s: the -state file was changed", what)
		os.WriteFile(old, oldBytes, 0o644)
	}
}

// TestClosedOutput: a run whose standard output is a pipe with no reader
// (sift dedup -state FILE big | head -1) ends quietly with exit status
// 141 (128+SIGPIPE), also when started with SIGPIPE ignored, after the
// cleanups a signal runs: a new -state FILE is not left behind (the
// runtime's SIGPIPE killed the process without them, leaving the new
// FILE's empty claim, which the next run without -n refused), and an
// existing one is left as it was, without the keys of the lines that were
// never delivered.
func TestClosedOutput(t *testing.T) {
	needBinary(t)
	dir := t.TempDir()
	input := writeFile(t, dir, "in.txt", keyLines("k", 100_000)) // beyond the output's buffer
	f := filepath.Join(dir, "f.sift")
	mustRun(t, []byte("k-1\n"), "build", "-n", "100", "-o", f)
	old := filepath.Join(dir, "old.sift")
	mustRun(t, []byte("k-1\n"), "dedup", "-n", "200000", "-state", old)
	oldBytes := mustRead(t, old)
	newState := filepath.Join(dir, "new.sift")
	for _, ignore := range []string{"", "PIPE"} {
		for _, args := range [][]string{
			{"dedup", "-n", "200000", "-state", newState, input},
			{"dedup", "-state", old, input},
			{"dedup", "-n", "200000", "-window", "1h", "-state", newState, input},
			{"dedup", "-n", "200000", input},
			{"query", f, input},
			{"info", f},
			{"help"},
			{"version"},
			{"dedup", "-n", "1e6", "-h"},
		} {
			name := strings.Join(args, " ")
			if ignore != "" {
				name += " (SIGPIPE ignored)"
			}
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			pr.Close() // no reader
			cmd := siftCmd(ignore, args...)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = pw, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pw.Close()
			if code := exitStatus(t, cmd.Wait()); code != 128+int(syscall.SIGPIPE) || stderr.Len() != 0 {
				t.Errorf("sift %s | (closed): exit %d, stderr %q; want %d and nothing", name, code, stderr.String(), 128+int(syscall.SIGPIPE))
			}
			checkStatesKept(t, "sift "+name+" | (closed)", newState, old, oldBytes)
		}
	}
	if left := siftTemps(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestDedupStateHangup: SIGHUP ends a dedup -state run as SIGINT and
// SIGTERM do: exit 129, one line naming it, a new -state FILE removed and
// an existing one left as it was (the runtime's SIGHUP killed the process
// without the cleanups, leaving the new FILE's empty claim). Started with
// SIGHUP ignored (nohup), the run ignores it and saves at its end, and so
// with SIGINT ignored (a script's background job), as the Go runtime
// leaves them.
func TestDedupStateHangup(t *testing.T) {
	needBinary(t)
	dir := t.TempDir()
	old := filepath.Join(dir, "old.sift")
	mustRun(t, []byte("a\n"), "dedup", "-n", "100", "-state", old)
	oldBytes := mustRead(t, old)
	newState := filepath.Join(dir, "new.sift")
	for _, c := range []struct {
		args   []string
		ignore string // the signal, ignored from the start
	}{
		{[]string{"dedup", "-n", "100", "-state", newState}, ""},
		{[]string{"dedup", "-state", old}, ""},
		{[]string{"dedup", "-n", "100", "-window", "1h", "-state", newState}, ""},
		{[]string{"dedup", "-n", "100", "-state", newState}, "HUP"},
		{[]string{"dedup", "-n", "100", "-state", newState}, "INT"},
	} {
		name := strings.Join(c.args, " ")
		cmd := siftCmd(c.ignore, c.args...)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		out := bufio.NewReader(stdout)
		// A line printed: the run is under way, its key added.
		line := func(key string) {
			t.Helper()
			stdin.Write([]byte(key + "\n"))
			if got, err := out.ReadString('\n'); got != key+"\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("sift %s: read %q, %v; want %q", name, got, err, key)
			}
		}
		line("b")
		if c.ignore != "" {
			sig := map[string]syscall.Signal{"HUP": syscall.SIGHUP, "INT": syscall.SIGINT}[c.ignore]
			cmd.Process.Signal(sig)
			time.Sleep(100 * time.Millisecond)
			line("c") // still running
			stdin.Close()
			io.Copy(io.Discard, out)
			if code := exitStatus(t, cmd.Wait()); code != 0 || stderr.Len() != 0 {
				t.Errorf("sift %s with SIG%s ignored, after SIG%[2]s: exit %d, stderr %q; want 0 and nothing", name, c.ignore, code, stderr.String())
			}
			if r := runSift(t, []byte("b\nc\nd\n"), "dedup", "-state", newState); r.stdout != "d\n" {
				t.Errorf("sift %s with SIG%s ignored: the state saved does not hold b and c: %q, %s", name, c.ignore, r.stdout, r.stderr)
			}
			os.Remove(newState)
			continue
		}
		cmd.Process.Signal(syscall.SIGHUP)
		io.Copy(io.Discard, out)
		code := exitStatus(t, cmd.Wait())
		stdin.Close()
		if msg := stderr.String(); code != 128+int(syscall.SIGHUP) || msg != "\nsift: hangup\n" {
			t.Errorf("sift %s after SIGHUP: exit %d, stderr %q; want %d and the signal named", name, code, msg, 128+int(syscall.SIGHUP))
		}
		checkStatesKept(t, "sift "+name+" after SIGHUP", newState, old, oldBytes)
	}
}
