package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
)

// errReported is returned by a command that has already reported its
// errors on stderr, one line each, and must only exit with status 2.
var errReported = errors.New("errors reported")

// Exit statuses, grep's convention: 0 success (for query: some line
// selected), 1 nothing selected, 2 an error.
const (
	exitOK       = 0
	exitNoMatch  = 1
	exitError    = 2
	exitSignaled = 128 // plus the signal number
)

func main() {
	stopSignals := handleSignals()
	code := run(os.Args[1:], os.Stdin, stdoutFile{os.Stdout}, os.Stderr)
	stopSignals()
	os.Exit(code)
}

// env is what a subcommand works with: its arguments and the standard
// streams. Tests run commands in-process with buffers in place of the files.
type env struct {
	name   string // subcommand name, for messages
	args   []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

type command struct {
	name    string
	summary string
	usage   string // full help text
	run     func(e *env) (int, error)
}

var commands []*command

func init() {
	commands = []*command{buildCmd, mergeCmd, queryCmd, dedupCmd, infoCmd, benchCmd, versionCmd}
}

// run executes one command line and returns the exit status. Every error
// reaches the user as a single line on stderr; a panic (a bug) is reported as
// one line too, with a hint to report it, never as a stack trace unless
// SIFT_DEBUG is set.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			if os.Getenv("SIFT_DEBUG") != "" {
				fmt.Fprintf(stderr, "sift: internal error: %v\n%s", r, debug.Stack())
			} else {
				fmt.Fprintf(stderr, "sift: internal error: %v (a bug: please report it; set SIFT_DEBUG=1 for a stack trace)\n", r)
			}
			code = exitError
		}
	}()
	if len(args) == 0 {
		io.WriteString(stderr, shortUsage)
		return exitError
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		return help(rest, stdout, stderr)
	}
	cmd := lookup(name)
	if cmd == nil {
		fmt.Fprintf(stderr, "sift: unknown command %q (commands: %s; run 'sift help')\n", name, commandNames())
		return exitError
	}
	e := &env{name: cmd.name, args: rest, stdin: stdin, stdout: stdout, stderr: stderr}
	code, err := cmd.run(e)
	if err != nil {
		if errors.Is(err, errHelp) {
			return writeHelp(stdout, stderr, cmd.usage)
		}
		if errors.Is(err, errReported) {
			return exitError
		}
		fmt.Fprintf(stderr, "sift %s: %s\n", cmd.name, oneLine(err))
		if code == exitOK || code == exitNoMatch {
			code = exitError
		}
	}
	return code
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func commandNames() string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

func help(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return writeHelp(stdout, stderr, longUsage())
	}
	cmd := lookup(args[0])
	if args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		cmd = &command{usage: longUsage()}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "sift help: unknown command %q (commands: %s)\n", args[0], commandNames())
		return exitError
	}
	return writeHelp(stdout, stderr, cmd.usage)
}

// writeHelp writes a help text to stdout; a failed write (a full disk) is
// an error, as every other write of stdout is.
func writeHelp(stdout, stderr io.Writer, text string) int {
	if _, err := io.WriteString(stdout, text); err != nil {
		fmt.Fprintf(stderr, "sift: writing the help: %v\n", err)
		return exitError
	}
	return exitOK
}

const shortUsage = "usage: sift <command> [flags] [args] (commands: build, merge, query, dedup, info, bench, version; run 'sift help' for details)\n"

func longUsage() string {
	var b strings.Builder
	b.WriteString(`sift builds, merges, queries, inspects and benchmarks approximate-membership filters.

usage: sift <command> [flags] [args]

commands:
`)
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-8s %s\n", c.name, c.summary)
	}
	b.WriteString(`
Run 'sift help <command>' or 'sift <command> -h' for a command's flags.

Keys are the lines of the input files (or standard input when none is given
or for "-"), without their line terminator ("\n" or "\r\n"), or with -f one
field of each line. Empty keys are skipped by build and never selected by
query; dedup counts the empty key as one key, as awk does.

Exit status: 0 on success (query: some line selected; dedup: some line
printed), 1 when query selected or dedup printed no line, 2 on any error
(one line on stderr). Flags may follow arguments;
"--" ends the flags.
`)
	return b.String()
}

// oneLine renders err as a single line, without the "sift: " prefix the
// library's errors carry (the command prints its own).
func oneLine(err error) string {
	s := libPrefix.ReplaceAllString(err.Error(), "$1")
	s = strings.ReplaceAll(s, "\r", " ")
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ")
}

