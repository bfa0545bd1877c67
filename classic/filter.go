package classic

import (
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"unsafe"

	"github.com/sift-go/sift/internal/mem"
	"github.com/sift-go/sift/internal/nocopy"
	"github.com/sift-go/sift/internal/race"
)

// Strategy is how a Filter turns a key's murmur3 hash into bit positions:
// Guava's BloomFilterStrategies, by ordinal. The ordinal is the first byte of
// Guava's serialized form.
type Strategy uint8

const (
	// Murmur128Mitz32 is Guava's MURMUR128_MITZ_32 (ordinal 0): the low 64
	// bits of the hash split into two int32 halves, combined as
	// h1 + i*h2 in 32-bit arithmetic. Its indexes cannot exceed 2^31, so
	// bits past 2^31 in a larger filter are never used; Guava replaced it
	// with Murmur128Mitz64 and so should new data.
	Murmur128Mitz32 Strategy = 0
	// Murmur128Mitz64 is Guava's MURMUR128_MITZ_64 (ordinal 1), the default
	// since Guava 12: both 64-bit halves of the hash, combined as h1 + i*h2
	// in 64-bit arithmetic.
	Murmur128Mitz64 Strategy = 1

	// DefaultStrategy is what Guava's BloomFilter.create uses.
	DefaultStrategy = Murmur128Mitz64
)

// String returns Guava's name for the strategy.
func (s Strategy) String() string {
	switch s {
	case Murmur128Mitz32:
		return "MURMUR128_MITZ_32"
	case Murmur128Mitz64:
		return "MURMUR128_MITZ_64"
	}
	return fmt.Sprintf("Strategy(%d)", uint8(s))
}

func (s Strategy) valid() bool { return s <= Murmur128Mitz64 }

// DefaultFpp is the false positive probability Guava's
// BloomFilter.create(funnel, expectedInsertions) uses when none is given.
const DefaultFpp = 0.03

// Limits Guava places on a filter, and so does this package.
const (
	// MaxWords is the largest number of 64-bit words a filter may have:
	// Guava keeps them in a Java array, indexed by int.
	MaxWords = math.MaxInt32
	// MaxHashFunctions is the largest number of hash functions: Guava
	// serializes it as one unsigned byte.
	MaxHashFunctions = 255
)

// mask63 is Java's Long.MAX_VALUE, which Murmur128Mitz64 ANDs its combined
// hash with to make it non-negative.
const mask63 = 1<<63 - 1

// Filter is a Bloom filter bit-compatible with Guava's
// com.google.common.hash.BloomFilter: the same keys set the same bits, and
// WriteGuava, AppendGuava and ReadGuava speak Guava's stream format (the
// encoding methods, MarshalBinary, AppendBinary, UnmarshalBinary, WriteTo
// and ReadFrom, speak sift's). See the package documentation for the
// details and limits of the compatibility.
//
// The zero Filter has no bits, like a closed one: it is only good as the
// target of UnmarshalBinary or ReadFrom, and any other use fails loudly (it
// would otherwise report every key present): the Put and MightContain
// methods, ExpectedFpp, StrictExpectedFpp, ApproximateElementCount, Reset
// and Clone panic with an error wrapping sift.ErrClosed, and the methods
// that return errors return one. Make one with New or read one with
// ReadFilter, ReadGuava or UnmarshalBinary. A Filter is not safe for
// concurrent use when any goroutine calls a Put method, PutAll, Reset or a
// decoding method; concurrent MightContain calls alone are safe. Do not
// copy a Filter value: a copy shares its bits; use Clone (go vet's
// copylocks check reports a copy).
type Filter struct {
	_        nocopy.NoCopy // go vet reports copies; no space
	words    []uint64
	bitCount uint64 // set bits, kept up to date as Guava's LockFreeBitArray does
	numHash  int    // 1..MaxHashFunctions; 0 in the zero Filter
	strategy Strategy
	ix       indexer     // bitSize = len(words) * 64, and constants to reduce modulo it
	region   *mem.Region // the words' memory when New mapped it (see package internal/mem)
	// maxBytes is the WithMaxSize bound the filter was made with, which
	// its decoders (UnmarshalBinary, ReadFrom) apply; 0: none.
	maxBytes uint64
}

