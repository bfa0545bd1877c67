// Package fuzz holds sift's differential fuzz tests: every filter and every
// kernel run side by side against the references (classic.Filter, the
// portable Go kernels, and an exact map model), so that a machine keeps
// trying to break the two promises users rely on: no false negatives, ever,
// and the fast path answers exactly like the slow one.
//
// The package has no API; everything lives in its tests. Its targets:
//
//   - FuzzFilters decodes the input into a script of operations (add,
//     add-batch, contains, contains-batch, remove, union, serialize-and-reload,
//     reset, fill, add-if-new single and batch) over keys drawn from the input, a small key space so that
//     repeats happen plus fresh keys, and runs it at once through
//     classic.Filter, classic.Counting, blocked.Filter (one per kernel set
//     plus one built with single-key calls only), blocked.Concurrent,
//     blocked.Scalable, cuckoo.Filter with 8- and 16-bit fingerprints (one
//     per kernel set plus a single-key one) and cuckoo.Concurrent of both
//     widths (compared with the single-key cuckoo.Filter: the same answers,
//     errors, counts and bytes). After every step it checks that
//     every key the exact model holds is present in every filter, that all
//     copies of a filter have the identical serialized image, that batch
//     answers equal single-key answers, that a cuckoo filter's Count is the
//     model's multiset size, that a failed Add changes nothing, that a
//     reloaded filter answers exactly like the original, and that
//     add-if-new never calls a held key new and answers (and stops, with
//     the same error) in a batch exactly as one key at a time. The
//     Concurrents and Scalable take the kernel sets in turn, one operation
//     after another.
//   - FuzzWindow does the same for the windowed filters: blocked.Window
//     (one per kernel set plus a single-key one) and
//     blocked.ConcurrentWindow, made with fuzzed generations, size, rate and
//     seed, by an injected clock or by count, with or without
//     WithExpiryOnAdd, run a script of adds, add-if-new, lookups (every
//     key form, single and batch), clock steps (within a slice, onto a
//     boundary, past the window, backwards), reloads through every decoder
//     and closes, against a model of the last add's slice of every key (no
//     key inside its window may be missed or called new) and of every
//     generation's bits, which gives every answer exactly and the image.
//   - FuzzBlockedKernel and FuzzCuckooKernel feed random geometry, hashes
//     and memory, at misaligned offsets and against guard pages, straight into
//     the batch kernels of package internal/kernel for every kernel set, and
//     compare them with the Generic twins and with a per-key model written
//     here from the documented geometry (so a bug shared by both kernels is
//     caught too). The input also picks the batch kernels' mode
//     (kernel.SetBatchModes: offset ring, prefetch, no prefetch, prefetch further ahead), so the
//     prefetching loops, which the size alone would choose only from
//     65536 lines, run on fuzzed tables too (here and in FuzzWindowKernel
//     and FuzzSBBFKernel). FuzzBlockedKernel also runs the add-if-new kernels (batch and
//     single-key) against a sequential model, on batches that repeat
//     hashes and share blocks.
//   - FuzzWindowKernel does the same for the windowed (multi-generation)
//     kernels: single-key adds and add-if-new, batch and single-key
//     lookups (with a live source too), every valid generation count, live
//     masks of every shape, against a model of the documented layout.
//   - FuzzCuckooInsertKernel does the same for the cuckoo batch insert
//     (CuckooInsert, plain and add-if-new), on fuzzed tables (empty,
//     sparse, keys' buckets nearly full, keys' fingerprints planted) and
//     batches with repeated keys, against CuckooInsertGeneric and a model
//     of the insert contract (where it stops, the answers, the count,
//     every table word), and checks on the result alone that no
//     fingerprint is lost, every key added is found and the answers are
//     right.
//   - FuzzSBBFKernel does the same for the split-block (Parquet SBBF)
//     kernels, batch and single-key, against a model written from the
//     Parquet specification's pseudocode.
//   - FuzzCuckooBatch runs cuckoo.Filter's batch inserts (AddHashes,
//     AddNewHashes) and ContainsHashes on tables of 4092 to 16384 buckets,
//     prefilled to a fuzzed load up to 0.97, under every kernel set, against
//     a filter making single-key calls and an exact multiset model: the
//     vector insert stage, the crossing of 3/4 load inside a batch,
//     relocation, the victim parked mid-batch and add-if-new after it must
//     give the same n, errors, answers and serialized image as the loop of
//     single-key calls, and never lose a key (the 4 MiB overlapped walks
//     are left to package cuckoo's tests).
//   - FuzzDecode gives the same bytes to every decoder (blocked, scalable,
//     cuckoo, counting, classic native, Guava stream, split-block, window:
//     the window decoders compared on one fixed clock) and FuzzDecodeRecord
//     builds records with valid checksums around fuzzed header fields, so
//     the decoders' field validation is reached rather than stopped at the
//     CRC. Decoders must never panic, must allocate no more than a constant
//     plus a small multiple of the input, and whatever they accept must
//     re-encode to the same bytes and answer like the original.
//   - FuzzDecodeParquet gives the same bytes to every decoder of a Parquet
//     column chunk's Bloom filter data (Thrift BloomFilterHeader and bitset):
//     the same rules, plus: errors may also be sbbf.ErrUnsupported, and
//     what decodes re-encodes (MarshalParquet) to the same filter.
//
// TestStatisticalEquivalence (not a fuzz test) checks that at equal bits per
// key the blocked filter's measured false-positive rate stays within the
// penalty its own formula predicts over the classic filter's, and that the
// cuckoo filter's is within 10% of 2b/2^f scaled by the load.
//
// Plain `go test ./fuzz/` replays the seed corpus in testdata/fuzz and the
// seeds added in code; .ci/fuzz also fuzzes each target for a short budget.
// Inputs that once failed are kept in testdata/fuzz as regression cases.
package fuzz
