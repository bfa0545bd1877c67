package sift_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/classic"
	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/sbbf"
)

// errorCases are errors of every filter package, one per helper that
// builds them, with the messages they read: the error model behind them
// (internal/errs) must keep each message as it reads.
func errorCases(t *testing.T, tmp *string) []struct {
	name string
	err  error
	want string
} {
	t.Helper()
	dir := t.TempDir()
	*tmp = dir
	bf, _ := blocked.New(1000, 0.01)
	bf2, _ := blocked.New(100000, 0.01)
	bEnc, _ := bf.MarshalBinary()
	cf, _ := cuckoo.New(1000)
	cEnc, _ := cf.MarshalBinary()
	cf8, _ := cuckoo.New(1000, cuckoo.WithFingerprintBits(8))
	kf, _ := classic.New(1000, 0.01)
	kf2, _ := classic.New(2000, 0.01)
	kc, _ := classic.NewCounting(1000, 0.01)
	sc, _ := blocked.NewScalable(1000, 0.01)
	sc2, _ := blocked.NewScalable(1000, 0.01, blocked.WithSeed(7))
	scEnc, _ := sc.MarshalBinary()
	corrupt := bytes.Clone(bEnc)
	corrupt[len(corrupt)-1] ^= 1
	must := func(_ any, err error) error { return err }
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"blocked fpp", must(blocked.New(10, 2)), "blocked: false-positive rate 2 is not in (0, 1)"},
		{"blocked k", must(blocked.NewWithSize(1024, 0)), "blocked: k = 0 is not in 1..16"},
		{"blocked fpp too low", must(blocked.New(10, 1e-12)), "blocked: false-positive rate 1e-12 is below MinFPP = 1e-08, the least this design reaches at a sane cost; a classic Bloom filter (package classic) needs 57.5 bits per key for it"},
		{"blocked union", bf.Union(bf2), "blocked: block counts differ (22 and 1993)"},
		{"blocked truncated", must(blocked.FromBytes(bEnc[:100])), "blocked: truncated input: header needs 128 bytes, have 100"},
		{"blocked magic", must(blocked.FromBytes(make([]byte, 200))), "blocked: not a sift filter (bad magic)"},
		{"blocked checksum", must(blocked.FromBytes(corrupt)), "blocked: checksum mismatch: payload CRC-32C is 0x66d324e2, stored 0x94b8a7e1"},
		{"blocked kind", must(blocked.FromBytes(cEnc)), "blocked: wrong filter kind: file holds a cuckoo filter, want blocked: read it with cuckoo.ReadFilter or cuckoo.Open"},
		{"blocked open", must(blocked.Open(filepath.Join(dir, "none"))), "blocked: open DIR/none: no such file or directory"},
		{"blocked open dir", must(blocked.Open(dir)), "blocked: open DIR: not a regular file (a directory)"},
		{"blocked trailing", must(blocked.FromBytes(append(bytes.Clone(bEnc), 0))), "blocked: 1 bytes after the filter"},
		{"scalable union", sc.Union(sc2), "blocked: seeds differ (0x0 and 0x7)"},
		{"cuckoo capacity", must(cuckoo.New(0)), "cuckoo: invalid argument: capacity 0"},
		{"cuckoo fp bits", must(cuckoo.New(10, cuckoo.WithFingerprintBits(9))), "cuckoo: invalid argument: fingerprint bits 9 (must be 8 or 16)"},
		{"cuckoo union", cf.Union(cf8), "cuckoo: incompatible filters: fingerprint widths differ (16 and 8 bits)"},
		{"cuckoo truncated", must(cuckoo.FromBytes(cEnc[:100])), "cuckoo: truncated input: header needs 128 bytes, have 100"},
		{"cuckoo kind", must(cuckoo.FromBytes(bEnc)), "cuckoo: wrong filter kind: file holds a blocked filter, want cuckoo: read it with blocked.ReadFilter, blocked.ReadConcurrent or blocked.Open"},
		{"cuckoo too large", must(cuckoo.New(1000, cuckoo.WithMaxSize(64))), "cuckoo: capacity 1000 needs 2112 bytes of buckets, more than the maximum size of 64 (WithMaxSize)"},
		{"classic fpp", must(classic.New(10, 2)), "classic: invalid argument: false positive probability (2) must be > 0 and < 1"},
		{"classic negative", must(classic.New(-1, 0.01)), "classic: invalid argument: expected insertions (-1) must be >= 0"},
		{"classic putall", kf.PutAll(kf2), "classic: incompatible filters: different bit sizes (9600 != 19200)"},
		{"classic union self", kc.Union(kc), "classic: incompatible filters: cannot combine a filter with itself"},
		{"classic truncated", must(classic.ReadFilter(bytes.NewReader(bEnc[:50]))), "classic: truncated input: header: got 50 of 128 bytes"},
		{"classic kind", must(classic.ReadFilter(bytes.NewReader(bEnc))), "classic: wrong filter kind: file holds a blocked filter, want classic: read it with blocked.ReadFilter, blocked.ReadConcurrent or blocked.Open"},
		{"scalable growth", must(blocked.NewScalable(10, 0.01, blocked.WithGrowth(1))), "blocked: growth factor 1 is not in 2..65536"},
		{"scalable truncated stage", must(blocked.ReadScalable(bytes.NewReader(scEnc[:len(scEnc)-8]))), "blocked: truncated input: payload: got 2168 of 2176 bytes"},
		{"blocked zero encode", must((&blocked.Filter{}).MarshalBinary()), "blocked: cannot encode a closed or zero filter"},
		{"blocked zero panic", panicOf(func() { (&blocked.View{}).ContainsHash(1) }), "blocked: use of a closed filter, or of a zero value never made by a constructor, UnmarshalBinary or ReadFrom"},
		{"blocked zero add panic", panicOf(func() { (&blocked.Filter{}).AddHash(1) }), "blocked: use of a closed filter, or of a zero value never made by a constructor, UnmarshalBinary or ReadFrom"},
		{"cuckoo zero add", (&cuckoo.Filter{}).AddHash(1), "cuckoo: use of a closed filter, or of a zero value never made by New or a decoder"},
		{"classic zero encode", must((&classic.Filter{}).MarshalBinary()), "classic: use of a zero filter: make one with New, NewCounting or a decoder"},
		{"classic zero panic", panicOf(func() { (&classic.Filter{}).MightContain([]byte("x")) }), "classic: use of a zero filter: make one with New, NewCounting or a decoder"},
		{"classic not present", kc.Remove([]byte("x")), "classic: key not present (a counter is zero)"},
		{"classic guava", must(classic.ReadGuava(bytes.NewReader([]byte{9, 1, 0, 0, 0, 1}))), "classic: Guava stream: unknown strategy ordinal 9"},
	}
	return cases
}

