package reload_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/classic"
	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/reload"
	"github.com/sift-go/sift/sbbf"
)

// kinds are the kinds reload serves, in the order tests cycle through them.
var kinds = []sift.Kind{sift.KindBlocked, sift.KindCuckoo, sift.KindSplitBlock, sift.KindWindow}

// encode builds a filter of kind holding keys and returns its encoding
// with generation gen recorded.
func encode(t testing.TB, kind sift.Kind, keys []string, gen uint64, seed uint64) []byte {
	t.Helper()
	var b []byte
	var err error
	n := uint64(max(len(keys), 100))
	switch kind {
	case sift.KindBlocked:
		f, e := blocked.New(n, 0.01, blocked.WithSeed(seed))
		if e != nil {
			t.Fatal(e)
		}
		for _, k := range keys {
			f.AddString(k)
		}
		b, err = f.MarshalBinary()
	case sift.KindCuckoo:
		f, e := cuckoo.New(2*n, cuckoo.WithSeed(seed))
		if e != nil {
			t.Fatal(e)
		}
		for _, k := range keys {
			if err := f.AddString(k); err != nil {
				t.Fatal(err)
			}
		}
		b, err = f.MarshalBinary()
	case sift.KindSplitBlock:
		f, e := sbbf.New(n, 0.01)
		if e != nil {
			t.Fatal(e)
		}
		for _, k := range keys {
			f.AddString(k)
		}
		b, err = f.MarshalBinary()
	case sift.KindWindow:
		// The keys are added at once, into one slice: a window of the
		// default 4 generations sizes each for a third of its n.
		f, e := blocked.NewWindow(3*n, 0.01, time.Hour, blocked.WithSeed(seed))
		if e != nil {
			t.Fatal(e)
		}
		for _, k := range keys {
			f.AddString(k)
		}
		b, err = f.MarshalBinary()
	default:
		t.Fatalf("kind %v", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := sift.SetGeneration(b, gen); err != nil {
		t.Fatal(err)
	}
	return b
}

// publish renames data into place at path, as a build does (without the
// fsync, which these tests do not need). Each call makes a new inode.
func publish(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := publishFile(path, data); err != nil {
		t.Fatal(err)
	}
}

// publishFile is publish for a goroutine other than the test's, where
// t.Fatal must not be called.
func publishFile(path string, data []byte) error {
	tmp := fmt.Sprintf("%s.tmp-%d", path, time.Now().UnixNano())
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func keysOf(prefix string, n int) []string {
	k := make([]string, n)
	for i := range k {
		k[i] = fmt.Sprintf("%s-%d", prefix, i)
	}
	return k
}

// TestSwapEveryKind serves each kind, swaps to each other kind, and checks
// keys and versions.
func TestSwapEveryKind(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	gen := uint64(0)
	for _, from := range kinds {
		for _, to := range kinds {
			gen++
			oldKeys, newKeys := keysOf(fmt.Sprint("old", gen), 500), keysOf(fmt.Sprint("new", gen), 500)
			publish(t, path, encode(t, from, oldKeys, gen, gen))
			var swapped []reload.Version
			f, err := reload.Open(path, reload.WithInterval(0), reload.WithOnSwap(func(v reload.Version) { swapped = append(swapped, v) }))
			if err != nil {
				t.Fatal(err)
			}
			v := f.Version()
			info, _ := sift.InspectFile(path)
			if v.Kind != from || v.Generation != gen || v.HeaderCRC != info.HeaderCRC || v.PayloadCRC != info.PayloadCRC || v.Swaps != 0 {
				t.Fatalf("%v: version %+v, file %+v", from, v, info)
			}
			for _, k := range oldKeys {
				if !f.ContainsString(k) || !f.Contains([]byte(k)) {
					t.Fatalf("%v: %s missing", from, k)
				}
			}
			gen++
			publish(t, path, encode(t, to, newKeys, gen, gen))
			if got := f.Version().Generation; got != gen-1 {
				t.Fatalf("swapped before Reload (interval 0): generation %d", got)
			}
			if err := f.Reload(); err != nil {
				t.Fatalf("%v -> %v: %v", from, to, err)
			}
			v = f.Version()
			if v.Kind != to || v.Generation != gen || v.Swaps != 1 || len(swapped) != 1 || swapped[0] != v {
				t.Fatalf("%v -> %v: version %+v, swaps reported %v", from, to, v, swapped)
			}
			for _, k := range newKeys {
				if !f.ContainsString(k) {
					t.Fatalf("%v -> %v: new key %s missing", from, to, k)
				}
			}
			absent := 0
			for _, k := range oldKeys {
				if !f.ContainsString(k) {
					absent++
				}
			}
			if absent < len(oldKeys)/2 {
				t.Fatalf("%v -> %v: only %d of the old keys are gone: still serving the old file?", from, to, absent)
			}
			if err := f.Reload(); err != nil || f.Version().Swaps != 1 {
				t.Fatalf("Reload of the unchanged file: %v, swaps %d", err, f.Version().Swaps)
			}
			f.Close()
		}
	}
}

// TestContainsUint64 checks that ContainsUint64(x) is the key of x's eight
// little-endian bytes for every kind.
func TestContainsUint64(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	var keys []string
	for i := range 300 {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(i)*0x9e3779b97f4a7c15)
		keys = append(keys, string(b[:]))
	}
	for _, kind := range kinds {
		publish(t, path, encode(t, kind, keys, 1, 3))
		f, err := reload.Open(path, reload.WithInterval(0))
		if err != nil {
			t.Fatal(err)
		}
		for i := range 300 {
			if !f.ContainsUint64(uint64(i) * 0x9e3779b97f4a7c15) {
				t.Fatalf("%v: ContainsUint64(key %d) is false", kind, i)
			}
		}
		hits := 0
		for i := range 10000 {
			x := uint64(i)*0x9e3779b97f4a7c15 + 1
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], x)
			if f.ContainsUint64(x) != f.Contains(b[:]) {
				t.Fatalf("%v: ContainsUint64(%#x) differs from Contains of its bytes", kind, x)
			}
			if f.ContainsUint64(x) {
				hits++
			}
		}
		if hits > 500 {
			t.Fatalf("%v: %d of 10000 absent keys reported present", kind, hits)
		}
		f.Close()
	}
}

