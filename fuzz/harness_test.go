package fuzz

import (
	"bytes"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/classic"
	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/kernel"
)

// This file is the differential harness behind FuzzFilters: a script of
// operations (decoded from fuzz input as script_test.go describes) runs at once
// through every filter and an exact model, and the invariants are checked
// after every step. A violated invariant panics with a failure, which
// runScript turns into an error; any other panic is a bug in a filter and
// is re-raised with its stack.

// failure is an invariant violation found by the harness.
type failure struct{ msg string }

func failf(format string, args ...any) {
	panic(failure{fmt.Sprintf(format, args...)})
}

// Operation codes: the low bits of an op byte, modulo numOps.
const (
	opAdd = iota
	opAddBatch
	opContains
	opContainsBatch
	opRemove
	opUnion
	opReload
	opReset
	opFill
	numOps
)

var opNames = [numOps]string{"add", "add-batch", "contains", "contains-batch", "remove", "union", "reload", "reset", "fill"}

// Limits that keep one execution fast whatever the input.
const (
	maxOps      = 160 // operations per script
	maxBatch    = 80  // keys per batch
	maxFillKeys = 640 // keys made up by fill operations, in all
	smallKeys   = 40  // size of the small key space
	probeKeys   = 24  // keys never added, always probed
)

// params are a script's filter geometry, from its first bytes.
type params struct {
	k          int    // blocked probes per key, 1..16
	blocks     uint64 // blocked block count
	ckCap      uint64 // cuckoo capacity
	maxKicks   int    // cuckoo relocation bound
	seed       uint64 // hash seed of every XXH3 filter
	strategy   classic.Strategy
	classicN   int64   // classic and counting expected insertions
	scalN      uint64  // Scalable first stage
	scalFPP    float64 // Scalable bound
	countingFP float64
}

func decodeParams(in *input) params {
	b := [7]byte{}
	for i := range b {
		b[i] = in.byte()
	}
	return params{
		k:          1 + int(b[0]%16),
		blocks:     1 + uint64(b[1]%24),
		ckCap:      1 + uint64(b[2]%64),
		maxKicks:   [4]int{500, 0, 1, 6}[b[4]%4],
		seed:       uint64(b[3]>>1) * 0x9e3779b97f4a7c15,
		strategy:   classic.Strategy(b[3] & 1),
		classicN:   1 + int64(b[6]%128),
		scalN:      1 + uint64(b[5]%16),
		scalFPP:    [2]float64{0.1, 0.01}[b[5]>>7],
		countingFP: [2]float64{0.05, 0.01}[(b[4]>>2)&1],
	}
}

// lane is one copy of the kernel-dependent filters. The first lane uses
// single-key calls only and is the reference; the others run batch calls
// with their kernel set selected.
type lane struct {
	name    string
	impl    string
	batch   bool
	blocked *blocked.Filter
	ck      [2]*cuckoo.Filter // 8- and 16-bit fingerprints
}

var fpBits = [2]int{8, 16}

// stats summarise a run, for the example and for corpus tuning.
type stats struct {
	ops     [numOps]int
	ckFull  int // adds that returned ErrFull
	removes int // successful removes
	reloads int
}

type harness struct {
	p     params
	lanes []*lane

	conc     *blocked.Concurrent
	scal     *blocked.Scalable
	classic  *classic.Filter
	counting *classic.Counting

	// Exact models.
	bloom     map[string]bool   // classic, blocked, Concurrent (union included)
	scalSet   map[string]bool   // Scalable
	scalExtra uint64            // keys Scalable unions added, which it may count twice
	ckModel   [2]map[string]int // cuckoo multisets
	ckTotal   [2]uint64
	cnt       map[string]int // counting multiset

	// Every key seen, with its hash, for answer comparisons.
	known    []string
	knownH   []uint64
	knownSet map[string]bool

	fillNext  int
	out, out2 []bool
	st        stats
}

