// Package sift is the root of a library of approximate-membership filters for
// hot paths: a cache-line blocked Bloom filter (package blocked), a 4-way
// bucket cuckoo filter with deletion (package cuckoo), and a classic Bloom
// filter bit-compatible with Guava's, plus a counting Bloom filter (package
// classic). Keys are hashed by package hash.
//
// This package holds what the filter packages share with their users: the
// error values returned when decoding serialized filters, when a size is too
// large to make (ErrTooLarge) and when a closed filter is used (ErrClosed),
// so callers can test them with errors.Is whichever filter produced them.
//
// Every filter answers "definitely not present" or "possibly present": a key
// that was added is always reported present (no false negatives); a key that
// was not added is reported present with a small probability, the false
// positive rate (FPR), chosen at construction.
package sift
