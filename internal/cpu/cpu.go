// Package cpu detects the CPU features sift's kernels need, once, and says
// which kernel sets this CPU can run and which CPU it is (its Key: vendor,
// family, model).
//
// The kernel sets are AVX-512 (F, BW, DQ, VL, with the OS saving the ZMM
// and opmask state) and AVX2 with BMI2 and POPCNT on amd64, ASIMD (NEON)
// on arm64, and the portable Go kernels everywhere. By default the choice
// among them is made per operation by internal/kernel's table, keyed by
// Current (Selected returns Auto). The environment variable SIFT_KERNEL (case and
// surrounding spaces ignored) overrides it for every operation at once:
// "generic" forces the Go kernels (for tests and bisection), "avx2",
// "avx512" or "neon" that set wherever it has a kernel of the operation
// (internal/kernel's kernelFor names the few it has not, which run the
// set sift version shows), "auto" the table; naming a kernel the CPU
// lacks, or an unknown name, falls back to generic, says why in Reason and
// sets Fallback, never crashing on an older CPU.
package cpu

import (
	"fmt"
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
	// Auto is not a kernel set: it selects internal/kernel's
	// per-operation table (the default wherever an assembly set runs).
	Auto = "auto"
)

// EnvVar is the environment variable that overrides the kernel choice.
const EnvVar = "SIFT_KERNEL"

var (
	// HasAVX2 reports AVX2, BMI2 and POPCNT support on amd64 (the avx2
	// kernels need the first two, the avx512 ones all three; every CPU
	// with AVX2 has POPCNT, but cpuid does not imply it).
	HasAVX2 = runtime.GOARCH == "amd64" && cpuid.CPU.Supports(cpuid.AVX2, cpuid.BMI2, cpuid.POPCNT)
	// HasAVX512 reports what the avx512 kernels need on amd64: AVX-512 F,
	// BW, DQ and VL (cpuid reports them only when the OS saves the ZMM and
	// opmask state) besides HasAVX2's AVX2, BMI2 and POPCNT, which they
	// also use.
	HasAVX512 = HasAVX2 && cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512BW, cpuid.AVX512DQ, cpuid.AVX512VL)
	// HasNEON reports ASIMD support on arm64 (architecturally always present).
	HasNEON = runtime.GOARCH == "arm64" && (cpuid.CPU.Supports(cpuid.ASIMD) || runtime.GOOS != "android")

	selected, reason, fallback = choose(os.Getenv(EnvVar), AsmBuilt)
)

// Fallback reports whether SIFT_KERNEL named a set this CPU or build
// lacks, or an unknown one, so that Selected is generic by fallback (not
// by choice).
func Fallback() bool { return fallback }

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

// choose returns the set SIFT_KERNEL's value env selects, why, and
// whether it is generic by fallback: env named a set this CPU or build
// lacks, or an unknown one.
func choose(env string, asm bool) (name, why string, fallback bool) {
	best := Available()[0]
	env = strings.ToLower(strings.TrimSpace(env))
	switch {
	case env == "" || env == Auto:
		if best == Generic {
			if !asm {
				return Generic, "generic: built without assembly (purego tag, or no kernels for " + runtime.GOARCH + ")", false
			}
			return Generic, "generic: CPU lacks the features of the assembly kernels", false
		}
		why := "auto: per-operation table for " + Current().String() + ", sets " + strings.Join(Available(), " ") + " detected by cpuid"
		if env == Auto {
			why += ", requested by " + EnvVar
		}
		return Auto, why, false
	case env == Generic:
		return Generic, "generic: forced by " + EnvVar, false
	}
	for _, k := range Available() {
		if k == env {
			return k, k + ": requested by " + EnvVar, false
		}
	}
	return Generic, "generic: " + EnvVar + "=" + env + " is unknown or not supported by this CPU/build; using the portable kernels", true
}

// Selected returns the kernel set chosen at start-up for every operation,
// or Auto when internal/kernel's table chooses per operation.
func Selected() string { return selected }

// Key identifies a CPU model for internal/kernel's dispatch table: the
// vendor as cpuid names it ("Intel", "AMD", "ARM"...) and the family and
// model numbers (display family and model, decimal, as /proc/cpuinfo
// prints them). A zero Family means unknown.
type Key struct {
	Vendor        string
	Family, Model int
}

// String returns "Intel family 6 model 167".
func (k Key) String() string {
	return fmt.Sprintf("%s family %d model %d", k.Vendor, k.Family, k.Model)
}

// Current returns the Key of the CPU this process runs on.
func Current() Key {
	return Key{Vendor: cpuid.CPU.VendorID.String(), Family: cpuid.CPU.Family, Model: cpuid.CPU.Model}
}

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
