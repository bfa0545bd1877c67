package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/sift-go/sift/internal/mem"
)

// maxLineLen bounds one input line (one key), not counting its "\n" or
// "\r\n" terminator. It only exists so that a binary file without
// newlines fails clearly instead of being slurped. (A variable so that
// tests can lower it.)
var maxLineLen = 64 << 20

// lineReader streams newline-delimited records from a reader. It handles
// lines of any length up to maxLineLen (longer than its buffer), the last
// line without a terminator, and both "\n" and "\r\n" terminators.
type lineReader struct {
	r     *bufio.Reader
	name  string // for messages
	line  int64  // lines returned so far
	bytes int64  // bytes consumed so far
	long  []byte // reassembly buffer for lines longer than the bufio buffer
	// ahead is how many bytes at the head of r's buffer are known to end
	// in a newline (complete lines next can return without reading): set
	// by buffered, used up by next.
	ahead int
	err   error
}

func newLineReader(r io.Reader, name string) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 256<<10), name: name}
}

// next returns the next line with its terminator ("\n" or nothing at the end
// of input) and the key: the line without "\n" or "\r\n". Both alias
// internal buffers valid until the next call. At the end of input it returns
// ok false; err reports a read error or an over-long line.
func (lr *lineReader) next() (raw, key []byte, ok bool) {
	if lr.err != nil {
		return nil, nil, false
	}
	b, err := lr.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.long = append(lr.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = lr.r.ReadSlice('\n')
			// Up to two more bytes may be the terminator, which the limit
			// does not count: the key's length is checked below.
			if len(lr.long)+len(b) > maxLineLen+2 {
				lr.err = lr.tooLong()
				return nil, nil, false
			}
			lr.long = append(lr.long, b...)
		}
		b = lr.long
	}
	if err != nil && !errors.Is(err, io.EOF) {
		lr.err = fmt.Errorf("reading %s: %w", lr.name, err)
		return nil, nil, false
	}
	if len(b) == 0 {
		return nil, nil, false
	}
	key = b
	if n := len(key); n > 0 && key[n-1] == '\n' {
		key = key[:n-1]
		if n := len(key); n > 0 && key[n-1] == '\r' {
			key = key[:n-1]
		}
	}
	if len(key) > maxLineLen {
		lr.err = lr.tooLong()
		return nil, nil, false
	}
	lr.line++
	lr.bytes += int64(len(b))
	// A line within ahead was read from the buffer as it stood; any other
	// read may have refilled it.
	lr.ahead = max(lr.ahead-len(b), 0)
	return b, key, true
}

func (lr *lineReader) tooLong() error {
	return fmt.Errorf("%s: line %d is longer than %d MiB (not a text file?)", lr.name, lr.line+1, maxLineLen>>20)
}

// buffered reports whether the next call to next can return without reading
// from the underlying reader (which might block on a pipe): whether the
// buffer holds a complete line. Bytes of a line whose end has not arrived
// do not count: next would wait for the rest of it, so the lines before
// must be answered (and, with -window by arrival, timed) first. It finds
// the buffer's last newline, so each buffered byte is looked at once more
// at most, not once a line.
func (lr *lineReader) buffered() bool {
	if lr.ahead > 0 {
		return true
	}
	b, _ := lr.r.Peek(lr.r.Buffered())
	lr.ahead = bytes.LastIndexByte(b, '\n') + 1
	return lr.ahead > 0
}

// input is one source of lines: a file or standard input.
type input struct {
	name string // as given; "-" is standard input
	size int64  // bytes, or -1 when unknown (pipes, terminals)
}

// openInputs lists the named inputs (an empty list means standard input)
// with their sizes where known. It fails only when standard input is named
// twice; an input that cannot be read is reported when its turn comes (see
// eachInput), or, for build, by checkInputs.
func openInputs(names []string) ([]input, error) {
	if len(names) == 0 {
		names = []string{"-"}
	}
	ins := make([]input, 0, len(names))
	stdin := 0
	for _, name := range names {
		if name == "-" {
			stdin++
			ins = append(ins, input{name: "-", size: -1})
			continue
		}
		size := int64(-1)
		if st, err := os.Stat(name); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
		ins = append(ins, input{name: name, size: size})
	}
	if stdin > 1 {
		return nil, errors.New(`standard input ("-") named more than once`)
	}
	return ins, nil
}

