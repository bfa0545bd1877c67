package kernel_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The two x86 mistakes that cost most and that no functional test sees: a
// RET without VZEROUPPER after touching YMM registers (every later SSE
// instruction in the process pays a state transition: ~180 ns/key instead of
// ~5) and a legacy-SSE encoding inside VEX code (e.g. MOVQ AX, X0). This test
// scans the amd64 assembly for both, and for a third that would crash only
// on some machines: a function that requires an ISA its dispatch does not
// check (AVX-512 outside the functions named *AVX512, or a jump into one
// of those without comparing an operation's kernel set with setAVX512).

var (
	reWideVec = regexp.MustCompile(`\b[YZ]([0-9]|[12][0-9]|3[01])\b`)
	reXMM     = regexp.MustCompile(`\bX([0-9]|[12][0-9]|3[01])\b`)
)

type asmFunc struct {
	name     string
	requires []string // ISAs of the "// Requires:" comment before it
	lines    []asmLine
}

// dispatchedISAs are the features a CPU that passes internal/cpu's HasAVX2
// check (AVX2, BMI2, POPCNT) is guaranteed to have: those it checks, what
// they imply (AVX2: AVX; BMI2 comes with BMI), and the amd64 baseline
// (CMOV, SSE with its MMX+ subset, whose PREFETCHT0 the kernels use, and
// SSE2); a kernel requiring anything else needs a dispatcher change first.
var dispatchedISAs = map[string]bool{
	"AVX": true, "AVX2": true, "BMI": true, "BMI2": true, "POPCNT": true,
	"CMOV": true, "MMX+": true, "SSE": true, "SSE2": true,
}

// dispatchedAVX512 adds what internal/cpu's HasAVX512 checks (F, BW, DQ,
// VL, besides HasAVX2's): the ISAs a function whose name ends in AVX512
// may require. Only those functions may use them, and every other
// function that jumps to one must first compare its own operation's kernel
// set (·<name without AVX2>Set, impl.go) with setAVX512 (2).
var dispatchedAVX512 = map[string]bool{"AVX512F": true, "AVX512BW": true, "AVX512DQ": true, "AVX512VL": true}

// dispatchedOwn are ISAs that only the named functions (by prefix) may
// require, because their own dispatcher checks them: the cuckoo insert
// kernels' AVX512CD (cuckooInsertKernel in cuckoo_amd64.go).
var dispatchedOwn = map[string]string{"AVX512CD": "·cuckooInsert"}

// reJumpAVX512 matches a tail jump into an AVX-512 function, reTestAVX512
// the operands of a CMPB of an operation's set with setAVX512.
var (
	reJumpAVX512 = regexp.MustCompile(`^·\w+AVX512(\+0)?\(SB\)$`)
	reTestAVX512 = regexp.MustCompile(`^·\w+Set(\+0)?\(SB\), \$(0x02|2)$`)
)

type asmLine struct {
	n        int // line number
	mnemonic string
	operands string
}

// parseAsm splits Go assembly into functions and their instructions.
func parseAsm(src string) []asmFunc {
	var funcs []asmFunc
	var requires []string
	for i, raw := range strings.Split(src, "\n") {
		line := strings.TrimSpace(raw)
		if isas, ok := strings.CutPrefix(line, "// Requires:"); ok {
			for _, isa := range strings.Split(isas, ",") {
				requires = append(requires, strings.TrimSpace(isa))
			}
		}
		if j := strings.Index(line, "//"); j >= 0 {
			line = strings.TrimSpace(line[:j])
		}
		if line == "" || strings.HasPrefix(line, "#") || strings.HasSuffix(line, ":") {
			continue
		}
		mnemonic, operands, _ := strings.Cut(line, " ")
		if mnemonic == "TEXT" {
			name, _, _ := strings.Cut(operands, "(")
			funcs = append(funcs, asmFunc{name: strings.TrimSpace(name), requires: requires})
			requires = nil
			continue
		}
		if mnemonic == "DATA" || mnemonic == "GLOBL" || len(funcs) == 0 {
			continue
		}
		f := &funcs[len(funcs)-1]
		f.lines = append(f.lines, asmLine{n: i + 1, mnemonic: mnemonic, operands: operands})
	}
	return funcs
}

