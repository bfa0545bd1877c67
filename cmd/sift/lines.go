package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// maxLineLen bounds one input line (one key). It only exists so that a
// binary file without newlines fails clearly instead of being slurped. (A
// variable so that tests can lower it.)
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
			if len(lr.long)+len(b) > maxLineLen {
				lr.err = fmt.Errorf("%s: line %d is longer than %d MiB (not a text file?)", lr.name, lr.line+1, maxLineLen>>20)
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
	lr.line++
	lr.bytes += int64(len(b))
	key = b
	if n := len(key); n > 0 && key[n-1] == '\n' {
		key = key[:n-1]
		if n := len(key); n > 0 && key[n-1] == '\r' {
			key = key[:n-1]
		}
	}
	return b, key, true
}

// buffered reports whether the next call to next can return without reading
// from the underlying reader (which might block on a pipe).
func (lr *lineReader) buffered() bool { return lr.r.Buffered() > 0 }

// input is one source of lines: a file or standard input.
type input struct {
	name string // as given; "-" is standard input
	size int64  // bytes, or -1 when unknown (pipes, terminals)
}

// openInputs stats every named input. An empty list means standard input.
// It fails early, before any work, when a file is missing or unreadable.
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
		st, err := os.Stat(name)
		if err != nil {
			return nil, pathErr(err)
		}
		if st.IsDir() {
			return nil, fmt.Errorf("%s is a directory", name)
		}
		size := int64(-1)
		if st.Mode().IsRegular() {
			size = st.Size()
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, pathErr(err)
		}
		f.Close()
		ins = append(ins, input{name: name, size: size})
	}
	if stdin > 1 {
		return nil, errors.New(`standard input ("-") named more than once`)
	}
	return ins, nil
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

// eachInput opens the inputs in turn and calls f with a line reader for each.
func eachInput(ins []input, stdin io.Reader, f func(lr *lineReader) error) error {
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	for _, in := range ins {
		var r io.Reader = stdin
		var file *os.File
		if in.name != "-" {
			var err error
			if file, err = os.Open(in.name); err != nil {
				return pathErr(err)
			}
			r = file
		}
		err := f(newLineReader(r, in.displayName()))
		if file != nil {
			file.Close()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// countLines counts the non-empty lines of a regular file in one fast pass,
// reporting bytes read to p.
func countLines(name string, p *progress) (int64, error) {
	f, err := os.Open(name)
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
	for i := 1; ; i++ {
		line = bytes.TrimLeft(line, " \t")
		if len(line) == 0 {
			return nil
		}
		j := bytes.IndexAny(line, " \t")
		if i == fs.field {
			if j < 0 {
				return line
			}
			return line[:j]
		}
		if j < 0 {
			return nil
		}
		line = line[j:]
	}
}

// addFieldFlags defines -f and -d on a command's flag set.
func addFieldFlags(fs *flag.FlagSet) (field *int, delim *string) {
	field = fs.Int("f", 0, "")
	delim = fs.String("d", "", "")
	return field, delim
}

// fieldFlags validates -f and -d.
func fieldFlags(field int, delim string) (fieldSelector, error) {
	switch {
	case field < 0:
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
