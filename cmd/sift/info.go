package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/mem"
)

var infoCmd = &command{
	name:    "info",
	summary: "describe a filter file and verify its checksums",
	usage: `usage: sift info [-kind K | -guava] FILE...

Prints, for each filter FILE: its kind, geometry, hash and seed, size, fill,
the number of keys it holds (for cuckoo the fingerprints stored, which
leave out keys that were false positives when added; estimated from the
fill for Bloom filters), the false-positive rate predicted at that fill
(neither for a window, whose keys age out: its span and slice instead),
and whether its header and payload checksums (CRC-32C) verify.

  -kind K   fail unless every FILE holds a filter of kind K
  -guava    the FILEs are Guava BloomFilters in Guava's stream format (which
            has no checksum: only its structure can be checked)

Exit status: 0 when every file is a valid filter, 2 otherwise (a damaged
file is still described as far as its header allows, with "checksum: BAD").
`,
	run: runInfo,
}

func runInfo(e *env) (int, error) {
	fs := newFlagSet("info")
	kind := &choiceValue{choices: kindNamesAll()}
	fs.Var(kind, "kind", "")
	guava := fs.Bool("guava", false, "")
	args, err := parseFlags(fs, e.args)
	if err != nil {
		return exitError, err
	}
	if *guava && kind.set {
		return exitError, errors.New("-guava and -kind cannot be combined")
	}
	if len(args) == 0 {
		return exitError, errors.New("missing filter FILE (usage: sift info FILE...)")
	}
	var firstErr error
	failed := 0
	for i, path := range args {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		describeFile := describe
		if *guava {
			describeFile = describeGuava
		}
		if err := describeFile(e.stdout, path, kind.val); err != nil {
			if len(args) > 1 { // name the failing file among several
				fmt.Fprintf(e.stderr, "sift info: %s\n", oneLine(err))
			}
			if firstErr == nil {
				firstErr = err
			}
			failed++
		}
	}
	if firstErr != nil {
		if len(args) > 1 {
			return exitError, fmt.Errorf("%d of %d files failed", failed, len(args))
		}
		return exitError, firstErr
	}
	return exitOK, nil
}

// kindNamesAll lists every kind of the file format this version reads
// (not the retired window layouts, which every reader refuses).
func kindNamesAll() []string {
	var names []string
	for k := sift.Kind(1); !strings.HasPrefix(k.String(), "kind("); k++ {
		if !format.Kind(k).Retired() {
			names = append(names, k.String())
		}
	}
	return names
}

// describe prints what info reports about one file. It verifies the
// checksums itself (sift.Verify), so a damaged payload is reported as such
// even for kinds this command cannot open.
//
// It reads the file three times, by path: its header (to refuse a file of
// another kind, or not a sift file, before copying it), a copy (checksums,
// bits set) and the kind's reader (geometry, keys). The header printed is
// the copy's, and the file must still be the copy's (same inode, size and
// modification time) after the kind's reader has read it: a file replaced
// or rewritten between the reads is reported as changed, never described
// with one version's checksum and another's geometry.
func describe(w io.Writer, path, want string) error {
	h, err := readHeader(path)
	if err != nil {
		return err
	}
	if err := wantKind(path, h, want); err != nil {
		return err
	}
	b, region, copied, err := mem.ReadFile(path) // a copy: a file changed meanwhile cannot fault info
	if errors.Is(err, mem.ErrChanged) {
		return changedErr(pathErr(err))
	}
	if err != nil {
		return pathErr(err)
	}
	if h, err = sift.Inspect(b); err != nil { // readHeader parsed it: replaced since
		region.Free()
		return changedErr(fmt.Errorf("%s: %w", path, mem.ErrChanged))
	}
	if err := wantKind(path, h, want); err != nil {
		region.Free()
		return err
	}
	// The encoding the header describes, without what follows it.
	enc := b[:min(uint64(len(b)), h.Size)]
	_, verifyErr := sift.Verify(enc)
	// What is needed of the copy is taken now, and the copy freed before
	// the kind's reader makes its own: info needed twice the file's size
	// (and refused a filter query could read).
	fileSize := uint64(len(b))
	bitsSet := -1.0
	if verifyErr == nil && countsBits(h.Kind) {
		bitsSet = bloomFill(h.Kind, enc[h.PayloadOffset:])
	}
	b, enc = nil, nil
	region.Free()

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) {
		fmt.Fprintf(tw, "%s:\t"+format+"\n", append([]any{k}, args...)...)
	}
	row("file", "%s", path)
	row("size", "%d bytes (%s): header %d, payload %d", fileSize, sizeString(int64(fileSize)), h.PayloadOffset, h.PayloadSize)
	row("kind", "%v (format version %d)", h.Kind, h.Version)
	if h.Generation != 0 {
		row("generation", "%d", h.Generation)
	}
	row("hash", "%v, seed %#x", h.Hash, h.Seed)

	var st filterStats
	var openErr error
	k := kindByFormat(h.Kind)
	switch {
	case verifyErr != nil:
		// Describe nothing beyond the header.
	case k == nil || k.open == nil:
		openErr = fmt.Errorf("%s: unsupported kind: this sift cannot open %v filters (it reads %s)", path, h.Kind, strings.Join(openKindNames(), " and "))
		var params []string
		for _, p := range h.Params {
			params = append(params, fmt.Sprint(p))
		}
		row("params", "%s", strings.Join(params, " "))
	default:
		var f queryFilter
		beforeOpen(path)
		f, openErr = k.open(path)
		if openErr == nil {
			st = f.stats()
			f.close()
		}
		// Whether the reader succeeded or not, what it read must be the
		// copy's file: else its geometry, or its error, is another's.
		if err := unchanged(path, copied); err != nil {
			return err
		}
		if openErr == nil {
			row("geometry", "%s", st.geometry)
			switch {
			case st.count < 0: // unknown (a window: its keys age out)
			case st.saturated:
				row("keys", saturatedKeys)
			case st.countExact:
				row("keys", "%d", st.count)
			default:
				row("keys", "%d (estimated from the fill)", st.count)
			}
			if st.count > 0 && !st.saturated {
				row("bits/key", "%.2f", float64(st.payloadBytes)*8/float64(st.count))
			}
			if st.fill < 0 { // a Bloom filter: count the bits set
				st.fill, st.fillWhat = bitsSet, "of bits set"
			}
			row("fill", "%.2f%% %s", 100*st.fill, st.fillWhat)
			if st.fpp >= 0 {
				row("predicted FPR", "%.4g at this fill", st.fpp)
			}
		} else {
			openErr = filterErr(path, openErr)
		}
	}
	if verifyErr != nil {
		row("checksum", "BAD: %s", oneLine(verifyErr))
	} else {
		row("checksum", "ok (header and payload CRC-32C %#08x)", h.PayloadCRC)
	}
	trailing := fileSize > h.Size
	if trailing {
		row("trailing", "%d bytes after the filter", fileSize-h.Size)
	}
	if err := tw.Flush(); err != nil {
		return err // stdout: a full disk, a closed pipe
	}

	switch {
	case verifyErr != nil:
		return filterErr(path, verifyErr)
	case trailing:
		return fmt.Errorf("%s: %w", path, trailingErr(fileSize-h.Size))
	}
	return openErr
}

