//go:build unix

package reload_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/reload"
)

// TestPathReplaced: the path is removed, swapped to another file through a
// symbolic link, or replaced by a directory or a FIFO. Nothing blocks (a
// FIFO is never opened for reading), each break is reported once while the
// old file stays served, and a good file afterwards is served at the next
// poll.
func TestPathReplaced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	keys := keysOf("k", 1000)
	gen := uint64(1)
	publish(t, path, encode(t, sift.KindBlocked, keys, gen, 0))
	var mu sync.Mutex
	var reported []error
	f, err := reload.Open(path, reload.WithInterval(0), reload.WithOnError(func(err error) {
		mu.Lock()
		reported = append(reported, err)
		mu.Unlock()
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	clear := func() {
		if err := os.RemoveAll(path); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name   string
		break_ func() error
		want   string
	}{
		{"removed", func() error { return nil }, "no such file"},
		{"a directory", func() error { return os.Mkdir(path, 0o755) }, "a directory"},
		{"a FIFO", func() error { return syscall.Mkfifo(path, 0o644) }, "a named pipe"},
		{"a symbolic link to nothing", func() error { return os.Symlink(filepath.Join(dir, "nothing"), path) }, "no such file"},
	}
	for _, c := range cases {
		clear()
		if err := c.break_(); err != nil {
			t.Skipf("%s: %v", c.name, err)
		}
		mu.Lock()
		reported = nil
		mu.Unlock()
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range 5 {
				_ = f.Poll()
			}
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the poll blocked", c.name)
		}
		mu.Lock()
		got := reported
		mu.Unlock()
		if len(got) != 1 || !strings.Contains(got[0].Error(), c.want) {
			t.Fatalf("%s: reported %v, want one error saying %q", c.name, got, c.want)
		}
		if v := f.Version(); v.Generation != gen {
			t.Fatalf("%s: serving %v", c.name, v)
		}
		for _, k := range keys {
			if !f.ContainsString(k) {
				t.Fatalf("%s: key %s absent", c.name, k)
			}
		}
		// A good file again.
		clear()
		gen++
		publish(t, path, encode(t, sift.KindBlocked, keys, gen, 0))
		if err := f.Poll(); err != nil || f.Version().Generation != gen {
			t.Fatalf("%s: a good file afterwards: %v, serving %v", c.name, err, f.Version())
		}
	}
	// A symbolic link swapped from one file to another (as Kubernetes
	// updates a ConfigMap): the target is followed.
	clear()
	for i := range 3 {
		gen++
		target := filepath.Join(dir, fmt.Sprintf("v%d.sift", i))
		publish(t, target, encode(t, sift.KindCuckoo, keys, gen, 0))
		link := filepath.Join(dir, "link.tmp")
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("symbolic links: %v", err)
		}
		if err := os.Rename(link, path); err != nil {
			t.Fatal(err)
		}
		if err := f.Poll(); err != nil || f.Version().Generation != gen {
			t.Fatalf("symbolic link swap %d: %v, serving %v", i, err, f.Version())
		}
	}
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		t.Fatal("the link vanished")
	}
}
