package mem

import (
	"errors"
	"os"
	"testing"
)

// TestReadOpenPastStatSize: a file that holds more bytes than fstat
// reported (procfs reports 0; a network file system's cached attributes
// may lag) is ErrChanged, not a buffer cut to the reported size.
func TestReadOpenPastStatSize(t *testing.T) {
	f, err := os.Open("/proc/self/cmdline")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() != 0 {
		t.Skipf("fstat of /proc/self/cmdline: size %v, %v", st.Size(), err)
	}
	if b, _, err := ReadOpen(f, st); !errors.Is(err, ErrChanged) {
		t.Fatalf("ReadOpen of a file with more bytes than fstat reported: %d bytes, %v", len(b), err)
	}
}
