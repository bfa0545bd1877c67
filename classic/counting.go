package classic

import (
	"fmt"
	"math"
	"math/bits"
	"runtime"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/mem"
	"github.com/sift-go/sift/internal/nocopy"
	"github.com/sift-go/sift/internal/race"
)

// Counting is a counting Bloom filter: a Bloom filter whose bits are 4-bit
// counters, so keys can be removed as well as added.
//
// Counters are packed sixteen to a uint64 (counter i is bits 4*(i%16) to
// 4*(i%16)+3 of word i/16) and saturate at 15: a counter that reaches 15
// stays there forever, since after an overflow it no longer knows how many
// keys it counts, and decrementing it could later produce a false negative.
// With the classic sizing the load on a counter at the design capacity is
// about Poisson with mean ln 2, so a counter reaches 15 with probability
// about 2e-15: saturation needs many duplicate adds of the same key.
//
// Hashing: a key is hashed once with package hash (XXH3-64 with the filter's
// seed) to h; then h1 = h and h2 = fmix64(h ^ 0x9e3779b97f4a7c15) | 1
// (MurmurHash3's finaliser, a bijection, forced odd), and the k probes are
// the counters floor(g_i * m / 2^64) for g_i = h1 + i*h2 mod 2^64,
// i = 0..k-1: Kirsch–Mitzenmacher double hashing with a multiply-shift
// range reduction instead of a division. Callers holding hash.Bytes(key,
// Seed()) can use the *Hash methods directly.
//
// Removing a key that was never added, but that the filter reports present
// (a false positive), decrements counters that other keys rely on and can
// make them false negatives: remove only keys you added.
//
// A Counting is not safe for concurrent use when any goroutine modifies it;
// concurrent Contains calls alone are safe.
//
// The zero Counting has no counters, like a closed one: it is only good as
// the target of UnmarshalBinary or ReadFrom, and any other use fails loudly
// (it would otherwise report every key present): Add, Contains,
// ExpectedFpp, EstimatedCount, Reset and Clone panic with an error wrapping
// sift.ErrClosed, and Remove, Union, MarshalBinary, AppendBinary and WriteTo
// return one. Do not copy a Counting value: a copy shares its counters;
// use Clone (go vet's copylocks check reports a copy).
type Counting struct {
	_       nocopy.NoCopy // go vet reports copies; no space
	words   []uint64
	m       uint64 // number of counters: 16 * len(words)
	k       int    // 0 in the zero Counting
	seed    uint64
	nonzero uint64      // counters that are not zero
	region  *mem.Region // the words' memory when NewCounting mapped it
	// maxBytes is the WithMaxSize bound the filter was made with, which
	// its decoders (UnmarshalBinary, ReadFrom) apply; 0: none.
	maxBytes uint64
}

// Counter geometry.
const (
	countersPerWord = 16
	counterBits     = 4
	counterMax      = 1<<counterBits - 1 // 15: saturated
)

// maxCountingWords bounds a Counting's size: its words must be addressable,
// and the counter count must stay exact in a float64 for the statistics.
const maxCountingWords = 1 << 46

