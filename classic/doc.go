// Package classic holds two reference filters: Filter, a Bloom filter
// bit-compatible with Guava's com.google.common.hash.BloomFilter, and
// Counting, a counting Bloom filter that supports removal.
//
// Like every sift filter they answer "definitely not present" or "possibly
// present": a key that was added is always found (no false negatives), and a
// key that was not is reported present with a small probability, the false
// positive rate (FPR). Package blocked is faster for new data; use this
// package to exchange filters with Java services, or when keys must be
// removable.
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
//   - Strategies: Murmur128Mitz32 (MURMUR128_MITZ_32, ordinal 0) and
//     Murmur128Mitz64 (MURMUR128_MITZ_64, ordinal 1, Guava's default), with
//     Guava's index arithmetic, including its sign tricks.
//   - Sizing: New(n, fpp, strategy) computes Guava's optimalNumOfBits and
//     optimalNumOfHashFunctions with Java's arithmetic (truncating and
//     rounding casts, n = 0 as 1), rounds the bits up to whole 64-bit words,
//     and rejects exactly the arguments Guava rejects. BitSize is the
//     rounded-up size, as Guava's bitSize().
//   - Results: Put returns whether a bit changed; ExpectedFpp,
//     ApproximateElementCount and PutAll follow Guava's definitions,
//     including the rounding of the estimate and the last bit of the power
//     (see below for which JVMs agree on it). Reset, which Guava lacks,
//     empties a filter in place.
//   - Serialization: WriteTo and ReadFrom (and ReadGuava, AppendGuava) use
//     Guava's writeTo/readFrom stream format: a signed strategy byte, an
//     unsigned hash-count byte, a big-endian int32 word count, then the words
//     as big-endian int64s. A filter written by either side reads on the
//     other; Java's BloomFilter.readFrom needs the funnel matching the keys.
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
// The sizing and statistics depend on the last bit of Java's Math.log,
// Math.log1p and Math.pow, so this package does not use Go's math.Log,
// math.Log1p and math.Pow for them (on the golden vectors math.Log is an ulp
// off on 4% of fpp-like inputs, which moved the size of a filter for 2^50
// keys, and is 5% off for subnormals on amd64; math.Pow is several ulps off
// on most (x, k); math.Log1p differs on arm64, where Go fuses
// multiply-adds). Instead it computes log correctly rounded, and log1p and
// pow with fdlibm's algorithms (what Java specifies for StrictMath.log1p and
// StrictMath.pow), rounded step by step so that every platform gets the same
// bits; log and log1p match HotSpot on every golden vector, on amd64 and
// arm64. Math.pow, which Guava's expectedFpp calls, is not the same on every
// JVM: HotSpot on aarch64 returns StrictMath.pow's value (on all of 34
// million (fraction, k) pairs tried), while HotSpot on x86-64 uses an
// intrinsic whose last bit differs from it for about one pair in ten.
// ExpectedFpp follows StrictMath: it equals Guava's expectedFpp bit for bit
// on aarch64, and on x86-64 with the pow intrinsic disabled
// (-XX:+UnlockDiagnosticVMOptions -XX:DisableIntrinsic=_dpow, as
// testdata/guava/gen.sh runs Guava), and is within one ulp of it otherwise.
// A JVM whose Math.log is an ulp off where HotSpot's is not could size a
// filter differently in rare boundary cases, as Java's specification
// permits.
//
// Murmur128Mitz32 never sets bits past 2^31 (a limitation of that strategy
// in Guava too); prefer Murmur128Mitz64.
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
// and a size the system refuses (on Linux, also one larger than the
// machine's RAM and swap), or one beyond WithMaxSize, is an error wrapping
// sift.ErrTooLarge. The zero Filter and the zero Counting have no bits:
// they are only good as the target of a decoder, and any other use fails
// loudly (see Filter and Counting).
//
// # Counting filters
//
// Counting replaces each bit by a 4-bit counter (four times the memory),
// sized with the same classic formulas. Add increments a key's k counters,
// Remove decrements them, Contains tests that none is zero. A counter that
// reaches 15 saturates and is never decremented again, so removals cannot
// cause false negatives; removing a key that is not present returns
// ErrNotPresent and changes nothing. Keys are hashed once with package hash
// (XXH3-64 with the filter's seed, default 0) and the k counters are chosen
// by Kirsch–Mitzenmacher double hashing (see Counting), so callers can pass
// precomputed hashes to AddHash, ContainsHash and RemoveHash.
//
// # Serialization
//
// Both types also have sift's native format (MarshalBinary and
// UnmarshalBinary; for Filter also WriteNativeTo and ReadNative, for
// Counting WriteTo, ReadFrom and ReadCounting): the shared header of package
// internal/format (magic, version, kind, hash algorithm and seed,
// parameters, CRC-32C of header and payload), then the words little-endian
// at a 64-byte-aligned offset. For Filter the parameters are the strategy,
// k and the word count; for Counting the counter count and k. The bytes are
// the same on every platform.
//
// Every decoder treats its input as hostile: it checks each field, reads
// exactly the bytes of one filter, never panics, and allocates memory only
// as input actually arrives (a header declaring 2^31-1 words over a short
// stream costs a few KiB), with an optional maximum size. Errors are
// prefixed "classic: " and wrap the sentinels of package sift
// (sift.ErrTruncated, sift.ErrCorrupt, sift.ErrChecksum, sift.ErrTooLarge,
// ...), so test them with errors.Is.
//
// # Concurrency
//
// Neither type is safe for concurrent use while any goroutine modifies it
// (Put, PutAll, Add, Remove, ReadFrom, UnmarshalBinary): unlike Guava's
// LockFreeBitArray, Put is a plain read-modify-write. Concurrent MightContain
// or Contains calls with no writer are safe. Put, MightContain, Add,
// Contains and Remove do not allocate.
package classic
