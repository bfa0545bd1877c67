package fuzz

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"testing"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// The cuckoo batch insert target, FuzzCuckooInsertKernel: fuzzed tables
// and batches into kernel.CuckooInsert (plain and add-if-new) of every
// kernel set and into CuckooInsertGeneric, each call held to the generic
// twin bit for bit, to a model written here from the insert contract in
// package internal/kernel's doc (modelCuckooInsert), and to the
// contract's promises checked on the result alone (checkCuckooInsert).

// cuckooInsertCalls is the most calls one input makes: after a call that
// stopped at a group, the next starts after that group, as package
// cuckoo's addVector does.
const cuckooInsertCalls = 8

// cuckooWrite is a slot the insert model filled: fingerprint fp into slot s
// of bucket i.
type cuckooWrite struct{ i, s, fp uint64 }

// modelCuckooBuckets returns h's two buckets and fingerprint, written out
// from the documented geometry.
func modelCuckooBuckets(t *kernel.CuckooTable, h uint64) (i1, i2, fp uint64) {
	fpMax := uint64(1)<<t.FPBits - 1
	i1 = (h >> 32) * t.Buckets >> 32
	fp = uint64(uint32(h))*fpMax>>32 + 1
	return i1, modelCuckooAlt(t, i1, fp), fp
}

// modelCuckooAlt returns the other bucket of fingerprint fp in bucket i.
func modelCuckooAlt(t *kernel.CuckooTable, i, fp uint64) uint64 {
	n := t.Buckets
	hfp := uint64(uint32(fp*kernel.CuckooAltMul)) * n >> 32
	return (hfp + n - i) % n
}

// cuckooPairTag names fingerprint fp in the bucket pair {i1, i2}: equal
// tags mean the same fingerprint in the same pair.
func cuckooPairTag(i1, i2, fp uint64) uint64 { return fp<<32 | min(i1, i2) }

// cuckooFree returns the free-slot mask of bucket i, slot s at bit s.
func cuckooFree(t *kernel.CuckooTable, i uint64) uint64 {
	var m uint64
	for s := uint64(0); s < kernel.CuckooSlots; s++ {
		if cuckooSlot(t, i, s) == 0 {
			m |= 1 << s
		}
	}
	return m
}

// cuckooHolds reports whether a slot of bucket i holds fp.
func cuckooHolds(t *kernel.CuckooTable, i, fp uint64) bool {
	for s := uint64(0); s < kernel.CuckooSlots; s++ {
		if cuckooSlot(t, i, s) == fp {
			return true
		}
	}
	return false
}

// cuckooGroupShares reports whether two of the sixteen bucket indexes of
// the group g (eight keys) are equal.
func cuckooGroupShares(t *kernel.CuckooTable, g []uint64) bool {
	var idx [16]uint64
	for k, h := range g {
		idx[k], idx[8+k], _ = modelCuckooBuckets(t, h)
	}
	for a := range idx {
		for b := a + 1; b < len(idx); b++ {
			if idx[a] == idx[b] {
				return true
			}
		}
	}
	return false
}

// cuckooGroupStops reports whether the insert must stop before the group g
// (eight keys) on table t: two of its bucket indexes are equal, or a key
// to place (every key, or with ifNew one whose fingerprint is in neither
// bucket) has both buckets full.
func cuckooGroupStops(t *kernel.CuckooTable, g []uint64, ifNew bool) bool {
	if cuckooGroupShares(t, g) {
		return true
	}
	for _, h := range g {
		i1, i2, fp := modelCuckooBuckets(t, h)
		present := ifNew && (cuckooHolds(t, i1, fp) || cuckooHolds(t, i2, fp))
		if !present && cuckooFree(t, i1)|cuckooFree(t, i2) == 0 {
			return true
		}
	}
	return false
}

