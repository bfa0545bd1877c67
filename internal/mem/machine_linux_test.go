package mem

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sift-go/sift/internal/errs"
)

func TestMeminfoAvailable(t *testing.T) {
	text := "MemTotal:       24576000 kB\nMemFree:  100 kB\nMemAvailable:   2000 kB\nSwapTotal: 8 kB\nSwapFree:       3 kB\n"
	avail, swap, ok := meminfoAvailable([]byte(text))
	if !ok || avail != 2000<<10 || swap != 3<<10 {
		t.Errorf("got %d, %d, %v", avail, swap, ok)
	}
	if _, _, ok := meminfoAvailable([]byte("MemTotal: 1 kB\nSwapFree: 0 kB\n")); ok {
		t.Error("ok without MemAvailable")
	}
	if a := AvailableMemory(); a == 0 || a > MachineMemory() {
		t.Errorf("AvailableMemory %d, MachineMemory %d", a, MachineMemory())
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCgroupHeadroom: the least headroom over a v2 group and its
// ancestors (limit minus usage less inactive page cache, plus the swap
// the group may use), v1's hierarchical limit, and no limit.
func TestCgroupHeadroom(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"a/memory.max":                   "1000\n",
		"a/memory.current":               "100\n",
		"a/memory.stat":                  "anon 50\ninactive_file 40\n",
		"a/memory.swap.max":              "0\n",
		"a/b/memory.max":                 "max\n",
		"a/b/memory.current":             "90\n",
		"a/b/c/memory.max":               "500\n",
		"a/b/c/memory.current":           "300\n",
		"a/b/c/memory.stat":              "inactive_file 100\n",
		"a/b/c/memory.swap.max":          "max\n",
		"memory/x/memory.stat":           "hierarchical_memory_limit 4096\ntotal_inactive_file 96\n",
		"memory/x/memory.usage_in_bytes": "1096\n",
		"memory/y/memory.stat":           "hierarchical_memory_limit 9223372036854771712\n",
		// The container's own v1 group at the mount's root, seen from
		// the host's root in /proc/self/cgroup (no cgroup namespace).
		"memory/memory.stat":           "hierarchical_memory_limit 2048\n",
		"memory/memory.usage_in_bytes": "48\n",
	})
	for _, c := range []struct {
		self string
		swap uint64
		want uint64
		ok   bool
	}{
		// c: 500-(300-100) = 300, plus the machine's free swap 7 = 307;
		// a: 1000-(100-40) = 940, no swap. The least: 307.
		{"0::/a/b/c\n", 7, 307, true},
		{"0::/a/b\n", 7, 940, true},
		{"0::/\n", 7, 0, false},
		{"12:cpu,memory:/x\n0::/\n", 0, 3096, true},
		{"4:memory:/y\n", 0, 0, false},
		{"4:memory:/docker/0123abcd\n", 0, 2000, true},
		{"", 0, 0, false},
	} {
		got, ok := cgroupHeadroom([]byte(c.self), root, c.swap)
		if got != c.want || ok != c.ok {
			t.Errorf("%q: %d, %v; want %d, %v", c.self, got, ok, c.want, c.ok)
		}
	}
}

// TestAvailableFrom: the least of MemAvailable plus free swap and the
// cgroup's headroom, and at least 1 when known: a full group is not
// "unknown" (0), which would turn Alloc's check off.
func TestAvailableFrom(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"full/memory.max":     "1000\n",
		"full/memory.current": "1000\n",
		"half/memory.max":     "1000\n",
		"half/memory.current": "500\n",
	})
	meminfo := []byte("MemTotal: 8 kB\nMemAvailable: 4 kB\nSwapFree: 0 kB\n")
	for _, c := range []struct {
		self string
		want uint64
	}{
		{"0::/half\n", 500},
		{"0::/full\n", 1},
		{"0::/\n", 4096},
	} {
		if got := availableFrom(meminfo, []byte(c.self), root); got != c.want {
			t.Errorf("%q: %d, want %d", c.self, got, c.want)
		}
	}
}

// TestAllocRefusesUnavailable: a mapping larger than the memory available
// now is refused (ErrTooLarge, saying so) before it is made: Alloc
// touches every page, so the out-of-memory killer would end the process.
func TestAllocRefusesUnavailable(t *testing.T) {
	defer func(f func() uint64) { availableMemory = f }(availableMemory)
	availableMemory = func() uint64 { return 2 * HugeThreshold }
	_, _, err := Alloc(3 * HugeThreshold / 8)
	if !errors.Is(err, errs.TooLarge) || !strings.Contains(err.Error(), "available now") {
		t.Fatalf("Alloc past the available memory: %v", err)
	}
	w, r, err := Alloc(HugeThreshold / 8)
	if err != nil || len(w) != HugeThreshold/8 {
		t.Fatalf("Alloc within it: %v", err)
	}
	r.Free()
}
