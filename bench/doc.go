// Package bench compares sift's filters with the other Go filter libraries
// and with the memory system's limit, on the same keys, in one process.
//
// Nothing here is part of sift's API: the package is a harness. It holds
//
//   - Keys: a deterministic key set (8-byte keys from a fixed seed), the
//     same bytes for every filter, with their XXH3 hashes precomputed for
//     the filters whose natural input is a 64-bit hash;
//   - Spec and Filter: one adapter per library, each feeding the library
//     its natural input (Input says which: bytes or a 64-bit hash) and
//     sized by the library's own API for the target false-positive rate;
//   - the memory-limit probe (ProbeChain, ProbeRandom, ProbePrefetch): over
//     an array the size of a blocked filter, a dependent chain of random
//     64-byte reads, independent random reads, and independent reads with
//     a software prefetch written in assembly, at several distances
//     (PrefetchDistances; the report takes the fastest as the limit);
//   - the false-positive formulas the report draws its theoretical curves
//     from.
//
// The benchmarks live in bench_test.go; cmd/report runs them with -count,
// takes medians, and writes results/<cpu>.md with tables and plots. See
// README.md in this directory.
package bench
