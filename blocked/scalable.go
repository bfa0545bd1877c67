package blocked

import (
	"errors"
	"io"
	"math"
	"math/bits"
	"runtime"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/internal/nocopy"
)

// Scalable is a blocked Bloom filter for an unknown number of keys: a chain
// of Filters (stages) where each new stage holds growth times more keys than
// the last and has a false-positive rate ratio times lower (Almeida, Baquero,
// Preguiça and Hutchison, "Scalable Bloom Filters", 2007). With a bound P,
// stage i is sized for P(1-r)r^i, so the rate of the whole chain, at most
// the sum over stages, stays below P however many keys arrive.
//
// A stage is full when it holds the keys it was sized for; the next Add of
// a new key then allocates the next stage. The chain grows until a stage
// cannot be made: when it would exceed MaxBits, bring the chain past the
// WithMaxSize limit, need memory the machine cannot provide (see New), or
// be sized for a rate below MinFPP (the stages' rates shrink geometrically:
// stage i gets P(1-r)r^i), or when its capacity would overflow uint64. Then
// Add returns an error wrapping ErrTooLarge (and ErrFPPTooLow, for the
// rate) and the key is not added; nothing is ever dropped silently.
//
// An Add of a key that some stage already reports present changes nothing
// (it is already answered "present"), so duplicates do not use capacity.
// Lookups check every stage, newest (largest) first. Like Filter, lookups
// may run concurrently with each other but not with adds. The zero Scalable
// has no stages, like a closed one: it is only good as the target of
// UnmarshalBinary or ReadFrom, and any other use fails loudly (see Close).
// Do not copy a Scalable value; use Clone (go vet's copylocks check
// reports a copy).
type Scalable struct {
	_       nocopy.NoCopy // go vet reports copies; no space
	stages  []*Filter
	counts  []uint64 // keys added to each stage
	caps    []uint64 // keys each stage was sized for
	initial uint64
	bound   float64
	growth  uint64
	ratio   float64
	seed    uint64
	count   uint64
	// maxBytes bounds the stages' blocks (WithMaxSize; 0: no limit),
	// for growth and for the receiver's decoders. It is not encoded: a
	// decoded Scalable keeps its receiver's.
	maxBytes uint64
	bytes    uint64 // the stages' blocks, in bytes
}

// NewScalable returns a Scalable filter whose first stage holds n keys (n = 0
// is treated as 1) and whose false-positive rate stays at most fpp however
// many keys are added. Options: WithSeed, WithGrowth, WithTightening,
// WithMaxSize (the bound on all the stages' memory together). It returns
// ErrInvalidFPP, ErrInvalidOption or ErrTooLarge for parameters that cannot
// work, and ErrFPPTooLow when the first stage's rate, fpp(1-r), is below
// MinFPP.
func NewScalable(n uint64, fpp float64, opts ...Option) (*Scalable, error) {
	o := collect(opts)
	if !(fpp > 0 && fpp < 1) {
		return nil, errorf(ErrInvalidFPP, "false-positive rate %v is not in (0, 1)", fpp)
	}
	if err := checkScalable(o.growth, o.ratio); err != nil {
		return nil, err
	}
	if first := fpp * (1 - o.ratio); first < MinFPP {
		return nil, errorf2(ErrFPPTooLow, ErrInvalidArgument, "the first stage's false-positive rate, %.3g (%g times the tightening ratio's complement %g), is below MinFPP = %g; a classic Bloom filter (package classic) needs %.1f bits per key for %g", first, fpp, 1-o.ratio, MinFPP, classicBitsPerKey(fpp), fpp)
	}
	s := &Scalable{initial: max(n, 1), bound: fpp, growth: o.growth, ratio: o.ratio, seed: o.seed, maxBytes: o.maxBytes}
	if err := s.grow(); err != nil {
		return nil, err
	}
	return s, nil
}

