package sift

import (
	"io"

	"github.com/sift-go/sift/internal/errs"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/mem"
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
// record) to path atomically, with generation gen recorded in the header
// (SetGeneration; 0 records none): into a temporary file beside path, named
// for this process (".NAME.sift-tmp-PID-RANDOM", with a NAME over 223 bytes
// shortened to a prefix and a hash of it, so that every name up to 255
// bytes can be written), synced, then renamed over path, and the directory
// synced. A process that opens path, or a reload.Filter watching it, sees
// the old file or the complete new one, never a mix, also after a crash or
// a SIGKILL at any moment. The temporary file is removed on any error, and
// the temporary files of writers that died are removed by the next
// WriteFile to path: on Linux, macOS and the BSDs a writer holds its
// temporary file locked (flock) until the rename, and a file nobody holds
// is removed when its process is gone, or names this process without
// being its own (a container's writer is process 1 at every start), or is
// a minute old; elsewhere, when its process is gone or it is a day old.
//
// The new file keeps the permission bits of the file at path (of the file
// a symbolic link there points to; when there is none, 0666 less the
// process's umask, as for a file the shell creates), and is owned
// by the user running the writer: the old file's owner and group are not
// kept, since setting them takes privileges. The rename replaces path
// itself: when path is a symbolic link, the link is replaced by the new
// file and the file it pointed to is left as it was, as a deploy that
// flips a link to publish a new file expects (resolve the link first, with
// filepath.EvalSymlinks, to update the file it points to instead).
//
// The bytes f writes must be exactly one encoding, as long as its header
// declares: bytes that do not begin with sift's magic (not a sift filter,
// however short) are an error wrapping ErrMagic, fewer (f's WriteTo
// returned nil early, as a bytes.Reader of a cut download does) one
// wrapping ErrTruncated, more one wrapping ErrCorrupt, and path keeps the
// old file, since no reader would accept the new one.
//
// An empty path is an error wrapping ErrInvalidArgument. Errors name the
// step and wrap the system's error: a full disk is an
// error for which errors.Is(err, syscall.ENOSPC) holds, and path keeps the
// old file. (An error syncing the directory after the rename says that the
// new file is in place but the rename may not survive a crash.)
//
// Write served files only this way (or by another rename): a file written
// in place (os.WriteFile, cp, truncate) faults the processes that map it
// (blocked.Open, cuckoo.Open, reload.WithMmap); readers that copy it
// (blocked.Load, reload's default) see an error until the write completes.
func WriteFile(path string, f io.WriterTo, gen uint64) error {
	if path == "" {
		// Refused here: the temporary file's name and the rename would
		// otherwise fail with an error that does not say why.
		return errEmptyPath
	}
	_, err := mem.WriteAtomic(path, func(w io.Writer) (int64, error) {
		sw := &GenerationWriter{W: w, Generation: gen}
		n, err := f.WriteTo(sw)
		if err == nil {
			err = sw.Close()
		}
		return n, err
	}, mem.AtomicOptions{})
	if err != nil {
		return errs.Wrap("sift", err) // mem's message names path and the step
	}
	return nil
}

// errEmptyPath is WriteFile's error for an empty path.
var errEmptyPath = errs.Annotatef("sift", []error{ErrInvalidArgument}, "WriteFile: empty path")

// GenerationWriter passes one sift encoding through to W, recording
// Generation in its header on the way (SetGeneration): it holds back the
// header's 128 bytes until they are complete, then writes everything else
// as it comes, up to the end of the encoding the header declares (its
// payload offset plus its payload length). Close reports a stream that
// ended before that end.
type GenerationWriter struct {
	W          io.Writer
	Generation uint64

	hdr [format.HeaderSize]byte
	n   int // header bytes held
	// off and end are the payload's offset and the encoding's size in
	// bytes as its header declares them, and written the bytes of it W
	// has taken, header included (0 until the header has gone to W,
	// HeaderSize and more after): Close compares written with end, so
	// that a WriteTo that stops early and returns nil (a cut download fed
	// through bytes.Reader) is an error, not a file that WriteFile
	// publishes and every reader then refuses.
	off, end, written uint64
	err               error // the header's error, W's, or bytes past end: every later Write and Close return it
}

// Write implements io.Writer. It returns an error wrapping ErrMagic as
// soon as the bytes that have arrived differ from sift's magic (the first
// 8 bytes), however few they are, and SetGeneration's error when the first
// 128 bytes are not a valid sift header; it writes nothing then.
// Bytes past the end of the encoding the header declares are not written:
// Write writes up to that end and returns an error wrapping ErrCorrupt.
func (g *GenerationWriter) Write(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.written != 0 {
		return g.pass(p)
	}
	c := copy(g.hdr[g.n:], p)
	g.n += c
	// The magic is checked from the first byte, so that a short input
	// that is not a sift encoding at all (a text, a Guava stream) is told
	// so, not that it ended inside its header.
	if c > 0 && !format.HasMagic(g.hdr[:g.n]) {
		g.err = ErrMagic
		return 0, g.err
	}
	if g.n < format.HeaderSize {
		return c, nil
	}
	if err := format.SetGeneration(g.hdr[:], g.Generation); err != nil {
		g.err = err
		return 0, err
	}
	// The total is the header's payload offset plus payload length for
	// every kind (format.CheckHead's test of a file, which Load applies):
	// each kind's record is one header and one payload, a scalable filter's
	// stages and a window's generations included, nested inside the payload
	// its header counts. SetGeneration parsed the header, so this cannot
	// fail.
	h, off, _ := format.ParseHeader(g.hdr[:], 0, format.Options{})
	g.off, g.end = off, off+h.PayloadLen // ParseHeader bounds both: no overflow
	if _, err := g.W.Write(g.hdr[:]); err != nil {
		g.err = err // W may hold part of the header: nothing can follow it
		return 0, err
	}
	g.written = format.HeaderSize
	m, err := g.pass(p[c:])
	return c + m, err
}

// pass writes p, the bytes after the header, to W, up to the encoding's
// end.
func (g *GenerationWriter) pass(p []byte) (int, error) {
	q := p
	if left := g.end - g.written; uint64(len(q)) > left {
		q = q[:left]
	}
	m, err := g.W.Write(q)
	g.written += uint64(m)
	switch {
	case err != nil:
		g.err = err // W may hold part of q: what follows would leave a gap
	case len(q) < len(p):
		g.err = errs.Annotatef("sift", []error{ErrCorrupt}, "the encoding goes on past the %d bytes its header declares (a payload of %d bytes at offset %d): %d bytes have arrived", g.end, g.end-g.off, g.off, g.written+uint64(len(p)-m))
	}
	return m, g.err
}

// Close returns an error wrapping ErrTruncated when the stream ended before
// the end of the encoding its header declares (when it ended inside the
// header, nothing was written to W), Write's error for a header that was
// not a valid sift header or for bytes past that end, and the error W
// returned. It does not close W.
func (g *GenerationWriter) Close() error {
	if g.err != nil {
		return g.err
	}
	if g.written == 0 {
		return errs.Annotatef("sift", []error{ErrTruncated}, "the encoding ended after %d bytes, inside its 128-byte header", g.n)
	}
	if g.written < g.end {
		return errs.Annotatef("sift", []error{ErrTruncated}, "the encoding ended after %d bytes, its header declares %d (a payload of %d bytes at offset %d)", g.written, g.end, g.end-g.off, g.off)
	}
	return nil
}