// runScript runs the script in data and returns the first violated
// invariant as an error.
func runScript(data []byte) (st stats, err error) {
	prev := kernel.Impl()
	defer func() {
		if _, e := kernel.SetImpl(prev); e != nil {
			panic(e)
		}
		if r := recover(); r != nil {
			if f, ok := r.(failure); ok {
				err = errors.New(f.msg)
				return
			}
			panic(fmt.Sprintf("%v\n%s", r, debug.Stack()))
		}
	}()
	in := &input{b: data}
	h := newHarness(decodeParams(in))
	defer h.close()
	h.checkAll("new")
	for n := 0; n < maxOps && in.more(); n++ {
		op := int(in.byte()) % numOps
		h.st.ops[op]++
		h.step(op, in)
		if op != opContains && op != opContainsBatch {
			h.checkAll(opNames[op])
		}
	}
	return h.st, nil
}

func must[T any](v T, err error) T {
	if err != nil {
		failf("constructor: %v", err)
	}
	return v
}

func newHarness(p params) *harness {
	h := &harness{p: p, knownSet: map[string]bool{}}
	h.lanes = append(h.lanes, &lane{name: "single", impl: "generic"})
	for _, impl := range kernel.Impls() {
		h.lanes = append(h.lanes, &lane{name: "batch/" + impl, impl: impl, batch: true})
	}
	for _, l := range h.lanes {
		l.blocked = h.newBlocked(p.seed)
		for i := range l.ck {
			l.ck[i] = h.newCuckoo(i)
		}
	}
	h.conc = must(blocked.NewConcurrentWithSize(p.blocks*blocked.BlockBits, p.k, blocked.WithSeed(p.seed)))
	h.scal = must(blocked.NewScalable(p.scalN, p.scalFPP, blocked.WithSeed(p.seed)))
	h.classic = h.newClassic()
	h.counting = h.newCounting()
	h.clearModels()
	for i := 0; i < smallKeys; i++ {
		h.learn(smallKey(i))
	}
	for i := 0; i < probeKeys; i++ {
		h.learn(string([]byte{'p', byte(i)}))
	}
	return h
}

func (h *harness) newBlocked(seed uint64) *blocked.Filter {
	return must(blocked.NewWithSize(h.p.blocks*blocked.BlockBits, h.p.k, blocked.WithSeed(seed)))
}

func (h *harness) newCuckoo(i int) *cuckoo.Filter {
	return must(cuckoo.New(h.p.ckCap, cuckoo.WithFingerprintBits(fpBits[i]), cuckoo.WithSeed(h.p.seed), cuckoo.WithMaxKicks(h.p.maxKicks)))
}

func (h *harness) newClassic() *classic.Filter {
	return must(classic.New(h.p.classicN, 0.02, classic.WithStrategy(h.p.strategy)))
}

func (h *harness) newCounting() *classic.Counting {
	return must(classic.NewCounting(uint64(h.p.classicN), h.p.countingFP, classic.WithSeed(h.p.seed)))
}

func (h *harness) clearModels() {
	h.bloom = map[string]bool{}
	h.scalSet = map[string]bool{}
	h.scalExtra = 0
	h.cnt = map[string]int{}
	for i := range h.ckModel {
		h.ckModel[i] = map[string]int{}
		h.ckTotal[i] = 0
	}
}

func (h *harness) close() {
	for _, l := range h.lanes {
		l.blocked.Close()
		for _, c := range l.ck {
			c.Close()
		}
	}
	h.conc.Close()
	h.scal.Close()
}

func (h *harness) hash(key string) uint64 { return hash.String(key, h.p.seed) }

func (h *harness) learn(key string) {
	if !h.knownSet[key] {
		h.knownSet[key] = true
		h.known = append(h.known, key)
		h.knownH = append(h.knownH, h.hash(key))
	}
}

// use selects the lane's kernel set.
func use(l *lane) {
	if _, err := kernel.SetImpl(l.impl); err != nil {
		failf("%v", err)
	}
}