// outputIsInput refuses, as grep does, an input that is the regular file
// standard output writes to: query and dedup would read the lines they
// write (a query whose lines match grew the file without end). Standard
// input ("-") is compared too. noOutput (query -q, -c) writes no lines, so
// reading the file is harmless.
func outputIsInput(stdout io.Writer, stdin io.Reader, ins []input, noOutput bool) error {
	ost := outputFile(stdout)
	if ost == nil || noOutput {
		return nil
	}
	if name := inputIs(ins, stdin, ost); name != "" {
		return fmt.Errorf("%s: input file is also the output", name)
	}
	return nil
}

// outputFile returns what fstat says of the regular file standard output
// writes to, or nil when it is not one (a terminal, a pipe, a buffer).
func outputFile(stdout io.Writer) fs.FileInfo {
	of, ok := osFile(stdout)
	if !ok {
		return nil
	}
	st, err := of.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	return st
}

// inputIs returns the name of the first of ins that is the file target
// ("standard input" for "-", compared only when stdin is an *os.File), or
// "" when none is.
func inputIs(ins []input, stdin io.Reader, target fs.FileInfo) string {
	for _, in := range ins {
		var st fs.FileInfo
		var err error
		name := in.name
		if name == "-" {
			f, ok := stdin.(*os.File)
			if !ok {
				continue
			}
			st, err = f.Stat()
			name = "standard input"
		} else {
			st, err = os.Stat(name)
		}
		if err == nil && os.SameFile(st, target) {
			return name
		}
	}
	return ""
}

// checkInputs checks, before build reads anything, that every input can be
// read, and names every one that cannot: a build must not write a filter
// that lacks an input's keys. Regular files are opened and closed; FIFOs
// and devices are only checked with stat (opening a FIFO would wait for a
// writer, and closing it would make the writer's output vanish).
func checkInputs(ins []input) error {
	var bad []string
	for _, in := range ins {
		if in.name == "-" {
			continue
		}
		if err := checkInput(in.name); err != nil {
			bad = append(bad, err.Error())
		}
	}
	switch len(bad) {
	case 0:
		return nil
	case 1:
		return errors.New(bad[0])
	}
	return fmt.Errorf("%d inputs cannot be read: %s", len(bad), strings.Join(bad, "; "))
}

func checkInput(name string) error {
	st, err := os.Stat(name)
	if err != nil {
		return pathErr(err)
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory", name)
	}
	if !st.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(name)
	if err != nil {
		return pathErr(err)
	}
	return f.Close()
}

// totalSize returns the sum of the inputs' sizes, or -1 if any is unknown.
func totalSize(ins []input) int64 {
	var t int64
	for _, in := range ins {
		if in.size < 0 {
			return -1
		}
		t += in.size
	}
	return t
}

// displayName is how messages name an input.
func (in input) displayName() string {
	if in.name == "-" {
		return "standard input"
	}
	return in.name
}

// eachInput opens the inputs in turn and calls f with a line reader for
// each. An input that cannot be opened (or is a directory), or whose
// reading fails part way (f returns the line reader's error), is passed to
// skip, when skip is not nil, and the others are read, as grep does;
// without skip it ends the loop with its error.
func eachInput(ins []input, stdin io.Reader, skip func(error), f func(lr *lineReader) error) error {
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	for _, in := range ins {
		var r io.Reader = stdin
		var file *os.File
		if in.name != "-" {
			var err error
			file, err = openInput(in.name)
			if err != nil {
				if skip == nil {
					return err
				}
				skip(err)
				continue
			}
			r = file
		}
		lr := newLineReader(r, in.displayName())
		err := f(lr)
		if file != nil {
			file.Close()
		}
		if err != nil {
			if skip != nil && lr.err != nil && errors.Is(err, lr.err) {
				// The input failed part way (a read error, an over-long
				// line) after its earlier lines were handled: reported and
				// skipped as one that cannot be opened, and the others read.
				skip(err)
				continue
			}
			return err
		}
	}
	return nil
}

