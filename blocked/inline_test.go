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
// ContainsHash and AddHash inline and call the unrolled probe (probe.go):
// one call per key. ContainsUint64 and AddUint64 cannot themselves be
// inlined: hash.Uint64 (cost 51) plus that call exceed the compiler's budget
// of 80. The test checks instead that hash.Uint64 and ContainsHash/AddHash
// are inlined into them, so each also costs exactly one call.
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
	// Inside ContainsUint64/AddUint64: lines reporting "inlining call to".
	for _, tc := range []struct{ method, callee string }{
		{"ContainsUint64", "hash.Uint64"}, {"ContainsUint64", "(*Filter).ContainsHash"},
		{"AddUint64", "hash.Uint64"}, {"AddUint64", "(*Filter).AddHash"},
	} {
		line := methodLine(t, "filter.go", "func (f *Filter) "+tc.method)
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
