package reload_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/reload"
)

// bigFile writes a blocked filter of size bytes with keys k-0..k-n-1 and
// returns its path.
func bigFile(b *testing.B, size uint64, n int) string { return bigFileT(b, size, n) }

func bigFileT(b testing.TB, size uint64, n int) string {
	f, err := blocked.NewWithSize(size*8, 7)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		f.AddString("k-" + strconv.Itoa(i))
	}
	path := filepath.Join(b.TempDir(), "f.sift")
	out, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := f.WriteTo(out); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// rssAnon returns the process's resident anonymous memory (Linux), or -1.
func rssAnon() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "RssAnon:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return -1
}

// BenchmarkOpenCopyVsMmap is what serving a new file costs (Open; a swap
// costs the same), by how the bytes are obtained: mem=copy reads the file
// into memory of the Filter's own (the default), mem=mmap maps it
// (WithMmap). Both check the payload's CRC-32C. The file is in the page
// cache (a server reloads a file just written). s/GiB is the time per GiB
// of file; private-MiB the anonymous memory the open Filter holds.
func BenchmarkOpenCopyVsMmap(b *testing.B) {
	const size = 256 << 20
	path := bigFile(b, size, 1000)
	for _, m := range []string{"copy", "mmap"} {
		b.Run("mem="+m, func(b *testing.B) {
			var opts []reload.Option
			if m == "mmap" {
				opts = append(opts, reload.WithMmap())
			}
			opts = append(opts, reload.WithInterval(0))
			var private int64
			for b.Loop() {
				runtime.GC()
				before := rssAnon()
				f, err := reload.Open(path, opts...)
				if err != nil {
					b.Fatal(err)
				}
				private = rssAnon() - before
				f.Close()
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)*float64(1<<30)/size, "s/GiB")
			b.ReportMetric(float64(private)/(1<<20), "private-MiB")
		})
	}
}

// BenchmarkLookupCopyVsMmap is a lookup through a Filter serving a copy
// (the default) and a mapping (WithMmap) of the same file, in cache
// (size=1MiB) and far beyond it (size=256MiB, every lookup a cache and
// TLB miss): the same kernels on the same bytes, so the same cost is
// expected. contained is the alternative to a copy, keeping the mapping
// and containing a fault (debug.SetPanicOnFault and a recover around each
// lookup): its cost per lookup, which a copy does not pay. (It also
// cannot prevent the false negatives of an in-place rewrite.)
func BenchmarkLookupCopyVsMmap(b *testing.B) {
	for _, size := range []uint64{1 << 20, 256 << 20} {
		path := bigFile(b, size, 100_000)
		keys := make([]string, 1<<16)
		for i := range keys {
			keys[i] = "k-" + strconv.Itoa(i*7919%200_000) // half present
		}
		for _, m := range []string{"copy", "mmap", "mmap-contained"} {
			b.Run(fmt.Sprintf("size=%dMiB/mem=%s", size>>20, m), func(b *testing.B) {
				opts := []reload.Option{reload.WithInterval(0)}
				if m != "copy" {
					opts = append(opts, reload.WithMmap())
				}
				f, err := reload.Open(path, opts...)
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				n := 0
				if m == "mmap-contained" {
					for i := 0; b.Loop(); i++ {
						if ok, _ := containedContains(f, keys[i&(1<<16-1)]); ok {
							n++
						}
					}
				} else {
					for i := 0; b.Loop(); i++ {
						if f.ContainsString(keys[i&(1<<16-1)]) {
							n++
						}
					}
				}
				sink = n
			})
		}
	}
}

var errFault = errors.New("fault reading the filter's memory")

// containedContains is a lookup that turns a fault reading the mapping
// into an error instead of the end of the process: the design a copy was
// measured against.
func containedContains(f *reload.Filter, key string) (found bool, err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			found, err = false, errFault
		}
	}()
	return f.ContainsString(key), nil
}
