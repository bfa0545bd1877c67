package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// machine describes where the benchmarks ran.
type machine struct {
	// CPU is the model name with the vendor, family and model the
	// brand string may not say ("AMD EPYC (family 26 model 2)"); CPUName
	// is the model name alone, which names the results files (not
	// recorded in the raw output: -from keeps the raw file's name).
	CPU, CPUName                                string
	Caches, Memory, Kernel, GoVersion, THP, Git string
	Cores                                       int
	Date                                        string
	LoadStart, LoadEnd                          string
	Elapsed                                     string // from a -from file
	// Peers maps each adapter's package to its module version, as the
	// bench module resolved it for the run (nil: not known, resolve now).
	Peers map[string]string
	// NotRecorded is set by restore for raw output that predates the
	// sift-cpu header lines: then CPU is go test's own cpu line (or
	// empty), the other fields describing the machine are empty, and
	// RedrawnOn describes the host that redraws the report.
	NotRecorded bool
	RedrawnOn   string
}

// The machine's header lines in the raw output (benchfmt "key: value"),
// written at run time so that -from describes the machine that ran the
// benchmarks, not the one that redraws the report.
const (
	hdrCPU    = "sift-cpu"
	hdrCores  = "sift-cores"
	hdrCaches = "sift-caches"
	hdrMemory = "sift-mem"
	hdrOS     = "sift-os"
	hdrTHP    = "sift-thp"
	hdrGo     = "sift-go"
	hdrPeers  = "sift-peers"
)

// headerLines returns the lines that describe m in the raw output: the
// run's date, commit and load (restored by -from since the raw output
// first had them) and the machine itself.
func (m machine) headerLines() []string {
	return []string{
		hdrCPU + ": " + m.CPU,
		hdrCores + ": " + strconv.Itoa(m.Cores),
		hdrCaches + ": " + m.Caches,
		hdrMemory + ": " + m.Memory,
		hdrOS + ": " + m.Kernel,
		hdrTHP + ": " + m.THP,
		hdrGo + ": " + m.GoVersion,
		hdrPeers + ": " + encodePeers(m.Peers),
	}
}

// encodePeers writes package=version pairs, sorted, separated by "; ".
func encodePeers(p map[string]string) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + p[k]
	}
	return strings.Join(parts, "; ")
}

func decodePeers(s string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(s, "; ") {
		if k, v, ok := strings.Cut(part, "="); ok && k != "" {
			out[k] = v
		}
	}
	return out
}

// restore replaces what m says with what the raw output recorded (for
// -from): the run's date, commit, load and duration, and, where the raw
// output has the sift-cpu lines, the machine. Raw output without them
// (written before they existed) keeps go test's cpu line as the CPU,
// leaves the rest empty and marks the machine as not recorded, with the
// host that redraws the report in RedrawnOn.
func (m *machine) restore(h header) {
	for key, dst := range map[string]*string{
		"sift-date": &m.Date, "sift-git": &m.Git,
		"sift-load-start": &m.LoadStart, "sift-load-end": &m.LoadEnd, "sift-elapsed": &m.Elapsed,
	} {
		if v := h[key]; v != "" {
			*dst = v
		}
	}
	if _, ok := h[hdrCPU]; ok {
		cores, _ := strconv.Atoi(h[hdrCores])
		*m = machine{
			CPU: h[hdrCPU], Cores: cores, Caches: h[hdrCaches], Memory: h[hdrMemory],
			Kernel: h[hdrOS], THP: h[hdrTHP], GoVersion: h[hdrGo], Peers: decodePeers(h[hdrPeers]),
			Git: m.Git, Date: m.Date, LoadStart: m.LoadStart, LoadEnd: m.LoadEnd, Elapsed: m.Elapsed,
		}
		return
	}
	host := m.describe()
	*m = machine{
		CPU:         h["cpu"],
		NotRecorded: true,
		RedrawnOn:   host,
		Git:         m.Git, Date: m.Date, LoadStart: m.LoadStart, LoadEnd: m.LoadEnd, Elapsed: m.Elapsed,
	}
	if goos, goarch := h["goos"], h["goarch"]; goos != "" && goarch != "" {
		m.Kernel = goos + "/" + goarch
	}
}

// describe is m on one line: CPU, cores, caches, memory, OS, THP and Go.
func (m machine) describe() string {
	parts := []string{fmt.Sprintf("%s (%d logical cores)", m.CPU, m.Cores)}
	for _, p := range []struct{ label, v string }{
		{"caches", m.Caches}, {"memory", m.Memory}, {"OS", m.Kernel}, {"THP", m.THP}, {"Go", m.GoVersion},
	} {
		if p.v != "" {
			parts = append(parts, p.label+" "+p.v)
		}
	}
	return strings.Join(parts, ", ")
}