// modelCuckooInsert is the insert contract, written from the package doc
// rather than from CuckooInsertGeneric: groups of eight keys in order,
// stopping before a group that cuckooGroupStops and before a tail of
// fewer than eight; each key to place goes into the lowest free slot of
// the bucket whose free-slot mask is the larger number, the first bucket
// on a tie. It updates t and returns how many keys it went through, with
// ifNew their answers (true: added), and the slots it filled in order.
func modelCuckooInsert(t *kernel.CuckooTable, hs []uint64, ifNew bool) (n int, out []bool, writes []cuckooWrite) {
	for ; n+8 <= len(hs); n += 8 {
		g := hs[n : n+8]
		if cuckooGroupStops(t, g, ifNew) {
			break
		}
		for _, h := range g {
			i1, i2, fp := modelCuckooBuckets(t, h)
			if ifNew {
				present := cuckooHolds(t, i1, fp) || cuckooHolds(t, i2, fp)
				out = append(out, !present)
				if present {
					continue
				}
			}
			i, m := i1, cuckooFree(t, i1)
			if m2 := cuckooFree(t, i2); m < m2 {
				i, m = i2, m2
			}
			s := uint64(bits.TrailingZeros64(m))
			setCuckooSlot(t, i, s, fp)
			writes = append(writes, cuckooWrite{i, s, fp})
		}
	}
	return n, out, writes
}

// checkCuckooInsert checks one CuckooInsert(post, hs, out) call that
// returned (n, added) against the contract alone, with no placement rule:
// post was pre before it. n is a multiple of eight within hs; every
// fingerprint of pre stays in its slot, and the slots filled hold exactly
// the fingerprints of the keys reported added, each in one of its buckets;
// added counts them (all of hs[:n] with out nil); a key answered not new
// had its fingerprint in one of its buckets, in pre or from an earlier key
// of the call, and one answered new did not; every key of hs[:n] is then
// found (without the victim's help); no group before n shares a bucket,
// and the group at n, if a whole one, must stop. It returns what failed,
// or "".
func checkCuckooInsert(pre, post *kernel.CuckooTable, hs []uint64, out []bool, n, added int) string {
	if n < 0 || n%8 != 0 || n > len(hs)&^7 {
		return fmt.Sprintf("went through %d of %d keys: not a multiple of 8 within the batch", n, len(hs))
	}
	// The slots filled, by the tag of their fingerprint (only the words
	// that changed are looked into).
	filled := map[uint64]int{}
	nf := 0
	perWord := uint64(1)
	if pre.FPBits == 8 {
		perWord = 2
	}
	for w := range pre.Words {
		if pre.Words[w] == post.Words[w] {
			continue
		}
		for i := uint64(w) * perWord; i < uint64(w+1)*perWord; i++ {
			if i >= pre.Buckets { // the unused upper half of the last word
				if pre.Words[w]>>32 != post.Words[w]>>32 {
					return fmt.Sprintf("word %d's upper half, past the last bucket, changed: %#x, now %#x", w, pre.Words[w], post.Words[w])
				}
				continue
			}
			for s := uint64(0); s < kernel.CuckooSlots; s++ {
				a, b := cuckooSlot(pre, i, s), cuckooSlot(post, i, s)
				switch {
				case a != 0 && b != a:
					return fmt.Sprintf("bucket %d slot %d held %#x, now %#x: a fingerprint was lost", i, s, a, b)
				case a == 0 && b != 0:
					filled[cuckooPairTag(i, modelCuckooAlt(pre, i, b), b)]++
					nf++
				}
			}
		}
	}
	// The keys reported added, by tag; the answers against pre and the
	// keys added before.
	earlier := map[uint64]int{}
	count := 0
	for k, h := range hs[:n] {
		i1, i2, fp := modelCuckooBuckets(pre, h)
		tag := cuckooPairTag(i1, i2, fp)
		present := cuckooHolds(pre, i1, fp) || cuckooHolds(pre, i2, fp) || earlier[tag] > 0
		if out != nil {
			if out[k] == present {
				if present {
					return fmt.Sprintf("key %d (%#x) answered new, but its fingerprint %#x was in bucket %d or %d", k, h, fp, i1, i2)
				}
				return fmt.Sprintf("key %d (%#x) answered not new, but its fingerprint %#x was in neither bucket %d nor %d", k, h, fp, i1, i2)
			}
			if !out[k] {
				continue
			}
		}
		count++
		earlier[tag]++
		if filled[tag]--; filled[tag] < 0 {
			return fmt.Sprintf("key %d (%#x) reported added, but no slot of bucket %d or %d was filled with %#x for it", k, h, i1, i2, fp)
		}
	}
	if added != count || nf != count {
		return fmt.Sprintf("returned added = %d, %d keys reported added, %d slots filled", added, count, nf)
	}
	view := *post
	view.Victim = 0
	for k, h := range hs[:n] {
		if !modelCuckooContains(&view, h) {
			return fmt.Sprintf("key %d (%#x) went through but is not found", k, h)
		}
	}
	for g := 0; g < n; g += 8 {
		if cuckooGroupShares(pre, hs[g:g+8]) {
			return fmt.Sprintf("went through the group at %d, whose keys share a bucket", g)
		}
	}
	if n+8 <= len(hs) && !cuckooGroupStops(post, hs[n:n+8], out != nil) {
		return fmt.Sprintf("stopped before the group at %d, which has no reason to stop", n)
	}
	return ""
}

