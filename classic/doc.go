// Package classic holds two reference filters: Filter, a Bloom filter
// bit-compatible with Guava's com.google.common.hash.BloomFilter, and
// Counting, a counting Bloom filter that supports removal.
//
// Like every sift filter they answer "definitely not present" or "possibly
// present": a key that was added is always found (no false negatives), and a
// key that was not is reported present with a small probability, the false
// positive rate (FPR). Package blocked is faster for new data; use this
// package to exchange filters with Java services, for rates below what
// blocked serves (down to about 1e-77), or when keys must be removable.
//
//	f, err := classic.New(1_000_000, 0.01) // BloomFilter.create(funnel, 1_000_000, 0.01)
//	f.PutString("alice")
//	f.MightContainString("alice") // true
//	f.WriteGuava(w)               // what BloomFilter.writeTo writes
//
// # Guava compatibility
//
// Filter reproduces Guava's BloomFilter exactly:
//
//   - Hashing: murmur3_x64_128 with seed 0 (Hashing.murmur3_128()) of the
//     key's funnelled bytes. Put/MightContain take []byte
//     (Funnels.byteArrayFunnel()); the String forms hash the string's bytes,
//     which for valid UTF-8 is Funnels.stringFunnel(UTF_8); the Int64 and
//     Int32 forms hash the eight or four little-endian bytes, as
//     Funnels.longFunnel() and Funnels.integerFunnel() do; the
//     UnencodedChars forms hash a string's UTF-16 code units, two bytes
//     each, little-endian, as Funnels.unencodedCharsFunnel() does (decoding
//     the Go string on the fly, without allocating), and the UTF16 forms
//     take the code units themselves. The byte order is the same on every
//     platform.
//   - Strategies: Murmur128Mitz64 (MURMUR128_MITZ_64, ordinal 1, Guava's
//     default, and New's) and Murmur128Mitz32 (MURMUR128_MITZ_32, ordinal 0,
//     WithStrategy), with Guava's index arithmetic, including its sign
//     tricks.
//   - Sizing: New(n, fpp) computes Guava's optimalNumOfBits and
//     optimalNumOfHashFunctions with Java's arithmetic (truncating and
//     rounding casts, n = 0 as 1), rounds the bits up to whole 64-bit words,
//     and rejects exactly the arguments Guava rejects. BitSize is the
//     rounded-up size, as Guava's bitSize().
//   - Results: Put returns whether a bit changed; ExpectedFpp,
//     StrictExpectedFpp, ApproximateElementCount and PutAll follow Guava's
//     definitions, including the rounding of the estimate and the last bit
//     of the power (see below for which JVMs give which). Reset, which
//     Guava lacks, empties a filter in place.
//   - Serialization: WriteGuava, AppendGuava and ReadGuava use Guava's
//     writeTo/readFrom stream format: a signed strategy byte, an unsigned
//     hash-count byte, a big-endian int32 word count, then the words as
//     big-endian int64s. A filter written by either side reads on the
//     other; Java's BloomFilter.readFrom needs the funnel matching the keys.
//     The methods without "Guava" in their names write and read sift's own
//     format (see Serialization).
//
// The golden vectors in testdata/guava were produced by Guava 31.1 (Debian's
// libguava-java) through testdata/guava/gen.sh; the tests check that Go
// builds byte-identical filters from the same keys, gives the same answer
// for every probe, reads Guava's bytes and writes them back unchanged, and
// agrees on sizes, statistics and which streams are rejected. The
// statistics are compared for every bit count of filters up to 2048 bits
// at every k from 1 to 255.
//
// Limits of the compatibility: a Filter has no funnel, so nothing stops a
// caller from mixing key forms in one filter (Guava's type system does);
// PutAll therefore compares strategy, k and size but not funnels. Java
// strings with unpaired surrogates encode to '?' in UTF-8, while a Go
// string is hashed as the bytes it holds. For the chars funnel a Go string
// stands for the Java String that new String(bytes, UTF_8) decodes from its
// bytes: valid UTF-8 gives the same characters, and each malformed
// sequence becomes U+FFFD with Java's boundaries, which are not Go's (Java
// replaces "\xe2\x82" and an encoded surrogate "\xed\xa0\x80" with one
// U+FFFD each, Go's decoder with two and three), so both sides hash the
// String a Java service gets from the same bytes. Strings holding unpaired
// surrogates, which no UTF-8 carries, go through PutUTF16.
//
// Where Guava throws ArithmeticException (ApproximateElementCount of a
// filter with every bit set) this package returns math.MaxInt64.
//
// # Java's arithmetic, and the last bit of expectedFpp
//
// The sizing and statistics depend on the last bit of Java's Math.log,
// Math.log1p and Math.pow, so this package does not use Go's math.Log,
// math.Log1p and math.Pow for them (on the golden vectors math.Log is an ulp
// off on 4% of fpp-like inputs, which moved the size of a filter for 2^50
// keys, and is 5% off for subnormals on amd64; math.Pow is several ulps off
// on most (x, k); math.Log1p differs on arm64, where Go fuses
// multiply-adds). Instead it computes log correctly rounded, and log1p with
// fdlibm's algorithm (what Java specifies for StrictMath.log1p), rounded
// step by step so that every platform gets the same bits; both match
// HotSpot on every golden vector, on amd64 and arm64. Java's own log is not
// correctly rounded everywhere: close to 1 both Math.log and StrictMath.log
// (OpenJDK 17 HotSpot, also with -Xint) are an ulp off on some inputs
// (156 of 3 million random fpp, all of them 0.97 or more; none below), and
// where that moves Guava's truncated bit count across a 64-bit word,
// BloomFilter.create(funnel, n, fpp) is a word larger than New(n, fpp) (for
// example n = 12012332405, fpp = 0.9992094566713379). A filter read from
// Java carries its own size and is unaffected; only the sizing of such
// near-useless fpp differs.
//
// Math.pow, which Guava's expectedFpp calls, is not the same on every JVM,
// so the package offers both values:
//
//   - ExpectedFpp returns the correctly rounded power. HotSpot on x86-64
//     computes Math.pow with an intrinsic that is correctly rounded except
//     within about 0.004 ulp of a rounding midpoint, where it goes either
//     way (no rule reproduces it): measured with Java 17 on 200,000 random
//     Guava-shaped states per k for k = 3..30, it differs from the correctly
//     rounded power in about 0.05% of states, by one ulp, and from
//     StrictMath.pow in about 9.7%. The tests compare ExpectedFpp with
//     expectedFpp from Guava on that JVM (testdata/guava/mathpow-*.json:
//     equal on 9,996 of 10,001 states, the others one ulp apart; the
//     test requires 99.5% and one ulp). The example of issue 17,
//     (7720/10432)^3, is one of the rare states: Guava gives StrictMath's
//     0.40527439472696625 there, ExpectedFpp the correctly rounded
//     0.4052743947269663.
//   - StrictExpectedFpp returns Java's StrictMath.pow (fdlibm's e_pow.c,
//     written in Go with every product rounded explicitly): exactly what
//     Guava returns where Math.pow is not an intrinsic, which is HotSpot on
//     aarch64 (identical on 34 million states tried) or on x86-64 run with
//     -XX:+UnlockDiagnosticVMOptions -XX:DisableIntrinsic=_dpow. The golden
//     vectors are made that way and compared bit for bit.
//
// Murmur128Mitz32 never sets bits past 2^31 (a limitation of that strategy
// in Guava too); prefer Murmur128Mitz64.
//
// # Sizes: int64 and uint64
//
// Filter keeps Guava's long-valued API as int64: New's expectedInsertions
// (negative counts are Guava's IllegalArgumentException, which the golden
// vectors check), BitSize, BitCount, ApproximateElementCount (math.MaxInt64
// where Guava throws) and GuavaSize, so values compare with Java's without
// conversion. Counting has no Java counterpart and uses uint64 like the
// rest of sift (NewCounting's n, Counters, SizeBytes, EstimatedCount,
// Saturated).
//
// # Memory and accuracy
//
// A Filter uses -n ln(fpp) / ln(2)^2 bits for n keys, about 9.6 bits per
// key at 1% and 14.4 at 0.1%, and touches k = round(bits/n ln 2) cache
// lines per key, which is what makes package blocked several times faster.
// Guava caps filters at 2^31-1 words (16 GiB) and 255 hash functions, and
// so does New. ExpectedFpp gives the false positive probability for the bits
// set now; it exceeds the requested fpp once more than n keys are added.
//
// New and NewCounting never end the process for lack of memory: from 4 MiB
// up the bits or counters live in an anonymous mapping outside the Go heap,
// and a size the system refuses (on Linux, also one larger than the memory
// available: free RAM and swap, within a container's memory limit), or one
// beyond WithMaxSize, is an error wrapping
// sift.ErrTooLarge; Clone panics with such an error. Close returns a mapping
// at once (a finalizer does once the filter is unreachable). A closed
// filter, and the zero Filter and Counting, have no bits: they are only
// good as the target of a decoder, and any other use fails loudly, never
// answering for keys it cannot hold: methods that return errors return one
// wrapping sift.ErrClosed and the others panic with one (see Filter and
// Counting).
//
// # Counting filters
//
// Counting replaces each bit by a 4-bit counter (four times the memory),
// sized with the same classic formulas. Add increments a key's k counters,
// Remove decrements them, Contains tests that none is zero. A counter that
// reaches 15 saturates and is never decremented again, so removals of
// added keys cannot cause false negatives; removing a key that is not
// present returns ErrNotPresent and changes nothing. Remove only keys that
// were added: a key never added that the filter reports present (a false
// positive) is removed without an error, and decrements counters other
// keys rely on, which can make one of them a false negative. Keys are hashed once with package hash
// (XXH3-64 with the filter's seed, default 0) and the k counters are chosen
// by Kirsch–Mitzenmacher double hashing (see Counting), so callers can pass
// precomputed hashes to AddHash, ContainsHash and RemoveHash.
//
// # Options
//
// Constructors and loaders take functional options, as in every sift
// package: WithMaxSize (New, NewCounting and the Read functions; a filter
// made with it keeps the bound for its own UnmarshalBinary and ReadFrom),
// WithSeed (NewCounting; New refuses a seed), WithStrategy (New) and
// WithoutChecksum (ReadFilter, ReadCounting).
//
// # Serialization
//
// Both types have sift's format, the one every sift filter shares:
// MarshalBinary, AppendBinary, UnmarshalBinary, WriteTo and ReadFrom
// (encoding.BinaryMarshaler, BinaryAppender and BinaryUnmarshaler,
// io.WriterTo and io.ReaderFrom), and ReadFilter and ReadCounting for a new
// filter with options. It is the shared header of package internal/format
// (magic, version, kind, hash algorithm and seed, parameters, CRC-32C of
// header and payload; sift.Inspect reads it), then the words little-endian
// at a 64-byte-aligned offset. For Filter the parameters are the strategy,
// k and the word count; for Counting the counter count and k (FORMAT.md).
// The bytes are the same on every platform. Filter also has Guava's stream
// format (WriteGuava, AppendGuava, ReadGuava), which has no checksum.
//
// Every decoder treats its input as hostile: it checks each field, reads
// exactly the bytes of one filter, never panics, and allocates memory only
// as input actually arrives (a header declaring 2^31-1 words over a short
// stream costs a few KiB); a declared size beyond the receiver's bound
// (WithMaxSize) or, for the stream readers, beyond the machine's memory is
// refused before anything is read. Errors are prefixed "classic: " and wrap
// the sentinels of package sift (sift.ErrTruncated, sift.ErrCorrupt,
// sift.ErrChecksum, sift.ErrTooLarge, ...), so test them with errors.Is.
//
// # Concurrency
//
// Neither type is safe for concurrent use while any goroutine modifies it
// (Put, PutAll, Add, Remove, Reset, ReadFrom, UnmarshalBinary, Close):
// unlike Guava's LockFreeBitArray, Put is a plain read-modify-write.
// Concurrent MightContain or Contains calls with no writer are safe. Put,
// MightContain, Add, Contains and Remove do not allocate.
package classic
