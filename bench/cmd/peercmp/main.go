//go:build linux

// Command peercmp compares sift's cuckoo filter with the Go cuckoo filters
// panmari/cuckoofilter, linvon/cuckoo-filter and seiflotfy/cuckoofilter,
// every filter hashing its own keys, on the same keys, one thread, at the
// versions the bench module's go.mod names; see README.md. Run it from
// bench/ with go run ./cmd/peercmp.
//
// Every filter gets the same 8-byte keys: the peers as []byte (they hash
// with metro), sift through AddUint64/ContainsUint64 (XXH3 inside the call),
// and, in the "ContainsHash" columns, sift's ContainsHash with the hash
// precomputed, as the bench module measures it. The "batch" columns are
// sift's batch calls as a user with many keys at once makes them, hashing
// included: keys hashed 1024 at a time with HashUint64 into a buffer, then
// one AddHashes (fresh filter, filled with the same keys) or
// ContainsHashes call per buffer. Times are thread CPU time
// per key (CLOCK_THREAD_CPUTIME_ID), the median of -rounds fresh filters,
// each with its table's pages touched before the timed fill (the peers'
// Reset; sift's constructor touches its own), so that no fill pays the
// first-touch page faults of fresh memory.
// "lost" is the most keys, over the rounds, that a filter accepted (Add
// returned success) and no longer finds after the fill: false negatives.
// "full at" is how far past n keys (in % of n) a fresh filter took keys
// before its first refused Add, and "lost when full" how many keys it had
// accepted that it no longer finds at that point. The last row is no
// filter: it is the floor under a loop of single-key lookups at this n
// (see twoLoads).
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"time"
	"unsafe"

	linvon "github.com/linvon/cuckoo-filter"
	panmari "github.com/panmari/cuckoofilter"
	seiflotfy "github.com/seiflotfy/cuckoofilter"
	"github.com/sift-go/sift/cuckoo"
	"golang.org/x/sys/unix"
)

// filter is one filter under test. The timed loops, addAll and hits, are
// written out per filter type with direct calls, as a user would make
// them: a call through this interface per key would add the same dispatch
// cost to every filter and shrink the differences between them.
type filter interface {
	add(k []byte, x uint64) bool
	has(k []byte, x uint64) bool
	addAll(s keySet, ok []bool)
	hits(s keySet) int
	bytes() int
	// prefault writes every page of the empty filter's table (the
	// library's Reset), untimed, so that the timed fill does not pay the
	// first-touch page faults of fresh memory; sift's constructors touch
	// their pages themselves, so it does nothing for sift.
	prefault()
}

type siftF struct {
	f    *cuckoo.Filter
	hash bool // x is the precomputed hash: ContainsHash
}

func (s *siftF) add(k []byte, x uint64) bool { return s.f.AddUint64(x) == nil }
func (s *siftF) has(k []byte, x uint64) bool {
	if s.hash {
		return s.f.ContainsHash(x)
	}
	return s.f.ContainsUint64(x)
}
func (s *siftF) bytes() int { return int(s.f.SizeBytes()) }
func (s *siftF) prefault()  {}
func (s *siftF) addAll(ks keySet, ok []bool) {
	f := s.f
	for i, k := range ks.ks {
		ok[i] = f.AddUint64(k) == nil
	}
}
func (s *siftF) hits(ks keySet) int {
	f, c := s.f, 0
	if s.hash {
		for _, h := range ks.ks {
			if f.ContainsHash(h) {
				c++
			}
		}
		return c
	}
	for _, k := range ks.ks {
		if f.ContainsUint64(k) {
			c++
		}
	}
	return c
}

type panF struct{ f *panmari.Filter }

func (p panF) add(k []byte, x uint64) bool { return p.f.Insert(k) }
func (p panF) has(k []byte, x uint64) bool { return p.f.Lookup(k) }
func (p panF) addAll(ks keySet, ok []bool) {
	f := p.f
	for i, k := range ks.bs {
		ok[i] = f.Insert(k)
	}
}
func (p panF) hits(ks keySet) int {
	f, c := p.f, 0
	for _, k := range ks.bs {
		if f.Lookup(k) {
			c++
		}
	}
	return c
}
func (p panF) bytes() int { return len(p.f.Encode()) }
func (p panF) prefault()  { p.f.Reset() }

type linF struct{ f *linvon.Filter }

func (l linF) add(k []byte, x uint64) bool { return l.f.Add(k) }
func (l linF) has(k []byte, x uint64) bool { return l.f.Contain(k) }
func (l linF) addAll(ks keySet, ok []bool) {
	f := l.f
	for i, k := range ks.bs {
		ok[i] = f.Add(k)
	}
}
func (l linF) hits(ks keySet) int {
	f, c := l.f, 0
	for _, k := range ks.bs {
		if f.Contain(k) {
			c++
		}
	}
	return c
}
func (l linF) bytes() int { return int(l.f.SizeInBytes()) }
func (l linF) prefault()  { l.f.Reset() }

type seiF struct{ f *seiflotfy.Filter }