func (h *harness) step(op int, in *input) {
	switch op {
	case opAdd:
		h.add([]string{in.key()})
	case opAddBatch:
		h.add(in.keys())
	case opContains:
		h.contains([]string{in.key()})
	case opContainsBatch:
		h.contains(in.keys())
	case opRemove:
		h.remove(in.key())
	case opUnion:
		h.union(in.keys(), in.byte())
	case opReload:
		h.reload(in.byte())
	case opReset:
		h.reset()
	case opFill:
		n := min(1+int(in.byte())%64, maxFillKeys-h.fillNext)
		keys := make([]string, n)
		for i := range keys {
			keys[i] = string([]byte{'c', byte(h.fillNext >> 8), byte(h.fillNext)})
			h.fillNext++
		}
		h.add(keys)
	}
}

func (h *harness) hashes(keys []string) []uint64 {
	hs := make([]uint64, len(keys))
	for i, k := range keys {
		h.learn(k)
		hs[i] = h.hash(k)
	}
	return hs
}

// add inserts keys into every filter: one by one in the single lane, as a
// batch in the others.
func (h *harness) add(keys []string) {
	hs := h.hashes(keys)
	for _, l := range h.lanes {
		use(l)
		if l.batch {
			l.blocked.AddHashes(hs)
		} else {
			for _, k := range keys {
				l.blocked.Add([]byte(k))
			}
		}
	}
	use(h.lanes[len(h.lanes)-1])
	h.conc.AddHashes(hs)
	if err := h.scal.AddHashes(hs); err != nil {
		failf("Scalable.AddHashes: %v", err)
	}
	for _, k := range keys {
		h.bloom[k] = true
		h.scalSet[k] = true
		before := h.classic.MightContain([]byte(k))
		if changed := h.classic.Put([]byte(k)); changed == before {
			failf("classic.Put(%q) = %v with MightContain %v before", k, changed, before)
		}
		h.counting.Add([]byte(k))
		h.cnt[k]++
	}
	for i := range h.ckModel {
		h.addCuckoo(i, keys, hs)
	}
}

// addCuckoo adds to the cuckoo filters of width index i. The single lane
// adds one key at a time, stops at the first ErrFull (or ErrDuplicateLimit,
// a ninth copy of a key) and checks that the failed add changed nothing;
// the batch lanes must stop at the same key with the same error.
func (h *harness) addCuckoo(i int, keys []string, hs []uint64) {
	ref := h.lanes[0].ck[i]
	n := len(keys)
	var refErr error
	for j, k := range keys {
		before := image(ref)
		err := ref.Add([]byte(k))
		if err == nil {
			continue
		}
		full := errors.Is(err, cuckoo.ErrFull)
		if !full && !errors.Is(err, cuckoo.ErrDuplicateLimit) {
			failf("cuckoo%d Add: %v", fpBits[i], err)
		}
		if !bytes.Equal(before, image(ref)) {
			failf("cuckoo%d: a failed Add changed the filter", fpBits[i])
		}
		if full != ref.VictimInUse() {
			failf("cuckoo%d: %v with the victim slot in use %v", fpBits[i], err, ref.VictimInUse())
		}
		if full {
			h.st.ckFull++
		}
		n, refErr = j, err
		break
	}
	for _, l := range h.lanes[1:] {
		use(l)
		var m int
		var err error
		if len(hs) == 1 {
			if err = l.ck[i].AddHash(hs[0]); err == nil {
				m = 1
			}
		} else {
			m, err = l.ck[i].AddHashes(hs)
		}
		if m != n || (err != nil) != (n < len(keys)) || (err != nil && !errors.Is(err, refErr)) {
			failf("cuckoo%d %s: AddHashes added %d (err %v), single adds %d of %d", fpBits[i], l.name, m, err, n, len(keys))
		}
	}
	for _, k := range keys[:n] {
		h.ckModel[i][k]++
	}
	h.ckTotal[i] += uint64(n)
}

// contains asks every filter about keys: batch answers must equal
// single-key answers, copies of a filter must agree, and held keys must be
// present.
func (h *harness) contains(keys []string) {
	hs := h.hashes(keys)
	h.compareAnswers(keys, hs)
	h.checkHeld(keys)
}