// New returns an empty filter sized as Guava's
// BloomFilter.create(funnel, expectedInsertions, fpp) sizes it:
// optimalNumOfBits(n, fpp) bits rounded up to whole 64-bit words, and
// optimalNumOfHashFunctions(n, bits) hash functions, with
// expectedInsertions 0 treated as 1, and Guava's default strategy unless
// WithStrategy names another.
//
// It returns an error wrapping ErrInvalidArgument in exactly the cases
// Guava throws IllegalArgumentException: expectedInsertions < 0; fpp not in
// (0, 1) or NaN; a size of zero bits (fpp so close to 1 that no bit is
// needed) or of more than MaxWords words (also sift.ErrTooLarge); more than
// MaxHashFunctions hash functions (fpp below about 1e-77). It also rejects
// an unknown strategy and a nonzero WithSeed.
//
// expectedInsertions is an int64, Java's long, because Guava's sizing is
// defined on it: a negative count is Guava's IllegalArgumentException, here
// ErrInvalidArgument, and the golden vectors check that case.
//
// The largest filter Guava allows is 16 GiB. New allocates it if asked and
// the machine has it, and otherwise returns an error wrapping
// sift.ErrTooLarge, never the Go runtime's fatal out-of-memory error: from 4
// MiB up the bits are an anonymous mapping, and a mapping the system
// refuses (on Linux, also one larger than the memory available: free RAM
// and swap, within a container's memory limit) is that error (see package internal/mem). WithMaxSize sets a lower bound.
// Options: WithStrategy, WithMaxSize.
func New(expectedInsertions int64, fpp float64, opts ...Option) (*Filter, error) {
	o := collect(opts)
	strategy := o.strategy
	if !strategy.valid() {
		return nil, argError("unknown strategy %d", uint8(strategy))
	}
	if o.seed != 0 {
		return nil, argError("seed %#x: a Filter hashes as Guava does, with seed 0 (WithSeed is for NewCounting)", o.seed)
	}
	words, k, err := guavaSize(expectedInsertions, fpp)
	if err != nil {
		return nil, err
	}
	if uint64(words) > uint64(math.MaxInt)/8 {
		return nil, tooLargeArg("%d words do not fit in memory on this platform", words)
	}
	w, region, err := allocWords(words, o.maxBytes, fmt.Sprintf("%d bits (n=%d, fpp=%v)", 64*words, expectedInsertions, fpp))
	if err != nil {
		return nil, err
	}
	// Fresh memory is zero: no bits to count (newFilter would read every
	// word, and fault in every page of a mapping).
	return &Filter{words: w, numHash: k, strategy: strategy, ix: newIndexer(len(w)), region: region, maxBytes: o.maxBytes}, nil
}

// newFilter wraps words (non-empty, at most MaxWords) in a Filter.
func newFilter(words []uint64, k int, strategy Strategy) *Filter {
	f := &Filter{words: words, numHash: k, strategy: strategy, ix: newIndexer(len(words))}
	for _, w := range words {
		f.bitCount += uint64(bits.OnesCount64(w))
	}
	return f
}

// Guava's sizing, expression for expression (checked against the jar's
// bytecode and its outputs in testdata/guava). ln2 is Java's Math.log(2),
// the float64 nearest ln 2 (TestJavaLogEdges); it is a variable, not a Go
// constant, so that ln2*ln2 rounds as Java's Math.log(2) * Math.log(2) does
// instead of being evaluated exactly.
var (
	ln2        float64 = math.Ln2
	ln2Squared         = ln2 * ln2
)