// firstDiff returns the first index at which a and b (of equal length)
// differ, or -1.
func firstDiff[E comparable](a, b []E) int {
	if slices.Equal(a, b) {
		return -1
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// cuckooInsertSeed is a seed input: the header, then keys hashes from
// splitmix(seed).
func cuckooInsertSeed(hdr [6]byte, keys int, seed uint64) []byte {
	b := append([]byte(nil), hdr[:]...)
	rnd := splitmix(seed)
	for range keys {
		b = binary.LittleEndian.AppendUint64(b, rnd())
	}
	return b
}

// FuzzCuckooInsertKernel runs a fuzzed batch through CuckooInsertGeneric
// and, for every kernel set, kernel.CuckooInsert, each on its own copy of
// a fuzzed table in guarded memory, as up to cuckooInsertCalls calls (the
// next after the group the last one stopped at), and checks every call
// against the generic twin, the model and checkCuckooInsert: the keys
// gone through, the count added, out (and that out[n:] and the guards
// around it keep their bytes), every table word, and the hashes.
//
// The input is decodeKernelInput's. Its header:
//
//	hdr[0] bit 0: 16-bit fingerprints (else 8); bit 1: add-if-new (out
//	       not nil); bits 2-3: bucket count range, 1-256, 1-4096, 4096-5119
//	       or 4096-8191 (package cuckoo calls the kernel from 4096 on);
//	       bits 4-6: out's offset in its buffer; bit 7: a victim tag set,
//	       random or a key's, which the insert must not look at
//	hdr[1], hdr[2]: the bucket count within its range
//	hdr[3] bits 0-2: eighths of all slots filled with random fingerprints;
//	       bits 3-5: eighths of the keys whose two buckets are filled
//	       nearly full; bits 6-7: how full, (5+b)/8 of their slots
//	hdr[4] bits 0-2: eighths of the keys whose fingerprint is planted in
//	       one of their buckets; bits 3-5: sixteenths of the keys that
//	       repeat an earlier key or its twin (same fingerprint, the other
//	       bucket of the pair first)
//	hdr[5] bits 0-2: decodeKernelInput's repeats
//
// and all of it seeds the random choices.
func FuzzCuckooInsertKernel(f *testing.F) {
	for _, s := range []struct {
		hdr  [6]byte
		keys int
		seed uint64
	}{
		// 16-bit, plain, empty table of 4096 buckets, 20 keys.
		{hdr: [6]byte{0x09, 0, 0, 0, 0, 0}, keys: 20, seed: 1},
		// 8-bit, add-if-new, sparse table, planted and repeated keys, 37 keys.
		{hdr: [6]byte{0x06, 0x35, 0x07, 0x02, 0x35, 0}, keys: 37, seed: 2},
		// 16-bit, add-if-new, 3/8 of the keys' buckets nearly full, planted
		// keys, 4369 buckets, 13 keys stretched to 39.
		{hdr: [6]byte{0x1b, 0x11, 0x01, 0x58, 0x04, 2}, keys: 13, seed: 3},
		// 8-bit, plain, an odd count above 4096, sparse, 1/8 of the keys'
		// buckets nearly full, a victim set, 45 keys.
		{hdr: [6]byte{0x8c, 0x0b, 0x02, 0x8b, 0x08, 0}, keys: 45, seed: 4},
		// 16-bit, plain, 4097 buckets half full of random fingerprints
		// (free slots not lowest first), 40 keys.
		{hdr: [6]byte{0x09, 1, 0, 0x04, 0, 0}, keys: 40, seed: 10},
		// 16-bit, plain, 57 buckets (groups share buckets), repeats, 70 keys.
		{hdr: [6]byte{0x01, 56, 0, 0x01, 0x20, 0}, keys: 70, seed: 5},
		// 8-bit, add-if-new, empty 4100 buckets, 13 keys stretched to 104.
		{hdr: [6]byte{0x2a, 4, 0, 0, 0x18, 7}, keys: 13, seed: 6},
		// 16-bit, add-if-new, nearly full everywhere with planted keys,
		// 300 buckets, 61 keys.
		{hdr: [6]byte{0x07, 43, 1, 0xfe, 0x07, 0}, keys: 61, seed: 7},
		// 16-bit, add-if-new, empty table, the victim a key's tag.
		{hdr: [6]byte{0x8b, 0x22, 0x01, 0, 0, 0}, keys: 27, seed: 12},
		// No keys; 8-bit, 7 keys (a tail only).
		{hdr: [6]byte{0x0a, 0, 0, 0, 0, 0}, keys: 0, seed: 8},
		{hdr: [6]byte{0x08, 9, 0, 0x03, 0, 0}, keys: 7, seed: 9},
	} {
		f.Add(cuckooInsertSeed(s.hdr, s.keys, s.seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := decodeKernelInput(data)
		fpBits := [2]uint{8, 16}[in.hdr[0]&1]
		ifNew := in.hdr[0]&2 != 0
		h1, h2 := uint64(in.hdr[1]), uint64(in.hdr[2])
		n := [4]uint64{1 + h1, 1 + h1 + h2%16*256, 4096 + h1 + h2%4*256, 4096 + h1 + h2%16*256}[in.hdr[0]>>2&3]
		outOff := int(in.hdr[0] >> 4 & 7)
		noise, dense, fill := uint64(in.hdr[3]&7), uint64(in.hdr[3]>>3&7), 5+uint64(in.hdr[3]>>6)
		plant, dup := uint64(in.hdr[4]&7), uint64(in.hdr[4]>>3&7)
		rnd := splitmix(binary.LittleEndian.Uint64(append(in.hdr[:], 0, 0)) ^ uint64(len(in.hashes))<<48)
		nw := int(kernel.CuckooWords(n, fpBits))
		start := &kernel.CuckooTable{Words: make([]uint64, nw), Buckets: n, FPBits: fpBits}
		fpMax := uint64(1)<<fpBits - 1

		// The keys: repeats of earlier keys, and twins.
		hs := append([]uint64{}, in.hashes...)
		for i := 1; i < len(hs); i++ {
			if rnd()%16 >= dup {
				continue
			}
			h := hs[rnd()%uint64(i)]
			if rnd()&1 == 1 {
				// The twin: the same low half (fingerprint), a high half
				// whose primary bucket is h's other one.
				_, i2, _ := modelCuckooBuckets(start, h)
				h = ((i2<<32+n-1)/n)<<32 | h&(1<<32-1)
			}
			hs[i] = h
		}
		// The start table: random fingerprints, then the keys' buckets
		// nearly full, then planted fingerprints of keys.
		for i := uint64(0); i < n && noise > 0; i++ {
			for s := uint64(0); s < kernel.CuckooSlots; s++ {
				if rnd()%8 < noise {
					setCuckooSlot(start, i, s, rnd()%fpMax+1)
				}
			}
		}
		for _, h := range hs {
			if rnd()%8 >= dense {
				continue
			}
			i1, i2, _ := modelCuckooBuckets(start, h)
			for _, i := range []uint64{i1, i2} {
				for s := uint64(0); s < kernel.CuckooSlots; s++ {
					if rnd()%8 < fill {
						setCuckooSlot(start, i, s, rnd()%fpMax+1)
					}
				}
			}
		}
		for _, h := range hs {
			if rnd()%8 >= plant {
				continue
			}
			i, i2, fp := modelCuckooBuckets(start, h)
			if rnd()&1 == 1 {
				i = i2
			}
			setCuckooSlot(start, i, rnd()%kernel.CuckooSlots, fp)
		}
		if in.hdr[0]&0x80 != 0 {
			start.Victim = kernel.CuckooTag(rnd()%fpMax+1, rnd()%n)
			if len(hs) > 0 && rnd()&1 == 1 { // a key's own tag
				i1, i2, fp := modelCuckooBuckets(start, hs[rnd()%uint64(len(hs))])
				start.Victim = cuckooPairTag(i1, i2, fp)
			}
		}
		clone := func(tb *kernel.CuckooTable, words []uint64) *kernel.CuckooTable {
			c := *tb
			c.Words = words
			copy(c.Words, tb.Words)
			return &c
		}

		// The model's calls, each after the group the previous one stopped at.
		type call struct {
			off, n int
			out    []bool
			writes []cuckooWrite
		}
		var calls []call
		model := clone(start, make([]uint64, nw))
		for off := 0; len(calls) < cuckooInsertCalls; {
			m, o, w := modelCuckooInsert(model, hs[off:], ifNew)
			calls = append(calls, call{off, m, o, w})
			if off += m + 8; off > len(hs) {
				break
			}
		}

		// Every implementation runs each call on its own copy of the
		// table, in lockstep with the generic twin.
		type run struct {
			tab    *kernel.CuckooTable
			out    []bool // nil for a plain insert
			guards func() string
			n, add int
		}
		newRun := func() *run {
			r := &run{tab: clone(start, kerneltest.GuardedUint64s(t, nw))}
			if ifNew {
				r.out, r.guards = guardedOut(len(hs), outOff)
				for i := range r.out {
					r.out[i] = i%3 == 0 // stale values only out[:n] may change
				}
			}
			return r
		}
		gh := guardedHashes(t, hs)
		gen := newRun()
		runs := map[string]*run{}
		var wantOut []bool
		if ifNew {
			wantOut = make([]bool, len(hs))
			for i := range wantOut {
				wantOut[i] = i%3 == 0
			}
		}
		pre := clone(start, make([]uint64, nw))
		post := clone(start, make([]uint64, nw))
		for k, c := range calls {
			copy(post.Words, pre.Words)
			for _, w := range c.writes {
				setCuckooSlot(post, w.i, w.s, w.fp)
			}
			if ifNew {
				copy(wantOut[c.off:], c.out)
			}
			insert := func(name string, r *run, ins func(*kernel.CuckooTable, []uint64, []bool) (int, int)) {
				var o []bool
				if ifNew {
					o = r.out[c.off:]
				}
				r.n, r.add = ins(r.tab, gh[c.off:], o)
				fail := func(format string, args ...any) {
					t.Helper()
					t.Fatalf("%s: f=%d buckets=%d victim=%#x keys=%d ifNew=%v, call %d on keys %d on: %s", name, fpBits, n, start.Victim, len(hs), ifNew, k, c.off, fmt.Sprintf(format, args...))
				}
				if r.guards != nil {
					if msg := r.guards(); msg != "" {
						fail("%s", msg)
					}
				}
				if i := firstDiff(gh, hs); i >= 0 {
					fail("hash %d changed", i)
				}
				if r != gen {
					if r.n != gen.n || r.add != gen.add {
						fail("went through %d keys and added %d, the generic twin %d and %d", r.n, r.add, gen.n, gen.add)
					}
					if i := firstDiff(r.out, gen.out); i >= 0 {
						fail("out[%d] (key %d of the call) is %v, the generic twin's %v", i, i-c.off, r.out[i], gen.out[i])
					}
					if i := firstDiff(r.tab.Words, gen.tab.Words); i >= 0 {
						fail("word %d is %#x, the generic twin's %#x", i, r.tab.Words[i], gen.tab.Words[i])
					}
				}
				if msg := checkCuckooInsert(pre, r.tab, hs[c.off:], o, r.n, r.add); msg != "" {
					fail("%s", msg)
				}
				if r.n != c.n || r.add != len(c.writes) {
					fail("went through %d keys and added %d, the model %d and %d", r.n, r.add, c.n, len(c.writes))
				}
				if i := firstDiff(r.out, wantOut); i >= 0 {
					fail("out[%d] (key %d of the call, n = %d) is %v, want %v", i, i-c.off, r.n, r.out[i], wantOut[i])
				}
				if i := firstDiff(r.tab.Words, post.Words); i >= 0 {
					fail("word %d is %#x, the model's %#x", i, r.tab.Words[i], post.Words[i])
				}
			}
			insert("generic", gen, kernel.CuckooInsertGeneric)
			eachImpl(t, func(impl string) {
				r := runs[impl]
				if r == nil {
					r = newRun()
					runs[impl] = r
				}
				insert("impl="+impl, r, kernel.CuckooInsert)
			})
			pre, post = post, pre
		}
	})
}