func checkScalable(growth uint64, ratio float64) error {
	if growth < 2 || growth > 1<<16 {
		return errorf(ErrInvalidOption, "growth factor %d is not in 2..65536", growth)
	}
	if !(ratio > 0 && ratio < 1) {
		return errorf(ErrInvalidOption, "tightening ratio %v is not in (0, 1)", ratio)
	}
	return nil
}

// stageFPP is the false-positive rate stage i is sized for.
func (s *Scalable) stageFPP(i int) float64 {
	return s.bound * (1 - s.ratio) * math.Pow(s.ratio, float64(i))
}

// stageCap is the capacity of stage i, or false on overflow.
func stageCap(initial, growth uint64, i int) (uint64, bool) {
	c := initial
	for range i {
		hi, lo := bits.Mul64(c, growth)
		if hi != 0 {
			return 0, false
		}
		c = lo
	}
	return c, true
}

// grow appends the next stage.
func (s *Scalable) grow() error {
	i := len(s.stages)
	capacity, ok := stageCap(s.initial, s.growth, i)
	if !ok {
		return errorf(ErrTooLarge, "scalable filter cannot grow: stage %d's capacity overflows uint64", i)
	}
	fpp := s.stageFPP(i)
	if fpp < MinFPP {
		return errorf2(ErrTooLarge, ErrFPPTooLow, "scalable filter cannot grow: stage %d's false-positive rate, %.3g, is below MinFPP = %g", i, fpp, MinFPP)
	}
	blocks, k, err := optimalBlocks(capacity, fpp)
	if err != nil {
		return errorf(ErrTooLarge, "scalable filter cannot grow to stage %d (%d keys at rate %.3g): %s", i, capacity, fpp, trimPrefix(err))
	}
	size := blocks * (BlockBits / 8)
	if s.maxBytes != 0 && s.bytes+size > s.maxBytes {
		return errorf(ErrTooLarge, "scalable filter cannot grow to stage %d: its %d bytes and the %d of the stages before it exceed the maximum size (WithMaxSize) of %d bytes", i, size, s.bytes, s.maxBytes)
	}
	f, err := newFilter(blocks, k, options{seed: s.seed})
	if err != nil {
		return errorf2(ErrTooLarge, err, "scalable filter cannot grow to stage %d: %s", i, trimPrefix(err))
	}
	s.stages = append(s.stages, f)
	s.counts = append(s.counts, 0)
	s.caps = append(s.caps, capacity)
	s.bytes += size
	return nil
}

// Hash returns the hash the filter uses for key (see Filter.Hash).
func (s *Scalable) Hash(key []byte) uint64 { return hash.Bytes(key, s.seed) }

// HashString is Hash for a string key.
func (s *Scalable) HashString(key string) uint64 { return hash.String(key, s.seed) }

// HashUint64 is Hash for x's eight little-endian bytes.
func (s *Scalable) HashUint64(x uint64) uint64 { return hash.Uint64(x, s.seed) }

// Add adds key. It returns an error (wrapping ErrTooLarge) only when the
// key needs a new stage that cannot be made; the key is then not added.
func (s *Scalable) Add(key []byte) error { return s.AddHash(hash.Bytes(key, s.seed)) }

// AddString is Add for a string key.
func (s *Scalable) AddString(key string) error { return s.AddHash(hash.String(key, s.seed)) }

// AddUint64 is Add for x's eight little-endian bytes.
func (s *Scalable) AddUint64(x uint64) error { return s.AddHash(hash.Uint64(x, s.seed)) }

// AddHash is Add for a key whose hash is h. On a closed or zero Scalable it
// returns an error wrapping ErrClosed.
func (s *Scalable) AddHash(h uint64) error {
	if err := s.addable(); err != nil {
		return err
	}
	if s.ContainsHash(h) {
		return nil
	}
	last := len(s.stages) - 1
	if s.counts[last] >= s.caps[last] {
		if err := s.grow(); err != nil {
			return err
		}
		last++
	}
	s.stages[last].AddHash(h)
	s.counts[last]++
	s.count++
	return nil
}

