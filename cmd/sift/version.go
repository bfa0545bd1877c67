package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

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
	var b strings.Builder
	fmt.Fprintf(&b, "sift %s, %s %s/%s\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "kernel %s (%s)\n", kernel.Impl(), cpu.Reason())
	printKernelChoices(&b, "  ")
	if _, err := io.WriteString(e.stdout, b.String()); err != nil {
		return exitError, err
	}
	return exitOK, nil
}

// printKernelChoices writes the CPU's table key and, per operation, the
// kernel set it runs and why, one line each after indent.
func printKernelChoices(w io.Writer, indent string) {
	fmt.Fprintf(w, "%scpu %s (%s)\n", indent, cpu.Current(), cpu.Name())
	width := 0
	for op := range kernel.NumOps {
		width = max(width, len(op.String()))
	}
	for op := range kernel.NumOps {
		set, why := kernel.Choice(op)
		fmt.Fprintf(w, "%s%-*s %-7s %s\n", indent, width, op, set, why)
	}
}
