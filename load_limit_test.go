package sift_test

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/sbbf"
)

// TestLoadMaxSizeBeforeRead: every Load given WithMaxSize refuses a file
// whose header declares a larger payload from the header alone, before it
// allocates memory for the file or reads it. The file is sparse, 1 TiB
// long: read first, it would be refused for the machine's memory instead,
// with another message (as every Load did before the header was checked).
func TestLoadMaxSizeBeforeRead(t *testing.T) {
	const limit = 1 << 20
	const payload = 1 << 40
	dir := t.TempDir()
	loads := map[sift.Kind]func(path string) error{
		sift.KindBlocked: func(p string) error {
			_, err := blocked.Load(p, blocked.WithMaxSize(limit))
			return err
		},
		sift.KindCuckoo: func(p string) error {
			_, err := cuckoo.Load(p, cuckoo.WithMaxSize(limit))
			return err
		},
		sift.KindSplitBlock: func(p string) error {
			_, err := sbbf.Load(p, sbbf.WithMaxSize(limit))
			return err
		},
	}
	for _, vk := range viewKinds() {
		t.Run(vk.kind.String(), func(t *testing.T) {
			head := encode(t, vk.build(t, 100))[:format.HeaderSize]
			binary.LittleEndian.PutUint64(head[32:], payload)
			binary.LittleEndian.PutUint32(head[124:], format.Checksum(head[:124]))
			path := filepath.Join(dir, vk.kind.String()+".sift")
			if err := os.WriteFile(path, head, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, format.HeaderSize+payload); err != nil {
				t.Skipf("no sparse file of 1 TiB here: %v", err)
			}
			check := func(name string, err error) {
				t.Helper()
				if !errors.Is(err, sift.ErrTooLarge) || !strings.Contains(err.Error(), "exceeds the limit of 1048576") {
					t.Errorf("%s: %v, want ErrTooLarge for the declared payload against WithMaxSize", name, err)
				}
			}
			_, err := sift.Load(path, sift.WithMaxSize(limit))
			check("sift.Load", err)
			if load := loads[vk.kind]; load != nil {
				check(vk.kind.String()+".Load", load(path))
			}
		})
	}
}

// TestLoadRefusesBeforeRead: every Load, with or without WithMaxSize,
// refuses from the file's head a file it would refuse after reading it
// whole: one longer than the encoding its header declares (a whole filter
// followed by a sparse 1 TiB tail) and one that is not a sift file at all,
// or another kind's. Read first, the 1 TiB files would fail for the
// machine's memory instead, with another error.
func TestLoadRefusesBeforeRead(t *testing.T) {
	const tail = 1 << 40
	dir := t.TempDir()
	loads := map[sift.Kind]func(path string, limit uint64) error{
		sift.KindBlocked: func(p string, limit uint64) error {
			_, err := blocked.Load(p, blocked.WithMaxSize(limit))
			return err
		},
		sift.KindCuckoo: func(p string, limit uint64) error {
			_, err := cuckoo.Load(p, cuckoo.WithMaxSize(limit))
			return err
		},
		sift.KindSplitBlock: func(p string, limit uint64) error {
			_, err := sbbf.Load(p, sbbf.WithMaxSize(limit))
			return err
		},
	}
	sparse := func(t *testing.T, name string, head []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, head, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, int64(len(head))+tail); err != nil {
			t.Skipf("no sparse file of 1 TiB here: %v", err)
		}
		return path
	}
	notSift := sparse(t, "log.txt", []byte(strings.Repeat("GET /index.html\n", 16)))
	// A kind no View serves is ErrKind from its head, before the length
	// check: it was refused as corrupt ("1099511627776 bytes after the
	// filter"), which named the length and not the kind.
	sc, err := blocked.NewScalable(100, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	scalable := sparse(t, "scalable.sift", encode(t, sc))
	if _, err := sift.Load(scalable); !errors.Is(err, sift.ErrKind) {
		t.Errorf("sift.Load of a scalable filter with a 1 TiB tail: %v, want ErrKind", err)
	}
	for _, vk := range viewKinds() {
		t.Run(vk.kind.String(), func(t *testing.T) {
			long := sparse(t, vk.kind.String()+".sift", encode(t, vk.build(t, 100)))
			for _, limit := range []uint64{0, 1 << 20} {
				_, err := sift.Load(long, sift.WithMaxSize(limit))
				if !errors.Is(err, sift.ErrCorrupt) || !strings.Contains(err.Error(), "bytes after the filter") {
					t.Errorf("sift.Load, limit %d, of a filter with a 1 TiB tail: %v, want ErrCorrupt for the bytes after it", limit, err)
				}
				if _, err := sift.Load(notSift, sift.WithMaxSize(limit)); !errors.Is(err, sift.ErrMagic) {
					t.Errorf("sift.Load, limit %d, of a 1 TiB text file: %v, want ErrMagic", limit, err)
				}
				load := loads[vk.kind]
				if load == nil {
					continue
				}
				if err := load(long, limit); !errors.Is(err, sift.ErrCorrupt) || !strings.Contains(err.Error(), "bytes after the filter") {
					t.Errorf("%v.Load, limit %d, of a filter with a 1 TiB tail: %v, want ErrCorrupt", vk.kind, limit, err)
				}
				if err := load(notSift, limit); !errors.Is(err, sift.ErrMagic) {
					t.Errorf("%v.Load, limit %d, of a 1 TiB text file: %v, want ErrMagic", vk.kind, limit, err)
				}
				for other := range loads {
					if other == vk.kind {
						continue
					}
					if err := loads[other](long, limit); !errors.Is(err, sift.ErrKind) {
						t.Errorf("%v.Load, limit %d, of a %v filter with a 1 TiB tail: %v, want ErrKind", other, limit, vk.kind, err)
					}
				}
			}
		})
	}
}
