// Package cuckoo is a cuckoo filter: an approximate set of keys with
// deletion, about 16.8 bits per key for a false positive rate near 1.2e-4
// (16-bit fingerprints) or 8.4 bits per key for about 3% (8-bit).
//
// Like every sift filter it answers "certainly not present" or "possibly
// present": a key that was added (and not removed) is always reported
// present, including when the filter is full; a key that was not added is
// reported present with probability about FPP.
//
// # Layout
//
// The filter is an array of buckets of four fingerprint slots (Fan,
// Andersen, Kaminsky, Mitzenmacher, "Cuckoo Filter: Practically Better Than
// Bloom", CoNEXT 2014). With 16-bit fingerprints a bucket is one aligned
// uint64; with 8-bit fingerprints it is a uint32 and two buckets share a
// word. A slot holding 0 is empty.
//
// A key is hashed once to 64 bits (package hash, XXH3 with the filter's
// seed). The high 32 bits pick the primary bucket by multiply-shift,
// i1 = (h>>32)·n >> 32, so any bucket count n works and none is rounded to a
// power of two. The low 32 bits give the fingerprint, uniform over
// [1, 2^f-1]: fp = uint32(h)·(2^f-1) >> 32 + 1 (0 never occurs, and no value
// is favoured, unlike mapping a zero fingerprint to 1). The alternate bucket
// is i2 = (H(fp) - i1) mod n with H(fp) = uint32(fp·0x9e3779b1)·n >> 32: an
// involution for every n, so a fingerprint's other bucket is found from
// either bucket and the fingerprint alone, as relocation needs (partial-key
// cuckoo hashing without the power-of-two table the XOR form requires).
//
// New(capacity) allocates ceil(capacity/3.8) buckets: room for capacity
// keys at 95% load, so the space is f/0.95 bits per key (16.84 or 8.42)
// within 3% from a capacity of 128 keys on (256 with 8-bit fingerprints,
// whose tables of an odd bucket count carry half a word of padding). The
// insertion below reaches 96–98% load: in tests from 10^3 to 10^7 keys,
// with both widths, filters took 101.3–103.6% of their capacity before the
// first ErrFull.
//
// # Lookups
//
// ContainsHash loads the key's two buckets (one load each) and compares the
// fingerprint with all four slots at once with the SWAR zero-lane test
// (x-lo)&^x&hi on x = bucket ^ fp·lo, where lo has a 1 in every lane. The
// victim is compared with arithmetic behind one branch, on whether the
// victim slot is in use at all: that branch goes the same way for every
// lookup until the filter fills, so it is predicted, and it skips about a
// tenth of the probe's instructions. ContainsHash and
// ContainsUint64 inline into their callers as one call of the probe
// function, which is a leaf: every helper inlines into it (for
// ContainsUint64 the key's hash too, which saves a call level; the hash's
// seed is folded in when the filter is made, see hash.Uint64Hasher), and each fingerprint width has its own
// straight-line code (constants as immediates, buckets read as uint32 or
// uint64 elements; the branch on the width always goes the same way). The
// probe itself cannot inline: index, fingerprint, alternate bucket, two
// loads, SWAR and victim cost about 150 units of the Go compiler's
// inlining budget of 80 for one width alone, even with unchecked loads.
// An amd64 assembly version of it measured barely faster than this Go, so
// there is none: the call costs a few cycles, and the multiplies and the
// two bucket loads dominate.
//
// The two bucket loads carry no bounds checks: the index math returns
// buckets below the bucket count for every hash (tested against guard
// pages), and without the checks' panic calls the probe needs no stack
// frame. That matters most beyond the caches, where a loop of lookups is
// bounded by how many of them the CPU keeps in flight while their buckets
// come from memory, so every instruction of a lookup counts (the measured
// gains, and how a loop of ContainsHash compares with a loop of two bare
// random loads, are in bench/README.md); the batch ContainsHashes, which
// prefetches, is what gets close to the memory system's limit.
//
// ContainsHashes runs a batch in one call of an assembly kernel
// (internal/kernel): AVX2 on amd64 (four keys per iteration, gathers for the
// buckets), NEON on arm64 (both buckets loaded into one vector, one compare
// for all eight slots); both compute and prefetch the buckets of keys 32
// (amd64) or 16 (arm64) positions ahead. For filters larger than the
// caches this hides most of the memory latency that a loop of ContainsHash
// pays. The build tag purego removes sift's assembly (the hash package's
// XXH3 dependency keeps its own); every kernel returns the same answers.
//
// # False positives
//
// An absent key is compared with the 2b = 8 slots of its buckets, each
// occupied with probability α (the load factor) and then equal to its
// fingerprint with probability 1/(2^f-1), so
//
//	FPP = 1 - (1 - 1/(2^f-1))^(8α) ≈ 8α/2^f
//
// which FPP returns for the current load: 1.16e-4 at α = 0.95 with f = 16,
// 2.94% with f = 8. Measured rates match it within a few percent (see
// TestMeasuredFPR).
//
// # Insertion, ErrFull and the victim
//
// Add puts the fingerprint into a free slot of whichever of its two buckets
// has more room (the first on a tie), chosen without a branch, in one flat
// function with straight-line code per width like the probe's (it was two
// calls reading lane constants from the filter; the seed is folded into
// the hash in advance). Keeping the buckets evenly loaded this way, rather
// than filling the first bucket while it has room, leaves fewer inserts
// near full load with both buckets full: a fill to 95% makes 0.17–0.20
// relocation steps a key instead of 0.29–0.33. (What inserts cost, and
// how that changed, is in bench/README.md, not here: measured times go
// stale with the hardware.)
//
// When both are full it relocates, up to MaxKicks (default 500) steps.
// Each step first looks one move ahead: if one of the full bucket's four
// fingerprints has room in its own alternate bucket, it moves there and
// the homeless fingerprint takes its slot (the four alternate buckets are
// independent loads, so this costs about one memory latency, and it ends
// most chains early and raises the reachable load by about 1.5 points).
// Before the first eviction it looks ahead from both buckets, eight
// fingerprints, which makes a third fewer evictions in a fill to 95%
// (0.06–0.09 a key instead of 0.09–0.13). Otherwise the homeless
// fingerprint evicts one in a random slot, which moves on to its alternate
// bucket. The random choices come from a PRNG seeded from the filter's
// seed, so filters built from the same keys are bit-identical. If the last
// evicted fingerprint still has no home and the filter is at 90% load or
// more, it goes into the victim slot, where every lookup finds it: that
// Add succeeds, and no key is lost. From then on Add returns ErrFull and
// changes nothing, until a Remove makes room for the victim. So a full
// filter never forgets a key, unlike implementations that drop the
// homeless fingerprint of an earlier key. Below 90% load the walk is
// undone instead: every eviction is reversed (the slots are drawn again
// from the PRNG's state before the walk, and each bucket is the alternate
// of the next), the PRNG goes back to that state, and Add returns
// ErrNoSlot, which matches ErrFull, having changed nothing; other keys can
// still be added. Random keys first run out of kicks at 96-99% load, so
// below 90% that happens only to a key walled in by fingerprints that
// cannot move (see Duplicates, below) or with a small MaxKicks, and
// parking would turn one such key into a full filter.
//
// A full filter recovers as keys go. While the victim is parked, every
// successful Remove re-homes it if the table has room for it: into a free
// slot of its two buckets, or else along the shortest chain of relocations
// from them to any free slot, found breadth first among up to 1024 buckets
// (all within four moves, and some at five; no bucket twice on a chain, and
// each fingerprint copied forward before its old slot is overwritten, so
// none is ever missing). Near full load a free slot is usually two or three
// moves away, so the first Remove after ErrFull typically frees the filter
// (before, only a Remove in one of the victim's own two buckets did: 8.8%
// of the keys had to go at 16 bits, 27% at 8 bits). Filled to ErrFull and
// then churned, 1% of the keys removed and new ones added until ErrFull,
// five times over, a 200,000-key filter took back as many keys as went
// each round (1,974 to 2,424 for about 2,050), at both widths
// (TestChurn). Add itself does not search (see searchNodes).
//
// AddHashes inserts a batch exactly as a loop of AddHash would (the same
// table, bit for bit, and the same error at the same key) on bucket arrays
// under 4 MiB and below 3/4 load on any, as a pipeline
// over groups of 32 keys (16 from 3/4 load on): an assembly kernel
// computes and prefetches the buckets of the group after next
// (kernel.CuckooLocate); the current group's keys go in as runs, a tight
// loop with two bucket loads and one write a key and no call, up to the
// first key whose two buckets are both full, which alone goes through the
// relocation code (with 16-bit fingerprints the run calls the relocation
// for that key itself and goes on, rather than ending); and from 3/4 load
// on, where the bucket array is 4 MiB or more (smaller ones stay in the
// caches, where this cost more than it saved), the next group is checked
// for full bucket pairs, whose fingerprints' alternate buckets, where a
// relocation looks first, are prefetched too (kernel.CuckooAlternates).
// Generic builds load a group's buckets before inserting it instead.
// Where the avx512 kernels run (with AVX-512 CD) and the table has at least
// 4096 buckets, the keys below 3/4 load go through an insert kernel
// instead (kernel.CuckooInsert): eight keys a step, both buckets of each
// gathered, the emptier one's lowest free slot filled, and the eight
// buckets scattered back, the buckets of the keys 64 on prefetched (128
// on, on arrays of 4 MiB and more). Its placement is add's, so the table
// stays bit for bit that of the loop of
// AddHash: a group of eight in which two keys share a bucket (and must see
// each other's writes in order) or a key must relocate is handed back to
// the runs above, and the kernel goes on after it. Other kernel sets (avx2,
// neon, generic) keep the runs.
//
// On bucket arrays of 4 MiB and more, from 3/4 load on, AddHashes
// overlaps relocations: a key whose buckets are both
// full and whose eight alternates have no room starts a walk that is left
// in flight while the keys after it go in, up to eight walks at a time,
// each moved one step a round with the buckets its next step reads
// prefetched, so that their memory latencies overlap instead of adding
// up (builds without an assembly kernel walk the same way, without the
// prefetch). Those walks evict other fingerprints than AddHash's, so the
// table differs from a loop of AddHash there, and the filter may fill at
// another key; it is the same table in every build and with every kernel
// set, for the same keys in the same calls. The contract does not
// change: hs[:n] are in, counted and findable,
// hs[n:] are not, ErrFull comes after the key that parked the victim,
// ErrNoSlot at a key that found no slot below 90% load and
// ErrDuplicateLimit at a key whose buckets hold only its fingerprint.
// Walks never park a victim while others are in flight: every write of
// the stage is logged, and a walk that runs out of kicks, a key at the
// duplicate limit or a full log rolls the table back to the last point
// with no walk in flight, and the keys from there go in one at a time.
//
// What an insert costs depends on the load. Up to about 3/4 load nearly
// every key finds room in one of its buckets, and the cost is flat: the
// two bucket reads and the write, plus the hash's index arithmetic and the
// emptier-bucket choice, which in the batch loop is most of it in cache.
// From there it climbs: ever more keys find both buckets full and
// relocate, and each step of a relocation waits for the buckets the
// previous step read, so the chain's memory latencies add up rather than
// overlap. Between 90% and 95% load an insert costs about ten times what
// it costs at low load, and more once the table is larger than the caches,
// where each step is a trip to memory. Batching hides the latency of the
// first two reads of each key, and on such tables overlaps the
// relocation chains of different keys (not the steps of one chain). On
// tables in the caches the relocations are bound by instructions and by
// the look-ahead's mispredicted branches (which of a full bucket's four
// fingerprints has room in its alternate bucket is a coin toss), so with
// 16-bit fingerprints a plain Filter relocates through a form specialised
// to one word per bucket (insertFull16, move16), which makes the same
// moves with fewer instructions. The figures, per load band, for single
// and batch inserts, are in bench/README.md (BenchmarkFillCurve).
//
// Duplicates are stored as separate copies. A key (or several keys sharing
// both buckets and the fingerprint) can be held at most 2b = 8 times in its
// two buckets; a ninth Add returns ErrDuplicateLimit and changes nothing,
// and other keys can still be added (before, the ninth copy went to the
// victim slot and every later Add failed). Each copy needs its own Remove.
// The alternate-index map sends about one key in the bucket count back to
// its first bucket (and every key of a one-bucket filter): such a key has
// b = 4 slots, and its fifth copy meets the limit.
//
// Copies can wall a key in. A key held eight times fills both its buckets
// with fingerprints that cannot move out (their other bucket is the same
// pair), so another key whose buckets are among such pairs may find no
// reachable slot. Below 90% load its Add returns ErrNoSlot and changes
// nothing (the relocation walk is undone), and other keys go on being
// added; from 90% on the homeless fingerprint parks as the victim. Before
// walks were undone it parked at any load, and every later Add returned
// ErrFull until a copy of a key that fills its buckets was removed: an
// outside check reached that at 0.16% load, with two keys added eight
// times each beside a third whose buckets they shared, and at 76% load in
// batches of 3,000 keys in which one key repeated ten times
// (TestWalledInKey has the first case). Where keys repeat, add with
// AddNew, which stores one copy.
//
// # Add if new
//
// AddNew, AddNewString, AddNewUint64 and AddNewHash add a key only when the
// filter does not already report it present (its fingerprint in one of its
// buckets or in the victim slot), reading its two buckets once, and return
// true when they added it: a de-duplicating loop emits the keys they call
// new, repeated keys take no second slot, and ErrDuplicateLimit never
// comes. A new key that is a false positive is reported not new, at the
// filter's FPP. Errors are Add's: ErrFull for a new key while the victim
// slot is in use (a present key still gets false and no error), ErrNoSlot
// for a new key walled in below 90% load. The batch
// AddNewHashes answers, key by key, what one-at-a-time calls in order
// would (a hash repeated in the batch is new once) and builds the same
// table, on AddHashes' pipeline (without its overlapped relocations). Concurrent has the same methods; racing
// calls for one key report it new at least once, and never after an add
// of it has returned (see Concurrent.AddNewHash).
//
// # Memory, closing and zero values
//
// Bucket arrays of 4 MiB and more live in anonymous memory mapped outside
// the Go heap. New never ends the process for lack of memory: it checks the
// size against the design's limit (MaxBuckets) and WithMaxSize, and a
// mapping the system refuses (on Linux, also one larger than the memory
// available: free RAM and swap, within a container's memory limit) is an
// error wrapping sift.ErrTooLarge (see package
// internal/mem). Clone, which returns no error, panics with that error.
//
// Close frees the memory at once and leaves the filter without buckets,
// which is also what the zero Filter, Concurrent and View are. Such a
// filter fails loudly and never touches freed memory: methods that return
// errors return one wrapping sift.ErrClosed, and the others panic with one
// (see Filter.Close for the list). The single-key lookups of Filter and
// View (Contains, ContainsString, ContainsUint64, ContainsHash) are the
// exception: their probe is a frameless leaf without a check of its own
// (see Lookups), so on a closed or zero filter they panic with the nil
// dereference of the bucket load (a runtime error, not an error wrapping
// sift.ErrClosed). That panic is the documented programmer error of using
// a filter after Close or before it was made: it never reads freed memory,
// and it costs lookups nothing, where a check with a clear message measured
// up to 2.5% slower lookups in cache (n = 10^5, both widths, medians of 15
// interleaved rounds). A Concurrent's lookups do check, and panic with an
// error wrapping sift.ErrClosed.
//
// # Options
//
// New, NewConcurrent and the loaders take functional options (Option),
// named as in every sift package: WithSeed, WithMaxSize (a bound on the
// bucket array, which New, the loaders and a filter's own decoders apply)
// and WithoutChecksum (loaders: skip the payload's CRC-32C), and this
// package's WithFingerprintBits and WithMaxKicks. Each option lists the
// calls that use it; the others ignore it. New reports an invalid value as
// an error wrapping ErrInvalidArgument.
//
// # Union
//
// Filter.Union merges a filter of the same bucket count, fingerprint width
// and seed: every fingerprint of the other filter is inserted as Add would
// insert it, starting in the bucket that holds it there, and its victim
// likewise, except that where Add would refuse it below 90% load
// (ErrNoSlot) or from 90% on it takes the victim slot, so a filter merged
// into an empty one is copied bucket for bucket, its victim included. The merge
// succeeds when every fingerprint finds a slot (the last possibly the
// victim slot, as for Add); otherwise it returns ErrFull, ErrNoSlot or
// ErrDuplicateLimit and leaves the filter exactly as it was: it works on a
// copy, so no key of either filter is ever lost. A key in both filters is
// then held twice, as if added twice. Incompatible filters are
// ErrIncompatible.
//
// # Deletion
//
// Remove deletes one copy of the key's fingerprint from its buckets (or the
// victim slot) and reports whether it found one. Only remove keys that were
// added: removing a key that was never added finds nothing most of the time,
// but with probability about FPP it matches and deletes the fingerprint of a
// different key that shares a bucket, which is then no longer reported
// present. The same holds for removing a key more often than it was added.
//
// # Concurrency
//
// A Filter may be read (Contains*, Count, FPP, MarshalBinary, ...) by many
// goroutines at once, but Add, Remove and Reset need exclusive access.
// Concurrent is safe for any mix of calls: lookups are lock-free optimistic
// reads validated by a sequence counter, single-bucket Adds and Removes are
// compare-and-swaps under a shared lock, and only relocation chains take the
// exclusive lock. Relocation and victim handling are the very code of
// Filter (evict.go), whose stores are atomic in a Concurrent's table, so
// the two forms build the same tables from the same calls (see
// TestEvictionFormsAgree). It serializes to the same bytes as a Filter.
// Its batch calls, AddHashes and ContainsHashes, run its single-key calls
// key by key (the assembly kernels' plain loads are not synchronized with
// writers) but prefetch the buckets of the keys two batches of 16 ahead,
// as Filter.AddHashes does: beyond the caches that makes them several
// times faster than loops of the single-key calls (BenchmarkConcurrent).
//
// # File format
//
// Filter and Concurrent implement encoding.BinaryMarshaler, BinaryAppender
// and BinaryUnmarshaler, io.WriterTo and io.ReaderFrom (a View the three
// that write); they, ReadFilter, FromBytes and Open use sift's file format,
// whose one specification, header and cuckoo parameters (bucket count,
// fingerprint width, count, victim, kick limit and the kick PRNG's state,
// so that a decoded filter continues exactly as the original would) down
// to the byte, is the repository's FORMAT.md (kind 2). The payload is the
// bucket array as little-endian words, so the bytes are the same on every
// architecture and whichever kernel built the filter; sift.Inspect reads
// any file's header.
//
// Decoders check everything before trusting anything: magic, version,
// header CRC, kind, hash, each parameter's range, the payload length against
// n and f, the victim's consistency, the padding and the payload CRC;
// UnmarshalBinary and ReadFrom also check that the count equals the occupied
// slots plus the victim. They return errors wrapping the sentinels of
// package sift (ErrTruncated, ErrChecksum, ErrCorrupt, ...), never panic,
// allocate only as much as the input actually holds, and refuse a declared
// size beyond the receiver's bound before reading it (the WithMaxSize the
// filter was made with; for a zero receiver and a stream, the machine's
// memory).
//
// Open maps a file read-only and serves lookups from the mapping without a
// copy; opening costs one pass for the checksum, or none with
// WithoutChecksum, for callers who trust their storage. (Open and
// FromBytes skip the count check, which would be a second pass; a wrong
// count only skews the View's Count, LoadFactor and FPP, and View.Clone
// counts the slots for its writable copy.) Close unmaps it. Both return
// a View, which has the lookups and the read-only methods but no Add,
// Remove or Reset: the type system keeps writes away from read-only memory,
// as blocked.View does; View.Clone makes a writable Filter. A path that is
// not a regular file (a FIFO, a device, a directory) is refused at once,
// without blocking.
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
// Every error of this package reads "cuckoo: ..." once, with its sentinel
// (or, from Open, the file system's error) in the chain.
package cuckoo