// addable is the error of an add to a closed or zero Scalable, else nil.
func (s *Scalable) addable() error {
	if len(s.stages) == 0 {
		return errorf(ErrClosed, "cannot add to a closed or zero Scalable")
	}
	return nil
}

// AddHashes adds every key whose hash is in hs, stopping at the first error
// (the keys before it are added).
func (s *Scalable) AddHashes(hs []uint64) error {
	if err := s.addable(); err != nil { // an empty batch too, as AddHash
		return err
	}
	for _, h := range hs {
		if err := s.AddHash(h); err != nil {
			return err
		}
	}
	return nil
}

// Contains reports whether key may have been added.
func (s *Scalable) Contains(key []byte) bool { return s.ContainsHash(hash.Bytes(key, s.seed)) }

// ContainsString is Contains for a string key.
func (s *Scalable) ContainsString(key string) bool {
	return s.ContainsHash(hash.String(key, s.seed))
}

// ContainsUint64 is Contains for x's eight little-endian bytes.
func (s *Scalable) ContainsUint64(x uint64) bool { return s.ContainsHash(hash.Uint64(x, s.seed)) }

// ContainsHash is Contains for a key whose hash is h. On a closed or zero
// Scalable it panics with an error wrapping ErrClosed (a Scalable without
// stages holds nothing, and answering false would hide the misuse).
func (s *Scalable) ContainsHash(h uint64) bool {
	if len(s.stages) == 0 {
		panic(errUse)
	}
	for i := len(s.stages) - 1; i >= 0; i-- {
		if s.stages[i].ContainsHash(h) {
			return true
		}
	}
	return false
}

// ContainsHashes sets out[i] = ContainsHash(hs[i]) for every i and returns
// how many are true, probing each stage with the batch kernels. It panics
// if len(out) < len(hs).
func (s *Scalable) ContainsHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("blocked: ContainsHashes: len(out) < len(hs)")
	}
	if len(s.stages) == 0 {
		panic(errUse)
	}
	out = out[:len(hs)]
	if len(s.stages) == 1 {
		return s.stages[0].ContainsHashes(hs, out)
	}
	const chunk = 256
	var tmp [chunk]bool
	n := 0
	for len(hs) > 0 {
		c := min(len(hs), chunk)
		o := out[:c]
		s.stages[0].ContainsHashes(hs[:c], o)
		for _, st := range s.stages[1:] {
			st.ContainsHashes(hs[:c], tmp[:c])
			for i, t := range tmp[:c] {
				o[i] = o[i] || t
			}
		}
		for _, b := range o {
			if b {
				n++
			}
		}
		hs, out = hs[c:], out[c:]
	}
	return n
}

