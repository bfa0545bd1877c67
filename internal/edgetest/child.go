package edgetest

// A child process is the test binary re-running one test with an argument
// in its environment, for what could end the process (a fatal error in the
// Go runtime, a resource limit), so that the parent reports it as a
// failure instead of dying with the child.

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// envVar carries the child's argument; emulatedVar is set in a child run
// through an emulator.
const (
	envVar      = "SIFT_TEST_CHILD"
	emulatedVar = "SIFT_TEST_CHILD_EMULATED"
)

// Arg returns the argument this process was started with as a child, or ""
// in the parent.
func Arg() string { return os.Getenv(envVar) }

// Emulated reports whether this child runs under a user-mode emulator,
// where resource limits apply to the emulator rather than to the program.
func Emulated() bool { return os.Getenv(emulatedVar) != "" }

// Run runs test (a test function's name) of the current test binary in a
// child process with argument arg, and returns its combined output and
// exit error. Under an emulator without binfmt_misc (go test -exec
// qemu-aarch64-static), where the binary cannot be executed directly, it
// runs the child through qemu-<arch>-static when that is installed.
func Run(test, arg string) ([]byte, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{"-test.run=^" + test + "$", "-test.v"}
	out, err := run(exe, args, envVar+"="+arg)
	if errors.Is(err, syscall.ENOEXEC) {
		qemu, lerr := exec.LookPath("qemu-" + qemuArch() + "-static")
		if lerr != nil {
			return out, err
		}
		out, err = run(qemu, append([]string{exe}, args...), envVar+"="+arg, emulatedVar+"=1")
	}
	return out, err
}

func run(name string, args []string, env ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	return cmd.CombinedOutput()
}

func qemuArch() string {
	switch runtime.GOARCH {
	case "arm64":
		return "aarch64"
	case "amd64":
		return "x86_64"
	case "386":
		return "i386"
	}
	return runtime.GOARCH
}
