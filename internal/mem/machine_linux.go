package mem

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// MachineMemory returns the machine's RAM plus swap in bytes, the bound
// of the decoders' default maximum size and Alloc's first check (before
// AvailableMemory), or 0 when unknown.
func MachineMemory() uint64 {
	si, unit, ok := sysinfo()
	if !ok {
		return 0
	}
	return (uint64(si.Totalram) + uint64(si.Totalswap)) * unit
}

// sysinfo returns sysinfo(2)'s answer and its memory unit in bytes.
func sysinfo() (si unix.Sysinfo_t, unit uint64, ok bool) {
	if err := unix.Sysinfo(&si); err != nil {
		return si, 0, false
	}
	return si, max(uint64(si.Unit), 1), true
}

// AvailableMemory returns the bytes a new allocation can take now without
// the kernel's out-of-memory killer ending the process, what Alloc
// compares mapped allocations with (it touches every page at once), or 0
// when unknown: the machine's MemAvailable (free RAM plus what the kernel
// can reclaim, such as clean page cache) plus its free swap, and at most
// the headroom under the memory limit of the process's control group (a
// container's limit), on cgroup v2 or v1. When known it is at least 1, so
// that a full control group reads as "1 byte", not as "unknown".
func AvailableMemory() uint64 {
	return availableFrom(readFile("/proc/meminfo"), readFile("/proc/self/cgroup"), "/sys/fs/cgroup")
}

// availableFrom is AvailableMemory from /proc/meminfo's text, the process's
// /proc/self/cgroup text and the cgroup file system's root.
func availableFrom(meminfo, self []byte, root string) uint64 {
	avail, swapFree, ok := meminfoAvailable(meminfo)
	if !ok {
		si, unit, ok := sysinfo()
		if !ok {
			return 0
		}
		avail, swapFree = (uint64(si.Freeram)+uint64(si.Bufferram))*unit, uint64(si.Freeswap)*unit
	}
	total := avail + swapFree
	if h, ok := cgroupHeadroom(self, root, swapFree); ok && h < total {
		total = h
	}
	return max(total, 1)
}

func readFile(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}

// meminfoAvailable reads MemAvailable and SwapFree from /proc/meminfo's
// text, in bytes; ok is false without MemAvailable (kernels before 3.14).
func meminfoAvailable(meminfo []byte) (avail, swapFree uint64, ok bool) {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		v, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			continue
		}
		if len(f) == 3 && f[2] == "kB" {
			v <<= 10
		}
		switch f[0] {
		case "MemAvailable:":
			avail, ok = v, true
		case "SwapFree:":
			swapFree = v
		}
	}
	return avail, swapFree, ok
}

// noLimit is above any real limit: cgroup v1 reports "no limit" as a
// number near 2^63.
const noLimit = 1 << 62

// cgroupHeadroom returns how many more bytes the control group of the
// process (its /proc/self/cgroup text) may charge before its memory limit,
// under root (/sys/fs/cgroup): the least, over the group and its
// ancestors, of the limit minus the usage not counting inactive page
// cache (which the kernel reclaims first), plus on cgroup v2 the swap the
// group may still use (at most swapFree, the machine's). ok is false when
// no limit applies or the files cannot be read.
func cgroupHeadroom(self []byte, root string, swapFree uint64) (headroom uint64, ok bool) {
	for _, line := range strings.Split(string(self), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "": // v2, unified
			if h, found := cgroup2Headroom(root, parts[2], swapFree); found {
				return h, true
			}
		case hasController(parts[1], "memory"): // v1
			if h, found := cgroup1Headroom(filepath.Join(root, "memory"), parts[2]); found {
				return h, true
			}
		}
	}
	return 0, false
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// cgroup2Headroom walks from root+path up to root, taking the least
// headroom of the groups with a memory.max.
func cgroup2Headroom(root, path string, swapFree uint64) (headroom uint64, ok bool) {
	dir := filepath.Join(root, path)
	for {
		if limit, isSet := readLimit(filepath.Join(dir, "memory.max")); isSet {
			used := readUint(filepath.Join(dir, "memory.current"))
			used -= min(used, statValue(readFile(filepath.Join(dir, "memory.stat")), "inactive_file"))
			h := limit - min(limit, used)
			swap := swapFree
			if sl, isSet := readLimit(filepath.Join(dir, "memory.swap.max")); isSet {
				su := readUint(filepath.Join(dir, "memory.swap.current"))
				swap = min(swap, sl-min(sl, su))
			}
			if h += swap; !ok || h < headroom {
				headroom, ok = h, true
			}
		}
		if dir == root || len(dir) <= len(root) {
			return headroom, ok
		}
		dir = filepath.Dir(dir)
	}
}

// cgroup1Headroom reads the v1 memory group at path under base
// (/sys/fs/cgroup/memory), or the nearest ancestor that base holds: a
// container without its own cgroup namespace sees its group's path from
// the host's root (/docker/<id>) while base is its own group.
// hierarchical_memory_limit in memory.stat covers the group's ancestors'
// limits. Swap is not counted.
func cgroup1Headroom(base, path string) (headroom uint64, ok bool) {
	dir := filepath.Join(base, path)
	stat := readFile(filepath.Join(dir, "memory.stat"))
	for len(stat) == 0 && len(dir) > len(base) {
		dir = filepath.Dir(dir)
		stat = readFile(filepath.Join(dir, "memory.stat"))
	}
	limit := statValue(stat, "hierarchical_memory_limit")
	if limit == 0 || limit >= noLimit {
		return 0, false
	}
	used := readUint(filepath.Join(dir, "memory.usage_in_bytes"))
	used -= min(used, statValue(stat, "total_inactive_file"))
	return limit - min(limit, used), true
}

// readLimit reads a v2 limit file: isSet is false for "max", a missing
// file or a value beyond noLimit.
func readLimit(path string) (limit uint64, isSet bool) {
	s := strings.TrimSpace(string(readFile(path)))
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v >= noLimit {
		return 0, false
	}
	return v, true
}

func readUint(path string) uint64 {
	v, _ := strconv.ParseUint(strings.TrimSpace(string(readFile(path))), 10, 64)
	return v
}

// statValue returns the value of key in a memory.stat text, 0 if absent.
func statValue(stat []byte, key string) uint64 {
	for _, line := range strings.Split(string(stat), "\n") {
		if k, v, found := strings.Cut(line, " "); found && k == key {
			n, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
