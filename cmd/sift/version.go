package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/sift-go/sift/internal/cpu"
	"github.com/sift-go/sift/internal/kernel"
)

func runVersion(e *env) (int, error) {
	fs := newFlagSet("version")
	args, err := parseFlags(fs, e.args)
	if err != nil {
		return exitError, err
	}
	if len(args) > 0 {
		return exitError, fmt.Errorf("unexpected argument %q", args[0])
	}
	version := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	fmt.Fprintf(e.stdout, "sift %s, %s %s/%s\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(e.stdout, "kernel %s (%s)\n", kernel.Impl(), cpu.Reason())
	return exitOK, nil
}