// TestBadReplacements replaces the file with damaged, truncated, foreign
// and missing files: each is reported once, the old file stays served,
// and a good file afterwards is swapped in.
func TestBadReplacements(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	keys := keysOf("k", 1000)
	good := encode(t, sift.KindBlocked, keys, 1, 0)
	publish(t, path, good)
	var mu sync.Mutex
	var reported []error
	f, err := reload.Open(path, reload.WithInterval(time.Millisecond), reload.WithOnError(func(err error) {
		mu.Lock()
		reported = append(reported, err)
		mu.Unlock()
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	counting, _ := classic.NewCounting(100, 0.01)
	cb, _ := counting.MarshalBinary()
	flipped := bytes.Clone(good)
	flipped[len(flipped)-3] ^= 4
	headerFlip := bytes.Clone(good)
	headerFlip[60] ^= 1
	cases := []struct {
		name string
		data []byte // nil: remove the file
		want error
	}{
		{"payload bit flip", flipped, sift.ErrChecksum},
		{"header bit flip", headerFlip, sift.ErrChecksum},
		{"truncated payload", good[:len(good)-64], sift.ErrTruncated},
		{"truncated header", good[:100], sift.ErrTruncated},
		{"empty", []byte{}, sift.ErrTruncated},
		{"not a filter", []byte(strings.Repeat("hello world\n", 20)), sift.ErrMagic},
		{"counting filter", cb, sift.ErrKind},
		{"removed", nil, os.ErrNotExist},
	}
	for i, c := range cases {
		mu.Lock()
		reported = nil
		mu.Unlock()
		if c.data == nil {
			os.Remove(path)
		} else {
			publish(t, path, c.data)
		}
		// The poll sees it within a few milliseconds; let it run many
		// more times to check the error is reported once.
		deadline := time.Now().Add(5 * time.Second)
		for {
			mu.Lock()
			n := len(reported)
			mu.Unlock()
			if n > 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(30 * time.Millisecond)
		mu.Lock()
		got := reported
		mu.Unlock()
		if len(got) != 1 || !errors.Is(got[0], c.want) {
			t.Fatalf("%s: reported %v, want one error wrapping %v", c.name, got, c.want)
		}
		checkErrorModel(t, c.name, got[0])
		if err := f.Err(); !errors.Is(err, c.want) {
			t.Fatalf("%s: Err() = %v", c.name, err)
		}
		err := f.Reload()
		if !errors.Is(err, c.want) {
			t.Fatalf("%s: Reload retries and fails: %v", c.name, err)
		}
		checkErrorModel(t, c.name+": Reload", err)
		if v := f.Version(); v.Generation != 1 || v.Swaps != 0 {
			t.Fatalf("%s: serving %+v, want the first file", c.name, v)
		}
		for _, k := range keys {
			if !f.ContainsString(k) {
				t.Fatalf("case %d %s: key %s missing", i, c.name, k)
			}
		}
	}
	publish(t, path, encode(t, sift.KindCuckoo, keysOf("new", 100), 2, 0))
	if err := f.Reload(); err != nil || f.Err() != nil {
		t.Fatalf("good file after bad ones: %v, Err %v", err, f.Err())
	}
	if v := f.Version(); v.Generation != 2 || v.Swaps != 1 || v.Kind != sift.KindCuckoo {
		t.Fatalf("after the good file: %+v", v)
	}
}

// checkErrorModel fails unless err is in the module's one error model: a
// *sift.Error whose message names package reload once ("reload: ...", no
// other package's prefix nested inside).
func checkErrorModel(t *testing.T, what string, err error) {
	t.Helper()
	var e *sift.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: %v (%T) is not a *sift.Error", what, err, err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "reload: ") || strings.Count(msg, "reload: ") != 1 || strings.Contains(msg, ": sift: ") {
		t.Fatalf("%s: %q does not name package reload once", what, msg)
	}
}

// TestOpenErrors: the first file must be servable; every error is a
// *sift.Error matching its sentinel.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	_, err := reload.Open(path)
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	checkErrorModel(t, "missing file", err)
	c, _ := classic.NewCounting(100, 0.01)
	b, _ := c.MarshalBinary()
	publish(t, path, b)
	if _, err = reload.Open(path); !errors.Is(err, reload.ErrKind) {
		t.Fatalf("counting file: %v", err)
	}
	checkErrorModel(t, "counting file", err)
	publish(t, path, encode(t, sift.KindBlocked, nil, 0, 0))
	if _, err = reload.Open(path, reload.WithInterval(-time.Second)); !errors.Is(err, sift.ErrInvalidArgument) {
		t.Fatalf("negative interval: %v, want an error wrapping ErrInvalidArgument", err)
	}
	checkErrorModel(t, "negative interval", err)
	if _, err = reload.Open(path, reload.WithMaxSize(64)); !errors.Is(err, sift.ErrTooLarge) {
		t.Fatalf("WithMaxSize(64): %v", err)
	}
	checkErrorModel(t, "WithMaxSize(64)", err)
	if _, err = reload.Open(dir); err == nil {
		t.Fatal("a directory opened")
	}
	checkErrorModel(t, "a directory", err)
	f, err := reload.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err = f.Reload(); !errors.Is(err, sift.ErrClosed) {
		t.Fatalf("Reload after Close: %v", err)
	}
	checkErrorModel(t, "Reload after Close", err)
	defer func() {
		err, _ := recover().(error)
		if !errors.Is(err, sift.ErrClosed) {
			t.Fatalf("lookup after Close panicked with %v, want an error wrapping ErrClosed", err)
		}
		checkErrorModel(t, "lookup after Close", err)
	}()
	f.ContainsString("x")
}

// TestWithoutChecksum: a payload flip is served with WithoutChecksum and
// refused without it.
func TestWithoutChecksum(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	b := encode(t, sift.KindBlocked, keysOf("k", 10), 1, 0)
	b[len(b)-1] ^= 1
	publish(t, path, b)
	if _, err := reload.Open(path); !errors.Is(err, sift.ErrChecksum) {
		t.Fatalf("flip: %v", err)
	}
	f, err := reload.Open(path, reload.WithoutChecksum())
	if err != nil {
		t.Fatalf("flip WithoutChecksum: %v", err)
	}
	f.Close()
}

// TestPoll: the polling goroutine finds a renamed file without Reload.
func TestPoll(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	publish(t, path, encode(t, sift.KindBlocked, keysOf("a", 10), 1, 0))
	swaps := make(chan reload.Version, 10)
	f, err := reload.Open(path, reload.WithInterval(2*time.Millisecond), reload.WithOnSwap(func(v reload.Version) { swaps <- v }))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	publish(t, path, encode(t, sift.KindSplitBlock, keysOf("b", 10), 2, 0))
	select {
	case v := <-swaps:
		if v.Generation != 2 || v.Kind != sift.KindSplitBlock || !f.ContainsString("b-3") {
			t.Fatalf("polled swap: %+v", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the poll did not swap to the new file")
	}
}

// TestClosed: Close is idempotent; lookups after it panic with ErrClosed,
// Reload returns it.
func TestClosed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	publish(t, path, encode(t, sift.KindCuckoo, keysOf("a", 10), 1, 0))
	f, err := reload.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Reload(); !errors.Is(err, reload.ErrClosed) {
		t.Fatalf("Reload after Close: %v", err)
	}
	for name, call := range map[string]func(){
		"Contains":       func() { f.Contains([]byte("a-1")) },
		"ContainsString": func() { f.ContainsString("a-1") },
		"ContainsUint64": func() { f.ContainsUint64(1) },
		"Acquire":        func() { f.Acquire() },
	} {
		func() {
			defer func() {
				r := recover()
				err, _ := r.(error)
				if !errors.Is(err, reload.ErrClosed) {
					t.Errorf("%s after Close: panic %v", name, r)
				}
			}()
			call()
		}()
	}
}

// TestSecondCloseWaits: a Close called while another waits for a lookup
// in flight (a Snapshot) returns when that one does, with the file
// released, WithMmap too. Before, it found the Filter closed and returned
// at once with the file's descriptor (and mapping) still there, so a caller
// that removed or unmounted after its own Close raced with the release
// (findings K, 5). A Close after that returns at once.
func TestSecondCloseWaits(t *testing.T) {
	for _, opts := range [][]reload.Option{nil, {reload.WithMmap()}} {
		dir := t.TempDir()
		path := filepath.Join(dir, "f.sift")
		publish(t, path, encode(t, sift.KindBlocked, keysOf("k", 100), 1, 0))
		f, err := reload.Open(path, append(opts, reload.WithInterval(0))...)
		if err != nil {
			t.Fatal(err)
		}
		s := f.Acquire() // a lookup in flight
		first, second := make(chan error, 1), make(chan error, 1)
		go func() { first <- f.Close() }()
		for !errors.Is(f.Reload(), reload.ErrClosed) { // the first Close began
			time.Sleep(time.Millisecond)
		}
		go func() { second <- f.Close() }()
		select {
		case err := <-second:
			t.Fatalf("the second Close returned (%v) while the first waits for a Snapshot", err)
		case err := <-first:
			t.Fatalf("the first Close returned (%v) with a Snapshot held", err)
		case <-time.After(50 * time.Millisecond):
		}
		if !s.ContainsString("k-1") {
			t.Error("the Snapshot lost a key while Close waited")
		}
		s.Release()
		if err := <-second; err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS == "linux" {
			if fds, maps := mapped(t, dir); fds != 0 || maps != 0 {
				t.Errorf("the second Close returned with %d descriptors and %d mappings of the file left", fds, maps)
			}
		}
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestZeroFilter: a zero Filter fails loudly, as a closed one, and its
// lookups say that it was never opened (before, "lookup on a closed
// Filter": findings R, 8).
func TestZeroFilter(t *testing.T) {
	var f reload.Filter
	if err := f.Reload(); !errors.Is(err, reload.ErrClosed) {
		t.Fatalf("Reload of a zero Filter: %v", err)
	}
	for name, call := range map[string]func(){
		"ContainsString": func() { f.ContainsString("x") },
		"Acquire":        func() { f.Acquire() },
	} {
		func() {
			defer func() {
				if err, _ := recover().(error); !errors.Is(err, reload.ErrClosed) || !strings.Contains(err.Error(), "reload: lookup on a zero Filter, never opened") {
					t.Fatalf("%s on a zero Filter: panic %v", name, err)
				}
			}()
			call()
		}()
	}
	if v := f.Version(); v != (reload.Version{}) {
		t.Fatalf("Version of a zero Filter: %+v", v)
	}
	for range 2 {
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// mapped counts this process's open file descriptors and memory mappings of
// files in dir (Linux only: /proc/self).
func mapped(t *testing.T, dir string) (fds, maps int) {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && strings.HasPrefix(l, dir) {
			fds++
		}
	}
	m, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip("no /proc/self/maps:", err)
	}
	for _, line := range strings.Split(string(m), "\n") {
		if strings.Contains(line, dir) {
			maps++
		}
	}
	return fds, maps
}

// filesMapped reports whether blocked.Open maps files here (not on
// big-endian machines, which decode a copy).
func filesMapped(t *testing.T) bool {
	path := filepath.Join(t.TempDir(), "probe.sift")
	publish(t, path, encode(t, sift.KindBlocked, keysOf("p", 10), 0, 0))
	v, err := blocked.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	return v.Mapped()
}

// TestSnapshotHoldsMapping: with WithMmap, a Snapshot keeps its file mapped
// across swaps and answers from it; Release lets it go. No descriptor or
// mapping outlives Close. Without it, the file is not mapped at all. Either
// way the file served is held open (one descriptor), so that its inode
// number is not reused while the Filter compares stats with it.
func TestSnapshotHoldsMapping(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts /proc/self entries")
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	path := filepath.Join(dir, "f.sift")
	big := keysOf("old", 300000) // 360 KiB: mapped, not read into memory
	publish(t, path, encode(t, sift.KindBlocked, big, 1, 0))
	if !filesMapped(t) {
		t.Skip("filters are read into memory here, not mapped")
	}
	// The default reads a copy: no descriptor and no mapping of the file.
	c, err := reload.Open(path, reload.WithInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	if fds, maps := mapped(t, dir); fds != 1 || maps != 0 {
		t.Fatalf("serving a copy of one file: %d descriptors, %d mappings, want 1 (the pin) and 0", fds, maps)
	}
	c.Close()
	f, err := reload.Open(path, reload.WithInterval(0), reload.WithMmap())
	if err != nil {
		t.Fatal(err)
	}
	if fds, maps := mapped(t, dir); fds != 1 || maps != 1 {
		t.Fatalf("serving one file: %d descriptors, %d mappings", fds, maps)
	}
	s := f.Acquire()
	publish(t, path, encode(t, sift.KindCuckoo, keysOf("new", 300000), 2, 0))
	if err := f.Reload(); err != nil {
		t.Fatal(err)
	}
	if _, maps := mapped(t, dir); maps != 2 {
		t.Fatalf("a snapshot of the old file and the new file: %d mappings, want 2", maps)
	}
	if s.Version().Generation != 1 || !s.ContainsString(big[12345]) || f.Version().Generation != 2 {
		t.Fatal("the snapshot does not answer from the old file")
	}
	hs := make([]uint64, len(big))
	for i, k := range big {
		hs[i] = s.HashString(k)
	}
	out := make([]bool, len(hs))
	if n := s.ContainsHashes(hs, out); n != len(hs) {
		t.Fatalf("snapshot ContainsHashes: %d of %d", n, len(hs))
	}
	s.Release()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, maps := mapped(t, dir); maps == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the old file is still mapped after the snapshot's Release")
		}
		time.Sleep(time.Millisecond)
	}
	f.Close()
	if fds, maps := mapped(t, dir); fds != 0 || maps != 0 {
		t.Fatalf("after Close: %d descriptors, %d mappings", fds, maps)
	}
}

// TestReadersAcrossSwaps runs readers on every core while the file is
// replaced over and over (1000 times; 300 with -short), cycling through
// the kinds and including damaged files, which must be refused. A key in
// every version is never reported absent, each version's own keys are
// found once it is served, and no descriptor or mapping is left behind.
func TestReadersAcrossSwaps(t *testing.T) {
	swaps := 1000
	if testing.Short() {
		swaps = 300
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	path := filepath.Join(dir, "f.sift")
	common := keysOf("common", 200)
	version := func(i int) []string { return append(keysOf(fmt.Sprint("v", i), 50), common...) }
	publish(t, path, encode(t, sift.KindBlocked, version(0), 1, 0))
	var errsSeen atomic.Int64
	f, err := reload.Open(path, reload.WithInterval(time.Millisecond), reload.WithOnError(func(error) { errsSeen.Add(1) }))
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var lookups, missing atomic.Int64
	readers := max(runtime.GOMAXPROCS(0), 2)
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := int64(0)
			for i := r; ; i++ {
				select {
				case <-stop:
					lookups.Add(n)
					return
				default:
				}
				k := common[i%len(common)]
				var ok bool
				switch i % 3 {
				case 0:
					ok = f.ContainsString(k)
				case 1:
					ok = f.Contains([]byte(k))
				default:
					s := f.Acquire()
					ok = s.ContainsHash(s.HashString(k))
					s.Release()
				}
				if !ok {
					missing.Add(1)
				}
				n++
				if n%512 == 0 {
					runtime.Gosched() // let the swapping goroutine run on a busy machine
				}
			}
		}()
	}
	bad := 0
	for i := 1; i <= swaps; i++ {
		gen := uint64(i + 1)
		data := encode(t, kinds[i%len(kinds)], version(i), gen, uint64(i))
		if i%50 == 0 { // a damaged replacement, then the good one
			d := bytes.Clone(data)
			d[len(d)-1] ^= 0x80
			publish(t, path, d)
			if err := f.Reload(); !errors.Is(err, sift.ErrChecksum) {
				t.Fatalf("swap %d: damaged file: %v", i, err)
			}
			bad++
		}
		publish(t, path, data)
		if err := f.Reload(); err != nil {
			t.Fatalf("swap %d: %v", i, err)
		}
		if v := f.Version(); v.Generation != gen {
			t.Fatalf("swap %d: serving generation %d", i, v.Generation)
		}
		for _, k := range version(i)[:50] {
			if !f.ContainsString(k) {
				t.Fatalf("swap %d: its key %s missing", i, k)
			}
		}
	}
	close(stop)
	wg.Wait()
	if m := missing.Load(); m != 0 {
		t.Fatalf("a key present in every version was reported absent %d times in %d lookups", m, lookups.Load())
	}
	if lookups.Load() < int64(readers) {
		t.Fatalf("readers made only %d lookups", lookups.Load())
	}
	if got := f.Version().Swaps; got < uint64(swaps) {
		t.Fatalf("%d swaps, want at least %d", got, swaps)
	}
	if errsSeen.Load() < int64(bad) {
		t.Fatalf("%d errors reported for %d damaged files", errsSeen.Load(), bad)
	}
	t.Logf("%d swaps (%d damaged files refused), %d lookups by %d readers", swaps, bad, lookups.Load(), readers)
	if runtime.GOOS == "linux" && filesMapped(t) {
		if _, maps := mapped(t, dir); maps > 1+readers {
			t.Fatalf("%d mappings of the test's files while serving one", maps)
		}
	}
	f.Close()
	if runtime.GOOS == "linux" {
		if fds, maps := mapped(t, dir); fds != 0 || maps != 0 {
			t.Fatalf("after Close: %d descriptors and %d mappings of the test's files", fds, maps)
		}
	}
}

// Example serves a filter file through a rebuild.
func Example() {
	dir, _ := os.MkdirTemp("", "reload-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "blocklist.sift")

	build := func(gen uint64, keys ...string) {
		f, _ := blocked.New(1000, 0.01)
		for _, k := range keys {
			f.AddString(k)
		}
		sift.WriteFile(path, f, gen) // atomic: rename into place
	}
	build(1, "alice")

	f, err := reload.Open(path, reload.WithOnError(func(err error) { fmt.Println(err) }))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	fmt.Println(f.Version().Generation, f.ContainsString("alice"), f.ContainsString("bob"))

	build(2, "alice", "bob")
	f.Reload() // or wait: the Filter checks the path every second
	fmt.Println(f.Version().Generation, f.ContainsString("alice"), f.ContainsString("bob"))
	// Output:
	// 1 true false
	// 2 true true
}

// TestWindowFileNotHeld: a window is served from a copy of its own, so the
// mapping of its file (WithMmap) is let go at once, where the other kinds
// keep theirs: the memory while served is the filter's size, not twice it.
func TestWindowFileNotHeld(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range []sift.Kind{sift.KindBlocked, sift.KindWindow} {
		path := filepath.Join(dir, kind.String()+".sift")
		if err := os.WriteFile(path, encode(t, kind, []string{"a", "b"}, 0, 1), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := reload.Open(path, reload.WithMmap())
		if err != nil {
			t.Fatal(err)
		}
		if want := kind != sift.KindWindow; f.Mapped() != want && reload.LittleEndianHost {
			t.Errorf("%v: the file's mapping held: %v, want %v", kind, f.Mapped(), want)
		}
		if !f.ContainsString("a") {
			t.Errorf("%v: key not found", kind)
		}
		f.Close()
	}
}
