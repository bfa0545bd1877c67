package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/mem"
)

// A kindInfo is one filter kind the command knows. Each kind_*.go file
// registers its kind from init; a kind whose package is unavailable is simply
// not registered, and the command reports it as unsupported.
type kindInfo struct {
	name     string
	fileKind sift.Kind // the kind's value in a file's header
	// newBuilder makes an empty filter for build, or is nil when build
	// does not make this kind.
	newBuilder func(buildSpec) (builder, error)
	// memory returns the bytes the filter newBuilder makes for a spec
	// will take (0 when unknown), for build's memory check.
	memory func(buildSpec) float64
	// open reads a filter file for query and info into memory of the
	// process's own (never a mapping: a file truncated or rewritten while
	// sift runs must end it with an error, not a fault).
	open func(path string) (queryFilter, error)
	// merge unions shard files of this kind for sift merge, or is nil
	// when the kind does not merge.
	merge func(paths []string) (merged, error)
	// bench measures this kind for sift bench, or is nil.
	bench func(*benchRun) (benchResult, error)
}

var kinds []*kindInfo

func registerKind(k *kindInfo) {
	kinds = append(kinds, k)
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].fileKind < kinds[j].fileKind })
}

func kindByName(name string) *kindInfo {
	for _, k := range kinds {
		if k.name == name {
			return k
		}
	}
	return nil
}

func kindByFormat(f sift.Kind) *kindInfo {
	for _, k := range kinds {
		if k.fileKind == f {
			return k
		}
	}
	return nil
}

func buildKindNames() []string {
	var names []string
	for _, k := range kinds {
		if k.newBuilder != nil {
			names = append(names, k.name)
		}
	}
	return names
}

func openKindNames() []string {
	var names []string
	for _, k := range kinds {
		if k.open != nil {
			names = append(names, k.name)
		}
	}
	return names
}

// buildSpec is what sift build asks for.
type buildSpec struct {
	kind            string
	n               int64 // keys to size for; 0 means an empty input
	fpp             float64
	fppSet          bool // -fpp was given explicitly
	seed            uint64
	fingerprintBits int // cuckoo: 8 or 16, 0 to choose from fpp
	// copies (cuckoo): store every key given, a repeated one as copies
	// (AddHashes), so that keys can be removed later; else a key the
	// filter reports present is not stored again (AddNewHashes).
	copies bool
	// unbounded: the number of keys is unknown (a pipe without -n); only
	// kinds that can grow accept it.
	unbounded bool
	guava     bool // classic: write Guava's stream format
	// Explicit geometry (-blocks, -k, -buckets), so that shards built
	// apart agree and merge: 0 means sized from n and fpp.
	blocks  uint64 // blocked: 64-byte blocks; sbbf: 32-byte blocks
	k       int    // blocked: probes per key (with blocks)
	buckets uint64 // cuckoo: buckets of four slots
}

// explicit reports whether spec gives the filter's size itself.
func (s buildSpec) explicit() bool { return s.blocks != 0 || s.buckets != 0 }

// errFull is returned by builder.add when a filter that cannot grow (cuckoo)
// has no room for another key.
var errFull = errors.New("filter is full")

// builder is a filter being built.
type builder interface {
	// hash returns the hash the filter uses for key.
	hash(key []byte) uint64
	// add inserts the keys with hashes hs; it returns errFull (wrapped)
	// when the filter has no room.
	add(hs []uint64) error
	// added returns the number of keys inserted (including duplicates for
	// kinds that cannot tell).
	added() int64
	writeTo(w io.Writer) (int64, error)
	stats() filterStats
}

// keyAdder is a builder that takes keys rather than hashes: the classic
// filter hashes each key itself (murmur3, as Guava does). build calls addKey
// instead of hash and add when a builder has it.
type keyAdder interface {
	addKey(key []byte) error
}

// queryFilter is a filter opened read-only from a file.
type queryFilter interface {
	hash(key []byte) uint64
	// containsHashes sets out[i] to whether the filter may hold hs[i] and
	// returns how many are true.
	containsHashes(hs []uint64, out []bool) int
	stats() filterStats
	close() error
}

// filterStats describes a filter for build's summary and for info.
type filterStats struct {
	kind         string
	geometry     string // for example "15625 blocks x 512 bits, k=7"
	payloadBytes int64  // the filter's memory, without the header
	count        int64  // keys held: exact or estimated, see countExact; -1 unknown
	countExact   bool
	saturated    bool    // every bit is set: there is no count to estimate (saturatedKeys)
	fill         float64 // fraction of bits set or of slots used
	fillWhat     string  // what fill measures: "bits set", "slots used"
	fpp          float64 // predicted false-positive rate at the current fill; -1 unknown
}

