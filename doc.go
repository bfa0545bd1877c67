// Package sift is the root of a library of approximate-membership filters for
// hot paths: a cache-line blocked Bloom filter (package blocked), a 4-way
// bucket cuckoo filter with deletion (package cuckoo), and a classic Bloom
// filter bit-compatible with Guava's, plus a counting Bloom filter (package
// classic). Keys are hashed by package hash.
//
// Every filter answers "definitely not present" or "possibly present": a key
// that was added is always reported present (no false negatives), whichever
// kernel or architecture runs it; a key that was not added is reported
// present with a small probability, the false positive rate (FPR), chosen at
// construction. The lower the rate, the more memory: about 10 bits per key
// at 1% for a blocked filter, 17 bits at about 0.01% for a cuckoo filter
// (each package's documentation has its tables).
//
// # Which filter
//
//   - blocked: the fastest, one cache miss per key; batch lookups in SIMD
//     assembly; lock-free concurrent adds (Concurrent), an unknown number of
//     keys (Scalable), files served in place (Open). Keys cannot be removed.
//   - cuckoo: keys can be removed; smaller than a blocked filter below about
//     0.07%; a full filter refuses new keys (ErrFull) and never forgets one.
//   - classic: Guava's BloomFilter bit for bit, to share filters with Java
//     services; rates down to about 1e-77; Counting supports removal.
//
// # What this package holds
//
// Open, Load and FromBytes serve a filter file of any kind that has a view
// (blocked, cuckoo, split-block, window) as one read-only View: the lookups, the
// kind's hash for batch lookups, the header's facts (Kind, Info), WriteTo
// (the kind's encoding, for WriteFile) and Close,
// for callers that serve a file without knowing its kind (package reload,
// the sift command). A program that knows its kind can use that package's
// own Open as well; both answer alike.
//
// The error values every filter package returns, so callers can test them
// with errors.Is whichever filter produced them: the decoding errors
// (ErrMagic, ErrVersion, ErrKind, ErrTruncated, ErrChecksum, ErrCorrupt),
// ErrTooLarge for a size beyond a limit or the machine, ErrClosed for a
// filter used after Close (or a zero value never made), and
// ErrInvalidArgument and ErrIncompatible, which blocked, cuckoo and classic
// return as the same values. The errors the filter packages and this one
// build are *Error values: the message names the package that built it
// (Open and FromBytes check the header here, "sift: ...", and hand the
// payload to its kind's package, whose errors read "blocked: ...",
// "cuckoo: ..."), and errors.As gives that package and the detail apart.
//
// Inspect, InspectAt and InspectFile read the header of any sift file
// without knowing its kind: the kind, format version, hash and seed, sizes,
// checksums and geometry, reading only the header's 128 bytes; Verify also
// checks the payload's checksum. WriteFile writes any filter to a path
// atomically (a temporary file renamed into place) with a generation, a
// build number, recorded in its header (SetGeneration, GenerationWriter;
// Info.Generation reads it back); package reload serves such a file and
// follows it through every rebuild. The byte layout is in the repository's
// FORMAT.md, the conventions every package follows (options, Open and View,
// encodings, errors, zero values, Close) in DESIGN.md.
package sift
