package cuckoo

import (
	"runtime"
	"unsafe"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/kernel"
)

// locate returns the key's primary bucket, fingerprint and alternate bucket.
func (f *Filter) locate(h uint64) (i1, fp, i2 uint64) {
	n := f.t.Buckets
	i1 = kernel.CuckooIndex(h, n)
	fp = kernel.CuckooFingerprint(h, f.fpMax)
	return i1, fp, kernel.CuckooAlt(i1, fp, n)
}

// ContainsHash reports whether a key with hash h may be in the filter:
// false means certainly not added (or removed since); true means added, or
// a false positive with probability about FPP. It reads the key's two
// buckets with one load each and compares all four slots at once (SWAR),
// and checks the victim slot (only while it is in use). It inlines into
// its caller: a lookup is one call, of probe (see the package doc). On a
// closed or zero filter it panics with a nil dereference (see Close).
func (f *Filter) ContainsHash(h uint64) bool { return f.probe(h, true) }

// Contains reports whether key may be in the filter (see ContainsHash).
func (f *Filter) Contains(key []byte) bool { return f.probe(hash.Bytes(key, f.seed), true) }

// ContainsString reports whether key may be in the filter (see ContainsHash).
func (f *Filter) ContainsString(key string) bool {
	return f.probe(hash.String(key, f.seed), true)
}

// ContainsUint64 reports whether key may be in the filter (see ContainsHash).
// It is the same key as Contains of key's 8 little-endian bytes.
func (f *Filter) ContainsUint64(key uint64) bool { return f.probe(key, false) }

// probe is the lookup of ContainsHash (hashed true: x is the key's hash)
// and ContainsUint64 (hashed false: x is the key, hashed here). Hashing
// inside the one call saves a call level: ContainsUint64 calling
// ContainsHash measured 10.6-11.2 ns a lookup in cache against 9.3-9.9 for
// this (n = 1e5, f = 8), and about 6 with the hash precomputed. The branch on hashed goes the same way
// at every call site.
//
// It is a leaf function: every helper inlines into it, and each
// fingerprint width has its own straight-line code (SWAR constants as
// immediates, buckets read as whole uint32 or uint64 slice elements; the
// branch on the width always goes the same way): about 10% faster than
// one path for both widths, which shifted a shared uint64 word by amounts
// loaded from f.
func (f *Filter) probe(x uint64, hashed bool) bool {
	h := x
	if !hashed {
		h = f.h64.Hash(x)
	}
	n := f.t.Buckets
	i1 := kernel.CuckooIndex(h, n)
	var fp, i2, hit uint64
	if f.t.FPBits == 8 {
		fp = kernel.CuckooFingerprint(h, 1<<8-1)
		i2 = kernel.CuckooAlt(i1, fp, n)
		w := unsafe.Pointer(unsafe.SliceData(f.w32))
		b1, b2 := elem32(w, i1^w32Flip), elem32(w, i2^w32Flip)
		const lo, hi = 0x01010101, 0x80808080
		pat := uint32(fp) * lo
		x1, x2 := b1^pat, b2^pat
		hit = uint64(((x1-lo)&^x1 | (x2-lo)&^x2) & hi)
	} else {
		fp = kernel.CuckooFingerprint(h, 1<<16-1)
		i2 = kernel.CuckooAlt(i1, fp, n)
		w := unsafe.Pointer(unsafe.SliceData(f.t.Words))
		b1, b2 := elem64(w, i1), elem64(w, i2)
		const lo, hi = 0x0001000100010001, 0x8000800080008000
		pat := fp * lo
		x1, x2 := b1^pat, b2^pat
		hit = ((x1-lo)&^x1 | (x2-lo)&^x2) & hi
	}
	// The victim check runs only while the victim slot is in use: a
	// branch, but one that goes the same way on every lookup until the
	// filter fills or a Remove re-homes the victim, so it is predicted;
	// what it skips is about a tenth of the probe's instructions (see the
	// package doc). The check itself has no branch.
	if v := f.t.Victim; v != 0 {
		hit |= kernel.CuckooVictimHit(kernel.CuckooTag(fp, min(i1, i2)), v)
	}
	// A mapped bucket array is unmapped by a cleanup once f is
	// unreachable: keep f alive until its memory has been read.
	runtime.KeepAlive(f)
	return hit != 0
}

// elem64 and elem32 return element i of the array at w, with no bounds
// check. The probe reads its two buckets with them: its indexes come from
// CuckooIndex and CuckooAlt, which return values below t.Buckets for every
// hash (t.Buckets < 2^32), and the arrays hold t.Buckets words (f = 16) or
// t.Buckets rounded up to even (f = 8, so i^w32Flip stays inside). A closed
// filter has no buckets and nil arrays, so a probe after Close still panics
// (a nil dereference) instead of reading freed memory. Dropping the two
// checks also drops the probe's only calls (the index panics), so it needs
// no stack frame: eight instructions fewer a lookup (the frame pointer's
// push, set-up and pop, the length load, two compares and two branches),
// which a loop of lookups at DRAM sizes turns into more keys in flight
// (see the package doc).
func elem64(w unsafe.Pointer, i uint64) uint64 { return *(*uint64)(unsafe.Add(w, i*8)) }

func elem32(w unsafe.Pointer, i uint64) uint32 { return *(*uint32)(unsafe.Add(w, i*4)) }

// ContainsHashes looks up every hash of hs, sets out[i] to ContainsHash(hs[i]),
// and returns how many are true. It runs the whole loop in one assembly
// kernel where the CPU has one (AVX2 on amd64, arm64), computing and
// prefetching both buckets of keys ahead of their probes: for filters
// larger than the caches it is several times faster per key than a loop of
// ContainsHash. It panics if len(out) < len(hs), and on a closed or zero
// filter (see Close); out beyond len(hs) is left alone.
func (f *Filter) ContainsHashes(hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("cuckoo: ContainsHashes: len(out) < len(hs)")
	}
	f.mustOpen()
	c := kernel.CuckooContains(&f.t, hs, out)
	runtime.KeepAlive(f)
	return c
}
