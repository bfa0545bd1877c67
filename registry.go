package sift

import (
	"io"
	"strings"

	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/internal/errs"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/sbbf"
)

// lookup is what View asks of a kind's read-only view: the lookups, the
// kind's hash for batch callers, its encoding (WriteTo) and Close.
type lookup interface {
	Contains(key []byte) bool
	ContainsString(key string) bool
	ContainsUint64(x uint64) bool
	ContainsHash(h uint64) bool
	ContainsHashes(hs []uint64, out []bool) int
	Hash(key []byte) uint64
	HashString(key string) uint64
	WriteTo(w io.Writer) (int64, error)
	Close() error
}

// viewer makes a kind's view of one complete encoding, data, checked as
// the kind's FromBytes checks it (with the payload's CRC-32C unless
// noChecksum, and no payload beyond maxBytes when not 0).
type viewer func(data []byte, maxBytes uint64, noChecksum bool) (lookup, error)

// viewers is the registry of the kinds that map in place, one line each,
// indexed by Kind: a new mappable kind is one entry in internal/format (its
// Kind value and name), one package with a FromBytes, and one line here.
// The kinds without a line (scalable, counting, classic) have no view that
// serves bytes in place; Open and FromBytes return ErrKind for them.
var viewers = [format.MaxKind + 1]viewer{
	KindBlocked:    viewerOf(blocked.FromBytes, blocked.WithMaxSize, blocked.WithoutChecksum),
	KindCuckoo:     viewerOf(cuckoo.FromBytes, cuckoo.WithMaxSize, cuckoo.WithoutChecksum),
	KindSplitBlock: viewerOf(splitBlockFromBytes, sbbf.WithMaxSize, sbbf.WithoutChecksum),
	// A window is copied into memory of its own: it goes on forgetting,
	// by blocked.WithClock's default clock, while it serves.
	KindWindow: viewerOf(blocked.WindowFromBytes, blocked.WithMaxSize, blocked.WithoutChecksum),
}

// viewable returns nil for a kind that has a line in viewers (k <=
// format.MaxKind), else the ErrKind error Open, Load and FromBytes return,
// which names the function that reads the kind.
func viewable(k Kind) error {
	if viewers[k] != nil {
		return nil
	}
	// A caller refused a View learns what loads the file instead.
	read := ""
	if r := format.Readers(format.Kind(k), "sift"); r != "" {
		read = "; read it with " + r
	}
	return errs.Annotatef("sift", []error{ErrKind}, "a %v filter cannot be viewed in place (Open, Load and FromBytes serve %s filters%s)", k, viewableKinds(), read)
}

// viewableKinds lists the kinds that have a line in viewers, for messages:
// "blocked, cuckoo, sbbf".
func viewableKinds() string {
	var names []string
	for k, v := range viewers {
		if v != nil {
			names = append(names, Kind(k).String())
		}
	}
	return strings.Join(names, ", ")
}

// viewerOf adapts a kind's FromBytes and its two options to viewer.
func viewerOf[V lookup, O any](fromBytes func([]byte, ...O) (V, error), withMaxSize func(uint64) O, withoutChecksum func() O) viewer {
	return func(data []byte, maxBytes uint64, noChecksum bool) (lookup, error) {
		opts := []O{withMaxSize(maxBytes)}
		if noChecksum {
			opts = append(opts, withoutChecksum())
		}
		v, err := fromBytes(data, opts...)
		if err != nil {
			return nil, err
		}
		return v, nil
	}
}

// splitBlockView gives Parquet's split-block view the names the other kinds
// use: ContainsUint64 is the INT64 value's lookup (the key of x's eight
// little-endian bytes, as for every kind), and Hash is its XXH64.
type splitBlockView struct{ *sbbf.View }

func (v splitBlockView) ContainsUint64(x uint64) bool { return v.ContainsInt64(int64(x)) }
func (v splitBlockView) Hash(key []byte) uint64       { return sbbf.Hash(key) }
func (v splitBlockView) HashString(key string) uint64 { return sbbf.HashString(key) }

func splitBlockFromBytes(data []byte, opts ...sbbf.Option) (splitBlockView, error) {
	v, err := sbbf.FromBytes(data, opts...)
	return splitBlockView{v}, err
}