// optimalNumOfBits is Guava's BloomFilter.optimalNumOfBits:
// (long) (-n * Math.log(p) / (Math.log(2) * Math.log(2))), p = 0 taken as
// Double.MIN_VALUE.
func optimalNumOfBits(n int64, p float64) int64 {
	if p == 0 {
		p = math.SmallestNonzeroFloat64
	}
	x := float64(-n) * javaLog(p)
	return javaD2L(x / ln2Squared)
}

// optimalNumOfHashFunctions is Guava's BloomFilter.optimalNumOfHashFunctions:
// Math.max(1, (int) Math.round((double) m / n * Math.log(2))).
func optimalNumOfHashFunctions(n, m int64) int {
	x := float64(m) / float64(n)
	// The conversion rounds the product, so it cannot fuse with the
	// subtraction inside javaRound.
	k := int32(javaRound(float64(x * ln2))) // Java's (int) of a long keeps the low 32 bits
	return int(max(1, k))
}

// guavaSize validates the arguments as BloomFilter.create does and returns
// the number of 64-bit words and hash functions of the filter it would build.
func guavaSize(n int64, fpp float64) (words int64, k int, err error) {
	if n < 0 {
		return 0, 0, argError("expected insertions (%d) must be >= 0", n)
	}
	if !(fpp > 0) || !(fpp < 1) {
		return 0, 0, argError("false positive probability (%v) must be > 0 and < 1", fpp)
	}
	if n == 0 {
		n = 1
	}
	numBits := optimalNumOfBits(n, fpp)
	k = optimalNumOfHashFunctions(n, numBits)
	if numBits <= 0 {
		return 0, 0, argError("a filter of %d bits (n=%d, fpp=%v) is empty", numBits, n, fpp)
	}
	words = numBits / 64
	if numBits%64 != 0 {
		words++
	}
	if words > MaxWords {
		return 0, 0, tooLargeArg("%d bits need %d words, more than %d", numBits, words, MaxWords)
	}
	if k > MaxHashFunctions {
		return 0, 0, argError("%d hash functions (fpp=%v) is more than %d", k, fpp, MaxHashFunctions)
	}
	return words, k, nil
}

// javaD2L is Java's (long) cast of a double: truncation toward zero,
// saturating at the int64 range, NaN to 0. Go leaves out-of-range float to
// integer conversions implementation-defined, so spell them out.
func javaD2L(x float64) int64 {
	switch {
	case x != x:
		return 0
	case x >= 1<<63:
		return math.MaxInt64
	case x <= -(1 << 63):
		return math.MinInt64
	}
	return int64(x)
}

// javaRound is Java's Math.round(double): the closest long, ties toward
// positive infinity, saturating, NaN to 0.
func javaRound(x float64) int64 {
	if x != x {
		return 0
	}
	fl := math.Floor(x)
	if x-fl >= 0.5 { // x - floor(x) is exact
		fl++
	}
	return javaD2L(fl)
}

// Put adds the key b (Guava's Funnels.byteArrayFunnel()) and reports whether
// any bit changed. A false result means the filter already claimed to
// contain b; a true result means it certainly did not.
func (f *Filter) Put(b []byte) bool {
	h1, h2 := murmur3(b)
	return f.put(h1, h2)
}

// PutString adds the UTF-8 bytes of s, as Guava's
// Funnels.stringFunnel(StandardCharsets.UTF_8) does, and reports whether any
// bit changed.
func (f *Filter) PutString(s string) bool {
	h1, h2 := murmur3(keyBytes(s))
	return f.put(h1, h2)
}

// PutInt64 adds x as Guava's Funnels.longFunnel() does (its eight bytes,
// little-endian) and reports whether any bit changed.
func (f *Filter) PutInt64(x int64) bool {
	h1, h2 := murmur3Int64(x)
	return f.put(h1, h2)
}

