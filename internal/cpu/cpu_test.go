package cpu

import (
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestChoose(t *testing.T) {
	best := Available()[0]
	if best != Generic {
		best = Auto
	}
	// A set is a fallback to generic only where SIFT_KERNEL named another
	// set (or something unknown).
	cases := []struct {
		env, want, reason string
		fallback          bool
	}{
		{"", best, "", false},
		{" AUTO ", best, "", false},
		{"generic", Generic, "forced", false},
		{" GENERIC ", Generic, "forced", false},
		{" Generic\n", Generic, "forced", false},
		{"auto", best, "", false},
		{"sse9", Generic, "unknown or not supported", true},
		{"avx2", map[bool]string{true: AVX2, false: Generic}[AsmBuilt && HasAVX2], "", !(AsmBuilt && HasAVX2)},
		{"AVX512", map[bool]string{true: AVX512, false: Generic}[AsmBuilt && HasAVX512], "", !(AsmBuilt && HasAVX512)},
		{"neon", map[bool]string{true: NEON, false: Generic}[AsmBuilt && HasNEON], "", !(AsmBuilt && HasNEON)},
	}
	for _, c := range cases {
		got, why, fellBack := choose(c.env, AsmBuilt)
		if got != c.want {
			t.Errorf("choose(%q) = %q (%s), want %q", c.env, got, why, c.want)
		}
		if !strings.HasPrefix(why, got+":") || !strings.Contains(why, c.reason) {
			t.Errorf("choose(%q) reason %q", c.env, why)
		}
		if fellBack != c.fallback {
			t.Errorf("choose(%q) fallback %v, want %v", c.env, fellBack, c.fallback)
		}
	}
}

func TestAvailable(t *testing.T) {
	a := Available()
	b := Built()
	for _, k := range a {
		if !slices.Contains(b, k) {
			t.Fatalf("available kernel %q is not built: Built() = %v", k, b)
		}
	}
	if b[len(b)-1] != Generic {
		t.Fatalf("Built() = %v: generic must be last", b)
	}
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
	if HasAVX512 && !HasAVX2 {
		t.Fatal("AVX-512 reported without AVX2: the avx512 kernels use AVX2 and BMI2 too")
	}
	if AsmBuilt && HasAVX512 && (a[0] != AVX512 || a[1] != AVX2) {
		t.Fatalf("AVX-512 CPU with asm: Available() = %v, want avx512, avx2 first", a)
	}
	t.Logf("cpu %q (%s) features %v; selected %s", Name(), Current(), Features(), Reason())
}