// beforeOpen runs between describe's copy of a file and the kind's reader
// (a test replaces the file there).
var beforeOpen = func(path string) {}

// wantKind returns the error for a file whose header h names another kind
// than want ("" takes any).
func wantKind(path string, h sift.Info, want string) error {
	if want != "" && h.Kind.String() != want {
		return fmt.Errorf("%s: %w: it holds a %v filter, not %s", path, sift.ErrKind, h.Kind, want)
	}
	return nil
}

// unchanged returns nil when path still names the file read is the
// FileInfo of (the same inode, size and modification time), else the
// error that says it changed while it was read.
func unchanged(path string, read fs.FileInfo) error {
	now, err := os.Stat(path)
	if err != nil {
		return changedErr(pathErr(err))
	}
	if !mem.SameVersion(now, read) {
		return changedErr(fmt.Errorf("%s: %w", path, mem.ErrChanged))
	}
	return nil
}

// changedErr is err (a file that changed while it was read) with what to
// do about it, as filterErr says it.
func changedErr(err error) error { return fmt.Errorf("%w%s", err, changedHint) }

// countsBits reports whether info counts the set bits of a file of kind
// k for its fill: the Bloom kinds whose stats leave fill at -1 (cuckoo's
// and the classic kinds' stats give theirs, and a pass over the payload
// for them would be wasted).
func countsBits(k sift.Kind) bool {
	switch k {
	case sift.KindBlocked, sift.KindSplitBlock, sift.KindScalable, sift.KindWindow:
		return true
	}
	return false
}

// bloomFill returns the fraction of the filter's bits that are set in the
// payload of an encoding of kind k: the stages' bits for a scalable
// filter, whose payload also holds each stage's header and padding
// (counted, they read 13.7% for 17.9%), else the whole payload.
func bloomFill(k sift.Kind, payload []byte) float64 {
	if k != sift.KindScalable {
		return bitFill(payload)
	}
	var ones, total float64
	for off := uint64(0); off < uint64(len(payload)); {
		st, err := sift.Inspect(payload[off:])
		if err != nil || st.Size > uint64(len(payload))-off {
			return bitFill(payload) // Verify passed: not reached
		}
		stage := payload[off+st.PayloadOffset : off+st.Size]
		n := float64(8 * len(stage))
		ones += bitFill(stage) * n
		total += n
		off += (st.Size + format.Align - 1) &^ (format.Align - 1) // stages start 64-byte aligned
	}
	if total == 0 {
		return 0
	}
	return ones / total
}

// bitFill returns the fraction of the payload's bits that are set.
func bitFill(payload []byte) float64 {
	if len(payload) == 0 {
		return 0
	}
	total := 8 * len(payload)
	ones := 0
	for len(payload) >= 8 {
		ones += bits.OnesCount64(binary.LittleEndian.Uint64(payload))
		payload = payload[8:]
	}
	for _, c := range payload {
		ones += bits.OnesCount8(c)
	}
	return float64(ones) / float64(total)
}

// describeGuava prints what info reports about a file in Guava's stream
// format.
func describeGuava(w io.Writer, path, _ string) error {
	f, err := openGuava(path)
	if err != nil {
		return err
	}
	st := classicStats(f)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) {
		fmt.Fprintf(tw, "%s:\t"+format+"\n", append([]any{k}, args...)...)
	}
	row("file", "%s", path)
	row("size", "%d bytes (%s)", f.GuavaSize(), sizeString(f.GuavaSize()))
	row("kind", "classic (Guava's stream format)")
	row("hash", "%v, seed 0", sift.HashMurmur3)
	row("geometry", "%s", st.geometry)
	if st.saturated {
		row("keys", saturatedKeys)
	} else {
		row("keys", "%d (estimated from the fill)", st.count)
	}
	row("fill", "%.2f%% %s", 100*st.fill, st.fillWhat)
	row("predicted FPR", "%.4g at this fill", st.fpp)
	row("checksum", "none in this format (structure ok)")
	return tw.Flush()
}
