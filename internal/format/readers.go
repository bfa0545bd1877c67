package format

import (
	"errors"
	"strings"

	"github.com/sift-go/sift/internal/errs"
	"github.com/sift-go/sift/internal/mem"
)

// readers names, for each kind of sift file, the package whose calls read
// it and those calls: the one table behind every wrong-kind message.
var readers = [MaxKind + 1]struct {
	pkg   string
	calls []string
}{
	KindBlocked:    {"blocked", []string{"ReadFilter", "ReadConcurrent", "Open"}},
	KindCuckoo:     {"cuckoo", []string{"ReadFilter", "Open"}},
	KindScalable:   {"blocked", []string{"ReadScalable"}},
	KindCounting:   {"classic", []string{"ReadCounting"}},
	KindClassic:    {"classic", []string{"ReadFilter"}},
	KindSplitBlock: {"sbbf", []string{"ReadFilter", "Open"}},
	KindWindow:     {"blocked", []string{"ReadWindow", "ReadConcurrentWindow"}},
}

// Readers returns the calls that read a file of kind k as code in package
// pkg names them: its own bare, another package's qualified
// ("blocked.ReadWindow or blocked.ReadConcurrentWindow"); "" for a kind no
// package reads.
func Readers(k Kind, pkg string) string {
	if int(k) >= len(readers) || readers[k].pkg == "" {
		return ""
	}
	r := readers[k]
	names := make([]string, len(r.calls))
	for i, c := range r.calls {
		if r.pkg != pkg {
			c = r.pkg + "." + c
		}
		names[i] = c
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// WrongKind returns the error package pkg reports for err, an error of
// ParseHeader, CheckHead, Read or Decode that came with header h, where it
// is one of a file of another kind (errs.Kind): err's detail and the calls
// that read the file ("file holds a window filter, want blocked: read it
// with ReadWindow or ReadConcurrentWindow"), matching what err matches. It
// returns nil for any other error, which the caller wraps as it does.
func WrongKind(pkg string, err error, h Header) error {
	if !errors.Is(err, errs.Kind) {
		return nil
	}
	r := Readers(h.Kind, pkg)
	if r == "" {
		return nil
	}
	return errs.Errorf(pkg, []error{err}, "%s: read it with %s", errs.Detail(err), r)
}

// Err is the error package pkg returns for err, an error of ParseHeader,
// CheckHead, Read, Decode or ReadFileHeader that came with header h:
// WrongKind's for a file of another kind, else err with pkg's prefix,
// once, keeping its chain (errs.Wrap).
func Err(pkg string, err error, h Header) error {
	if e := WrongKind(pkg, err, h); e != nil {
		return e
	}
	return errs.Wrap(pkg, err)
}

// LoadFile is ReadFileHeader for package pkg's Load of a file holding one
// encoding of kind want: its error is Err's.
func LoadFile(pkg, path string, want Kind, maxPayload uint64) ([]byte, *mem.Region, error) {
	data, region, h, err := ReadFileHeader(path, want, maxPayload)
	if err != nil {
		return nil, nil, Err(pkg, err, h)
	}
	return data, region, nil
}

// ReadFileHeader is mem.ReadFile for the Load functions (LoadFile), whose
// files hold exactly one encoding of kind want (0: any) and whose
// WithMaxSize is maxPayload (0: no limit). The file's first HeaderSize
// bytes are checked before memory for the file is allocated or the rest of
// it read: a head ParseHeader refuses (not a sift file, another kind, a
// payload over the limit, a damaged header) is refused with ParseHeader's
// error, and a file longer than the encoding its header declares with
// ErrCorrupt, so that no Load reads a large file only to refuse it. With
// the errs.Kind error of a file of another kind it returns that file's
// header, for WrongKind.
func ReadFileHeader(path string, want Kind, maxPayload uint64) ([]byte, *mem.Region, Header, error) {
	var h Header
	data, region, _, err := mem.ReadFileChecked(path, HeaderSize, func(head []byte, size int64) error {
		err := CheckHead(head, size, want, maxPayload)
		if errors.Is(err, errs.Kind) {
			h, _, _ = ParseHeader(head, 0, Options{})
		}
		return err
	})
	return data, region, h, err
}