// Union adds every key of other to s, stage by stage: afterwards s reports
// present every key either chain did. The chains must be compatible: the
// same seed, first-stage capacity, false-positive bound, growth factor and
// tightening ratio (chains made by NewScalable with the same arguments and
// options are), so that their stage i has the same size and k in both.
// Then stage i of s gets the bits of stage i of other (an OR, as
// Filter.Union), and stages other has beyond s's last are copied. Otherwise
// Union returns an error wrapping ErrIncompatible and changes nothing; so
// it does for other == s.
//
// A merged stage holds the keys of both, which may be more than it was
// sized for, so the chain's false-positive rate may exceed Bound: FPP
// reports the rate the bits give. Each stage's count becomes the sum of
// both, capped at the stage's capacity (a stage records no more, so that
// every reader of the format accepts the result), and Count is their sum.
// The copies of other's extra stages must fit in the WithMaxSize bound of s
// and in memory, else Union returns an error wrapping ErrTooLarge and
// changes nothing.
func (s *Scalable) Union(other *Scalable) error {
	switch {
	case len(s.stages) == 0 || other != nil && len(other.stages) == 0:
		return errorf(ErrClosed, "cannot combine a closed or zero Scalable")
	case other == nil:
		return errorf(ErrIncompatible, "nil filter")
	case other == s:
		return errorf(ErrIncompatible, "cannot combine a Scalable with itself")
	case s.seed != other.seed:
		return errorf(ErrIncompatible, "seeds differ (%#x and %#x)", s.seed, other.seed)
	case s.initial != other.initial || math.Float64bits(s.bound) != math.Float64bits(other.bound) ||
		s.growth != other.growth || math.Float64bits(s.ratio) != math.Float64bits(other.ratio):
		return errorf(ErrIncompatible, "the chains grow differently (first stage %d and %d keys, bound %g and %g, growth %d and %d, tightening %g and %g)",
			s.initial, other.initial, s.bound, other.bound, s.growth, other.growth, s.ratio, other.ratio)
	}
	shared := min(len(s.stages), len(other.stages))
	for i := range shared {
		if err := s.stages[i].compatible(&other.stages[i].core); err != nil {
			return errorf(ErrIncompatible, "stage %d: %s", i, trimPrefix(err))
		}
	}
	// Copy other's extra stages first: the only step that can fail.
	var extra []*Filter
	var extraBytes uint64
	for _, st := range other.stages[shared:] {
		extraBytes += st.Blocks() * (BlockBits / 8)
	}
	if s.maxBytes != 0 && s.bytes+extraBytes > s.maxBytes {
		return errorf(ErrTooLarge, "the merged stages would take %d bytes, more than the maximum size of %d bytes (WithMaxSize)", s.bytes+extraBytes, s.maxBytes)
	}
	for _, st := range other.stages[shared:] {
		c := &Filter{}
		if err := c.alloc(st.Blocks(), st.t.K, s.seed); err != nil {
			for _, e := range extra {
				_ = e.Close()
			}
			return err
		}
		copy(c.words, st.words)
		runtime.KeepAlive(st)
		extra = append(extra, c)
	}
	for i := range shared {
		_ = s.stages[i].Union(other.stages[i]) // compatible, checked above
		sum := s.counts[i] + other.counts[i]
		if sum < s.counts[i] {
			sum = s.caps[i] // overflow: more than any capacity
		}
		s.counts[i] = min(s.caps[i], sum)
	}
	s.stages = append(s.stages, extra...)
	s.counts = append(s.counts, other.counts[shared:]...)
	s.caps = append(s.caps, other.caps[shared:]...)
	s.bytes += extraBytes
	s.count = 0
	for _, c := range s.counts {
		s.count += c
	}
	return nil
}

// Count returns the number of keys added, not counting adds of keys that
// were already reported present.
func (s *Scalable) Count() uint64 { return s.count }

// Stages returns the number of stages.
func (s *Scalable) Stages() int { return len(s.stages) }

// Bound returns the false-positive rate the filter never exceeds (the fpp
// given to NewScalable).
func (s *Scalable) Bound() float64 { return s.bound }

// FPP returns the chain's false-positive rate now: a key is a false positive
// when any stage reports it, 1 - prod(1 - stage.FPP()). It reads every
// stage. It panics on a closed or zero Scalable, as ContainsHash does.
func (s *Scalable) FPP() float64 {
	if len(s.stages) == 0 {
		panic(errUse)
	}
	q := 1.0
	for _, st := range s.stages {
		q *= 1 - st.FPP()
	}
	return 1 - q
}

// SizeBytes returns the memory the stages' blocks take.
func (s *Scalable) SizeBytes() uint64 { return s.Bits() / 8 }

// Bits returns the total size of the stages in bits.
func (s *Scalable) Bits() uint64 {
	var b uint64
	for _, st := range s.stages {
		b += st.Bits()
	}
	return b
}

// Seed returns the hash seed.
func (s *Scalable) Seed() uint64 { return s.seed }

// Reset removes every key and every stage but the first, which it clears.
// It panics on a closed or zero Scalable, as ContainsHash does.
func (s *Scalable) Reset() {
	if len(s.stages) == 0 {
		panic(errUse)
	}
	for _, st := range s.stages[1:] {
		_ = st.Close()
	}
	s.stages[0].Reset()
	s.stages, s.counts, s.caps = s.stages[:1], s.counts[:1], s.caps[:1]
	s.counts[0], s.count = 0, 0
	s.bytes = s.stages[0].Blocks() * (BlockBits / 8)
}