// openInput opens an input for reading: a file, or a FIFO or device, whose
// open may wait for a writer as for any program that reads it.
func openInput(name string) (*os.File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, pathErr(err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is a directory", name)
	}
	return f, nil
}

// countLines counts the non-empty lines of a regular file in one fast pass,
// reporting bytes read to p.
func countLines(name string, p *progress) (int64, error) {
	// Only regular files are counted: open without waiting, in case name
	// became a FIFO since it was checked.
	f, _, err := mem.OpenRegular(name)
	if err != nil {
		return 0, pathErr(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	var n int64
	prev := byte('\n') // the byte before the current one; a line starts after '\n'
	prev2 := byte('\n')
	for {
		m, err := f.Read(buf)
		for _, c := range buf[:m] {
			// A line is non-empty when it has a byte other than its
			// terminator: count it at its first such byte.
			if c != '\n' && c != '\r' && prev == '\n' {
				n++
			} else if c == '\r' && prev == '\n' {
				// "\r" that is not part of a "\r\n" terminator starts
				// a key; decided at the next byte.
			} else if c != '\n' && prev == '\r' && prev2 == '\n' {
				n++
			}
			prev2, prev = prev, c
		}
		p.addBytes(int64(m))
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("reading %s: %w", name, err)
		}
	}
	if prev == '\r' && prev2 == '\n' { // a file ending in a lone "\r" line
		n++
	}
	return n, nil
}

// pathErr shortens *os.PathError messages to "name: reason".
func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		if pe.Path == "" {
			return fmt.Errorf(`"" (an empty file name): %w`, pe.Err)
		}
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

var newline = []byte{'\n'}

// hasNewline reports whether raw ends with a line terminator.
func hasNewline(raw []byte) bool { return bytes.HasSuffix(raw, newline) }

// fieldSelector picks the key out of a line: the whole line (field 0), or
// its field-th field (from 1), fields separated by runs of blanks (spaces
// and tabs, leading blanks ignored, as awk splits) or, with a delimiter, by
// each delimiter byte (as cut -d splits). A line with fewer fields has an
// empty key.
type fieldSelector struct {
	field int
	delim byte // 0: runs of blanks
}

func (fs fieldSelector) key(line []byte) []byte {
	if fs.field == 0 {
		return line
	}
	if fs.delim != 0 {
		for i := 1; ; i++ {
			j := bytes.IndexByte(line, fs.delim)
			if i == fs.field {
				if j < 0 {
					return line
				}
				return line[:j]
			}
			if j < 0 {
				return nil
			}
			line = line[j+1:]
		}
	}
	// One pass over the bytes: bytes.TrimLeft and bytes.IndexAny build a
	// byte set on every call, which made this 4x slower than the
	// delimiter's bytes.IndexByte for field 7 of a log line.
	i, n := 0, len(line)
	for f := 1; ; f++ {
		for i < n && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == n {
			return nil
		}
		start := i
		for i < n && line[i] != ' ' && line[i] != '\t' {
			i++
		}
		if f == fs.field {
			return line[start:i]
		}
	}
}

// fieldValue is the -f flag: a field number, and whether it was given (so
// that an explicit -f 0 is an error, not the whole line).
type fieldValue struct {
	n   int
	set bool
}

func (v *fieldValue) String() string { return strconv.Itoa(v.n) }

func (v *fieldValue) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("%q is not a field number", s)
	}
	v.n, v.set = n, true
	return nil
}

// addFieldFlags defines -f and -d on a command's flag set.
func addFieldFlags(fs *flag.FlagSet) (field *fieldValue, delim *string) {
	field = &fieldValue{}
	fs.Var(field, "f", "")
	delim = new(string)
	fs.Var((*delimValue)(delim), "d", "")
	return field, delim
}