// asmProblems returns the VZEROUPPER and legacy-SSE problems of src.
func asmProblems(src string) []string {
	var probs []string
	for _, f := range parseAsm(src) {
		wide, vex := false, false
		for _, l := range f.lines {
			wide = wide || reWideVec.MatchString(l.operands)
			vex = vex || strings.HasPrefix(l.mnemonic, "V")
		}
		if vex && len(f.requires) == 0 {
			probs = append(probs, f.name+": VEX code without a // Requires: line")
		}
		avx512 := strings.HasSuffix(f.name, "AVX512")
		for _, isa := range f.requires {
			switch {
			case dispatchedISAs[isa]:
			case avx512 && dispatchedAVX512[isa]:
			case avx512 && dispatchedOwn[isa] != "" && strings.Contains(f.name, dispatchedOwn[isa]):
			case avx512:
				probs = append(probs, f.name+": requires "+isa+", which the avx512 dispatch does not check")
			default:
				probs = append(probs, f.name+": requires "+isa+", which the avx2 dispatch does not check")
			}
		}
		prev, tested := "", false
		for _, l := range f.lines {
			// The set compared must be the function's own operation's:
			// blockedContains1AVX2 reads ·blockedContains1Set.
			own := "·" + strings.TrimSuffix(f.name[strings.LastIndex(f.name, "·")+len("·"):], "AVX2") + "Set"
			ops := strings.TrimSpace(l.operands)
			if l.mnemonic == "CMPB" && reTestAVX512.MatchString(ops) && (strings.HasPrefix(ops, own+"+") || strings.HasPrefix(ops, own+"(")) {
				tested = true
			}
			if l.mnemonic == "JMP" && reJumpAVX512.MatchString(strings.TrimSpace(l.operands)) && !avx512 && !tested {
				probs = append(probs, f.name+": jumps to "+strings.TrimSpace(l.operands)+" without comparing its set ("+own+") with setAVX512 first, at line "+strconv.Itoa(l.n))
			}
			if l.mnemonic == "RET" && wide && prev != "VZEROUPPER" {
				probs = append(probs, f.name+": RET without VZEROUPPER at line "+strconv.Itoa(l.n))
			}
			if vex && !strings.HasPrefix(l.mnemonic, "V") && reXMM.MatchString(l.operands) {
				probs = append(probs, f.name+": legacy-SSE "+l.mnemonic+" in VEX code at line "+strconv.Itoa(l.n))
			}
			prev = l.mnemonic
		}
	}
	return probs
}

func TestAsmVZEROUPPERAndSSE(t *testing.T) {
	files, err := filepath.Glob("*_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no *_amd64.s files found")
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(parseAsm(string(src))) == 0 {
			t.Errorf("%s: no functions found", name)
		}
		for _, p := range asmProblems(string(src)) {
			t.Errorf("%s: %s", name, p)
		}
	}
}

// TestAsmCheckerCatches proves the scanner fails on the mistakes it is for.
func TestAsmCheckerCatches(t *testing.T) {
	const good = `
// Requires: AVX, AVX2
TEXT ·f(SB), NOSPLIT, $0-8
	VPXOR Y0, Y0, Y0
	MOVQ AX, BX
	JEQ done
	VZEROUPPER
	RET
done:
	VZEROUPPER
	RET

TEXT ·g(SB), NOSPLIT, $0-8
	MOVQ AX, X0
	RET

// Requires: AVX, AVX2, AVX512BW, AVX512DQ, AVX512F, AVX512VL, BMI2
TEXT ·hAVX512(SB), NOSPLIT, $0-8
	VMOVDQU64 (AX), Z1
	KORTESTB  K1, K1
	VZEROUPPER
	RET

// Requires: AVX, AVX2
TEXT ·hAVX2(SB), NOSPLIT, $0-8
	CMPB ·hSet+0(SB), $0x02
	JNE  h_avx2
	JMP  ·hAVX512(SB)
h_avx2:
	VPXOR Y0, Y0, Y0
	VZEROUPPER
	RET
`
	if p := asmProblems(good); len(p) != 0 {
		t.Fatalf("clean code reported: %v", p)
	}
	bad := map[string]string{
		"RET without VZEROUPPER": `
// Requires: AVX2
TEXT ·f(SB), NOSPLIT, $0-8
	VPXOR Y0, Y0, Y0
	VZEROUPPER
	RET
early:
	RET
`,
		"legacy-SSE MOVQ": `
// Requires: AVX2
TEXT ·f(SB), NOSPLIT, $0-8
	MOVQ AX, X1
	VPBROADCASTQ X1, Y1
	VZEROUPPER
	RET
`,
		"legacy-SSE PXOR": `
// Requires: AVX
TEXT ·f(SB), NOSPLIT, $0-8
	VMOVDQU (AX), X2
	PXOR X2, X2 // comment
	RET
`,
		"requires AVX512F": `
// Requires: AVX2, AVX512F
TEXT ·f(SB), NOSPLIT, $0-8
	VMOVDQU64 (AX), Z1
	VZEROUPPER
	RET
`,
		"which the avx512 dispatch does not check": `
// Requires: AVX2, AVX512F, AVX512VBMI
TEXT ·fAVX512(SB), NOSPLIT, $0-8
	VPERMB (AX), Z1, Z2
	VZEROUPPER
	RET
`,
		"without comparing its set (·fSet) with setAVX512": `
// Requires: AVX, AVX2
TEXT ·fAVX2(SB), NOSPLIT, $0-8
	CMPB ·fSet(SB), $0x00
	JEQ  done
	JMP  ·fAVX512(SB)
done:
	RET
`,
		"·fAVX512(SB) without comparing its set (·fSet)": `
// Requires: AVX, AVX2
TEXT ·fAVX2(SB), NOSPLIT, $0-8
	CMPB ·gSet+0(SB), $0x02
	JNE  done
	JMP  ·fAVX512(SB)
done:
	RET
`,
		"without a // Requires": `
TEXT ·f(SB), NOSPLIT, $0-8
	VMOVDQU (AX), X2
	RET
`,
	}
	for want, src := range bad {
		p := asmProblems(src)
		if len(p) == 0 || !strings.Contains(strings.Join(p, "\n"), want) {
			t.Errorf("%q: got %v, want a problem containing %q", src, p, want)
		}
	}
}
