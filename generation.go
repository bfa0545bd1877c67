package sift

import (
	"bufio"
	"io"
	"os"
	"path/filepath"

	"github.com/sift-go/sift/internal/errs"
	"github.com/sift-go/sift/internal/format"
)

// SetGeneration records generation gen in the header at the start of b (the
// first 128 bytes of any sift encoding) and recomputes the header's
// checksum; the payload and its checksum are untouched. A non-zero gen makes
// the header format version 2, the only version with the field; gen 0
// removes it (version 1, which every sift release reads). Servers report
// the generation they serve (Info.Generation, reload.Version) so a fleet
// can tell which build each one holds. It changes nothing and returns
// Inspect's error when b does not start with a valid header.
func SetGeneration(b []byte, gen uint64) error { return format.SetGeneration(b, gen) }

// WriteFile writes the filter f (any sift filter: its WriteTo writes one
// record) to path atomically: into a temporary file in path's directory,
// with generation gen recorded in the header (SetGeneration; 0 records
// none), synced, then renamed over path, and the directory synced. A
// process that opens path, or a reload.Filter watching it, sees the old
// file or the complete new one, never a mix, also after a crash. The
// temporary file is removed on any error.
//
// Do not write a served file in place (os.WriteFile, or truncating it):
// its readers map it, and a mapping of a file that shrinks faults.
func WriteFile(path string, f io.WriterTo, gen uint64) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return errs.Wrap("sift", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	sw := &GenerationWriter{W: bw, Generation: gen}
	if _, err := f.WriteTo(sw); err != nil {
		return writeErr(path, err)
	}
	if err := sw.Close(); err != nil {
		return writeErr(path, err)
	}
	if err := bw.Flush(); err != nil {
		return writeErr(path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return errs.Wrap("sift", err)
	}
	if err := tmp.Sync(); err != nil {
		return errs.Wrap("sift", err)
	}
	if err := tmp.Close(); err != nil {
		return errs.Wrap("sift", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return errs.Wrap("sift", err)
	}
	// Make the rename durable; some file systems cannot sync a directory,
	// and the data itself is synced already.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// writeErr says which file WriteFile was writing, and reads "sift:" once.
func writeErr(path string, err error) error {
	if e, ok := err.(*errs.Error); ok && e.Pkg == "sift" {
		return errs.Errorf("sift", []error{err}, "%s (writing %s)", e.Msg, path)
	}
	return errs.Errorf("sift", []error{err}, "writing %s: %v", path, err)
}

// GenerationWriter passes one sift encoding through to W, recording
// Generation in its header on the way (SetGeneration): it holds back the
// header's 128 bytes until they are complete, then writes everything else
// as it comes. Close reports a stream that ended inside the header.
type GenerationWriter struct {
	W          io.Writer
	Generation uint64

	hdr  [format.HeaderSize]byte
	n    int // header bytes held
	done bool
}

// Write implements io.Writer. It returns SetGeneration's error when the
// first 128 bytes are not a valid sift header, and writes nothing then.
func (g *GenerationWriter) Write(p []byte) (int, error) {
	if g.done {
		return g.W.Write(p)
	}
	c := copy(g.hdr[g.n:], p)
	g.n += c
	if g.n < format.HeaderSize {
		return c, nil
	}
	if err := format.SetGeneration(g.hdr[:], g.Generation); err != nil {
		return 0, err
	}
	if _, err := g.W.Write(g.hdr[:]); err != nil {
		return 0, err
	}
	g.done = true
	m, err := g.W.Write(p[c:])
	return c + m, err
}

// Close returns an error wrapping ErrTruncated when the stream ended before
// the header was complete (nothing was written to W then). It does not
// close W.
func (g *GenerationWriter) Close() error {
	if !g.done {
		return errs.Annotatef("sift", []error{ErrTruncated}, "the encoding ended after %d bytes, inside its 128-byte header", g.n)
	}
	return nil
}