// Clone returns an independent copy of s (it panics on a closed or zero
// Scalable, and as Filter.Clone does).
func (s *Scalable) Clone() *Scalable {
	if len(s.stages) == 0 {
		panic(errUse)
	}
	c := new(Scalable)
	nocopy.Move(c, s)
	c.stages = make([]*Filter, len(s.stages))
	for i, st := range s.stages {
		c.stages[i] = st.Clone()
	}
	c.counts = append([]uint64(nil), s.counts...)
	c.caps = append([]uint64(nil), s.caps...)
	return c
}

// Close releases the stages' memory now (see Filter.Close) and leaves s
// without stages, like the zero Scalable: afterwards Add and its forms,
// MarshalBinary and WriteTo return an error wrapping ErrClosed; Contains
// and its forms, ContainsHashes, FPP, Reset and Clone panic with such an
// error; Count, Stages and Bits return 0. UnmarshalBinary and ReadFrom make
// it a filter again. Close is harmless more than once.
func (s *Scalable) Close() error {
	var first error
	for _, st := range s.stages {
		if err := st.Close(); err != nil && first == nil {
			first = err
		}
	}
	s.stages, s.counts, s.caps = nil, nil, nil
	s.count, s.bytes = 0, 0
	return first
}

// Params of a scalable filter's header.
const (
	paramStages     = 0 // number of stages, >= 1
	paramInitial    = 1 // capacity of stage 0
	paramBound      = 2 // math.Float64bits of the false-positive bound
	paramGrowth     = 3 // growth factor
	paramRatio      = 4 // math.Float64bits of the tightening ratio
	paramTotalCount = 5 // keys added, the sum of the stages' counts
)

func (s *Scalable) header() format.Header {
	h := format.Header{Kind: format.KindScalable, Hash: format.HashXXH3, Seed: s.seed}
	h.Params[paramStages] = uint64(len(s.stages))
	h.Params[paramInitial] = s.initial
	h.Params[paramBound] = math.Float64bits(s.bound)
	h.Params[paramGrowth] = s.growth
	h.Params[paramRatio] = math.Float64bits(s.ratio)
	h.Params[paramTotalCount] = s.count
	return h
}

// payload is the stages' complete blocked encodings back to back, each
// padded with zeros to a multiple of 64 bytes.
func (s *Scalable) payload() []byte {
	size := 0
	for _, st := range s.stages {
		size += padded(format.HeaderSize + len(st.words)*8)
	}
	p := make([]byte, 0, size)
	for i, st := range s.stages {
		p = appendEncoding(p, st.words, st.t.K, s.seed, s.counts[i], s.caps[i])
		p = append(p, make([]byte, padded(len(p))-len(p))...)
	}
	runtime.KeepAlive(s)
	return p
}

func padded(n int) int { return (n + format.Align - 1) &^ (format.Align - 1) }

// MarshalBinary returns the filter in sift's file format: a scalable header
// whose payload is every stage's complete blocked encoding (see "File
// format" in the package documentation). For a closed or zero Scalable it
// returns an error wrapping ErrClosed.
func (s *Scalable) MarshalBinary() ([]byte, error) {
	if len(s.stages) == 0 {
		return nil, errorf(ErrClosed, "cannot encode a closed or zero Scalable")
	}
	return format.Encode(s.header(), s.payload()), nil
}

// AppendBinary appends MarshalBinary's bytes to b and returns the extended
// slice (encoding.BinaryAppender). For a closed or zero Scalable it returns
// b unchanged and an error wrapping ErrClosed.
func (s *Scalable) AppendBinary(b []byte) ([]byte, error) {
	if len(s.stages) == 0 {
		return b, errorf(ErrClosed, "cannot encode a closed or zero Scalable")
	}
	p := s.payload()
	return append(format.AppendHeader(b, s.header(), p), p...), nil
}