func (h *harness) outs(n int) ([]bool, []bool) {
	if cap(h.out) < n+1 {
		h.out, h.out2 = make([]bool, n+1), make([]bool, n+1)
	}
	return h.out[:n+1], h.out2[:n+1]
}

// compareAnswers runs ContainsHashes on every filter and compares it with
// ContainsHash, key by key, and across lanes.
func (h *harness) compareAnswers(keys []string, hs []uint64) {
	out, ref := h.outs(len(hs))
	sentinel := func() { out[len(hs)] = true }
	checkBatch := func(name string, got int, single func(uint64) bool) {
		want := 0
		for j, x := range hs {
			s := single(x)
			if out[j] != s {
				failf("%s: ContainsHashes[%d] (%q) = %v, ContainsHash = %v (batch of %d)", name, j, keys[j], out[j], s, len(hs))
			}
			if s {
				want++
			}
		}
		if got != want {
			failf("%s: ContainsHashes returned %d, %d are true", name, got, want)
		}
		if !out[len(hs)] {
			failf("%s: ContainsHashes wrote past len(hs)", name)
		}
	}
	for li, l := range h.lanes {
		use(l)
		sentinel()
		checkBatch(l.name+" blocked", l.blocked.ContainsHashes(hs, out[:len(hs)+1]), l.blocked.ContainsHash)
		if li == 0 {
			copy(ref, out)
		} else if !bytes.Equal(boolBytes(ref), boolBytes(out)) {
			failf("%s blocked answers differ from the single lane", l.name)
		}
		for i, c := range l.ck {
			sentinel()
			checkBatch(fmt.Sprintf("%s cuckoo%d", l.name, fpBits[i]), c.ContainsHashes(hs, out[:len(hs)+1]), c.ContainsHash)
		}
		sentinel()
		checkBatch(l.name+" scalable", h.scal.ContainsHashes(hs, out[:len(hs)+1]), h.scal.ContainsHash)
	}
	sentinel()
	checkBatch("concurrent", h.conc.ContainsHashes(hs, out[:len(hs)+1]), h.conc.ContainsHash)
	for j, k := range keys {
		if h.lanes[0].blocked.Contains([]byte(k)) != out[j] {
			failf("blocked.Contains(%q) differs from ContainsHash(Hash(key))", k)
		}
	}
}

func boolBytes(b []bool) []byte {
	out := make([]byte, len(b))
	for i, v := range b {
		if v {
			out[i] = 1
		}
	}
	return out
}

// checkHeld checks that each of keys held by a model is present in the
// filters that model describes.
func (h *harness) checkHeld(keys []string) {
	for _, k := range keys {
		x := h.hash(k)
		if h.bloom[k] {
			for _, l := range h.lanes {
				if !l.blocked.ContainsHash(x) {
					failf("false negative: %s blocked lost %q", l.name, k)
				}
			}
			if !h.conc.ContainsHash(x) {
				failf("false negative: Concurrent lost %q", k)
			}
			if !h.classic.MightContain([]byte(k)) {
				failf("false negative: classic lost %q", k)
			}
		}
		if h.scalSet[k] && !h.scal.ContainsHash(x) {
			failf("false negative: Scalable lost %q", k)
		}
		if h.cnt[k] > 0 && !h.counting.ContainsHash(x) {
			failf("false negative: Counting lost %q (held %d times)", k, h.cnt[k])
		}
		for i := range h.ckModel {
			if h.ckModel[i][k] > 0 {
				for _, l := range h.lanes {
					if !l.ck[i].ContainsHash(x) {
						failf("false negative: %s cuckoo%d lost %q (held %d times)", l.name, fpBits[i], k, h.ckModel[i][k])
					}
				}
			}
		}
	}
}