// PutInt32 adds x as Guava's Funnels.integerFunnel() does (its four bytes,
// little-endian) and reports whether any bit changed.
func (f *Filter) PutInt32(x int32) bool {
	h1, h2 := murmur3Int32(x)
	return f.put(h1, h2)
}

// PutUnencodedChars adds s as Guava's Funnels.unencodedCharsFunnel() adds
// the Java String holding the same characters: it hashes the string's UTF-16
// code units, two bytes each, little-endian, with a surrogate pair for each
// character above U+FFFF. It reports whether any bit changed.
//
// s is read as UTF-8. Bytes that are not valid UTF-8 are replaced by U+FFFD
// exactly as Java's new String(bytes, StandardCharsets.UTF_8) replaces them,
// so PutUnencodedChars(string(b)) hashes the String a Java service decodes
// from the same bytes b (see the package documentation). To hash Java
// strings that hold unpaired surrogates, use PutUTF16.
//
// This is a different funnel from PutString (Funnels.stringFunnel(UTF_8)):
// the same text sets different bits, so a filter must be used with one of
// them throughout, as in Java.
func (f *Filter) PutUnencodedChars(s string) bool {
	h1, h2 := murmur3Chars(s)
	return f.put(h1, h2)
}

// PutUTF16 adds the UTF-16 code units u, as Guava's
// Funnels.unencodedCharsFunnel() adds a Java String (or char[] wrapped as a
// CharSequence) holding them, and reports whether any bit changed. Any
// sequence of units is accepted, unpaired surrogates included, as Java
// accepts them. For text held as UTF-8, PutUnencodedChars hashes the same
// units without converting first.
func (f *Filter) PutUTF16(u []uint16) bool {
	h1, h2 := murmur3UTF16(u)
	return f.put(h1, h2)
}

// MightContain reports whether b might have been put in the filter: false
// means it certainly was not; true means it was, or is a false positive.
func (f *Filter) MightContain(b []byte) bool {
	h1, h2 := murmur3(b)
	return f.mightContain(h1, h2)
}

// MightContainString is MightContain for a key put with PutString.
func (f *Filter) MightContainString(s string) bool {
	h1, h2 := murmur3(keyBytes(s))
	return f.mightContain(h1, h2)
}

// MightContainInt64 is MightContain for a key put with PutInt64.
func (f *Filter) MightContainInt64(x int64) bool {
	h1, h2 := murmur3Int64(x)
	return f.mightContain(h1, h2)
}

// MightContainInt32 is MightContain for a key put with PutInt32.
func (f *Filter) MightContainInt32(x int32) bool {
	h1, h2 := murmur3Int32(x)
	return f.mightContain(h1, h2)
}

// MightContainUnencodedChars is MightContain for a key put with
// PutUnencodedChars (Funnels.unencodedCharsFunnel()).
func (f *Filter) MightContainUnencodedChars(s string) bool {
	h1, h2 := murmur3Chars(s)
	return f.mightContain(h1, h2)
}

// MightContainUTF16 is MightContain for a key put with PutUTF16 or, as the
// same code units, with PutUnencodedChars.
func (f *Filter) MightContainUTF16(u []uint16) bool {
	h1, h2 := murmur3UTF16(u)
	return f.mightContain(h1, h2)
}

// indexer maps a combined hash to a bit index: hash mod bitSize, without
// dividing. The probe loops copy it out of the Filter so that its fields
// stay in registers while the loop stores into the words.
type indexer struct {
	bitSize  uint64
	mod32M   uint64 // Murmur128Mitz32, when bitSize < 2^32: ceil(2^64 / bitSize)
	mod32All bool   // Murmur128Mitz32, bitSize >= 2^32: every index is already < bitSize
	mod64Inv uint64 // Murmur128Mitz64: floor((2^64-1) / bitSize)
}

