// Package cpu detects the CPU features sift's kernels need, once, and decides
// which kernel set runs.
//
// The choice is made at start-up: AVX-512 (F, BW, DQ, VL, with the OS
// saving the ZMM and opmask state) then AVX2 with BMI2 on amd64, ASIMD
// (NEON) on arm64, the portable Go kernels otherwise. The environment variable
// SIFT_KERNEL overrides it: "generic" forces the Go kernels (for tests and
// bisection); naming a kernel the CPU lacks, or an unknown name, falls back to
// generic and says why in Reason, never crashing on an older CPU.
package cpu

import (
	"os"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// Kernel set names, as accepted by SIFT_KERNEL.
const (
	Generic = "generic"
	AVX2    = "avx2"
	AVX512  = "avx512"
	NEON    = "neon"
)

// EnvVar is the environment variable that overrides the kernel choice.
const EnvVar = "SIFT_KERNEL"

var (
	// HasAVX2 reports AVX2 and BMI2 support on amd64 (both are required
	// by the avx2 kernels).
	HasAVX2 = runtime.GOARCH == "amd64" && cpuid.CPU.Supports(cpuid.AVX2, cpuid.BMI2)
	// HasAVX512 reports what the avx512 kernels need on amd64: AVX-512 F,
	// BW, DQ and VL (cpuid reports them only when the OS saves the ZMM and
	// opmask state) besides AVX2 and BMI2, which they also use.
	HasAVX512 = HasAVX2 && cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512BW, cpuid.AVX512DQ, cpuid.AVX512VL)
	// HasNEON reports ASIMD support on arm64 (architecturally always present).
	HasNEON = runtime.GOARCH == "arm64" && (cpuid.CPU.Supports(cpuid.ASIMD) || runtime.GOOS != "android")

	selected, reason = choose(os.Getenv(EnvVar), AsmBuilt)
)

// Available returns the kernel sets this CPU and build can run, best first;
// "generic" is always last.
func Available() []string {
	var out []string
	if AsmBuilt && HasAVX512 {
		out = append(out, AVX512)
	}
	if AsmBuilt && HasAVX2 {
		out = append(out, AVX2)
	}
	if AsmBuilt && HasNEON {
		out = append(out, NEON)
	}
	return append(out, Generic)
}

// Built returns the kernel sets this build contains for its architecture,
// whether or not the CPU can run them, best first; "generic" is always
// last. Tests and CI compare it with Available to say which kernels a run
// could not exercise.
func Built() []string {
	var out []string
	if AsmBuilt {
		switch runtime.GOARCH {
		case "amd64":
			out = append(out, AVX512, AVX2)
		case "arm64":
			out = append(out, NEON)
		}
	}
	return append(out, Generic)
}

func choose(env string, asm bool) (name, why string) {
	best := Available()[0]
	env = strings.ToLower(strings.TrimSpace(env))
	switch {
	case env == "":
		if best == Generic {
			if !asm {
				return Generic, "generic: built without assembly (purego tag, or no kernels for " + runtime.GOARCH + ")"
			}
			return Generic, "generic: CPU lacks the features of the assembly kernels"
		}
		return best, best + ": detected by cpuid"
	case env == Generic:
		return Generic, "generic: forced by " + EnvVar
	}
	for _, k := range Available() {
		if k == env {
			return k, k + ": requested by " + EnvVar
		}
	}
	return Generic, "generic: " + EnvVar + "=" + env + " is unknown or not supported by this CPU/build; using the portable kernels"
}

// Selected returns the kernel set chosen at start-up.
func Selected() string { return selected }

// Reason says why Selected was chosen, in one line fit for logs and `sift bench`.
func Reason() string { return reason }

// Name returns the CPU's brand string, for reports.
func Name() string {
	if s := strings.TrimSpace(cpuid.CPU.BrandName); s != "" {
		return s
	}
	return runtime.GOARCH
}

// Features returns the CPU features that matter to sift, for reports.
func Features() []string {
	var f []string
	for _, c := range []struct {
		id   cpuid.FeatureID
		name string
	}{
		{cpuid.AVX2, "avx2"}, {cpuid.BMI2, "bmi2"},
		{cpuid.AVX512F, "avx512f"}, {cpuid.AVX512BW, "avx512bw"}, {cpuid.AVX512DQ, "avx512dq"}, {cpuid.AVX512VL, "avx512vl"},
		{cpuid.ASIMD, "asimd"},
	} {
		if cpuid.CPU.Supports(c.id) {
			f = append(f, c.name)
		}
	}
	return f
}