// delimValue is the -d flag. An explicit empty -d is refused where it is
// parsed: unset, -d means blanks, which an empty value would silently ask
// for.
type delimValue string

func (v *delimValue) String() string { return string(*v) }

func (v *delimValue) Set(s string) error {
	if s == "" {
		return errors.New("the delimiter must be one byte (leave out -d to split fields at blanks)")
	}
	*v = delimValue(s)
	return nil
}

// fieldFlags validates -f and -d.
func fieldFlags(fv fieldValue, delim string) (fieldSelector, error) {
	field := fv.n
	switch {
	case field < 0 || field == 0 && fv.set:
		return fieldSelector{}, fmt.Errorf("-f %d: fields are numbered from 1", field)
	case len(delim) > 1 && delim != `\t`:
		return fieldSelector{}, fmt.Errorf("-d %q: the delimiter must be one byte", delim)
	case delim != "" && field == 0:
		return fieldSelector{}, errors.New("-d needs -f")
	case delim == "\n" || delim == "\r":
		return fieldSelector{}, errors.New("-d cannot be a line terminator")
	}
	sel := fieldSelector{field: field}
	switch delim {
	case "":
	case `\t`:
		sel.delim = '\t'
	default:
		sel.delim = delim[0]
	}
	return sel, nil
}

// lineBatch is a batch of input lines on their way through a filter, for
// query and dedup: the raw lines back to back in text (line i at
// text[ends[i-1]:ends[i]]), key i's hash at hs[i], empty keys marked in
// empty, and room for one answer a line.
type lineBatch struct {
	text  []byte
	ends  []int
	hs    []uint64
	empty []bool
	ans   []bool
}

// answers returns room for one answer per line of the batch.
func (b *lineBatch) answers() []bool {
	if cap(b.ans) < len(b.hs) {
		b.ans = make([]bool, max(len(b.hs), batchSize))
	}
	return b.ans[:len(b.hs)]
}

// write writes each line of the batch for which pick(i) is true (ending a
// last line without its terminator with one), and stops at the first
// error pick returns; it returns how many lines it wrote.
func (b *lineBatch) write(out *bufio.Writer, pick func(i int) (bool, error)) (int64, error) {
	var n int64
	start := 0
	for i, end := range b.ends {
		ok, err := pick(i)
		if err != nil {
			return n, err
		}
		if ok {
			n++
			if out != nil {
				line := b.text[start:end]
				out.Write(line)
				if !hasNewline(line) { // the last line of an input
					out.WriteByte('\n')
				}
			}
		}
		start = end
	}
	return n, nil
}

// reset empties the batch, keeping its memory.
func (b *lineBatch) reset() {
	b.text, b.ends, b.hs, b.empty = b.text[:0], b.ends[:0], b.hs[:0], b.empty[:0]
}

// readBatches reads lr's lines into b, each line's key chosen by sel and
// hashed by hash, and calls flush when the batch is full or when the input
// has nothing buffered (reading on might block: answer what there is
// first; sync then asks flush to flush the output too), and once more at
// the end. It reports the bytes read to p.
func readBatches(lr *lineReader, b *lineBatch, sel fieldSelector, hash func(key []byte) uint64, p *progress, flush func(sync bool) error) error {
	var lastBytes int64
	for {
		raw, key, ok := lr.next()
		if !ok {
			break
		}
		key = sel.key(key)
		b.text = append(b.text, raw...)
		b.ends = append(b.ends, len(b.text))
		b.empty = append(b.empty, len(key) == 0)
		b.hs = append(b.hs, hash(key))
		if more := lr.buffered(); len(b.hs) == batchSize || len(b.text) >= maxBatchText || !more {
			if err := flush(!more); err != nil {
				return err
			}
			p.addBytes(lr.bytes - lastBytes)
			lastBytes = lr.bytes
		}
	}
	if err := flush(true); err != nil {
		return err
	}
	p.addBytes(lr.bytes - lastBytes)
	return lr.err
}
