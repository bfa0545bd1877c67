package blocked

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestInlining builds the package with -gcflags=-m and fails if a hot
// single-key method stops inlining (a compiler upgrade or an innocent edit
// can push it over the budget, costing a call per key).
//
// ContainsHash and AddHash inline, and inline kernel.BlockedContains1 and
// kernel.BlockedAdd1 into themselves: one call per key, into the AVX2
// assembly on amd64 and into the unrolled Go probe elsewhere (the test
// checks that too); so does View.ContainsHash. ContainsUint64 and AddUint64 cannot themselves be
// inlined: hash.Uint64 (cost 51) plus the kernel call exceed the
// compiler's budget of 80. The test checks instead that hash.Uint64 and
// ContainsHash/AddHash are inlined into them, so each also costs exactly
// one call.
func TestInlining(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the compiler")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goBin, "build", "-gcflags=-m", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	text := string(out)
	for _, fn := range []string{
		"(*Filter).ContainsHash", "(*Filter).AddHash",
		"(*Concurrent).ContainsHash", "(*Concurrent).AddHash",
		"(*View).ContainsHash",
	} {
		if !regexp.MustCompile(`(?m)can inline ` + regexp.QuoteMeta(fn) + `( |$)`).MatchString(text) {
			t.Errorf("%s is no longer inlinable", fn)
		}
	}
	// Inside the methods: lines reporting "inlining call to" (for the
	// kernel calls in ContainsHash and AddHash, the line of the call).
	for _, tc := range []struct{ method, callee, at string }{
		{"ContainsUint64", "hash.Uint64", ""}, {"ContainsUint64", "(*Filter).ContainsHash", ""},
		{"AddUint64", "hash.Uint64", ""}, {"AddUint64", "(*Filter).AddHash", ""},
		{"ContainsUint64", "kernel.BlockedContains1", ""}, {"AddUint64", "kernel.BlockedAdd1", ""},
		{"ContainsHash", "kernel.BlockedContains1", "kernel.BlockedContains1("},
		{"AddHash", "kernel.BlockedAdd1", "kernel.BlockedAdd1("},
	} {
		line := methodLine(t, "filter.go", "func (f *Filter) "+tc.method+"(")
		if tc.at != "" {
			line = lineAfter(t, "filter.go", line, tc.at)
		}
		if !strings.Contains(text, "filter.go:"+line+":") || !regexp.MustCompile(`filter\.go:`+line+`:\d+: inlining call to `+regexp.QuoteMeta(tc.callee)).MatchString(text) {
			t.Errorf("(*Filter).%s does not inline %s", tc.method, tc.callee)
		}
	}
}

// methodLine returns the line number of the line of file starting with
// prefix.
func methodLine(t *testing.T, file, prefix string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, prefix) {
			return strconv.Itoa(i + 1)
		}
	}
	t.Fatalf("%s: no line starting %q", file, prefix)
	return ""
}

// lineAfter returns the number of the first line of file after line from
// that contains s.
func lineAfter(t *testing.T, file, from, s string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	start, _ := strconv.Atoi(from)
	lines := strings.Split(string(data), "\n")
	for i := start; i < len(lines); i++ {
		if strings.Contains(lines[i], s) {
			return strconv.Itoa(i + 1)
		}
	}
	t.Fatalf("%s: no line after %s containing %q", file, from, s)
	return ""
}