// checkAll checks every invariant over every key seen.
func (h *harness) checkAll(after string) {
	defer func() {
		if r := recover(); r != nil {
			if f, ok := r.(failure); ok {
				panic(failure{"after " + after + ": " + f.msg})
			}
			panic(r)
		}
	}()
	h.checkHeld(h.known)
	h.compareAnswers(h.known, h.knownH)
	ref := image(h.lanes[0].blocked)
	for _, l := range h.lanes[1:] {
		if !bytes.Equal(ref, image(l.blocked)) {
			failf("%s blocked image differs from the single lane's", l.name)
		}
	}
	if !bytes.Equal(ref, image(h.conc)) {
		failf("Concurrent image differs from Filter's")
	}
	for i := range h.ckModel {
		ref := image(h.lanes[0].ck[i])
		for _, l := range h.lanes {
			if l != h.lanes[0] && !bytes.Equal(ref, image(l.ck[i])) {
				failf("%s cuckoo%d image differs from the single lane's", l.name, fpBits[i])
			}
			if c := l.ck[i].Count(); c != h.ckTotal[i] {
				failf("%s cuckoo%d Count %d, model holds %d", l.name, fpBits[i], c, h.ckTotal[i])
			}
		}
	}
	if c := h.scal.Count(); c > uint64(len(h.scalSet))+h.scalExtra {
		failf("Scalable Count %d > %d distinct keys added (+%d merged)", c, len(h.scalSet), h.scalExtra)
	}
}

type marshaler interface{ MarshalBinary() ([]byte, error) }

func image(m marshaler) []byte {
	b, err := m.MarshalBinary()
	if err != nil {
		failf("MarshalBinary: %v", err)
	}
	return b
}

// remove deletes key from the removable filters where the model holds it;
// where a filter certainly lacks it, Remove must report so and change
// nothing.
func (h *harness) remove(key string) {
	h.learn(key)
	x := h.hash(key)
	for i := range h.ckModel {
		held := h.ckModel[i][key] > 0
		absent := !h.lanes[0].ck[i].ContainsHash(x)
		if !held && !absent {
			continue // a false positive: removing it could remove another key
		}
		for _, l := range h.lanes {
			use(l)
			var before []byte
			if !held {
				before = image(l.ck[i])
			}
			var ok bool
			if l.batch {
				ok = l.ck[i].RemoveHash(x)
			} else {
				ok = l.ck[i].Remove([]byte(key))
			}
			if ok != held {
				failf("%s cuckoo%d Remove(%q) = %v, model holds it %d times", l.name, fpBits[i], key, ok, h.ckModel[i][key])
			}
			if !held && !bytes.Equal(before, image(l.ck[i])) {
				failf("%s cuckoo%d: Remove of an absent key changed the filter", l.name, fpBits[i])
			}
		}
		if held {
			h.ckModel[i][key]--
			h.ckTotal[i]--
			h.st.removes++
		}
	}
	held := h.cnt[key] > 0
	if held {
		if err := h.counting.RemoveHash(x); err != nil {
			failf("Counting.Remove(%q) of a held key: %v", key, err)
		}
		h.cnt[key]--
		h.st.removes++
	} else if !h.counting.ContainsHash(x) {
		before := h.counting.Clone()
		if err := h.counting.RemoveHash(x); !errors.Is(err, classic.ErrNotPresent) {
			failf("Counting.Remove(%q) of an absent key: %v", key, err)
		}
		if !h.counting.Equal(before) {
			failf("Counting: Remove of an absent key changed the filter")
		}
	}
}