// WriteTo writes MarshalBinary's bytes to w (or returns its error).
func (s *Scalable) WriteTo(w io.Writer) (int64, error) {
	if len(s.stages) == 0 {
		return 0, errorf(ErrClosed, "cannot encode a closed or zero Scalable")
	}
	return format.Write(w, s.header(), s.payload())
}

// UnmarshalBinary replaces s with the filter encoded in data, which must be
// exactly one scalable encoding. Every field of the outer header and of
// every stage is checked before anything is used. A Scalable made with
// WithMaxSize refuses an encoding whose stages take more (ErrTooLarge) and
// keeps the bound. On error s is unchanged.
func (s *Scalable) UnmarshalBinary(data []byte) error {
	h, payload, n, err := format.Decode(data, format.KindScalable, s.limit(false))
	if err != nil {
		return formatErr(err, h)
	}
	if n != len(data) {
		return errorf(ErrCorrupt, "%d bytes after the filter", len(data)-n)
	}
	return s.decode(h, payload, false)
}

// ReadFrom replaces s with one scalable filter read from r, reading exactly
// its bytes. Memory grows with the input actually read, never with declared
// sizes; a Scalable made with WithMaxSize refuses one whose stages take
// more (ErrTooLarge: before reading a payload more than three times that
// large, which stages that small cannot fill), and a zero Scalable has the
// default maximum of Filter.ReadFrom. ReadScalable reads into a new
// Scalable with options. On error s is unchanged.
func (s *Scalable) ReadFrom(r io.Reader) (int64, error) {
	h, payload, n, err := format.Read(r, format.KindScalable, s.limit(false))
	if err != nil {
		return n, formatErr(err, h)
	}
	return n, s.decode(h, payload, false)
}

// ReadScalable reads one scalable filter from r as Scalable.ReadFrom does,
// into a new Scalable. Options: WithMaxSize (the bound on the stages'
// memory, which the Scalable keeps for growing), WithoutChecksum.
func ReadScalable(r io.Reader, opts ...Option) (*Scalable, error) {
	o := collect(opts)
	s := &Scalable{maxBytes: o.maxBytes}
	h, payload, _, err := format.Read(r, format.KindScalable, s.limit(o.skipChecksum))
	if err != nil {
		return nil, formatErr(err, h)
	}
	if err := s.decode(h, payload, o.skipChecksum); err != nil {
		return nil, err
	}
	return s, nil
}

// limit is the format check of a decoder into s. A payload holds the
// stages' blocks and a 128-byte header per stage of at least one 64-byte
// block: at most three times the blocks, so a larger one exceeds
// s.maxBytes for certain (decode checks the blocks exactly).
func (s *Scalable) limit(skipChecksum bool) format.Options {
	o := format.Options{SkipPayloadCRC: skipChecksum}
	if s.maxBytes != 0 {
		o.MaxPayload = s.maxBytes * 3
		if o.MaxPayload/3 != s.maxBytes {
			o.MaxPayload = 0 // overflow: no bound the platform can hold anyway
		}
	}
	return o
}