// libPrefix matches the "sift: " that starts the library's messages, at the
// start or after another message's ": " (never inside "file.sift: ").
var libPrefix = regexp.MustCompile(`(^|: )sift: `)

// Cleanups registered while a command runs (temporary files, a new dedup
// -state file's claim) are run when SIGINT, SIGTERM or SIGHUP arrives, or
// SIGPIPE or a write to standard output whose reader is gone (EPIPE:
// sift dedup | head -1), before the process exits with 128+signal.
// cleanupMu also makes the rename that publishes an output file (publish)
// exclusive with that: a signal either comes first, and the output is
// never renamed, or after, and the command finishes (published).
var (
	cleanupMu sync.Mutex
	cleanups  = map[int]func(){}
	cleanupID int
	published bool // an output file was renamed into place
)

// publish is mem.AtomicOptions.Publish for the commands' output files: it
// renames under cleanupMu, which the signal handler holds from the signal
// to the exit, so a rename after a signal never happens (the process exits
// while it waits), and a signal after a rename finds published set.
func publish(rename func() error) error {
	cleanupMu.Lock()
	defer cleanupMu.Unlock()
	err := rename()
	if err == nil {
		published = true
	}
	return err
}

// interrupted is the signal handler's decision. Before any output file
// was published it runs the cleanups (removing temporary files) and
// returns the exit status 128+signal with cleanupMu still held, so that
// no file is created or renamed until the process exits. After one was
// published (the command's work is in place; only its summary and the
// directory sync are left) it returns exit = false: the command finishes
// and exits with its own status, so that 128+signal always means that no
// output file was replaced.
func interrupted(sig os.Signal) (code int, exit bool) {
	cleanupMu.Lock()
	if published {
		cleanupMu.Unlock()
		return 0, false
	}
	for _, f := range cleanups {
		f()
	}
	code = exitSignaled + 2
	if s, ok := sig.(syscall.Signal); ok {
		code = exitSignaled + int(s)
	}
	return code, true
}

// atInterrupt registers f to run if the process is interrupted, and returns
// a function that unregisters it.
func atInterrupt(f func()) (cancel func()) {
	cleanupMu.Lock()
	defer cleanupMu.Unlock()
	cleanupID++
	id := cleanupID
	cleanups[id] = f
	return func() {
		cleanupMu.Lock()
		delete(cleanups, id)
		cleanupMu.Unlock()
	}
}

// handleSignals runs interrupted on SIGINT, SIGTERM and, where they
// exist, SIGHUP and SIGPIPE (moreSignals), and exits as it says, naming
// the signal on stderr (but SIGPIPE: quietSignal). A SIGHUP or SIGINT the
// process was started with ignored (nohup; a script's background job) is
// left ignored, as the Go runtime leaves it: handling it would end the
// run.
func handleSignals() (stop func()) {
	ch := make(chan os.Signal, 1)
	var sigs []os.Signal
	for _, sig := range append([]os.Signal{os.Interrupt, syscall.SIGTERM}, moreSignals...) {
		if !signal.Ignored(sig) {
			sigs = append(sigs, sig)
		}
	}
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-ch:
				if code, exit := interrupted(sig); exit {
					if !quietSignal(sig) {
						fmt.Fprintf(os.Stderr, "\nsift: %v\n", sig)
					}
					os.Exit(code)
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// stdoutFile is standard output as the commands write to it. A write
// that fails because the reader of the pipe is gone (EPIPE: sift dedup
// -state FILE | head -1) ends the run there, quietly, as the Go runtime's
// SIGPIPE did, but as a signal does (interrupted): the cleanups run (a
// new -state FILE's claim is removed), nothing is saved (a -state FILE
// stays as it was: the lines not printed were never delivered, and
// saving their keys would drop them on the next run), and the exit
// status is 128+SIGPIPE, 141. After an output file was published, the
// error is returned, as any other.
type stdoutFile struct{ f *os.File }

func (w stdoutFile) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		if sig, ok := brokenPipe(err); ok {
			if code, exit := interrupted(sig); exit {
				os.Exit(code)
			}
		}
	}
	return n, err
}

// osFile returns the file w writes to, when it is one: an *os.File, or
// standard output (stdoutFile).
func osFile(w io.Writer) (*os.File, bool) {
	switch f := w.(type) {
	case *os.File:
		return f, true
	case stdoutFile:
		return f.f, true
	}
	return nil, false
}

var versionCmd = &command{
	name:    "version",
	summary: "print the version of sift, Go and the kernel in use",
	usage: `usage: sift version

Prints sift's module version, the Go version it was built with, and the
kernel set the library selected on this CPU (with the reason).
`,
	run: runVersion,
}