func (s seiF) add(k []byte, x uint64) bool { return s.f.Insert(k) }
func (s seiF) has(k []byte, x uint64) bool { return s.f.Lookup(k) }
func (s seiF) addAll(ks keySet, ok []bool) {
	f := s.f
	for i, k := range ks.bs {
		ok[i] = f.Insert(k)
	}
}
func (s seiF) hits(ks keySet) int {
	f, c := s.f, 0
	for _, k := range ks.bs {
		if f.Lookup(k) {
			c++
		}
	}
	return c
}
func (s seiF) prefault() { s.f.Reset() }
func (s seiF) bytes() int {
	return reflect.ValueOf(s.f).Elem().FieldByName("buckets").Len() * 4
}

var makers = []struct {
	name string
	mk   func(n int) filter
}{
	{"sift cuckoo, 16-bit", func(n int) filter { f, _ := cuckoo.New(uint64(n)); return &siftF{f: f} }},
	{"sift cuckoo, 8-bit", func(n int) filter {
		f, _ := cuckoo.New(uint64(n), cuckoo.WithFingerprintBits(8))
		return &siftF{f: f}
	}},
	{"panmari, 16-bit", func(n int) filter { return panF{panmari.NewFilter(uint(n))} }},
	{"linvon, 16-bit single table", func(n int) filter {
		return linF{linvon.NewFilter(4, 16, uint(n), linvon.TableTypeSingle)}
	}},
	{"seiflotfy, 8-bit", func(n int) filter { return seiF{seiflotfy.NewFilter(uint(n))} }},
}

// cpuNow is this thread's CPU time.
func cpuNow() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}

// keySet is keys in the order they are used, with their 8-byte forms in one
// contiguous buffer: key access is sequential and costs every filter alike.
type keySet struct {
	ks []uint64
	bs [][]byte
}

func newKeySet(xs []uint64) keySet {
	buf := make([]byte, 8*len(xs))
	bs := make([][]byte, len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint64(buf[8*i:], x)
		bs[i] = buf[8*i : 8*i+8 : 8*i+8]
	}
	return keySet{xs, bs}
}