func newIndexer(nwords int) indexer {
	m := uint64(nwords) * 64
	x := indexer{bitSize: m, mod32All: m >= 1<<32, mod64Inv: ^uint64(0) / m}
	if !x.mod32All {
		x.mod32M = ^uint64(0)/m + 1 // ceil(2^64 / m)
	}
	return x
}

// mod32 returns c mod bitSize for 0 <= c < 2^31 (Lemire's fastmod, exact for
// 32-bit dividends and divisors).
func (x indexer) mod32(c int32) uint64 {
	if x.mod32All {
		return uint64(c)
	}
	hi, _ := bits.Mul64(x.mod32M*uint64(c), x.bitSize)
	return hi
}

// mod64 returns a mod bitSize for a < 2^63 by Barrett reduction: with
// inv = floor((2^64-1) / bitSize), q = floor(a * inv / 2^64) is the true
// quotient or one less (inv is at most 2^64/bitSize and more than
// 2^64/bitSize - 1, so a*inv/2^64 falls short of a/bitSize by less than
// a/2^64 < 1/2), and one conditional subtraction finishes. Two
// multiplications instead of a 64-bit division, and the probes of one key
// do not wait on each other.
func (x indexer) mod64(a uint64) uint64 {
	q, _ := bits.Mul64(a, x.mod64Inv)
	r := a - q*x.bitSize // in [0, 2*bitSize)
	// Subtract bitSize and add it back on borrow, without a branch: which
	// way it goes is a coin toss per probe, and a mispredicted branch costs
	// more than the whole reduction.
	r, borrow := bits.Sub64(r, x.bitSize, 0)
	return r + x.bitSize&-borrow
}

// setBit sets bit i of words and returns 1 if it was clear, 0 if it was set.
func setBit(words []uint64, i uint64) uint64 {
	w := &words[i>>6]
	old := *w
	bit := uint64(1) << (i & 63)
	*w = old | bit
	var added uint64
	if old&bit == 0 { // compiled to a conditional move, not a branch
		added = 1
	}
	return added
}

func hasBit(words []uint64, i uint64) bool {
	return words[i>>6]&(1<<(i&63)) != 0
}

func (f *Filter) put(h1, h2 uint64) bool {
	words, ix, k := f.words, f.ix, f.numHash
	if k == 0 {
		panic(errZero)
	}
	var added uint64
	if f.strategy == Murmur128Mitz32 {
		hash1, hash2 := int32(h1), int32(h1>>32)
		c := hash1
		for i := 0; i < k; i++ {
			c += hash2 // Guava: hash1 + i*hash2 for i = 1..k
			idx := c
			if idx < 0 {
				idx = ^idx
			}
			added += setBit(words, ix.mod32(idx))
		}
	} else {
		c := h1 // Guava: combinedHash starts at hash1 and steps by hash2
		for i := 0; i < k; i++ {
			added += setBit(words, ix.mod64(c&mask63))
			c += h2
		}
	}
	f.bitCount += added
	return added != 0
}

// mightContain is lookup with f kept alive to its end: lookup reads the
// bits through a copy of f.words, and a mapped filter's memory is unmapped
// by the finalizer of its region as soon as f is unreachable (the same
// holds for every method below that reads f.words after its last use of f).
func (f *Filter) mightContain(h1, h2 uint64) bool {
	found := f.lookup(h1, h2)
	runtime.KeepAlive(f)
	return found
}

func (f *Filter) lookup(h1, h2 uint64) bool {
	words, ix, k := f.words, f.ix, f.numHash
	if k == 0 {
		panic(errZero)
	}
	if f.strategy == Murmur128Mitz32 {
		hash1, hash2 := int32(h1), int32(h1>>32)
		c := hash1
		for i := 0; i < k; i++ {
			c += hash2
			idx := c
			if idx < 0 {
				idx = ^idx
			}
			if !hasBit(words, ix.mod32(idx)) {
				return false
			}
		}
		return true
	}
	c := h1
	for i := 0; i < k; i++ {
		if !hasBit(words, ix.mod64(c&mask63)) {
			return false
		}
		c += h2
	}
	return true
}

