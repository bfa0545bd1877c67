//go:build unix

package mem

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/sift-go/sift/internal/edgetest"
)

// TestOpenFIFO: MapFile and OpenRegular return at once, with an error, for
// a FIFO nobody writes to (a plain open blocks until a writer comes) and
// for a device.
func TestOpenFIFO(t *testing.T) {
	edgetest.SpecialFiles(t, "", func(path string) error { _, _, err := MapFile(path); return err })
	edgetest.SpecialFiles(t, "", func(path string) error {
		f, _, err := OpenRegular(path)
		if err == nil {
			f.Close()
		}
		return err
	})
}

// TestWriteAtomicMode: without a Mode, WriteAtomic gives the new file the
// permission bits of the file it replaces (through a symbolic link: those
// of the link's target, and the link itself is replaced), and 0666 less
// the umask to a new path, as the shell and cp do (it gave 0o644 whatever
// the umask, so a umask of 077 did not keep a new filter private); an
// explicit Mode wins over both.
func TestWriteAtomicMode(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o022))
	dir := t.TempDir()
	private := filepath.Join(dir, "private.sift")
	syscall.Umask(0o077)
	if _, err := WriteAtomic(private, writeBytes([]byte("new")), AtomicOptions{}); err != nil {
		t.Fatal(err)
	}
	syscall.Umask(0o022)
	if st, err := os.Stat(private); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("a new file under umask 077: %v, %v; want -rw-------", st.Mode(), err)
	}
	mode := func(path string) fs.FileMode {
		t.Helper()
		st, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		return st.Mode()
	}
	write := func(path string, opt AtomicOptions) {
		t.Helper()
		if _, err := WriteAtomic(path, writeBytes([]byte("new")), opt); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != "new" {
			t.Fatalf("%s holds %q", path, got)
		}
	}
	fresh := filepath.Join(dir, "fresh.sift")
	write(fresh, AtomicOptions{})
	if m := mode(fresh); m != 0o644 {
		t.Errorf("a new file: mode %v, want -rw-r--r--", m)
	}
	for _, keep := range []fs.FileMode{0o600, 0o640, 0o444, 0o755, 0} {
		path := filepath.Join(dir, "kept.sift")
		if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, keep); err != nil {
			t.Fatal(err)
		}
		write(path, AtomicOptions{})
		if m := mode(path); m != keep {
			t.Errorf("replacing a file of mode %v: mode %v", keep, m)
		}
		os.Remove(path)
	}
	// While it is written, the temporary file of a file that must not be
	// readable by others is not (it would be if every temporary file were
	// created 0666 less the umask, as new files are: 0644 here).
	for _, c := range []struct {
		name string
		old  fs.FileMode // 0: no file there
		opt  AtomicOptions
	}{
		{"replacing a 0600 file", 0o600, AtomicOptions{}},
		{"Mode 0600, new", 0, AtomicOptions{Mode: 0o600}},
	} {
		path := filepath.Join(dir, "private-"+strings.ReplaceAll(c.name, " ", "-")+".sift")
		if c.old != 0 {
			if err := os.WriteFile(path, []byte("old"), c.old); err != nil {
				t.Fatal(err)
			}
		}
		var tmp string
		var during fs.FileMode
		c.opt.OnTemp = func(name string) func() { tmp = name; return func() {} }
		_, err := WriteAtomic(path, func(w io.Writer) (int64, error) {
			if st, err := os.Stat(tmp); err == nil {
				during = st.Mode().Perm()
			}
			n, err := w.Write([]byte("new"))
			return int64(n), err
		}, c.opt)
		if err != nil || during != 0o600 {
			t.Errorf("%s: the temporary file was %v while written (%v), want -rw-------", c.name, during, err)
		}
	}
	explicit := filepath.Join(dir, "explicit.sift")
	if err := os.WriteFile(explicit, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	write(explicit, AtomicOptions{Mode: 0o664})
	if m := mode(explicit); m != 0o664 {
		t.Errorf("Mode 0o664 over a file of mode 0o600: mode %v", m)
	}
	write(filepath.Join(dir, "explicit-new.sift"), AtomicOptions{Mode: 0o600})
	if m := mode(filepath.Join(dir, "explicit-new.sift")); m != 0o600 {
		t.Errorf("Mode 0o600 for a new file: mode %v", m)
	}
	// A symbolic link is replaced by a file of its target's mode; the
	// target is left as it was.
	target := filepath.Join(dir, "target.sift")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.sift")
	if err := os.Symlink("target.sift", link); err != nil {
		t.Fatal(err)
	}
	write(link, AtomicOptions{})
	if m := mode(link); m != 0o600 {
		t.Errorf("replacing a link to a file of mode 0o600: mode %v, want a regular file of that mode", m)
	}
	if got, _ := os.ReadFile(target); string(got) != "old" || mode(target) != 0o600 {
		t.Errorf("the link's target was changed: %q, mode %v", got, mode(target))
	}
}

// TestCheckWritable: the errors WriteAtomic would meet at its end come
// before any work (a special file, a directory, a missing or read-only
// directory), a writable path passes leaving no file behind, and a dead
// writer's leftover is removed first.
func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	dead := filepath.Join(dir, TempPrefix(path)+strconv.Itoa(deadPID(t))+"-1")
	if err := os.WriteFile(dead, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckWritable(path); err != nil {
		t.Fatalf("a writable path: %v", err)
	}
	if left := tempFiles(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the check made %s: %v", path, err)
	}
	for _, c := range []struct{ path, want string }{
		{dir, "a directory"},
		{"/dev/null", "a device"},
		{filepath.Join(dir, "nodir", "f.sift"), "no such file or directory"},
	} {
		if err := CheckWritable(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckWritable(%s): %v, want an error saying %q", c.path, err, c.want)
		}
	}
	if os.Geteuid() != 0 { // root writes into a read-only directory
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		if err := CheckWritable(filepath.Join(ro, "f.sift")); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("a read-only directory: %v", err)
		}
	}
}

