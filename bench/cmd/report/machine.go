package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// machine describes where the benchmarks ran.
type machine struct {
	CPU, Caches, Memory, Kernel, GoVersion, THP, Git string
	Cores                                            int
	Date                                             string
	LoadStart, LoadEnd                               string
	Elapsed                                          string // from a -from file
}

// restore overwrites what describes the run, not the machine, with what
// the raw output recorded (for -from).
func (m *machine) restore(h header) {
	for key, dst := range map[string]*string{
		"sift-date": &m.Date, "sift-git": &m.Git,
		"sift-load-start": &m.LoadStart, "sift-load-end": &m.LoadEnd, "sift-elapsed": &m.Elapsed,
	} {
		if v := h[key]; v != "" {
			*dst = v
		}
	}
}

func probeMachine() machine {
	m := machine{
		Cores:     runtime.NumCPU(),
		GoVersion: strings.TrimSpace(cmdOutput("go", "env", "GOVERSION")) + " " + runtime.GOOS + "/" + runtime.GOARCH,
		Date:      time.Now().UTC().Format("2006-01-02 15:04 UTC"),
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if m.CPU == "" {
		m.CPU = runtime.GOARCH
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