// NewCounting returns an empty counting Bloom filter for about
// expectedInsertions keys at false positive probability fpp, sized with the
// classic formulas: m = ceil(-n ln(fpp) / ln(2)^2) counters, rounded up to a
// multiple of 16, and k = max(1, round(m/n ln 2)) probes (m before the
// rounding), n = 0 taken as 1.
// It uses 4 bits per counter, four times a plain Bloom filter's memory.
//
// It returns an error wrapping ErrInvalidArgument for fpp not in (0, 1) or
// NaN, more than 255 probes, or a size this platform cannot address (also
// sift.ErrTooLarge), and one wrapping sift.ErrTooLarge for counters beyond
// the WithMaxSize limit or beyond what the machine can provide (the memory
// comes from a mapping the system may refuse, never the Go heap, whose
// refusal would end the process: see New). Options: WithSeed, WithMaxSize.
func NewCounting(expectedInsertions uint64, fpp float64, opts ...Option) (*Counting, error) {
	cfg := collect(opts)
	if !(fpp > 0) || !(fpp < 1) {
		return nil, argError("false positive probability (%v) must be > 0 and < 1", fpp)
	}
	n := float64(max(expectedInsertions, 1))
	// javaLog is correctly rounded, so the size does not depend on the
	// platform's math.Log.
	optimal := math.Ceil(-n * javaLog(fpp) / (math.Ln2 * math.Ln2))
	k := math.Round(optimal / n * math.Ln2)
	if k > MaxHashFunctions {
		return nil, argError("%v probes (fpp=%v) is more than %d", k, fpp, MaxHashFunctions)
	}
	words := math.Ceil(optimal / countersPerWord)
	if words > float64(min(maxCountingWords, math.MaxInt/8)) {
		return nil, tooLargeArg("%v counters is more than this platform can address", optimal)
	}
	nw := int64(max(words, 1))
	w, region, err := allocWords(nw, cfg.maxBytes, fmt.Sprintf("%d counters (n=%d, fpp=%v)", nw*countersPerWord, expectedInsertions, fpp))
	if err != nil {
		return nil, err
	}
	// Fresh memory is zero: no counters to count (newCounting would read
	// every word, and fault in every page of a mapping).
	return &Counting{words: w, m: uint64(len(w)) * countersPerWord, k: max(int(k), 1), seed: cfg.seed, region: region, maxBytes: cfg.maxBytes}, nil
}

func newCounting(words []uint64, k int, seed uint64) *Counting {
	c := &Counting{words: words, m: uint64(len(words)) * countersPerWord, k: k, seed: seed}
	c.nonzero = c.countNonzero()
	return c
}

// countNonzero counts the non-zero counters.
func (c *Counting) countNonzero() uint64 {
	var n uint64
	for _, w := range c.words {
		n += uint64(nonzeroNibbles(w))
	}
	runtime.KeepAlive(c)
	return n
}

// nonzeroNibbles counts the non-zero 4-bit fields of w.
func nonzeroNibbles(w uint64) int {
	const low = 0x1111111111111111
	x := w | w>>1
	x |= x >> 2
	return bits.OnesCount64(x & low)
}

// counterProbes returns the double-hashing start and step for hash h.
func counterProbes(h uint64) (g, step uint64) {
	return h, murmurFmix64(h^0x9e3779b97f4a7c15) | 1
}

// slot returns the word index and the shift of the counter g maps to.
func (c *Counting) slot(g uint64) (word uint64, shift uint) {
	i, _ := bits.Mul64(g, c.m)
	return i / countersPerWord, uint(i%countersPerWord) * counterBits
}

// Add inserts key. Its counters are incremented, saturating at 15.
func (c *Counting) Add(key []byte) { c.AddHash(hash.Bytes(key, c.seed)) }

// AddString inserts s; the same key as Add([]byte(s)).
func (c *Counting) AddString(s string) { c.AddHash(hash.String(s, c.seed)) }

// AddUint64 inserts x; the same key as Add of its eight little-endian bytes.
func (c *Counting) AddUint64(x uint64) { c.AddHash(hash.Uint64(x, c.seed)) }

// AddHash inserts the key whose hash.Bytes(key, Seed()) is h.
func (c *Counting) AddHash(h uint64) {
	c.mustMade()
	g, step := counterProbes(h)
	words, nonzero := c.words, c.nonzero
	for i := 0; i < c.k; i++ {
		wi, shift := c.slot(g)
		v := (words[wi] >> shift) & counterMax
		// Branch-free: +1 unless saturated; count counters leaving zero.
		words[wi] += ((v+1)>>counterBits ^ 1) << shift
		nonzero += (v|-v)>>63 ^ 1
		g += step
	}
	c.nonzero = nonzero
}

// Contains reports whether key might be in the filter: false means it
// certainly is not (no false negatives for keys added and not removed).
func (c *Counting) Contains(key []byte) bool { return c.ContainsHash(hash.Bytes(key, c.seed)) }