// union merges a filter holding keys into every filter that has a union.
// With the low bit of flags set it first tries an incompatible union, which
// must fail and change nothing.
func (h *harness) union(keys []string, flags byte) {
	hs := h.hashes(keys)
	if flags&1 != 0 {
		other := h.newBlocked(h.p.seed + 1)
		other.AddHashes(hs)
		f := h.lanes[0].blocked
		before := image(f)
		if err := f.Union(other); !errors.Is(err, blocked.ErrIncompatible) {
			failf("Union with another seed: %v", err)
		}
		if !bytes.Equal(before, image(f)) {
			failf("a failed Union changed the filter")
		}
		other.Close()
	}
	for _, l := range h.lanes {
		use(l)
		other := h.newBlocked(h.p.seed)
		if l.batch {
			other.AddHashes(hs)
		} else {
			for _, k := range keys {
				other.Add([]byte(k))
			}
		}
		if err := l.blocked.Union(other); err != nil {
			failf("%s blocked Union: %v", l.name, err)
		}
		other.Close()
	}
	oc := must(blocked.NewConcurrentWithSize(h.p.blocks*blocked.BlockBits, h.p.k, blocked.WithSeed(h.p.seed)))
	oc.AddHashes(hs)
	if err := h.conc.Union(oc); err != nil {
		failf("Concurrent Union: %v", err)
	}
	oc.Close()
	g := h.newClassic()
	cg := h.newCounting()
	for _, k := range keys {
		g.Put([]byte(k))
		cg.Add([]byte(k))
		h.bloom[k] = true
		h.cnt[k]++
	}
	if err := h.classic.PutAll(g); err != nil {
		failf("classic PutAll: %v", err)
	}
	if err := h.counting.Union(cg); err != nil {
		failf("Counting Union: %v", err)
	}
	// Cuckoo: a filter holding the keys (as many as fit) merges into every
	// lane's, identically, or fails (full, or a ninth copy) and changes
	// nothing; either way no key is lost.
	for i := range h.ckModel {
		other := h.newCuckoo(i)
		var in []string
		for _, k := range keys {
			if other.Add([]byte(k)) != nil {
				break
			}
			in = append(in, k)
		}
		var refErr error
		for li, l := range h.lanes {
			use(l)
			before := image(l.ck[i])
			err := l.ck[i].Union(other)
			if li == 0 {
				refErr = err
			} else if (err == nil) != (refErr == nil) {
				failf("cuckoo%d %s Union: %v, the single lane's %v", fpBits[i], l.name, err, refErr)
			}
			if err != nil {
				if !errors.Is(err, cuckoo.ErrFull) && !errors.Is(err, cuckoo.ErrDuplicateLimit) {
					failf("cuckoo%d Union: %v", fpBits[i], err)
				}
				if !bytes.Equal(before, image(l.ck[i])) {
					failf("cuckoo%d: a failed Union changed the filter", fpBits[i])
				}
			}
		}
		if refErr == nil {
			for _, k := range in {
				h.ckModel[i][k]++
			}
			h.ckTotal[i] += uint64(len(in))
		} else {
			h.st.ckFull++
		}
		other.Close()
	}
	// Scalable: a chain with the same parameters holding the keys merges
	// stage by stage. A key in both chains counts in both, so Count may
	// pass the distinct keys by as many as the merged chain counted.
	osc := must(blocked.NewScalable(h.p.scalN, h.p.scalFPP, blocked.WithSeed(h.p.seed)))
	if err := osc.AddHashes(hs); err != nil {
		failf("Scalable.AddHashes: %v", err)
	}
	h.scalExtra += osc.Count()
	if err := h.scal.Union(osc); err != nil {
		failf("Scalable Union: %v", err)
	}
	for _, k := range keys {
		h.scalSet[k] = true
	}
	osc.Close()
}

// reset empties every filter and the models; the filters must then equal
// fresh ones.
func (h *harness) reset() {
	fresh := h.newBlocked(h.p.seed)
	want := image(fresh)
	fresh.Close()
	for _, l := range h.lanes {
		l.blocked.Reset()
		if !bytes.Equal(want, image(l.blocked)) {
			failf("%s blocked after Reset differs from a new filter", l.name)
		}
		for i, c := range l.ck {
			c.Reset()
			n := h.newCuckoo(i)
			if !bytes.Equal(image(n), image(c)) {
				failf("%s cuckoo%d after Reset differs from a new filter", l.name, fpBits[i])
			}
			n.Close()
		}
	}
	h.conc.Reset()
	h.scal.Reset()
	h.classic = h.newClassic()
	h.counting.Reset()
	if !h.counting.Equal(h.newCounting()) {
		failf("Counting after Reset differs from a new filter")
	}
	h.clearModels()
}