// TestLongName: a file name of up to 255 bytes (NAME_MAX) can be written:
// the temporary file's name shortens a base name too long to fit (it was
// the name plus about 30 bytes, and a 240-byte name could not be written,
// findings K, 3), two long names that share their first 240 bytes get
// different prefixes, and RemoveStale finds the leftovers of such a name.
// A name longer than 255 bytes is refused before any work, saying so
// (CheckWritable said "no files can be created in DIR").
func TestLongName(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{1, 200, 223, 224, 240, 254, 255} {
		for _, unit := range []string{"f", "é", "日"} {
			base := strings.Repeat(unit, n/len(unit)+1)[:n]
			p := TempPrefix(filepath.Join(dir, base))
			if len(p)+tempSuffixMax > 255 || !utf8.ValidString(p) && utf8.ValidString(base) {
				t.Errorf("base of %d bytes (%q): a prefix of %d bytes (%q)", n, unit, len(p), p)
			}
			if n <= 223 && p != "."+base+".sift-tmp-" {
				t.Errorf("base of %d bytes shortened: %q", n, p)
			}
		}
	}
	long := strings.Repeat("f", 240)
	if TempPrefix(long+"a") == TempPrefix(long+"b") {
		t.Errorf("two long names share the temporary files' prefix %q", TempPrefix(long+"a"))
	}

	path := filepath.Join(dir, strings.Repeat("f", 235)+".sift") // 240 bytes
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Skipf("the file system refuses the name itself: %v", err)
	}
	os.Remove(path)
	if err := CheckWritable(path); err != nil {
		t.Errorf("CheckWritable of a 240-byte name: %v", err)
	}
	dead := filepath.Join(dir, TempPrefix(path)+strconv.Itoa(deadPID(t))+"-1")
	if err := os.WriteFile(dead, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	var tmp string
	if _, err := WriteAtomic(path, writeBytes([]byte("new")), AtomicOptions{OnTemp: func(name string) func() {
		tmp = name
		return func() {}
	}}); err != nil {
		t.Fatalf("WriteAtomic of a 240-byte name: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Errorf("the file holds %q", got)
	}
	if _, err := os.Lstat(dead); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dead writer's leftover was kept: %v", err)
	}
	if b := filepath.Base(tmp); len(b) > 255 || !strings.HasPrefix(b, TempPrefix(path)) {
		t.Errorf("temporary file %q (%d bytes)", b, len(b))
	}
	// The same name with the last byte changed: its own leftovers only.
	other := filepath.Join(dir, strings.Repeat("f", 235)+".sifu")
	left := filepath.Join(dir, TempPrefix(other)+strconv.Itoa(deadPID(t))+"-1")
	if err := os.WriteFile(left, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if RemoveStale(path) != 0 {
		t.Errorf("RemoveStale of %s removed another name's leftover", path)
	}
	if RemoveStale(other) != 1 {
		t.Errorf("RemoveStale of %s missed its leftover", other)
	}

	tooLong := filepath.Join(dir, strings.Repeat("f", 251)+".sift") // 256 bytes
	for what, err := range map[string]error{
		"CheckWritable": CheckWritable(tooLong),
		"WriteAtomic":   func() error { _, err := WriteAtomic(tooLong, writeBytes([]byte("x")), AtomicOptions{}); return err }(),
	} {
		if !errors.Is(err, syscall.ENAMETOOLONG) || !strings.Contains(err.Error(), "the file name is too long (256 bytes)") || strings.Contains(err.Error(), "no files can be created") {
			t.Errorf("%s of a 256-byte name: %v", what, err)
		}
	}
	if left := tempFiles(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestCheckWritableDirUnreadable: a directory that takes new files but
// cannot be opened (mode 0733 for a user other than its owner and root, a
// drop box) is refused by CheckWritable, before any work: WriteAtomic
// would write the file, rename it over the target and then fail to sync
// the directory, and sift build exited 2 with the target replaced
// (findings K, 4). Root opens any directory, so there the open fails by
// SetWriteFault ("open-dir", which syncDir's open goes through too).
func TestCheckWritableDirUnreadable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sift")
	restore := SetWriteFault(func(op string) error {
		if op == "open-dir" {
			return syscall.EACCES
		}
		return nil
	})
	err := CheckWritable(path)
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "cannot be opened") || !strings.Contains(err.Error(), dir) {
		t.Errorf("CheckWritable where the directory cannot be opened: %v", err)
	}
	_, err = WriteAtomic(path, writeBytes([]byte("new")), AtomicOptions{})
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "syncing its directory failed") {
		t.Errorf("WriteAtomic where the directory cannot be opened: %v", err)
	}
	restore()
	if left := tempFiles(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if os.Geteuid() == 0 {
		return
	}
	drop := filepath.Join(dir, "drop")
	if err := os.Mkdir(drop, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(drop, 0o333); err != nil { // the owner: write and enter only
		t.Fatal(err)
	}
	defer os.Chmod(drop, 0o700)
	err = CheckWritable(filepath.Join(drop, "f.sift"))
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "cannot be opened") {
		t.Errorf("CheckWritable in a directory of mode 0333: %v", err)
	}
	os.Chmod(drop, 0o700)
	if left := tempFiles(t, drop); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