// ContainsString is Contains for a key added with AddString.
func (c *Counting) ContainsString(s string) bool { return c.ContainsHash(hash.String(s, c.seed)) }

// ContainsUint64 is Contains for a key added with AddUint64.
func (c *Counting) ContainsUint64(x uint64) bool { return c.ContainsHash(hash.Uint64(x, c.seed)) }

// ContainsHash is Contains for the key whose hash is h.
func (c *Counting) ContainsHash(h uint64) bool {
	c.mustMade()
	g, step := counterProbes(h)
	for i := 0; i < c.k; i++ {
		wi, shift := c.slot(g)
		if (c.words[wi]>>shift)&counterMax == 0 {
			return false
		}
		g += step
	}
	return true
}

// Remove deletes one occurrence of key: its counters are decremented,
// except saturated ones (15), which stay. If key is not present (some
// counter is zero) it returns an error wrapping ErrNotPresent and changes
// nothing. Remove only keys that were added: a key never added that the
// filter reports present (a false positive) is removed without an error
// and can make another key a false negative (see Counting).
func (c *Counting) Remove(key []byte) error { return c.RemoveHash(hash.Bytes(key, c.seed)) }

// RemoveString is Remove for a key added with AddString.
func (c *Counting) RemoveString(s string) error { return c.RemoveHash(hash.String(s, c.seed)) }

// RemoveUint64 is Remove for a key added with AddUint64.
func (c *Counting) RemoveUint64(x uint64) error { return c.RemoveHash(hash.Uint64(x, c.seed)) }

// RemoveHash is Remove for the key whose hash is h, with Remove's caveat
// on keys never added.
func (c *Counting) RemoveHash(h uint64) error {
	if c.k == 0 {
		return errZero
	}
	if !c.ContainsHash(h) {
		return errNotPresent
	}
	g0, step := counterProbes(h)
	g := g0
	for i := 0; i < c.k; i++ {
		wi, shift := c.slot(g)
		w := &c.words[wi]
		switch (*w >> shift) & counterMax {
		case counterMax:
		case 0:
			// Two probes of a key that was never added share a counter
			// holding 1: undo the decrements made so far and refuse.
			c.undoRemove(g0, step, i)
			return errNotPresent
		case 1:
			c.nonzero--
			*w -= 1 << shift
		default:
			*w -= 1 << shift
		}
		g += step
	}
	return nil
}

// undoRemove re-increments the first n probes of a Remove. Those that were
// saturated were skipped and still read 15; every other one was decremented
// and reads at most 14.
func (c *Counting) undoRemove(g, step uint64, n int) {
	for i := 0; i < n; i++ {
		wi, shift := c.slot(g)
		w := &c.words[wi]
		switch (*w >> shift) & counterMax {
		case counterMax:
		case 0:
			c.nonzero++
			*w += 1 << shift
		default:
			*w += 1 << shift
		}
		g += step
	}
}

// Counters returns m, the number of 4-bit counters.
func (c *Counting) Counters() uint64 { return c.m }

// NumHashFunctions returns k, the number of counters each key touches.
func (c *Counting) NumHashFunctions() int { return c.k }

// Seed returns the hash seed.
func (c *Counting) Seed() uint64 { return c.seed }

// SizeBytes returns the memory the counters use.
func (c *Counting) SizeBytes() uint64 { return 8 * uint64(len(c.words)) }

// ExpectedFpp returns the probability that Contains answers true for a key
// never added, given the counters that are non-zero now: (nonzero / m)^k,
// correctly rounded (as Filter.ExpectedFpp).
func (c *Counting) ExpectedFpp() float64 {
	c.mustMade()
	return powInt(float64(c.nonzero)/float64(c.m), c.k)
}

// EstimatedCount estimates the number of distinct keys present from the
// fraction of non-zero counters, -m/k ln(1 - nonzero/m), rounded to the
// nearest integer; math.MaxUint64 when every counter is non-zero.
func (c *Counting) EstimatedCount() uint64 {
	c.mustMade()
	x := -javaLog1p(-float64(c.nonzero)/float64(c.m)) * float64(c.m) / float64(c.k)
	if !(x < 1<<64) {
		return math.MaxUint64
	}
	return uint64(math.Round(x))
}

