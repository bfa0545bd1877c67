package sift_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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

// TestVersion1Testdata: the version 1 files committed before version 2
// existed still read, report version 1 and no generation, and stamping one
// keeps every key and changes only the header.
func TestVersion1Testdata(t *testing.T) {
	for _, path := range []string{
		filepath.Join("blocked", "testdata", "blocked-v1.sift"),
		filepath.Join("blocked", "testdata", "scalable-v1.sift"),
		filepath.Join("sbbf", "testdata", "sbbf-v1.sift"),
	} {
		name := filepath.Base(path)
		info, err := sift.InspectFile(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if info.Version != 1 || info.Generation != 0 {
			t.Fatalf("%s: version %d generation %d, want 1 and 0", name, info.Version, info.Generation)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		stamped := bytes.Clone(data)
		if err := sift.SetGeneration(stamped, 42); err != nil {
			t.Fatalf("%s: SetGeneration: %v", name, err)
		}
		info2, err := sift.Verify(stamped)
		if err != nil || info2.Version != 2 || info2.Generation != 42 || info2.PayloadCRC != info.PayloadCRC {
			t.Fatalf("%s stamped: %+v, %v", name, info2, err)
		}
		if !bytes.Equal(stamped[128:], data[128:]) {
			t.Fatalf("%s: SetGeneration changed bytes past the header", name)
		}
	}
	data, err := os.ReadFile(filepath.Join("blocked", "testdata", "blocked-v1.sift"))
	if err != nil {
		t.Fatal(err)
	}
	old, err := blocked.FromBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	stamped := bytes.Clone(data)
	if err := sift.SetGeneration(stamped, 7); err != nil {
		t.Fatal(err)
	}
	v2, err := blocked.FromBytes(stamped)
	if err != nil {
		t.Fatalf("a version 2 blocked file: %v", err)
	}
	a, _ := old.MarshalBinary()
	b, _ := v2.MarshalBinary()
	if !bytes.Equal(a[128:], b[128:]) {
		t.Fatal("the version 2 file decodes to other bits")
	}
}

// TestWriteFile writes filters of two kinds with and without a generation
// and reads the generation back from the file.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	bf, err := blocked.New(1000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	bf.AddString("alice")
	cf, err := cuckoo.New(1000)
	if err != nil {
		t.Fatal(err)
	}
	if err := cf.AddString("bob"); err != nil {
		t.Fatal(err)
	}
	if err := sift.WriteFile(path, bf, 5); err != nil {
		t.Fatal(err)
	}
	info, err := sift.InspectFile(path)
	if err != nil || info.Generation != 5 || info.Version != 2 || info.Kind != sift.KindBlocked {
		t.Fatalf("blocked, generation 5: %+v, %v", info, err)
	}
	v, err := blocked.Open(path)
	if err != nil || !v.ContainsString("alice") {
		t.Fatalf("Open of a version 2 file: %v", err)
	}
	v.Close()
	if err := sift.WriteFile(path, cf, 0); err != nil {
		t.Fatal(err)
	}
	info, err = sift.InspectFile(path)
	if err != nil || info.Generation != 0 || info.Version != 1 || info.Kind != sift.KindCuckoo {
		t.Fatalf("cuckoo, no generation: %+v, %v", info, err)
	}
	want, _ := cf.MarshalBinary()
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, want) {
		t.Fatal("WriteFile with generation 0 differs from MarshalBinary")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("WriteFile left %d files in the directory", len(ents))
	}
	// A writer that is not a sift filter fails and leaves path as it was.
	if err := sift.WriteFile(path, bytes.NewBufferString(strings.Repeat("not a filter ", 20)), 3); !errors.Is(err, sift.ErrMagic) {
		t.Fatalf("WriteFile of garbage: %v", err)
	}
	if got2, _ := os.ReadFile(path); !bytes.Equal(got2, want) {
		t.Fatal("a failed WriteFile changed the file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("a failed WriteFile left %d files", len(ents))
	}
	// The first 5 bytes of a filter are a cut filter; 5 other bytes are
	// not a filter at all.
	if err := sift.WriteFile(path, bytes.NewReader(want[:5]), 3); !errors.Is(err, sift.ErrTruncated) {
		t.Fatalf("WriteFile of a filter's first 5 bytes: %v", err)
	}
	if err := sift.WriteFile(path, bytes.NewBufferString("short"), 3); !errors.Is(err, sift.ErrMagic) {
		t.Fatalf("WriteFile of 5 bytes of text: %v", err)
	}
}

// writerTo is an io.WriterTo made of a function.
type writerTo func(w io.Writer) (int64, error)

func (f writerTo) WriteTo(w io.Writer) (int64, error) { return f(w) }

// TestWriteFileLongName: a file name of 240 bytes is valid (NAME_MAX is
// 255 on Linux file systems) and os.WriteFile writes it; WriteFile could
// not, since its temporary file's name was the target's plus about 30
// bytes (findings K, 3). A name too long for the file system itself is an
// error that says so, and path is not written.
func TestWriteFileLongName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, strings.Repeat("f", 235)+".sift")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Skipf("the file system refuses the name itself: %v", err)
	}
	os.Remove(path)
	f, err := blocked.New(100, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	f.AddString("k")
	if err := sift.WriteFile(path, f, 1); err != nil {
		t.Fatalf("WriteFile of a valid 240-byte name: %v", err)
	}
	v, err := sift.Load(path)
	if err != nil || !v.ContainsString("k") {
		t.Fatalf("reading it back: %v", err)
	}
	v.Close()
	tooLong := filepath.Join(dir, strings.Repeat("f", 251)+".sift")
	err = sift.WriteFile(tooLong, f, 1)
	if err == nil || !strings.Contains(err.Error(), "file name is too long") {
		t.Errorf("WriteFile of a 256-byte name: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the directory, want the one written", len(ents))
	}
}

