package cpu

import (
	"runtime"
	"strings"
	"testing"
)

func TestChoose(t *testing.T) {
	best := Available()[0]
	cases := []struct {
		env, want, reason string
	}{
		{"", best, ""},
		{"generic", Generic, "forced"},
		{" GENERIC ", Generic, "forced"},
		{"sse9", Generic, "unknown or not supported"},
		{"avx2", map[bool]string{true: AVX2, false: Generic}[AsmBuilt && HasAVX2], ""},
		{"neon", map[bool]string{true: NEON, false: Generic}[AsmBuilt && HasNEON], ""},
	}
	for _, c := range cases {
		got, why := choose(c.env, AsmBuilt)
		if got != c.want {
			t.Errorf("choose(%q) = %q (%s), want %q", c.env, got, why, c.want)
		}
		if !strings.HasPrefix(why, got+":") || !strings.Contains(why, c.reason) {
			t.Errorf("choose(%q) reason %q", c.env, why)
		}
	}
}

func TestAvailable(t *testing.T) {
	a := Available()
	if a[len(a)-1] != Generic {
		t.Fatalf("Available() = %v: generic must be last", a)
	}
	if !AsmBuilt && len(a) != 1 {
		t.Fatalf("no asm built but Available() = %v", a)
	}
	if runtime.GOARCH == "arm64" && AsmBuilt && a[0] != NEON {
		t.Fatalf("arm64 with asm: Available() = %v, want neon first", a)
	}
	if HasAVX2 && HasNEON {
		t.Fatal("AVX2 and NEON both reported")
	}
	t.Logf("cpu %q features %v; selected %s", Name(), Features(), Reason())
}