func main() {
	nf := flag.Int("n", 1e6, "keys inserted (each filter is made for this many)")
	rounds := flag.Int("rounds", 5, "fresh filters per filter type; medians are reported")
	flag.Parse()
	runtime.LockOSThread()
	n := *nf
	r := rand.New(rand.NewPCG(1, 2))
	all := make([]uint64, 2*n)
	for i := range all {
		all[i] = r.Uint64()
	}
	ins := newKeySet(all[:n])
	order := make([]uint64, n)
	for i, j := range r.Perm(n) {
		order[i] = all[j]
	}
	present := newKeySet(order)
	absent := newKeySet(all[n:])

	fmt.Printf("n = %d, %s, %s/%s, median of %d rounds, thread CPU ns per key\n\n", n, runtime.Version(), runtime.GOOS, runtime.GOARCH, *rounds)
	fmt.Println("| filter | bits/key | FPR | lost | full at | lost when full | insert | lookup present | lookup absent | ContainsHash present | ContainsHash absent | batch insert | batch present | batch absent |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	// Rounds are the outer loop, so that a burst of load on the machine
	// (it is shared and noisy) spreads over the filters instead of
	// landing on one of them.
	type stats struct {
		tIns, tPre, tAbs, hPre, hAbs []float64
		bIns, bPre, bAbs             []float64
		fpr                          float64
		lost, failed                 int
		f                            filter
	}
	st := make([]stats, len(makers))
	lookup := func(f filter, s keySet) (float64, int) {
		t := cpuNow()
		c := f.hits(s)
		return float64(cpuNow()-t) / float64(len(s.ks)), c
	}
	ok := make([]bool, n)
	var refPre, refAbs []float64
	for range *rounds {
		p, a := twoLoads(n, present.ks, absent.ks)
		refPre, refAbs = append(refPre, p), append(refAbs, a)
		for mi, m := range makers {
			x := &st[mi]
			x.f = nil
			runtime.GC()
			f := m.mk(n)
			f.prefault()
			x.f = f
			t := cpuNow()
			f.addAll(ins, ok)
			x.tIns = append(x.tIns, float64(cpuNow()-t)/float64(n))
			// Lost: keys whose Add succeeded that are not found now. A
			// refused Add (the filter said full) is not a loss; a key
			// accepted and then dropped by a later failing insert is.
			l := 0
			for i, k := range ins.ks {
				if !ok[i] {
					x.failed++
				} else if !f.has(ins.bs[i], k) {
					l++
				}
			}
			x.lost = max(x.lost, l)
			p, _ := lookup(f, present)
			x.tPre = append(x.tPre, p)
			a, fp := lookup(f, absent)
			x.tAbs = append(x.tAbs, a)
			x.fpr = float64(fp) / float64(n)
			if s, ok := f.(*siftF); ok {
				hp, ha := make([]uint64, n), make([]uint64, n)
				for i := range hp {
					hp[i], ha[i] = s.f.HashUint64(present.ks[i]), s.f.HashUint64(absent.ks[i])
				}
				s.hash = true
				p, _ := lookup(f, keySet{hp, present.bs})
				a, _ := lookup(f, keySet{ha, absent.bs})
				x.hPre, x.hAbs = append(x.hPre, p), append(x.hAbs, a)
				s.hash = false
				b, bp, ba := siftBatch(m.mk(n).(*siftF).f, ins, present, absent)
				x.bIns, x.bPre, x.bAbs = append(x.bIns, b), append(x.bPre, bp), append(x.bAbs, ba)
			}
		}
	}
	for mi, m := range makers {
		x := &st[mi]
		x.f = nil
		runtime.GC()
		// Overfill a fresh filter: add keys until the first refused Add
		// (at most 2n), then look up every key that was accepted.
		full := newKeySet(func() []uint64 {
			xs := make([]uint64, 2*n)
			rr := rand.New(rand.NewPCG(3, 4))
			for i := range xs {
				xs[i] = rr.Uint64()
			}
			return xs
		}())
		f := m.mk(n)
		at, lostFull := "-", 0
		for i, k := range full.ks {
			if !f.add(full.bs[i], k) {
				at = fmt.Sprintf("%.1f%%", 100*float64(i)/float64(n))
				for j, k := range full.ks[:i] {
					if !f.has(full.bs[j], k) {
						lostFull++
					}
				}
				break
			}
		}
		name := m.name
		if x.failed > 0 {
			name += fmt.Sprintf(" (%d failed inserts in %d fills)", x.failed, *rounds)
		}
		fmt.Printf("| %s | %.2f | %.2e | %d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, float64(8*f.bytes())/float64(n), x.fpr, x.lost, at, lostFull, median(x.tIns), median(x.tPre), median(x.tAbs), median(x.hPre), median(x.hAbs), median(x.bIns), median(x.bPre), median(x.bAbs))
	}
	fmt.Printf("| two random loads a key (reference, not a filter) | | | | | | | %s | %s | | | | | |\n", median(refPre), median(refAbs))
}

// twoLoads times the floor under any single-key lookup loop at this n: two
// independent random 8-byte loads per key, and nothing else (no hashing,
// no fingerprint compare), from a table the size of sift's 16-bit one,
// with huge pages advised as sift advises them. The keys are random
// already, so the two word indexes are taken from each key with a
// multiply-high, and a predicted branch on the loaded words counts the key,
// as the filters' loops count hits. It returns thread CPU ns per key for
// the keys of pre and of abs, looked up in the same table.
func twoLoads(n int, pre, abs []uint64) (float64, float64) {
	f, err := cuckoo.New(uint64(n))
	if err != nil {
		panic(err)
	}
	size := int(f.SizeBytes())
	f.Close()
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		panic(err)
	}
	defer unix.Munmap(b)
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
	w := unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), size/8)
	for i := range w {
		w[i] = uint64(i) | 1
	}
	nw := uint64(len(w))
	timed := func(ks []uint64) float64 {
		t, c := cpuNow(), 0
		for _, k := range ks {
			i1, _ := bits.Mul64(k, nw)
			i2, _ := bits.Mul64(k*0x9e3779b97f4a7c15, nw)
			if w[i1]|w[i2] != 0 {
				c++
			}
		}
		d := cpuNow() - t
		if c != len(ks) {
			panic("twoLoads: a zero word")
		}
		return float64(d) / float64(len(ks))
	}
	return timed(pre), timed(abs)
}

// median returns the median of x, formatted, or "-" for none.
func median(x []float64) string {
	if len(x) == 0 {
		return "-"
	}
	slices.Sort(x)
	return fmt.Sprintf("%.1f", x[len(x)/2])
}

// siftBatch fills the empty filter f with ins through AddHashes and looks
// up present and absent through ContainsHashes, hashing included, and
// returns the thread CPU ns per key of each. It panics if a batch insert
// fails or a present key is not found.
func siftBatch(f *cuckoo.Filter, ins, present, absent keySet) (insert, pre, abs float64) {
	defer f.Close()
	const chunk = 1024
	var buf [chunk]uint64
	var out [chunk]bool
	// hashed hashes the first keys of ks into buf and returns them.
	hashed := func(ks []uint64) []uint64 {
		b := buf[:min(len(ks), chunk)]
		for j := range b {
			b[j] = f.HashUint64(ks[j])
		}
		return b
	}
	t := cpuNow()
	for ks := ins.ks; len(ks) > 0; ks = ks[min(len(ks), chunk):] {
		if _, err := f.AddHashes(hashed(ks)); err != nil {
			panic(err)
		}
	}
	insert = float64(cpuNow()-t) / float64(len(ins.ks))
	lookup := func(s keySet) (float64, int) {
		t, c := cpuNow(), 0
		for ks := s.ks; len(ks) > 0; ks = ks[min(len(ks), chunk):] {
			c += f.ContainsHashes(hashed(ks), out[:])
		}
		return float64(cpuNow()-t) / float64(len(s.ks)), c
	}
	pre, c := lookup(present)
	if c != len(present.ks) {
		panic(fmt.Sprintf("batch lookup found %d of %d present keys", c, len(present.ks)))
	}
	abs, _ = lookup(absent)
	return insert, pre, abs
}
