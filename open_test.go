package sift_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/classic"
	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/sbbf"
)

// viewKind is one kind Open serves: how to build a filter of it with keys
// 0..n-1 added (as bytes, strings and uint64s alike: key i is the string
// "k<i>", and the uint64 i), and the kind's own view of its encoding.
type viewKind struct {
	kind  sift.Kind
	build func(t testing.TB, n int) io.WriterTo
	own   func(data []byte) (ownView, error)
}

// ownView is the lookups every kind's own view has.
type ownView interface {
	Contains([]byte) bool
	ContainsString(string) bool
	ContainsHash(uint64) bool
}

func viewKinds() []viewKind {
	return []viewKind{
		{sift.KindBlocked, func(t testing.TB, n int) io.WriterTo {
			f, err := blocked.New(uint64(n), 0.01, blocked.WithSeed(7))
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				f.AddString(fmt.Sprint("k", i))
				f.AddUint64(uint64(i))
			}
			return f
		}, func(b []byte) (ownView, error) { return blocked.FromBytes(b) }},
		{sift.KindCuckoo, func(t testing.TB, n int) io.WriterTo {
			f, err := cuckoo.New(uint64(2*n), cuckoo.WithSeed(7))
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				if f.AddString(fmt.Sprint("k", i)) != nil || f.AddUint64(uint64(i)) != nil {
					t.Fatal("cuckoo filter full")
				}
			}
			return f
		}, func(b []byte) (ownView, error) { return cuckoo.FromBytes(b) }},
		{sift.KindSplitBlock, func(t testing.TB, n int) io.WriterTo {
			f, err := sbbf.New(uint64(2*n), 0.01)
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				f.AddString(fmt.Sprint("k", i))
				f.AddInt64(int64(i))
			}
			return f
		}, func(b []byte) (ownView, error) { return sbbf.FromBytes(b) }},
		{sift.KindWindow, func(t testing.TB, n int) io.WriterTo {
			f, err := blocked.NewWindow(uint64(2*n), 0.01, time.Hour, blocked.WithSeed(7))
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				f.AddString(fmt.Sprint("k", i))
				f.AddUint64(uint64(i))
			}
			return f
		}, func(b []byte) (ownView, error) { return blocked.WindowFromBytes(b) }},
	}
}

func encode(t testing.TB, f io.WriterTo) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestOpenEveryKind: Open and FromBytes serve every mappable kind, find
// every key added (as bytes, string, uint64, hash and batch of hashes),
// answer every other key as the kind's own view does, and report the
// header's facts.
func TestOpenEveryKind(t *testing.T) {
	const n = 2000
	dir := t.TempDir()
	for _, vk := range viewKinds() {
		t.Run(vk.kind.String(), func(t *testing.T) {
			f := vk.build(t, n)
			path := filepath.Join(dir, vk.kind.String()+".sift")
			if err := sift.WriteFile(path, f, 42); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			own, err := vk.own(data)
			if err != nil {
				t.Fatal(err)
			}
			opened, err := sift.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer opened.Close()
			// An unaligned copy makes FromBytes copy; an aligned one is
			// used in place.
			unaligned := append(make([]byte, 1, len(data)+1), data...)[1:]
			fromBytes, err := sift.FromBytes(unaligned)
			if err != nil {
				t.Fatal(err)
			}
			defer fromBytes.Close()
			loaded, err := sift.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			defer loaded.Close()
			// Load's copy is the View's own: the file may go.
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			want, _ := sift.Inspect(data)
			for name, v := range map[string]*sift.View{"Open": opened, "FromBytes": fromBytes, "Load": loaded} {
				if v.Kind() != vk.kind || v.Info() != want || v.Info().Generation != 42 {
					t.Errorf("%s: kind %v, info %+v, want %v, %+v", name, v.Kind(), v.Info(), vk.kind, want)
				}
				hs := make([]uint64, 0, 2*n)
				for i := range n {
					key := fmt.Sprint("k", i)
					if !v.Contains([]byte(key)) || !v.ContainsString(key) || !v.ContainsUint64(uint64(i)) ||
						!v.ContainsHash(v.Hash([]byte(key))) || !v.ContainsHash(v.HashString(key)) {
						t.Fatalf("%s: false negative for key %d", name, i)
					}
					hs = append(hs, v.HashString(key))
				}
				out := make([]bool, len(hs))
				if c := v.ContainsHashes(hs, out); c != len(hs) {
					t.Fatalf("%s: ContainsHashes found %d of %d keys added", name, c, len(hs))
				}
				for i := range 5 * n {
					key := fmt.Sprint("absent", i)
					if v.ContainsString(key) != own.ContainsString(key) || v.Contains([]byte(key)) != own.Contains([]byte(key)) ||
						v.ContainsHash(uint64(i)*0x9e3779b97f4a7c15) != own.ContainsHash(uint64(i)*0x9e3779b97f4a7c15) {
						t.Fatalf("%s: %q answered unlike the kind's own view", name, key)
					}
				}
			}
		})
	}
}