// BitSize returns the number of bits in the filter: 64 times the number of
// words, as Guava's bitSize() (not the optimalNumOfBits it was sized from).
func (f *Filter) BitSize() int64 { return int64(f.ix.bitSize) }

// NumHashFunctions returns k, the number of bits each key sets.
func (f *Filter) NumHashFunctions() int { return f.numHash }

// Strategy returns the filter's strategy.
func (f *Filter) Strategy() Strategy { return f.strategy }

// SizeBytes returns the memory the bits take: BitSize / 8.
func (f *Filter) SizeBytes() uint64 { return 8 * uint64(len(f.words)) }

// BitCount returns the number of bits set.
func (f *Filter) BitCount() int64 { return int64(f.bitCount) }

// ExpectedFpp returns the probability that MightContain answers true for a
// key that was never put, given the bits set now: Guava's expectedFpp(),
// Math.pow(bitCount / bitSize, k), as the correctly rounded power. That is
// what Guava returns on x86-64 HotSpot (whose Math.pow is an intrinsic) in
// all but about 0.05% of states, and one ulp apart in those: the intrinsic
// is correctly rounded except within about 0.004 ulp of a rounding
// midpoint, where it goes either way, and no rule reproduces it. The
// example of sift's issue 17 is such a state: for (7720/10432)^3 Guava on
// x86-64 returns 0.40527439472696625 and ExpectedFpp the correctly rounded
// 0.4052743947269663. Where Math.pow is not an intrinsic, Guava returns
// StrictExpectedFpp. See the package documentation.
func (f *Filter) ExpectedFpp() float64 {
	f.mustMade()
	return powInt(float64(f.bitCount)/float64(f.ix.bitSize), f.numHash)
}

// StrictExpectedFpp is ExpectedFpp computed as Java's StrictMath.pow
// (fdlibm's e_pow.c): exactly what Guava's expectedFpp() returns where
// Math.pow is not an intrinsic, which is HotSpot on aarch64, or on x86-64
// with -XX:+UnlockDiagnosticVMOptions -XX:DisableIntrinsic=_dpow. It is
// within one ulp of ExpectedFpp, and differs from it in about one state in
// ten.
func (f *Filter) StrictExpectedFpp() float64 {
	f.mustMade()
	return strictPow(float64(f.bitCount)/float64(f.ix.bitSize), float64(f.numHash))
}

// ApproximateElementCount estimates how many distinct keys have been put:
// Guava's approximateElementCount(), the Swamidass–Baldi estimate
// -bitSize/k * ln(1 - bitCount/bitSize), rounded half up. When every bit is
// set the estimate is infinite; Guava throws ArithmeticException there, and
// this method returns math.MaxInt64.
func (f *Filter) ApproximateElementCount() int64 {
	if f.numHash == 0 {
		panic(errZero)
	}
	fraction := float64(f.bitCount) / float64(f.ix.bitSize)
	x := -javaLog1p(-fraction) * float64(f.ix.bitSize) / float64(f.numHash)
	if !(x < 1<<63) { // +Inf, or past int64 (impossible for Guava's sizes)
		return math.MaxInt64
	}
	return int64(math.Round(x)) // half away from zero = HALF_UP for x >= 0
}

// IsCompatible reports whether PutAll(other) would succeed: other is a
// different filter with the same strategy, number of hash functions and bit
// size. (Guava also compares funnels; a Filter has none, so keeping keys of
// one kind per filter is the caller's part.)
func (f *Filter) IsCompatible(other *Filter) bool {
	return f.compatErr(other) == nil
}

