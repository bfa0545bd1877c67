package main

import (
	"strings"
	"testing"
)

// The sift-cpu line names the vendor, family and model beside the brand
// string, which on a VM ("AMD EPYC") covers many generations; the results
// files keep the brand string's name.
func TestCPUInfo(t *testing.T) {
	const zen5 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\nmodel name\t: AMD EPYC\nstepping\t: 1\n\n" +
		"processor\t: 1\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 207\nmodel name\t: other\n"
	for _, c := range []struct{ cpuinfo, name, desc string }{
		{zen5, "AMD EPYC", "AMD EPYC (family 26 model 2)"},
		{"vendor_id : AuthenticAMD\ncpu family : 26\nmodel : 2\nmodel name : Oxide Virtual Turin-like Processor\n",
			"Oxide Virtual Turin-like Processor", "Oxide Virtual Turin-like Processor (AMD family 26 model 2)"},
		{"vendor_id : GenuineIntel\ncpu family : 6\nmodel : 207\nmodel name : INTEL(R) XEON(R) PLATINUM 8581C CPU @ 2.30GHz\n",
			"INTEL(R) XEON(R) PLATINUM 8581C CPU @ 2.30GHz", "INTEL(R) XEON(R) PLATINUM 8581C CPU @ 2.30GHz (family 6 model 207)"},
		{"vendor_id : HygonGenuine\ncpu family : 24\nmodel : 1\n", "", "HygonGenuine family 24 model 1"},
		{"processor : 0\nBogoMIPS : 50.00\nCPU implementer : 0x41\nCPU part : 0xd0c\n", "", ""}, // arm64
		{"model name : Some CPU\n", "Some CPU", "Some CPU"},
	} {
		name, desc := cpuInfo(c.cpuinfo)
		if name != c.name || desc != c.desc {
			t.Errorf("cpuInfo(%q) = %q, %q; want %q, %q", c.cpuinfo, name, desc, c.name, c.desc)
		}
	}
	if s := slugify("AMD EPYC"); s != "amd-epyc" {
		t.Errorf("slug %q", s)
	}
}

// The report's machine table and title show the recorded CPU with its
// family and model.
func TestMachineTableCPU(t *testing.T) {
	ran := machine{CPU: "AMD EPYC (family 26 model 2)", Cores: 2, Memory: "24 GB", Kernel: "linux 6.18", GoVersion: "go1.26.8 linux/amd64"}
	body := "BenchmarkContains/n=1e5/fpp=0.01/filter=sift-blocked/keys=present/mode=loop-2 100 1 ns/op 10 bits/key 0.01 fpr 2 cpu-ns/key\n"
	raw := strings.Join(ran.headerLines(), "\n") + "\ncpu: AMD EPYC\n" + body
	r := reportOf(t, raw, machine{CPU: "host"})
	var b strings.Builder
	r.writeMachine(&b)
	if got := lineWith(b.String(), "| CPU |"); got != "| CPU | AMD EPYC (family 26 model 2) (2 logical cores) |" {
		t.Errorf("CPU row %q", got)
	}
}