// TestViewWriteTo: a View's WriteTo writes what the kind's own view
// writes, so a file opened with Open can be passed to WriteFile, and the
// file written answers every key as the View does (findings R, 6: View
// had no WriteTo); a closed or zero View's WriteTo is an error wrapping
// ErrClosed.
func TestViewWriteTo(t *testing.T) {
	const n = 1000
	dir := t.TempDir()
	for _, vk := range viewKinds() {
		t.Run(vk.kind.String(), func(t *testing.T) {
			path := filepath.Join(dir, vk.kind.String()+".sift")
			if err := sift.WriteFile(path, vk.build(t, n), 42); err != nil {
				t.Fatal(err)
			}
			v, err := sift.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			data, _ := os.ReadFile(path)
			own, err := vk.own(data)
			if err != nil {
				t.Fatal(err)
			}
			var want, got bytes.Buffer
			if _, err := own.(io.WriterTo).WriteTo(&want); err != nil {
				t.Fatal(err)
			}
			if m, err := v.WriteTo(&got); err != nil || m != int64(got.Len()) || !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("WriteTo: %d, %v; %d bytes, want the kind's own view's %d", m, err, got.Len(), want.Len())
			}
			// The View over its own mapped file, written over that file.
			if err := sift.WriteFile(path, v, 43); err != nil {
				t.Fatal(err)
			}
			w, err := sift.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			info, vinfo := w.Info(), v.Info()
			info.Generation, info.HeaderCRC, vinfo.Generation, vinfo.HeaderCRC = 0, 0, 0, 0
			if w.Info().Generation != 43 || info != vinfo {
				t.Errorf("written: %+v, want %+v and generation 43", w.Info(), v.Info())
			}
			for i := range n {
				key := fmt.Sprint("k", i)
				if !w.ContainsString(key) || !w.ContainsUint64(uint64(i)) {
					t.Fatalf("false negative for key %d", i)
				}
			}
			for i := range 5 * n {
				key := fmt.Sprint("absent", i)
				if w.ContainsString(key) != v.ContainsString(key) {
					t.Fatalf("%q answered unlike the View written", key)
				}
			}
			v.Close()
			if _, err := v.WriteTo(io.Discard); !errors.Is(err, sift.ErrClosed) {
				t.Errorf("WriteTo of a closed View: %v, want ErrClosed", err)
			}
		})
	}
	var zero sift.View
	if _, err := zero.WriteTo(io.Discard); !errors.Is(err, sift.ErrClosed) {
		t.Errorf("WriteTo of a zero View: %v, want ErrClosed", err)
	}
}