func (f *Filter) compatErr(other *Filter) error {
	switch {
	case f.numHash == 0 || other != nil && other.numHash == 0:
		return errZero
	case other == nil:
		return incompatible("nil filter")
	case other == f:
		return incompatible("cannot combine a filter with itself")
	case f.numHash != other.numHash:
		return incompatible("different numbers of hash functions (%d != %d)", f.numHash, other.numHash)
	case f.ix.bitSize != other.ix.bitSize:
		return incompatible("different bit sizes (%d != %d)", f.ix.bitSize, other.ix.bitSize)
	case f.strategy != other.strategy:
		return incompatible("different strategies (%v != %v)", f.strategy, other.strategy)
	}
	return nil
}

// PutAll adds every key of other to f (a bitwise OR), as Guava's putAll. It
// returns an error wrapping ErrIncompatible, and changes nothing, unless
// IsCompatible(other).
func (f *Filter) PutAll(other *Filter) error {
	if err := f.compatErr(other); err != nil {
		return err
	}
	var count uint64
	src := other.words[:len(f.words)]
	for i, w := range src {
		x := f.words[i] | w
		f.words[i] = x
		count += uint64(bits.OnesCount64(x))
	}
	f.bitCount = count
	runtime.KeepAlive(other)
	return nil
}

// Reset empties the filter in place, keeping its strategy, number of hash
// functions and size: afterwards it equals the empty filter New made (and
// Guava serializes the same bytes for it), and keys can be put again. It
// does not allocate. Guava's BloomFilter has no such method; building a new
// filter there gives the same result.
func (f *Filter) Reset() {
	f.mustMade()
	race.Clear(f.words) // the builtin's clear is invisible to -race
	f.bitCount = 0
}

// Clone returns an independent copy of f (Guava's copy()), in memory of its
// own. If that memory cannot be had it panics with an error wrapping
// sift.ErrTooLarge (as New would return it).
func (f *Filter) Clone() *Filter {
	f.mustMade()
	w, region, err := allocWords(int64(len(f.words)), 0, fmt.Sprintf("a copy of %d bits", f.ix.bitSize))
	if err != nil {
		panic(err)
	}
	copy(w, f.words)
	c := new(Filter)
	nocopy.Move(c, f)
	c.words, c.region = w, region
	return c
}

// Close releases the filter's memory now if it was mapped outside the Go
// heap (filters of 4 MiB and more on Unix systems and Windows) and is
// harmless otherwise, and more than once. Close is optional: a finalizer
// frees the memory once the filter is unreachable, but only Close does so
// promptly. Afterwards the filter has no bits, like the zero Filter, and
// fails as loudly (see Filter); UnmarshalBinary and ReadFrom make it a
// filter again. Its error, if any, is the system's.
func (f *Filter) Close() error {
	r := f.region
	*f = Filter{maxBytes: f.maxBytes}
	return r.Free()
}

// mustMade panics with an error wrapping sift.ErrClosed if f is a zero or
// closed Filter.
func (f *Filter) mustMade() {
	if f.numHash == 0 {
		panic(errZero)
	}
}

// Equal reports whether f and other have the same strategy, number of hash
// functions and bits: Guava's equals() for filters of the same funnel.
func (f *Filter) Equal(other *Filter) bool {
	if f == other {
		return true
	}
	if other == nil || f.strategy != other.strategy || f.numHash != other.numHash || len(f.words) != len(other.words) {
		return false
	}
	equal := true
	for i, w := range f.words {
		if other.words[i] != w {
			equal = false
			break
		}
	}
	runtime.KeepAlive(f)
	runtime.KeepAlive(other)
	return equal
}

// String describes the filter's geometry, for debugging.
func (f *Filter) String() string {
	return fmt.Sprintf("classic.Filter{%v, bits=%d, k=%d, set=%d}", f.strategy, f.ix.bitSize, f.numHash, f.bitCount)
}

// keyBytes views s as bytes without copying, for hashing only.
func keyBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
