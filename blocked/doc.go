// Package blocked is a cache-line blocked Bloom filter: each key's bits all
// lie in one 64-byte block, so an add or a lookup costs one cache miss at
// most, and batches of lookups run as SIMD kernels that keep many misses in
// flight.
//
// Like every Bloom filter it answers "definitely not added" or "possibly
// added": a key that was added is always reported present (no false
// negatives), and a key that was not is reported present with a small
// probability, the false-positive rate (FPR). Keys cannot be removed.
//
//	f, err := blocked.New(1_000_000, 0.01) // a million keys at 1%
//	f.AddString("alice")
//	f.ContainsString("alice") // true
//
// The package has four types. Filter is the filter. Concurrent is the same
// filter for many goroutines adding at once, without locks. View is a
// read-only Filter served in place from a mapped file (Open) or a buffer
// (FromBytes). Scalable is a chain of filters for when the number of keys is
// not known in advance.
//
// # Probe design
//
// A filter is an array of B blocks of eight 64-bit words (B is any number
// from 1 to MaxBlocks = 2^32: no rounding to a power of two). A key's 64-bit
// hash h is split in two:
//
//   - the high 32 bits choose the block by multiply-shift,
//     block = (h>>32) * B >> 32, which is uniform without a division;
//   - the low 32 bits h32 choose the bits: probe j (0 <= j < k) sets bit
//     (h32 * salt[j]) >> 26 of word j mod 8, with sixteen fixed odd 32-bit
//     salts (multiplying by an odd number permutes h32, and the top six bits
//     of the product are a uniform bit position).
//
// So with k <= 8 a key sets one bit in each of k different words, and with k
// from 9 to 16 two bits in words 0..k-9 and one in the others. All k probes
// are independent of each other, so they are computed and tested at once: a
// lookup is k multiplies and shifts, k reads from one cache line, and one
// test at the end, with no branch per probe. ContainsHash and AddHash inline into
// the caller and make one call to the probe, written out for each k (about
// five instructions per probe; a loop costs the Go compiler three times
// that); a test keeps them inlinable.
//
// # Sizing and false positives
//
// New(n, fpp) does not use the classic Bloom formula, which is wrong for
// blocked filters: keys fall unevenly into blocks, and overfull blocks give
// most of the false positives. FalsePositiveRate computes the expected rate
// of this exact design: the number of keys sharing the queried block is
// binomial (n keys over B blocks; summed in log space over all loads that
// matter), and given that load the chance that all the query's probes find
// set bits is computed word by word, exactly for words that receive one or
// two probes per key (including a query whose two probes in a word
// coincide), plus the chance of a full collision of the 32-bit in-block hash.
// Measured rates agree with it within 7% at 10^4 keys and 0.6% at 10^6 (see
// TestSizing), the filter-to-filter spread the same model predicts.
//
// A filter's actual rate varies around that expectation with how its keys
// happened to fall. New picks, over every k from 1 to 16, the least memory
// whose expected rate plus three standard deviations of that variation (from
// the same model) is at most fpp, so the bound holds for the filter you get,
// not only on average. The margin costs about 0.3% of memory at a million
// keys and 3% to 5% at ten thousand. Its choices, at n = 10^6, for rates
// between the powers of ten of the table under "Supported rates":
//
//	fpp      bits/key   k   classic optimum, bits/key
//	0.05       7.07     8     6.24
//	0.005     11.65     8    11.03
//
// The price of one cache line per key, and of a probe layout that
// vectorises, is memory: 6% to 10% over the classic optimum between 1% and
// 0.1%, 20% and more at 10% or 1e-4 and below. Where space matters more than
// speed at very low rates, a cuckoo filter is more compact (16-bit
// fingerprints: 16.8 bits per key for about 1.2e-4).
// FPP reports the rate of a filter as it is now, computed from its actual
// bits; EstimatedCount estimates the number of keys from the fill. Adding
// more keys than the filter was sized for does not fail, it raises the rate
// (FalsePositiveRate tells by how much); Scalable grows instead.
//
// # Supported rates
//
// New, NewConcurrent, OptimalSize and NewScalable accept rates from MinFPP
// = 1e-8 up. The floor comes from the probe design: a key's bits inside its
// block come from 32 bits of its hash, so an absent key whose 32 bits equal
// a stored key's in the same block matches every probe. That happens with
// probability about load/2^32 per lookup (load: keys in the block), a
// rate no k can lower; only emptier blocks can, at ever more memory. Below
// 1e-8 the cost explodes, so those rates are refused with ErrFPPTooLow,
// whose message says what a classic Bloom filter (package classic, any
// rate down to about 1e-77, k cache lines per key) needs instead.
//
// The sizing at n = 10^6, with the rate FalsePositiveRate predicts and the
// rate measured on absent keys (TestSizingTable, which reproduces this
// table: SIFT_SIZING_TABLE=1 go test -run TestSizingTable -v; the samples
// are 10^7 absent keys, 2000/fpp where that is at most 2*10^9, and 2*10^9
// at 1e-7 and 1e-8, where they hold about 200 and 20 expected false
// positives):
//
//	fpp     bits/key   k  predicted   measured   classic optimum   ratio
//	1e-1        5.90   8   0.0988     0.0990          4.79          1.23
//	1e-2       10.13   8   0.00984    0.00983         9.59          1.06
//	1e-3       15.78   8   9.81e-4    1.00e-3        14.38          1.10
//	1e-4       23.00  16   9.58e-5    1.00e-4        19.17          1.20
//	1e-5       30.21  16   9.44e-6    9.86e-6        23.96          1.26
//	1e-6       39.38  16   9.25e-7    9.96e-7        28.76          1.37
//	1e-7       51.35  16   9.01e-8    8.4e-8         33.55          1.53
//	1e-8       68.33  16   8.86e-9    1.1e-8         38.34          1.78
//	refused, below MinFPP: what the search would choose without the limit
//	1e-9      125.86  16   9.88e-10       -          43.13          2.92
//	1e-10    1192.09  16   1e-10          -          47.93         24.9
//	1e-11   11920.93  13   1e-11          -          52.72        226
//	1e-12  119209.29  13   1e-12          -          57.51       2073
//
// (At 1e-8 the 22 false positives measured, against 17.7 predicted, are
// within the sample's noise; at 1e-12 a million keys would take 15 GB.)
// Cuckoo filters (package cuckoo) serve rates down to their fingerprint's
// floor, about 1.2e-4 with 16-bit fingerprints.
//
// # Hashing
//
// Keys are hashed with XXH3-64 and the filter's seed (package
// github.com/sift-go/sift/hash): Add(key) is AddHash(hash.Bytes(key, seed)),
// AddString hashes the string's bytes without a copy, and AddUint64(x) is
// Add of x's eight little-endian bytes. Hash, HashString and HashUint64
// return that hash, so a caller can hash a key once and probe many filters
// with the same seed, or feed AddHashes and ContainsHashes. The seed defaults to 0, so filters
// are reproducible and comparable; when keys come from an adversary, who
// could otherwise compute keys that collide, use a secret random seed:
// WithSeed(hash.RandomSeed()).
//
// # Concurrency
//
// Lookups (Contains*, ContainsHashes, and the other read-only methods) on a
// Filter, a View or a Scalable are safe from many goroutines at once; adds,
// Union, Intersect, Reset and decoding into an existing filter are not. A
// Concurrent adds with atomic OR (sync/atomic.OrUint64, like Guava's
// LockFreeBitArray) and reads with atomic loads (its batch lookups with the
// SIMD kernels, linearizable to before a racing add: see Concurrent), so
// any number of goroutines may add and look up at once, race-detector
// clean, with no lost adds and no false negatives for adds that have
// returned. AddNew and its variants add a key and report whether it was
// new, in one call that is safe under races on a Concurrent.
//
// Under the race detector (go test -race), a Filter used from two
// goroutines against these rules is reported whichever kernel set runs:
// the assembly kernels' wrappers tell the detector what they read and
// write. One limit: a filter of 4 MiB or more lives in memory mapped
// outside the Go heap (for huge pages; see New), which the detector does
// not watch, so run race tests with smaller filters. The same holds for
// every kind of filter in this module.
//
// # Windows
//
// Window forgets: a key is found for a window W after its last add and
// forgotten after at most W plus one slice. It is a ring of G generations
// (WithGenerations, a power of two, default 4), each a blocked filter for
// the keys of one slice of W/(G-1); adds go to the newest, lookups probe
// the live ones, and the oldest is cleared as the clock passes a slice
// boundary. A key's lanes in all generations share one cache line (G <= 4;
// G/4 lines above), so a lookup reads what a Filter's does. Time comes
// from a clock (the monotonic one by default, WithClock to inject one) or
// advances by count (WithSliceKeys). On the default clock a timer ends
// each slice, so lookups inside the current slice read no clock.
// Sizing takes the expected keys per window and the rate over the whole
// window, assuming a steady arrival rate; ConcurrentWindow adds with atomic
// ORs and looks up without locks. Both save and load in sift's format
// (kind window; a ConcurrentWindow saves a copy made while its adds go on,
// and ReadConcurrentWindow resumes one), so a restarted server resumes its
// window.
//
// # Memory
//
// Blocks are 64-byte aligned, one cache line each. Filters of 4 MiB and more
// live in anonymous memory mapped outside the Go heap (Unix systems and
// Windows), on Linux advised for transparent huge pages (MADV_HUGEPAGE), so
// random lookups into a large filter need one TLB entry per 2 MiB instead
// of per 4 KiB (the repository's bench/README.md has the measurement), and
// the garbage collector never scans them. Close returns that
// memory at once; a finalizer frees it if a filter becomes unreachable
// without Close, but only when the collector runs, which a program whose Go
// heap is small may not do for a long time.
//
// A constructor touches every 4 KiB page of the new filter's memory, mapped
// or on the Go heap, so the page faults of fresh memory (the kernel zeroing
// each page) are paid in New and not by the first inserts, which run at
// full speed from the start (bench/README.md has the figures). A filter's
// keys land on random pages, so its first few tens of thousands of inserts
// would touch every page anyway; the touch costs no memory a filter in use
// does not hold.
//
// A constructor never ends the process for lack of memory. It checks the
// size against MaxBits (256 GiB, what the 32-bit block index addresses)
// and against WithMaxSize when given, and a mapping the system refuses (on
// Linux, also one larger than the memory available: free RAM and swap,
// within a container's memory limit) is an error
// wrapping ErrTooLarge: the memory of a big filter never comes from the Go
// heap, whose refusal is the runtime's fatal error. Clone and
// Concurrent.Filter, which have no error to return, panic with that error.
//
// Close leaves a filter without blocks, which is also what the zero value
// of every type is. Such a filter fails loudly and never touches freed
// memory: methods that return errors return one wrapping ErrClosed, and the
// others panic with one (see Filter.Close for the list), the single-key
// Add and Contains methods of Filter and View from their probe in package
// internal/kernel, whose emptiness check costs a lookup nothing. These
// panics are the documented programmer error of using a filter after Close
// or before it was made.
//
// # Options
//
// Constructors and loaders take functional options (Option), with the
// names every sift package uses for the same idea: WithSeed (the hash
// seed), WithMaxSize (a bound on the filter's memory, which constructors,
// loaders and a filter's own decoders apply) and WithoutChecksum (loaders:
// skip the payload's CRC-32C); WithGrowth and WithTightening shape a
// Scalable. Each option lists the calls that use it; the others ignore it.
// Invalid arguments are errors wrapping ErrInvalidArgument (and ErrInvalidFPP,
// ErrFPPTooLow, ErrInvalidK or ErrInvalidOption, which say which).
//
// # Serialization
//
// Filter, Concurrent, Scalable, Window and ConcurrentWindow implement
// encoding.BinaryMarshaler, BinaryAppender and BinaryUnmarshaler,
// io.WriterTo and io.ReaderFrom (a View the three that write), all in
// sift's file format (package internal/format; sift.Inspect reads any
// file's header): a 128-byte header with magic, version, kind, hash
// algorithm and seed, parameters and CRC-32C checksums, then the blocks at
// a 64-byte-aligned offset. ReadFilter, ReadConcurrent, ReadScalable,
// ReadWindow and ReadConcurrentWindow read a stream into a new filter with
// options. The bytes are little-endian and the
// same on every architecture and whichever kernel built the filter, so a
// filter built on amd64 is read on arm64 and the reverse; a golden test
// locks them. Filter, Concurrent and View share the blocked encoding.
// Decoders check the magic, version, both checksums and every field before
// using anything, never allocate more than the input's actual length
// justifies (a header claiming terabytes over a short stream costs nothing),
// refuse a declared size beyond the receiver's bound before reading it (the
// WithMaxSize the filter was made with; for a zero receiver, and a stream,
// the machine's memory), and return errors that wrap the sift package's
// sentinels (ErrMagic,
// ErrVersion, ErrKind, ErrTruncated, ErrChecksum, ErrCorrupt, ErrTooLarge,
// re-exported here). Every error of this package reads "blocked: ..." once,
// with the file system's error (for Open) or the sentinel in its chain.
//
// Open maps a file read-only and serves lookups straight from the page
// cache: opening costs the checksum pass only (WithoutChecksum skips it for
// trusted storage), and many processes share one copy. A path that is not
// a regular file (a FIFO, a device, a directory) is refused at once,
// without blocking. It returns a View,
// which has no methods that add, so writing to read-only memory is a
// compile-time error rather than a crash. FromBytes does the same over a
// caller's buffer, in place when the buffer is 64-byte aligned on a
// little-endian machine, else by copying. View.Clone makes a writable
// Filter.
//
// # Open or Load
//
// Open's View reads the file itself, so the file must only be replaced by
// renaming another over its path while the View is used (sift build -o,
// sift merge -o and sift.WriteFile do that). What happens otherwise is the
// operating system's contract for every mapped file: truncating it in
// place (cp over it, truncate, rsync --inplace) makes the next lookup that
// touches a page past the new end fault with SIGBUS, which ends the process
// (Go cannot recover from it); rewriting it in place at the same size
// changes the bits under running lookups, which can then report keys that
// were added absent. Load reads the file into memory of the process's own
// instead: one sequential read more at opening (see reload's package
// documentation for figures), the filter's size in memory, and nothing
// another process does to the file can reach its lookups, which cost the
// same. Servers that run for long and tools that read a file once should
// use Load (package reload does by default); Open is for files that only
// ever change by rename, or where many processes must share one copy.
//
// # Combining filters
//
// Filter.Union and Concurrent.Union OR the bits of a filter with the same
// block count, k and seed (Intersect ANDs them); Scalable.Union merges two
// chains made with the same parameters stage by stage. Incompatible filters
// are ErrIncompatible, and nothing changes.
//
// # File format
//
// A blocked filter (Filter, Concurrent, View) is one sift record of kind 1
// (blocked), hashed with XXH3-64 and the header's seed; a Scalable is one
// record of kind 3 (scalable) holding its stages' blocked records. FORMAT.md
// in the repository is the byte-level specification of both: the header,
// each parameter's meaning and range, and the payload's layout, bit for
// bit. The bit positions follow the probe design above with the salts of
// package internal/kernel (kernel.Salts), which never change.
//
// # Kernels and purego
//
// AddHashes and ContainsHashes hand batches to package internal/kernel,
// which runs AVX-512 or AVX2 assembly on amd64 and NEON on arm64, chosen
// once at start-up (see DESIGN.md §6); the batch kernels keep many cache misses in flight, several
// times faster per key than single-key calls on big filters. Without
// assembly (other architectures, the purego tag, or SIFT_KERNEL=generic)
// batches run the single-key probe in a loop, which is faster than the
// portable kernel. Every path produces the same bits and answers; tests
// compare the memory images. The build tag purego removes sift's own
// assembly; the XXH3 dependency keeps its own.
//
// # References
//
// Putze, Sanders, Singler, "Cache-, Hash- and Space-Efficient Bloom
// Filters", 2007 (blocked filters and their false-positive rate). Almeida,
// Baquero, Preguiça, Hutchison, "Scalable Bloom Filters", 2007.
package blocked