// TestOpenBadInput: a file of a kind that has no view, damaged or cut
// bytes, a file that is not sift's, and paths that name no file are
// errors that say so, never panics.
func TestOpenBadInput(t *testing.T) {
	dir := t.TempDir()
	good := encode(t, viewKinds()[0].build(t, 100))
	sc, _ := blocked.NewScalable(100, 0.01)
	kc, _ := classic.NewCounting(100, 0.01)
	kf, _ := classic.New(100, 0.01)
	damaged := bytes.Clone(good)
	damaged[len(damaged)-1] ^= 1
	badHeader := bytes.Clone(good)
	badHeader[20] ^= 1
	for _, c := range []struct {
		name string
		data []byte
		want error
	}{
		{"scalable", encode(t, sc), sift.ErrKind},
		{"counting", encode(t, kc), sift.ErrKind},
		{"classic", encode(t, kf), sift.ErrKind},
		{"truncated", good[:len(good)-64], sift.ErrTruncated},
		{"header only", good[:100], sift.ErrTruncated},
		{"empty", nil, sift.ErrTruncated},
		{"payload CRC", damaged, sift.ErrChecksum},
		{"header CRC", badHeader, sift.ErrChecksum},
		{"not sift", []byte("#!/bin/sh\necho this is no filter\n" + string(make([]byte, 200))), sift.ErrMagic},
		{"trailing bytes", append(bytes.Clone(good), 0), sift.ErrCorrupt},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		for name, open := range map[string]func() (*sift.View, error){
			"Open":      func() (*sift.View, error) { return sift.Open(path) },
			"Load":      func() (*sift.View, error) { return sift.Load(path) },
			"FromBytes": func() (*sift.View, error) { return sift.FromBytes(c.data) },
		} {
			v, err := open()
			if v != nil || !errors.Is(err, c.want) {
				t.Errorf("%s(%s): %v, %v; want an error wrapping %v", name, c.name, v, err, c.want)
			}
			var e *sift.Error
			if !errors.As(err, &e) {
				t.Errorf("%s(%s): %T is not a *sift.Error", name, c.name, err)
			}
			if name != "FromBytes" && !strings.HasPrefix(fmt.Sprint(err), "sift: "+path+": ") {
				t.Errorf("%s(%s): %v; want the package's prefix, then the path", name, c.name, err)
			}
		}
		// One file, one error: Open worded a cut file as its kind's decoder
		// did ("blocked: truncated input: header declares 1408 payload
		// bytes at offset 128, input has 1535 bytes"), Load as the file's
		// check ("sift: truncated input: the file has 1535 bytes, its
		// header declares 1536"), and neither named the file.
		_, oerr := sift.Open(path)
		_, lerr := sift.Load(path)
		if fmt.Sprint(oerr) != fmt.Sprint(lerr) {
			t.Errorf("%s: Open: %v; Load: %v; want the same error", c.name, oerr, lerr)
		}
	}
	if _, err := sift.FromBytes(encode(t, sc)); fmt.Sprint(err) != "sift: wrong filter kind: a scalable filter cannot be viewed in place (Open, Load and FromBytes serve blocked, cuckoo, sbbf, window filters; read it with blocked.ReadScalable)" {
		t.Errorf("FromBytes(scalable): %v", err)
	}
	// The payload's checksum can be skipped; the header's cannot.
	if v, err := sift.FromBytes(damaged, sift.WithoutChecksum()); err != nil {
		t.Errorf("FromBytes(damaged payload, WithoutChecksum): %v", err)
	} else {
		v.Close()
	}
	if _, err := sift.FromBytes(badHeader, sift.WithoutChecksum()); !errors.Is(err, sift.ErrChecksum) {
		t.Errorf("FromBytes(damaged header, WithoutChecksum): %v", err)
	}
	if _, err := sift.FromBytes(good, sift.WithMaxSize(64)); !errors.Is(err, sift.ErrTooLarge) {
		t.Errorf("FromBytes(WithMaxSize(64)): %v, want ErrTooLarge", err)
	}
	if v, err := sift.FromBytes(good, sift.WithMaxSize(uint64(len(good)))); err != nil {
		t.Errorf("FromBytes(WithMaxSize(len)): %v", err)
	} else {
		v.Close()
	}
	var pe *fs.PathError
	if _, err := sift.Open(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) {
		t.Errorf("Open(missing file): %v", err)
	}
	if _, err := sift.Open(dir); !errors.As(err, &pe) {
		t.Errorf("Open(directory): %v", err)
	}
}

func wantClosedPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		err, _ := recover().(error)
		if !errors.Is(err, sift.ErrClosed) {
			t.Errorf("%s: panicked with %v, want an error wrapping sift.ErrClosed", what, err)
		}
	}()
	f()
}

// TestViewClosed: a closed View and a zero View panic with ErrClosed, and
// Close is idempotent.
func TestViewClosed(t *testing.T) {
	v, err := sift.FromBytes(encode(t, viewKinds()[1].build(t, 10)))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	for name, v := range map[string]*sift.View{"closed": v, "zero": {}} {
		wantClosedPanic(t, name+" Contains", func() { v.Contains(nil) })
		wantClosedPanic(t, name+" ContainsString", func() { v.ContainsString("") })
		wantClosedPanic(t, name+" ContainsUint64", func() { v.ContainsUint64(1) })
		wantClosedPanic(t, name+" ContainsHash", func() { v.ContainsHash(1) })
		wantClosedPanic(t, name+" ContainsHashes", func() { v.ContainsHashes([]uint64{1}, make([]bool, 1)) })
		wantClosedPanic(t, name+" Hash", func() { v.Hash(nil) })
	}
	if err := (&sift.View{}).Close(); err != nil {
		t.Errorf("zero View's Close: %v", err)
	}
}