func panicOf(f func()) (err error) {
	defer func() { err, _ = recover().(error) }()
	f()
	return nil
}

// TestErrorMessagesGolden: every package's messages read as they did
// before the packages shared one error type (the wants were recorded from
// the code of 91d379f).
func TestErrorMessagesGolden(t *testing.T) {
	dir := ""
	for _, c := range errorCases(t, &dir) {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if got := strings.ReplaceAll(c.err.Error(), dir, "DIR"); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestErrorsAcrossPackages: one ErrInvalidArgument and one ErrIncompatible
// for every package, so one errors.Is test covers them all, and every error
// is a *sift.Error carrying its package's prefix. (Before the packages
// shared internal/errs, each had values of its own: blocked's
// ErrInvalidArgument was not cuckoo's.)
func TestErrorsAcrossPackages(t *testing.T) {
	for _, v := range []error{blocked.ErrInvalidArgument, cuckoo.ErrInvalidArgument, classic.ErrInvalidArgument, sbbf.ErrInvalidArgument} {
		if v != sift.ErrInvalidArgument {
			t.Errorf("%v is not sift.ErrInvalidArgument", v)
		}
	}
	for _, v := range []error{blocked.ErrIncompatible, cuckoo.ErrIncompatible, classic.ErrIncompatible, sbbf.ErrIncompatible} {
		if v != sift.ErrIncompatible {
			t.Errorf("%v is not sift.ErrIncompatible", v)
		}
	}
	for _, v := range []error{blocked.ErrClosed, cuckoo.ErrClosed, classic.ErrClosed, blocked.ErrCorrupt, cuckoo.ErrTooLarge, classic.ErrTruncated, sbbf.ErrKind} {
		if !errors.Is(v, v) || !strings.HasPrefix(v.Error(), "sift: ") {
			t.Errorf("%v: not one of sift's sentinels", v)
		}
	}

	must := func(_ any, err error) error { return err }
	bf, _ := blocked.New(1000, 0.01)
	bf2, _ := blocked.New(1000, 0.01, blocked.WithSeed(1))
	cf, _ := cuckoo.New(1000)
	cf8, _ := cuckoo.New(1000, cuckoo.WithFingerprintBits(8))
	kf, _ := classic.New(1000, 0.01)
	kc, _ := classic.NewCounting(1000, 0.01)
	kc2, _ := classic.NewCounting(2000, 0.01)
	for name, err := range map[string]error{
		"blocked.New fpp":          must(blocked.New(10, 2)),
		"blocked.New fpp too low":  must(blocked.New(10, 1e-12)),
		"blocked.NewWithSize k":    must(blocked.NewWithSize(1024, 0)),
		"blocked.NewScalable":      must(blocked.NewScalable(10, 0.01, blocked.WithGrowth(1))),
		"sbbf.New":                 must(sbbf.New(10, 2)),
		"cuckoo.New capacity":      must(cuckoo.New(0)),
		"cuckoo.New fingerprint":   must(cuckoo.New(10, cuckoo.WithFingerprintBits(9))),
		"classic.New insertions":   must(classic.New(-1, 0.01)),
		"classic.New fpp":          must(classic.New(10, 0)),
		"classic.NewCounting fpp":  must(classic.NewCounting(10, 1)),
		"classic.New with a seed":  must(classic.New(10, 0.01, classic.WithSeed(1))),
		"cuckoo.New too many keys": must(cuckoo.New(1 << 62)),
	} {
		if !errors.Is(err, sift.ErrInvalidArgument) {
			t.Errorf("%s: %v does not match sift.ErrInvalidArgument", name, err)
		}
	}
	for name, err := range map[string]error{
		"blocked Union":     bf.Union(bf2),
		"cuckoo Union":      cf.Union(cf8),
		"classic PutAll":    kf.PutAll(kf),
		"counting Union":    kc.Union(kc2),
		"blocked Intersect": bf.Intersect(bf2),
	} {
		if !errors.Is(err, sift.ErrIncompatible) {
			t.Errorf("%s: %v does not match sift.ErrIncompatible", name, err)
		}
	}

	dir := ""
	for _, c := range errorCases(t, &dir) {
		var e *sift.Error
		if !errors.As(c.err, &e) {
			t.Errorf("%s: %T is not a *sift.Error", c.name, c.err)
			continue
		}
		if want := strings.SplitN(c.name, " ", 2)[0]; want == "scalable" && e.Pkg != "blocked" || want != "scalable" && e.Pkg != want {
			t.Errorf("%s: Pkg %q", c.name, e.Pkg)
		}
		if e.Error() != c.err.Error() || e.Pkg+": "+e.Msg != e.Error() {
			t.Errorf("%s: %q is not %q + %q", c.name, e.Error(), e.Pkg, e.Msg)
		}
	}
}