// Saturated returns the number of counters stuck at 15.
func (c *Counting) Saturated() uint64 {
	var n uint64
	for _, w := range c.words {
		// A nibble is 15 when all four of its bits are set.
		x := w & (w >> 1) & (w >> 2) & (w >> 3) & 0x1111111111111111
		n += uint64(bits.OnesCount64(x))
	}
	runtime.KeepAlive(c)
	return n
}

// Reset empties the filter, keeping its size, k and seed.
func (c *Counting) Reset() {
	c.mustMade()
	race.Clear(c.words) // the builtin's clear is invisible to -race
	c.nonzero = 0
}

// Clone returns an independent copy of c, in memory of its own. If that
// memory cannot be had it panics with an error wrapping sift.ErrTooLarge.
func (c *Counting) Clone() *Counting {
	c.mustMade()
	w, region, err := allocWords(int64(len(c.words)), 0, fmt.Sprintf("a copy of %d counters", c.m))
	if err != nil {
		panic(err)
	}
	copy(w, c.words)
	d := new(Counting)
	nocopy.Move(d, c)
	d.words, d.region = w, region
	return d
}

// Close releases the counters' memory now if it was mapped outside the Go
// heap (filters of 4 MiB and more on Unix systems and Windows) and is
// harmless otherwise, and more than once (see Filter.Close). Afterwards
// the filter has no counters, like the zero Counting, and fails as loudly.
func (c *Counting) Close() error {
	r := c.region
	*c = Counting{maxBytes: c.maxBytes}
	return r.Free()
}

// mustMade panics with an error wrapping sift.ErrClosed if c is a zero
// Counting.
func (c *Counting) mustMade() {
	if c.k == 0 {
		panic(errZero)
	}
}

// Equal reports whether c and other have the same geometry, seed and
// counters.
func (c *Counting) Equal(other *Counting) bool {
	if c == other {
		return true
	}
	if other == nil || c.m != other.m || c.k != other.k || c.seed != other.seed {
		return false
	}
	equal := true
	for i, w := range c.words {
		if other.words[i] != w {
			equal = false
			break
		}
	}
	runtime.KeepAlive(c)
	runtime.KeepAlive(other)
	return equal
}

// Union adds other's counters to c's, saturating at 15: afterwards c holds
// the keys of both. It returns an error wrapping ErrIncompatible, and
// changes nothing, unless both have the same number of counters, k and seed
// and are distinct.
func (c *Counting) Union(other *Counting) error {
	switch {
	case c.k == 0 || other != nil && other.k == 0:
		return errZero
	case other == nil:
		return incompatible("nil filter")
	case other == c:
		return incompatible("cannot combine a filter with itself")
	case c.m != other.m || c.k != other.k:
		return incompatible("geometry %d counters k=%d vs %d counters k=%d", c.m, c.k, other.m, other.k)
	case c.seed != other.seed:
		return incompatible("different seeds")
	}
	for i, w := range other.words {
		c.words[i] = addNibblesSaturating(c.words[i], w)
	}
	c.nonzero = c.countNonzero()
	runtime.KeepAlive(other)
	return nil
}

// addNibblesSaturating adds the sixteen 4-bit lanes of a and b, clamping
// each at 15.
func addNibblesSaturating(a, b uint64) uint64 {
	const high = 0x8888888888888888
	// Add the low three bits of every lane, then the top bits, tracking
	// carries out of each lane (SWAR).
	low := (a &^ high) + (b &^ high)
	sum := low ^ ((a ^ b) & high)
	carry := ((a & b) | ((a | b) &^ sum)) & high // carry out of each lane's top bit
	// Lanes that overflowed become 15.
	overflow := (carry >> 3) * 15
	return sum | overflow
}

// String describes the filter, for debugging.
func (c *Counting) String() string {
	return fmt.Sprintf("classic.Counting{counters=%d, k=%d, seed=%#x, nonzero=%d}", c.m, c.k, c.seed, c.nonzero)
}