// TestViewAllocs: lookups through a View allocate nothing, whatever the kind.
func TestViewAllocs(t *testing.T) {
	for _, vk := range viewKinds() {
		v, err := sift.FromBytes(encode(t, vk.build(t, 100)))
		if err != nil {
			t.Fatal(err)
		}
		key, hs, out := []byte("k1"), []uint64{1, 2, 3}, make([]bool, 3)
		for name, f := range map[string]func(){
			"Contains":       func() { v.Contains(key) },
			"ContainsString": func() { v.ContainsString("k1") },
			"ContainsUint64": func() { v.ContainsUint64(1) },
			"ContainsHash":   func() { v.ContainsHash(1) },
			"ContainsHashes": func() { v.ContainsHashes(hs, out) },
			"Hash":           func() { hs[0] = v.Hash(key) },
		} {
			if raceEnabled && vk.kind == sift.KindWindow && name == "ContainsHashes" {
				continue // see raceEnabled
			}
			if a := testing.AllocsPerRun(100, f); a != 0 {
				t.Errorf("%v %s: %v allocations", vk.kind, name, a)
			}
		}
		v.Close()
	}
}

// TestViewConcurrentLookups: lookups from many goroutines at once (run
// under -race).
func TestViewConcurrentLookups(t *testing.T) {
	for _, vk := range viewKinds() {
		path := filepath.Join(t.TempDir(), "f.sift")
		if err := sift.WriteFile(path, vk.build(t, 500), 1); err != nil {
			t.Fatal(err)
		}
		v, err := sift.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan bool)
		for g := range 4 {
			go func() {
				ok := true
				hs, out := make([]uint64, 100), make([]bool, 100)
				for i := range 500 {
					key := fmt.Sprint("k", (i+g*125)%500)
					ok = ok && v.ContainsString(key) && v.ContainsUint64(uint64(i)) && v.ContainsHash(v.HashString(key))
					hs[i%100] = v.HashString(key)
				}
				done <- ok && v.ContainsHashes(hs, out) == len(hs)
			}()
		}
		for range 4 {
			if !<-done {
				t.Errorf("%v: a false negative under concurrent lookups", vk.kind)
			}
		}
		v.Close()
	}
}