// estimated returns the count and saturated fields for a Bloom filter's
// EstimatedCount c, which is math.MaxUint64 when every bit is set.
func estimated(c uint64) (count int64, saturated bool) {
	return int64(min(c, 1<<62)), c == math.MaxUint64
}

// saturatedKeys is info's keys row for a saturated filter.
const saturatedKeys = "unknown: every bit is set (saturated: every lookup answers present)"

// openFilter opens a filter file of any kind the command reads. want, when
// not empty, is the kind the caller requires.
func openFilter(path, want string) (queryFilter, sift.Info, error) {
	h, err := readHeader(path)
	if err != nil {
		return nil, h, err
	}
	if want != "" && h.Kind.String() != want {
		return nil, h, fmt.Errorf("%s: %w: it holds a %v filter, not %s", path, sift.ErrKind, h.Kind, want)
	}
	k := kindByFormat(h.Kind)
	if k == nil || k.open == nil {
		return nil, h, fmt.Errorf("%s: unsupported kind: it holds a %v filter; this sift reads %s", path, h.Kind, strings.Join(openKindNames(), " and "))
	}
	f, err := k.open(path)
	if err != nil {
		return nil, h, filterErr(path, err)
	}
	return f, h, nil
}

// readHeader reads and validates the fixed header of a filter file
// (sift.InspectFile: a path that is not a regular file is refused at once,
// never waiting for a FIFO's writer).
func readHeader(path string) (sift.Info, error) {
	h, err := sift.InspectFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return h, pathErr(err)
		}
		return h, filterErr(path, err)
	}
	return h, nil
}

// trailingErr is the error for n bytes after the end of the one encoding a
// filter file must hold (info, the readers, dedup -state).
func trailingErr(n uint64) error {
	return fmt.Errorf("%w: %d bytes after the end of the filter", sift.ErrCorrupt, n)
}

// checkEnd returns trailingErr when br, reading f and just past a filter's
// encoding, holds more bytes, or the error reading them. It reads one byte
// at most: the count comes from f's size less what br consumed, so a long
// tail (or a file another process keeps appending to) is not read through.
func checkEnd(f *os.File, br *bufio.Reader) error {
	if _, err := br.Peek(1); errors.Is(err, io.EOF) {
		return nil
	} else if err != nil {
		return err
	}
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return trailingErr(uint64(max(st.Size()-(pos-int64(br.Buffered())), 1)))
}

// changedHint is what filterErr and changedErr add to the error of a file
// that changed while it was read.
const changedHint = " (was it being written? run again once the copy is complete)"

// filterErr prefixes a decoding error with the file name and, for damage,
// says what it means for the operator.
func filterErr(path string, err error) error {
	hint := ""
	switch {
	case errors.Is(err, mem.ErrChanged):
		hint = changedHint
	case errors.Is(err, sift.ErrMagic):
		hint = " (is it a sift filter file? sift query and info read a Guava BloomFilter with -guava)"
	case errors.Is(err, sift.ErrChecksum):
		hint = " (the file is damaged: rebuild or copy it again)"
	case errors.Is(err, sift.ErrTruncated) && !strings.Contains(err.Error(), format.StillWrittenHint):
		// A file shorter than its header declares has the library's
		// own hint; a stream cut short has none.
		hint = " (incomplete file: was the copy interrupted?)"
	case errors.Is(err, sift.ErrVersion):
		hint = " (written by a newer sift?)"
	}
	return fmt.Errorf("%s: %w%s", path, err, hint)
}

func itoa(i int) string { return fmt.Sprint(i) }

// newBuilder makes an empty filter of the kind spec asks for.
func newBuilder(spec buildSpec) (builder, error) {
	k := kindByName(spec.kind)
	if k == nil || k.newBuilder == nil {
		return nil, fmt.Errorf("unsupported kind %q: this sift builds %s", spec.kind, strings.Join(buildKindNames(), " and "))
	}
	return k.newBuilder(spec)
}

// plural returns "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// durationString rounds d for messages: 1.234s, 56ms, 789µs.
func durationString(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}

// buildMemory returns the bytes of the filter build would make for spec, as
// its kind sizes it (a bound for all kinds, 2*1.44*log2(1/fpp) bits a key,
// overstated a blocked filter's need about twice), or 0 when unknown.
func buildMemory(spec buildSpec) float64 {
	if k := kindByName(spec.kind); k != nil && k.memory != nil {
		return k.memory(spec)
	}
	return 0
}

// checkMemory fails when need bytes clearly exceed the machine's memory, so
// that an impossible size is one clear error rather than the Go runtime's
// out-of-memory crash.
func checkMemory(need float64, what string) error {
	total := totalMemory()
	if total == 0 || need <= float64(total) {
		return nil
	}
	return fmt.Errorf("%s needs about %s of memory, more than this machine's %s", what, sizeString(int64(math.Min(need, math.MaxInt64/2))), sizeString(int64(total)))
}