// TestWriteFileWrongLength: a writer whose WriteTo returns nil after fewer
// or more bytes than the encoding its header declares (a cut download
// given as a bytes.Reader) fails WriteFile with ErrTruncated or
// ErrCorrupt and a message naming both counts; path keeps the old file
// and no temporary file is left. Before, a short write was published, and
// Load then refused the file. Every kind is checked, the window too.
func TestWriteFileWrongLength(t *testing.T) {
	encs := encodings(t)
	w, err := blocked.NewWindow(1000, 0.01, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	w.AddString("x")
	wenc, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	encs = append(encs, encoded{name: "window", data: wenc})
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	for _, e := range encs {
		if err := sift.WriteFile(path, bytes.NewReader(e.data), 4); err != nil {
			t.Fatalf("%s: the whole encoding: %v", e.name, err)
		}
		old, _ := os.ReadFile(path)
		n := len(e.data)
		for _, c := range []struct {
			what string
			data []byte
			want error
			text string
		}{
			{"cut inside the payload", e.data[:200], sift.ErrTruncated, fmt.Sprintf("sift: writing %s: write ", path)},
			{"one byte short", e.data[:n-1], sift.ErrTruncated, fmt.Sprintf("truncated input: the encoding ended after %d bytes, its header declares %d (a payload of %d bytes at offset 128)", n-1, n, n-128)},
			{"one byte more", append(bytes.Clone(e.data), 0), sift.ErrCorrupt, fmt.Sprintf("corrupt filter: the encoding goes on past the %d bytes its header declares (a payload of %d bytes at offset 128): %d bytes have arrived", n, n-128, n+1)},
		} {
			err := sift.WriteFile(path, writerTo(func(w io.Writer) (int64, error) {
				m, _ := w.Write(c.data)
				return int64(m), nil // nil, whatever arrived
			}), 5)
			if !errors.Is(err, c.want) || !strings.Contains(fmt.Sprint(err), c.text) {
				t.Errorf("%s, %s: %v; want %v, reading %q", e.name, c.what, err, c.want, c.text)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, old) {
				t.Fatalf("%s, %s: the file changed", e.name, c.what)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Fatalf("%s, %s: %d files left in the directory", e.name, c.what, len(ents))
			}
		}
	}
}

// TestWriteFileErrorPrefix: WriteFile's errors carry the package prefix
// once (DESIGN.md, section 1) and still match their sentinels. They read
// "sift: writing P: write T: sift: not a sift filter (bad magic)" and
// "...: blocked: filter is closed ...".
func TestWriteFileErrorPrefix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.sift")
	f, err := blocked.New(100, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := f.MarshalBinary()
	var guava bytes.Buffer // a Guava stream shorter than a sift header
	g, err := classic.New(10, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.WriteGuava(&guava); err != nil || guava.Len() >= 128 {
		t.Fatalf("a Guava stream of %d bytes (%v), want fewer than 128", guava.Len(), err)
	}
	for _, c := range []struct {
		what string
		f    io.WriterTo
		want error
		tail string
	}{
		{"not a filter", bytes.NewBufferString(strings.Repeat("not a filter ", 20)), sift.ErrMagic, ": not a sift filter (bad magic)"},
		// Short inputs are told by their first bytes, not by their
		// length (before: "truncated input: the encoding ended after 5
		// bytes, inside its 128-byte header"; findings R, 8).
		{"a short text", strings.NewReader("hello"), sift.ErrMagic, ": not a sift filter (bad magic)"},
		{"a short Guava stream", bytes.NewReader(guava.Bytes()), sift.ErrMagic, ": not a sift filter (bad magic)"},
		{"a zero filter", &blocked.Filter{}, sift.ErrClosed, ": cannot encode a closed or zero filter"},
		{"cut short", bytes.NewReader(enc[:300]), sift.ErrTruncated, fmt.Sprintf(": truncated input: the encoding ended after 300 bytes, its header declares %d (a payload of %d bytes at offset 128)", len(enc), len(enc)-128)},
	} {
		err := sift.WriteFile(path, c.f, 1)
		msg := fmt.Sprint(err)
		if !errors.Is(err, c.want) || !strings.HasPrefix(msg, "sift: writing "+path+": write ") || !strings.HasSuffix(msg, c.tail) ||
			strings.Contains(msg, ": sift: ") || strings.Contains(msg, ": blocked: ") {
			t.Errorf("%s: %v; want one prefix, ending %q, matching %v", c.what, err, c.tail, c.want)
		}
	}
}

// TestWriteFileEmptyPath: an empty path is refused up front with an error
// that says so (before: "sift: writing : rename ...sift-tmp-N : no such
// file or directory"; findings R, 8).
func TestWriteFileEmptyPath(t *testing.T) {
	f, err := blocked.New(100, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	err = sift.WriteFile("", f, 1)
	if !errors.Is(err, sift.ErrInvalidArgument) || fmt.Sprint(err) != "sift: invalid argument: WriteFile: empty path" {
		t.Errorf("WriteFile of an empty path: %v", err)
	}
}

// emptyBlocked is the encoding of an empty blocked filter for 100 keys.
func emptyBlocked(t *testing.T) []byte {
	t.Helper()
	f, err := blocked.New(100, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// TestGenerationWriterMagic: the first bytes that differ from the magic
// are an error wrapping ErrMagic at once, and nothing reaches W; bytes of
// a sift header are held back until it is complete.
func TestGenerationWriterMagic(t *testing.T) {
	enc := emptyBlocked(t)
	var out bytes.Buffer
	g := &sift.GenerationWriter{W: &out}
	if n, err := g.Write(enc[:5]); n != 5 || err != nil {
		t.Fatalf("Write of the magic's first 5 bytes: %d, %v", n, err)
	}
	if n, err := g.Write([]byte("xyz")); n != 0 || !errors.Is(err, sift.ErrMagic) {
		t.Errorf("Write of 3 bytes that end the magic wrong: %d, %v; want 0, ErrMagic", n, err)
	}
	if err := g.Close(); !errors.Is(err, sift.ErrMagic) {
		t.Errorf("Close: %v, want ErrMagic", err)
	}
	g = &sift.GenerationWriter{W: &out}
	if n, err := g.Write([]byte{'{'}); n != 0 || !errors.Is(err, sift.ErrMagic) {
		t.Errorf("Write of one byte that is not the magic's: %d, %v; want 0, ErrMagic", n, err)
	}
	if out.Len() != 0 {
		t.Errorf("W has %d bytes, want none", out.Len())
	}
}

// TestGenerationWriterLength: GenerationWriter writes no byte past the
// encoding its header declares, and every later Write and Close return the
// error; Close reports a stream that ended inside the payload.
func TestGenerationWriterLength(t *testing.T) {
	enc := emptyBlocked(t)
	var out bytes.Buffer
	g := &sift.GenerationWriter{W: &out}
	if n, err := g.Write(enc[:len(enc)-1]); n != len(enc)-1 || err != nil {
		t.Fatalf("Write of all but a byte: %d, %v", n, err)
	}
	if err := g.Close(); !errors.Is(err, sift.ErrTruncated) {
		t.Errorf("Close a byte short: %v, want ErrTruncated", err)
	}
	if n, err := g.Write([]byte{enc[len(enc)-1], 9, 9}); n != 1 || !errors.Is(err, sift.ErrCorrupt) {
		t.Errorf("Write of the last byte and two more: %d, %v; want 1, ErrCorrupt", n, err)
	}
	if n, err := g.Write([]byte{9}); n != 0 || !errors.Is(err, sift.ErrCorrupt) {
		t.Errorf("a later Write: %d, %v; want 0, ErrCorrupt", n, err)
	}
	if err := g.Close(); !errors.Is(err, sift.ErrCorrupt) {
		t.Errorf("Close: %v, want ErrCorrupt", err)
	}
	if !bytes.Equal(out.Bytes(), enc) {
		t.Errorf("W has %d bytes, want the %d of the encoding", out.Len(), len(enc))
	}
}

// TestGenerationWriterSplits feeds the header in pieces of every size.
func TestGenerationWriterSplits(t *testing.T) {
	f, err := blocked.New(100, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	f.AddString("x")
	enc, _ := f.MarshalBinary()
	want := bytes.Clone(enc)
	if err := sift.SetGeneration(want, 99); err != nil {
		t.Fatal(err)
	}
	for step := 1; step <= 200; step += 7 {
		var out bytes.Buffer
		g := &sift.GenerationWriter{W: &out, Generation: 99}
		for i := 0; i < len(enc); i += step {
			n, err := g.Write(enc[i:min(i+step, len(enc))])
			if err != nil || n != min(step, len(enc)-i) {
				t.Fatalf("step %d at %d: %d, %v", step, i, n, err)
			}
		}
		if err := g.Close(); err != nil || !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("step %d: %v, equal %v", step, err, bytes.Equal(out.Bytes(), want))
		}
	}
}

// TestGenerationWriterNotSift: bytes that are not a sift encoding fail at
// the header's 128th byte with ErrMagic, every later Write and Close
// return that error, and nothing reaches W. (Close said "the encoding
// ended after 128 bytes, inside its 128-byte header".)
func TestGenerationWriterNotSift(t *testing.T) {
	var out bytes.Buffer
	g := &sift.GenerationWriter{W: &out, Generation: 7}
	junk := []byte(strings.Repeat("not a filter ", 20))
	if _, err := g.Write(junk); !errors.Is(err, sift.ErrMagic) {
		t.Fatalf("Write: %v, want ErrMagic", err)
	}
	if _, err := g.Write(junk); !errors.Is(err, sift.ErrMagic) {
		t.Errorf("a second Write: %v, want ErrMagic", err)
	}
	if err := g.Close(); !errors.Is(err, sift.ErrMagic) || errors.Is(err, sift.ErrTruncated) {
		t.Errorf("Close: %v, want the header's ErrMagic", err)
	}
	if out.Len() != 0 {
		t.Errorf("%d bytes reached W", out.Len())
	}
}

// failOnce is a writer whose first Write fails.
type failOnce struct {
	bytes.Buffer
	failed bool
}

func (w *failOnce) Write(p []byte) (int, error) {
	if !w.failed {
		w.failed = true
		return 0, errors.New("disk full")
	}
	return w.Buffer.Write(p)
}

// TestGenerationWriterHeaderWriteFails: when W fails to take the header,
// every later Write and Close return that error (a later Write sent the
// header again and went on, and the stream lost the bytes between).
func TestGenerationWriterHeaderWriteFails(t *testing.T) {
	enc := emptyBlocked(t)
	w := &failOnce{}
	g := &sift.GenerationWriter{W: w, Generation: 3}
	if _, err := g.Write(enc[:200]); err == nil {
		t.Fatal("Write: no error from a failing W")
	}
	if n, err := g.Write(enc[200:]); err == nil {
		t.Errorf("a later Write: %d, nil; W has %d bytes", n, w.Len())
	}
	if err := g.Close(); err == nil {
		t.Error("Close: nil after W failed")
	}
}

// TestVersion2EveryKind stamps a generation on a record of every kind: each
// kind's decoder reads the version 2 record, and the filter it decodes
// re-encodes to the same payload (the generation belongs to the file, not
// the filter, so the re-encoding is version 1).
func TestVersion2EveryKind(t *testing.T) {
	for _, e := range encodings(t) {
		stamped := bytes.Clone(e.data)
		if err := sift.SetGeneration(stamped, 1<<40+3); err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		info, err := sift.Verify(stamped)
		if err != nil || info.Generation != 1<<40+3 || info.Version != 2 {
			t.Fatalf("%s: Verify: %+v, %v", e.name, info, err)
		}
		var re []byte
		switch e.name {
		case "blocked":
			v, err := blocked.FromBytes(stamped)
			if err != nil {
				t.Fatalf("%s: %v", e.name, err)
			}
			re, _ = v.MarshalBinary()
		case "cuckoo":
			v, err := cuckoo.FromBytes(stamped)
			if err != nil {
				t.Fatalf("%s: %v", e.name, err)
			}
			re, _ = v.MarshalBinary()
		case "scalable":
			v, err := blocked.ReadScalable(bytes.NewReader(stamped))
			if err != nil {
				t.Fatalf("%s: %v", e.name, err)
			}
			re, _ = v.MarshalBinary()
		case "counting":
			v, err := classic.ReadCounting(bytes.NewReader(stamped))
			if err != nil {
				t.Fatalf("%s: %v", e.name, err)
			}
			re, _ = v.MarshalBinary()
		case "classic":
			v, err := classic.ReadFilter(bytes.NewReader(stamped))
			if err != nil {
				t.Fatalf("%s: %v", e.name, err)
			}
			re, _ = v.MarshalBinary()
		case "sbbf":
			v, err := sbbf.FromBytes(stamped)
			if err != nil {
				t.Fatalf("%s: %v", e.name, err)
			}
			re, _ = v.MarshalBinary()
		default:
			t.Fatalf("no decoder for %s", e.name)
		}
		if !bytes.Equal(re, e.data) {
			t.Fatalf("%s: the version 2 record decodes to a filter that re-encodes differently", e.name)
		}
	}
}

// WriteFile publishes a filter atomically with a build number that
// servers (package reload) and sift info report.
func ExampleWriteFile() {
	dir, _ := os.MkdirTemp("", "sift-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "blocklist.sift")

	f, _ := blocked.New(1000, 0.01)
	f.AddString("alice")
	if err := sift.WriteFile(path, f, 7); err != nil {
		fmt.Println(err)
		return
	}
	info, _ := sift.InspectFile(path)
	fmt.Println(info.Kind, "version", info.Version, "generation", info.Generation)
	// Output: blocked version 2 generation 7
}