// TestKindRefusedNamesReader: Open, Load and FromBytes of a kind no View
// serves name the function that reads it (before, the error said only
// "cannot be viewed in place": findings R, 8), and that function reads
// the file.
func TestKindRefusedNamesReader(t *testing.T) {
	sc, err := blocked.NewScalable(10, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	co, err := classic.NewCounting(10, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := classic.New(10, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		f      io.WriterTo
		reader string
		read   func(io.Reader) error
	}{
		{sc, "blocked.ReadScalable", func(r io.Reader) error { _, err := blocked.ReadScalable(r); return err }},
		{co, "classic.ReadCounting", func(r io.Reader) error { _, err := classic.ReadCounting(r); return err }},
		{cl, "classic.ReadFilter", func(r io.Reader) error { _, err := classic.ReadFilter(r); return err }},
	} {
		data := encode(t, c.f)
		path := filepath.Join(dir, c.reader+".sift")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, ferr := sift.FromBytes(data)
		_, oerr := sift.Open(path)
		_, lerr := sift.Load(path)
		for _, err := range []error{ferr, oerr, lerr} {
			if !errors.Is(err, sift.ErrKind) || !strings.HasSuffix(fmt.Sprint(err), "; read it with "+c.reader+")") {
				t.Errorf("%v; want ErrKind naming %s", err, c.reader)
			}
		}
		if err := c.read(bytes.NewReader(data)); err != nil {
			t.Errorf("%s: %v", c.reader, err)
		}
	}
}

// FuzzFromBytes: FromBytes of any bytes returns a View or an error wrapping
// one of sift's sentinels, never panics, and a View it returns answers
// lookups and describes what Inspect reads.
func FuzzFromBytes(f *testing.F) {
	for _, vk := range viewKinds() {
		f.Add(encode(f, vk.build(f, 20)))
	}
	sc, _ := blocked.NewScalable(10, 0.01)
	f.Add(encode(f, sc))
	f.Add([]byte("not a filter"))
	sentinels := []error{sift.ErrMagic, sift.ErrVersion, sift.ErrKind, sift.ErrTruncated, sift.ErrChecksum, sift.ErrCorrupt, sift.ErrTooLarge}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range [][]sift.Option{nil, {sift.WithoutChecksum()}} {
			v, err := sift.FromBytes(data, opts...)
			if err != nil {
				known := false
				for _, s := range sentinels {
					known = known || errors.Is(err, s)
				}
				if !known || v != nil {
					t.Fatalf("FromBytes: %v, %v: want nil and an error wrapping a sentinel", v, err)
				}
				continue
			}
			info, err := sift.Inspect(data)
			if err != nil || v.Info() != info {
				t.Fatalf("View.Info %+v, Inspect %+v, %v", v.Info(), info, err)
			}
			hs, out := []uint64{0, 1, ^uint64(0)}, make([]bool, 3)
			v.Contains(data)
			v.ContainsString("k1")
			v.ContainsUint64(1)
			v.ContainsHash(v.Hash(data))
			v.ContainsHashes(hs, out)
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestViewContainsHashesTail: every kind's View.ContainsHashes answers each
// hash as ContainsHash does, counts the trues, and leaves out beyond
// len(hs) alone, for batch lengths on both sides of the kernels' vector
// widths and their small-batch cut-offs.
func TestViewContainsHashesTail(t *testing.T) {
	const n = 1000
	for _, vk := range viewKinds() {
		t.Run(vk.kind.String(), func(t *testing.T) {
			v, err := sift.FromBytes(encode(t, vk.build(t, n)))
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			all := make([]uint64, 0, 2*n)
			for i := range n {
				all = append(all, v.HashString(fmt.Sprint("k", i)), v.HashString(fmt.Sprint("absent", i)))
			}
			const tail = 9
			for _, l := range []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1999, 2000} {
				hs := all[:l]
				for _, fill := range []bool{false, true} {
					out := make([]bool, l+tail)
					for i := range out {
						out[i] = fill
					}
					got := v.ContainsHashes(hs, out)
					want := 0
					for i, h := range hs {
						if out[i] != v.ContainsHash(h) {
							t.Fatalf("len %d: out[%d] = %v, ContainsHash says %v", l, i, out[i], !out[i])
						}
						if out[i] {
							want++
						}
					}
					if got != want {
						t.Fatalf("len %d: returned %d, %d answers true", l, got, want)
					}
					for i := l; i < len(out); i++ {
						if out[i] != fill {
							t.Fatalf("len %d: out[%d] beyond len(hs) changed from %v", l, i, fill)
						}
					}
				}
			}
		})
	}
}

// TestOpenWindowUnmapped: a window file is served from a copy (it changes
// as time passes), so Open unmaps the file at once instead of holding the
// mapping, twice the memory, until Close (Linux: /proc/self/maps); the
// View still answers.
func TestOpenWindowUnmapped(t *testing.T) {
	if _, err := os.ReadFile("/proc/self/maps"); err != nil {
		t.Skip("no /proc/self/maps here")
	}
	w, err := blocked.NewWindow(1000, 0.01, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	w.AddString("k")
	path := filepath.Join(t.TempDir(), "window.sift")
	if err := sift.WriteFile(path, w, 0); err != nil {
		t.Fatal(err)
	}
	w.Close()
	v, err := sift.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	maps, _ := os.ReadFile("/proc/self/maps")
	if bytes.Contains(maps, []byte(path)) {
		t.Errorf("the window file is still mapped after Open:\n%s", maps)
	}
	if !v.ContainsString("k") {
		t.Error("the key is not found")
	}
}

// TestNilOption: a nil Option does nothing, in the root package as in the
// kinds' (an outside check had FromBytes(b, nil) panic with a nil
// dereference where blocked.FromBytes(b, nil) ignored it).
func TestNilOption(t *testing.T) {
	f, err := blocked.New(1000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	f.AddString("k")
	b, _ := f.MarshalBinary()
	path := filepath.Join(t.TempDir(), "f.sift")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, open := range map[string]func() (*sift.View, error){
		"FromBytes": func() (*sift.View, error) { return sift.FromBytes(b, nil) },
		"Open":      func() (*sift.View, error) { return sift.Open(path, nil, sift.WithMaxSize(1<<20)) },
		"Load":      func() (*sift.View, error) { return sift.Load(path, sift.WithMaxSize(1<<20), nil) },
	} {
		v, err := open()
		if err != nil {
			t.Errorf("%s with a nil Option: %v", name, err)
			continue
		}
		if !v.ContainsString("k") {
			t.Errorf("%s with a nil Option: the key is missing", name)
		}
		v.Close()
	}
}