func probeMachine() machine {
	m := machine{
		Cores:     runtime.NumCPU(),
		GoVersion: strings.TrimSpace(cmdOutput("go", "env", "GOVERSION")) + " " + runtime.GOOS + "/" + runtime.GOARCH,
		Date:      time.Now().UTC().Format("2006-01-02 15:04 UTC"),
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPUName, m.CPU = cpuInfo(string(b))
	}
	if m.CPU == "" {
		m.CPU = runtime.GOARCH
	}
	if m.CPUName == "" {
		m.CPUName = m.CPU
	}
	m.Caches = caches()
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if line, _, ok := strings.Cut(string(b), "\n"); ok {
			m.Memory = strings.Join(strings.Fields(strings.TrimPrefix(line, "MemTotal:")), " ")
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = runtime.GOOS + " " + strings.TrimSpace(string(b))
	} else {
		m.Kernel = runtime.GOOS
	}
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err == nil {
		m.THP = strings.TrimSpace(string(b))
	}
	rev := strings.TrimSpace(cmdOutput("git", "rev-parse", "--short", "HEAD"))
	if rev != "" {
		if strings.TrimSpace(cmdOutput("git", "status", "--porcelain", "--", "..")) != "" {
			rev += " with uncommitted changes"
		}
		m.Git = rev
	}
	return m
}

// cpuInfo reads the first processor of /proc/cpuinfo (Linux, x86): its
// model name, and the model name with the vendor, family and model (the
// decimal "cpu family" and "model" fields) after it: "AMD EPYC (family
// 26 model 2)". A brand string such as a VM's "AMD EPYC" can cover many
// generations; the family and model say which. The vendor is named in the
// parentheses when the model name does not name it ("Oxide Virtual
// Turin-like Processor (AMD family 26 model 2)"). Without a family and
// model (arm64's cpuinfo has neither, nor a model name) desc is the model
// name alone, or empty.
func cpuInfo(cpuinfo string) (name, desc string) {
	f := map[string]string{}
	for _, line := range strings.Split(cpuinfo, "\n") {
		if strings.TrimSpace(line) == "" {
			if len(f) > 0 {
				break // the end of the first processor's block
			}
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			if k = strings.TrimSpace(k); f[k] == "" {
				f[k] = strings.TrimSpace(v)
			}
		}
	}
	name = f["model name"]
	vendor := f["vendor_id"]
	switch vendor {
	case "AuthenticAMD":
		vendor = "AMD"
	case "GenuineIntel":
		vendor = "Intel"
	}
	family, model := f["cpu family"], f["model"]
	if family == "" || model == "" {
		return name, name
	}
	id := "family " + family + " model " + model
	if vendor != "" && !strings.Contains(strings.ToLower(name), strings.ToLower(vendor)) {
		id = vendor + " " + id
	}
	if name == "" {
		return name, id
	}
	return name, name + " (" + id + ")"
}

// caches lists the CPU's cache sizes from sysfs (Linux).
func caches() string {
	dirs, _ := filepath.Glob("/sys/devices/system/cpu/cpu0/cache/index*")
	var parts []string
	for _, d := range dirs {
		level := readTrim(filepath.Join(d, "level"))
		typ := readTrim(filepath.Join(d, "type"))
		size := readTrim(filepath.Join(d, "size"))
		if level == "" || size == "" || typ == "Instruction" {
			continue
		}
		parts = append(parts, "L"+level+" "+size)
	}
	return strings.Join(parts, ", ")
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func loadAverage() string {
	f := strings.Fields(readTrim("/proc/loadavg"))
	if len(f) < 3 {
		return "n/a"
	}
	return strings.Join(f[:3], " ")
}

func cmdOutput(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return ""
	}
	return string(out)
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slugify turns a CPU model into a file name stem: "AMD EPYC 7B13
// 64-Core Processor" -> "amd-epyc-7b13-64-core-processor".
func slugify(s string) string {
	s = strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if s == "" {
		return "unknown-cpu"
	}
	return s
}

// moduleVersions maps each package's module path to its version, as the
// bench module resolves it ("(this tree)" for sift itself, replaced).
func moduleVersions(pkgs []string) map[string]string {
	out := map[string]string{}
	args := append([]string{"list", "-f", "{{.ImportPath}} {{with .Module}}{{.Path}} {{.Version}}{{with .Replace}} replaced{{end}}{{end}}"}, pkgs...)
	for _, line := range strings.Split(cmdOutput("go", args...), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 4 || len(f) == 2:
			out[f[0]] = f[1] + " (this tree)"
		case len(f) == 3:
			out[f[0]] = f[1] + "@" + f[2]
		}
	}
	return out
}
