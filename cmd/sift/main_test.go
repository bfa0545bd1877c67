package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// The tests run the real command: TestMain builds it once into a temporary
// directory (with -race and -tags purego when the tests themselves use
// them) and the tests execute it on temporary files.
var (
	siftBin    string   // the built command
	siftRunner []string // a prefix such as qemu-aarch64-static, or nil
	buildErr   error    // why the command could not be built
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sift-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	buildErr = buildBinary(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func buildBinary(dir string) error {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("no go command to build sift with: %w", err)
	}
	siftBin = filepath.Join(dir, "sift")
	if runtime.GOOS == "windows" {
		siftBin += ".exe"
	}
	args := []string{"build", "-o", siftBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	if puregoEnabled {
		args = append(args, "-tags", "purego")
	}
	cmd := exec.Command(goTool, append(args, ".")...)
	cmd.Env = os.Environ()
	// Under an emulator (go test -exec qemu-aarch64-static) the command is
	// built for the tested architecture and run through the same emulator,
	// when it is installed; otherwise it is built for the host.
	hostArch, _ := exec.Command(goTool, "env", "GOHOSTARCH").Output()
	if host := strings.TrimSpace(string(hostArch)); host != "" && host != runtime.GOARCH && !(host == "amd64" && runtime.GOARCH == "386") {
		if qemu, err := exec.LookPath("qemu-" + qemuArch(runtime.GOARCH) + "-static"); err == nil {
			siftRunner = []string{qemu}
			cmd.Env = append(cmd.Env, "GOARCH="+runtime.GOARCH)
		} else {
			cmd.Env = append(cmd.Env, "GOARCH="+host)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

func qemuArch(goarch string) string {
	switch goarch {
	case "arm64":
		return "aarch64"
	case "386":
		return "i386"
	case "amd64":
		return "x86_64"
	}
	return goarch
}

var buildErrShown atomic.Bool

// slowBinary reports whether the command runs several times slower than
// natively (race detector, emulator): -short tests then use less data.
func slowBinary() bool { return raceEnabled || len(siftRunner) > 0 }

// needBinary fails the test when the command did not build, printing the
// compiler's output once rather than in every test.
func needBinary(t testing.TB) {
	t.Helper()
	if buildErr == nil {
		return
	}
	if buildErrShown.CompareAndSwap(false, true) {
		t.Fatalf("building sift: %v", buildErr)
	}
	t.Fatal("sift did not build (see the first failure)")
}

// result is what one run of the command produced.
type result struct {
	stdout, stderr string
	code           int
}

// sift runs the command with args, stdin as standard input (nil for none),
// and checks what must hold for every run: no Go panic or stack trace, and
// an error (exit 2) reported on stderr in one line per error, each naming
// the command (query reports each unreadable input as it goes, as grep
// does).
func runSift(t testing.TB, stdin []byte, args ...string) result {
	t.Helper()
	r, err := execSift(t, context.Background(), stdin, args...)
	if err != nil {
		t.Fatalf("sift %s: %v", strings.Join(args, " "), err)
	}
	for _, bad := range []string{"panic", "goroutine ", "runtime error", "internal error"} {
		if strings.Contains(r.stderr, bad) {
			t.Errorf("sift %s: stderr has %q:\n%s", strings.Join(args, " "), bad, r.stderr)
		}
	}
	if r.code == exitError {
		lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
		for _, l := range lines {
			if !strings.Contains(l, "sift") || !strings.Contains(l, ": ") {
				t.Errorf("sift %s: exit 2 with a stderr line that is not one error message: %q\n%s", strings.Join(args, " "), l, r.stderr)
			}
		}
		if r.stderr == "" || len(lines) > 1 && args[0] != "query" {
			t.Errorf("sift %s: exit 2 with %d lines on stderr, want one:\n%s", strings.Join(args, " "), len(lines), r.stderr)
		}
	}
	return r
}

// execSift runs the command with args and stdin (nil for none) until it
// exits or ctx is done. Its error is one that kept the command from
// running or from finishing (not an exit status, which is in the result).
func execSift(t testing.TB, ctx context.Context, stdin []byte, args ...string) (result, error) {
	t.Helper()
	needBinary(t)
	argv := append(append([]string{}, siftRunner...), siftBin)
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], args...)...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ctx.Err() == nil {
		r.code, err = ee.ExitCode(), nil
	}
	return r, err
}

// mustRun runs sift and fails the test unless it exits 0.
func mustRun(t testing.TB, stdin []byte, args ...string) result {
	t.Helper()
	r := runSift(t, stdin, args...)
	if r.code != 0 {
		t.Fatalf("sift %s: exit %d\nstderr: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r
}

// wantError checks that a run failed with exit status 2 and a message
// containing each of substrs.
func wantError(t testing.TB, r result, substrs ...string) {
	t.Helper()
	if r.code != exitError {
		t.Errorf("exit %d, want 2; stderr: %s", r.code, r.stderr)
	}
	for _, s := range substrs {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr %q does not mention %q", strings.TrimSpace(r.stderr), s)
		}
	}
}

// keyLines returns n lines "prefix-i\n".
func keyLines(prefix string, n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "%s-%d\n", prefix, i)
	}
	return b.Bytes()
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