// decode checks the outer parameters and every stage of a scalable
// payload and builds the filter from them. Each stage's own checksums are
// checked as FORMAT.md asks (a writer whose stage CRCs are stale is found
// out, even where the outer CRC holds), unless skipChecksum: then the
// payload CRCs, outer and inner, are left to the caller's trust in its
// storage, and only the stage headers' CRCs are checked.
func (s *Scalable) decode(h format.Header, payload []byte, skipChecksum bool) error {
	if h.Hash != format.HashXXH3 {
		return errorf(ErrCorrupt, "hash algorithm %v, blocked filters use %v", h.Hash, format.HashXXH3)
	}
	p := h.Params
	nstages := p[paramStages]
	bound := math.Float64frombits(p[paramBound])
	ratio := math.Float64frombits(p[paramRatio])
	switch {
	case nstages < 1 || nstages > uint64(len(payload))/(format.HeaderSize+format.Align):
		return errorf(ErrCorrupt, "%d stages cannot fit in a payload of %d bytes", nstages, len(payload))
	case p[paramInitial] < 1:
		return errorf(ErrCorrupt, "initial capacity is 0")
	case !(bound > 0 && bound < 1):
		return errorf(ErrCorrupt, "false-positive bound %v is not in (0, 1)", bound)
	case p[6] != 0 || p[7] != 0:
		return errorf(ErrCorrupt, "parameters 6 and 7 must be 0")
	}
	if err := checkScalable(p[paramGrowth], ratio); err != nil {
		return errorf(ErrCorrupt, "%s", trimPrefix(err))
	}
	d := &Scalable{initial: p[paramInitial], bound: bound, growth: p[paramGrowth], ratio: ratio, seed: h.Seed, maxBytes: s.maxBytes}
	fail := func(err error) error {
		_ = d.Close()
		return err
	}
	var total uint64
	for i := 0; i < int(nstages); i++ {
		c, sh, used, err := decodeCopy(payload, format.Options{SkipPayloadCRC: skipChecksum}, true)
		if err != nil {
			// The stage lies inside a payload whose header, kind and
			// checksum held: a stage that is not a blocked filter of a
			// known version, or that runs past the payload, is damage
			// to this file (ErrCorrupt), not a file of another kind,
			// version or length. A stage checksum that does not match
			// (ErrChecksum) and a size limit (ErrTooLarge) keep theirs.
			sentinel := ErrCorrupt
			for _, keep := range []error{ErrChecksum, ErrTooLarge} {
				if errors.Is(err, keep) {
					sentinel = keep
				}
			}
			return fail(errorf(sentinel, "stage %d: %s", i, trimPrefix(err)))
		}
		d.stages = append(d.stages, &Filter{core: c})
		capacity, ok := stageCap(d.initial, d.growth, i)
		count, scap := sh.Params[paramCount], sh.Params[paramCapacity]
		switch {
		case sh.Version != 1:
			// The generation belongs to the file (the outer header):
			// a stage in version 2 is a writer's mistake.
			return fail(errorf(ErrCorrupt, "stage %d is in format version %d, stages are version 1", i, sh.Version))
		case sh.Seed != h.Seed:
			return fail(errorf(ErrCorrupt, "stage %d has seed %#x, the filter %#x", i, sh.Seed, h.Seed))
		case !ok || scap != capacity:
			return fail(errorf(ErrCorrupt, "stage %d has capacity %d, want %d", i, scap, capacity))
		case count > scap || (i+1 < int(nstages) && count != scap):
			return fail(errorf(ErrCorrupt, "stage %d holds %d keys of %d", i, count, scap))
		}
		d.counts = append(d.counts, count)
		d.caps = append(d.caps, capacity)
		d.bytes += uint64(len(c.t.Blocks)) * (BlockBits / 8)
		if d.maxBytes != 0 && d.bytes > d.maxBytes {
			return fail(errorf(ErrTooLarge, "the stages up to %d take %d bytes, more than the maximum size of %d bytes (WithMaxSize)", i, d.bytes, d.maxBytes))
		}
		var carry uint64
		if total, carry = bits.Add64(total, count, 0); carry != 0 {
			return fail(errorf(ErrCorrupt, "the stages up to %d hold more than 2^64 keys", i))
		}
		end := padded(used)
		if end > len(payload) {
			return fail(errorf(ErrCorrupt, "stage %d's padding runs past the payload", i))
		}
		for _, b := range payload[used:end] {
			if b != 0 {
				return fail(errorf(ErrCorrupt, "stage %d's padding is not zero", i))
			}
		}
		payload = payload[end:]
	}
	if len(payload) != 0 {
		return fail(errorf(ErrCorrupt, "%d bytes after the last stage", len(payload)))
	}
	if total != p[paramTotalCount] {
		return fail(errorf(ErrCorrupt, "stages hold %d keys, header says %d", total, p[paramTotalCount]))
	}
	d.count = total
	_ = s.Close()
	nocopy.Move(s, d)
	return nil
}
