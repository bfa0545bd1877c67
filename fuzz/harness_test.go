package fuzz

import (
	"bytes"
	"encoding/binary"
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
// after every step. Add-if-new (addNew) checks its answers as it goes: each
// single-lane answer against the filter just before the call and against
// the models (a key a model holds is never new), and every other lane's
// answers, and where a cuckoo batch stops and why, against the single
// lane's. The cuckoo.Concurrents (8- and 16-bit) take every cuckoo
// operation the lanes take and, as their documentation promises for a
// Concurrent used from one goroutine, must answer, stop, count and encode
// exactly as the single lane's cuckoo.Filter of their width. A violated
// invariant panics with a failure, which runScript turns into an error;
// any other panic is a bug in a filter and is re-raised with its stack.

// failure is an invariant violation found by the harness.
type failure struct{ msg string }

func failf(format string, args ...any) {
	panic(failure{fmt.Sprintf(format, args...)})
}

// Operation codes: an op byte modulo numOps. New operations go at the end,
// so that the codes of the others, and the seeds written with them, keep
// their meaning.
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
	opAddNew      // add-if-new of one key
	opAddNewBatch // add-if-new of a batch
	numOps
)

var opNames = [numOps]string{"add", "add-batch", "contains", "contains-batch", "remove", "union", "reload", "reset", "fill", "add-new", "add-new-batch"}

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
	ops      [numOps]int
	ckFull   int // adds (add-if-new included) that returned ErrFull (ErrNoSlot included)
	ckNoSlot int // adds (add-if-new included) that returned ErrNoSlot
	removes  int // successful removes
	reloads  int

	// Add-if-new: what the hand-made seeds must reach.
	newDup       int // keys of an add-if-new batch repeated earlier in it
	newShared    int // keys of an add-if-new batch whose block an earlier, other key of it has
	ckNewPresent int // cuckoo add-if-new of a present key: (false, nil)
	ckNewFull    int // cuckoo add-if-new of an absent key with the victim in use: ErrFull
	ckNewVictim  int // ckNewPresent while the victim slot is in use

	// cuckoo.Concurrent: what the hand-made seeds must reach.
	ckNewVictimKey int // cuckoo add-if-new of the key whose fingerprint is in the victim slot
	ckConcStops    int // Concurrent batches (add or add-if-new) stopped by an error before their last key
}

type harness struct {
	p     params
	lanes []*lane

	conc     *blocked.Concurrent
	ckConc   [2]*cuckoo.Concurrent // 8- and 16-bit, fed what the cuckoo lanes are
	scal     *blocked.Scalable
	classic  *classic.Filter
	counting *classic.Counting

	// Exact models.
	bloom     map[string]bool   // classic, blocked, Concurrent (union included)
	scalSet   map[string]bool   // Scalable
	scalExtra uint64            // keys Scalable unions added, which it may count twice
	ckModel   [2]map[string]int // cuckoo multisets (the lanes' and the Concurrents')
	ckTotal   [2]uint64
	cnt       map[string]int // counting multiset

	// Every key seen, with its hash, for answer comparisons.
	known    []string
	knownH   []uint64
	knownSet map[string]bool

	fillNext  int
	newCalls  int // single-lane add-if-new calls, to take turns between AddNew and AddNewString
	concCalls int // cuckoo.Concurrent single-key calls, to take turns between their forms (see concForm)
	out, out2 []bool
	st        stats
}

// endScript ends a script run (deferred by runScript and the other
// targets' runners): it restores the kernel set prev and turns a failure
// panic into *err; any other panic is a bug in a filter and is re-raised
// with its stack.
func endScript(prev string, err *error) {
	if _, e := kernel.SetImpl(prev); e != nil {
		panic(e)
	}
	if r := recover(); r != nil {
		if f, ok := r.(failure); ok {
			*err = errors.New(f.msg)
			return
		}
		panic(fmt.Sprintf("%v\n%s", r, debug.Stack()))
	}
}

// runScript runs the script in data and returns the first violated
// invariant as an error.
func runScript(data []byte) (st stats, err error) {
	defer endScript(kernel.Impl(), &err)
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
	for i := range h.ckConc {
		h.ckConc[i] = must(cuckoo.NewConcurrent(p.ckCap, h.cuckooOptions(i)...))
		h.checkConcurrentGeometry(i)
	}
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
	return must(cuckoo.New(h.p.ckCap, h.cuckooOptions(i)...))
}

// cuckooOptions are the options of the cuckoo filters of width index i,
// the lanes' and the Concurrent's.
func (h *harness) cuckooOptions(i int) []cuckoo.Option {
	return []cuckoo.Option{cuckoo.WithFingerprintBits(fpBits[i]), cuckoo.WithSeed(h.p.seed), cuckoo.WithMaxKicks(h.p.maxKicks)}
}

// checkConcurrentGeometry checks that the Concurrent of width index i
// reports the single lane's capacity, width and seed.
func (h *harness) checkConcurrentGeometry(i int) {
	c, f := h.ckConc[i], h.lanes[0].ck[i]
	if c.Capacity() != f.Capacity() || c.FingerprintBits() != f.FingerprintBits() || c.Seed() != f.Seed() {
		failf("cuckoo%d Concurrent: capacity %d, %d bits, seed %#x; Filter's %d, %d, %#x", fpBits[i],
			c.Capacity(), c.FingerprintBits(), c.Seed(), f.Capacity(), f.FingerprintBits(), f.Seed())
	}
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
	for _, c := range h.ckConc {
		c.Close()
	}
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

// turnLane returns the batch lane whose kernel set the filters without
// lanes (the Concurrents, Scalable) run the current operation with: the batch
// lanes' sets in turn, one operation after another, so that each set's
// kernels run them.
func (h *harness) turnLane() *lane { return h.lanes[turn(h.st.ops[:], len(h.lanes))] }

// turn returns the index of the batch lane (1 to lanes-1, after the
// single lane 0) whose turn it is after the operations counted in ops:
// the batch lanes in turn, one operation after another.
func turn(ops []int, lanes int) int {
	n := 0
	for _, c := range ops {
		n += c
	}
	return 1 + n%(lanes-1)
}

// use selects the lane's kernel set.
func use(l *lane) { useImpl(l.impl) }

// useImpl selects the kernel set impl, failing the script if it cannot.
func useImpl(impl string) {
	if _, err := kernel.SetImpl(impl); err != nil {
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
	case opAddNew:
		h.addNew([]string{in.key()})
	case opAddNewBatch:
		h.addNew(in.keys())
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
	use(h.turnLane())
	h.conc.AddHashes(hs)
	for _, k := range keys {
		h.bloom[k] = true
	}
	h.addOthers(keys, hs)
	for i := range h.ckModel {
		h.addCuckoo(i, keys, hs)
	}
}

// addOthers adds keys to the filters without add-if-new (Scalable, classic,
// Counting) and to their models, but for h.bloom, which the caller updates
// (classic shares it with the blocked filters). add and addNew end with it.
func (h *harness) addOthers(keys []string, hs []uint64) {
	use(h.turnLane())
	if err := h.scal.AddHashes(hs); err != nil {
		failf("Scalable.AddHashes: %v", err)
	}
	for _, k := range keys {
		h.scalSet[k] = true
		before := h.classic.MightContain([]byte(k))
		if changed := h.classic.Put([]byte(k)); changed == before {
			failf("classic.Put(%q) = %v with MightContain %v before", k, changed, before)
		}
		h.counting.Add([]byte(k))
		h.cnt[k]++
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
		count := ref.Count()
		err := ref.Add([]byte(k))
		if err == nil {
			// An Add that succeeds with the victim in use parked it.
			if ref.VictimInUse() && !ckParks(count, ref.Capacity()) {
				failf("cuckoo%d: Add parked the victim at load %.3f, below 90%%", fpBits[i], float64(count)/float64(ref.Capacity()))
			}
			continue
		}
		full := errors.Is(err, cuckoo.ErrFull)
		if !full && !errors.Is(err, cuckoo.ErrDuplicateLimit) {
			failf("cuckoo%d Add: %v", fpBits[i], err)
		}
		if !bytes.Equal(before, image(ref)) {
			failf("cuckoo%d: a failed Add changed the filter", fpBits[i])
		}
		if errors.Is(err, cuckoo.ErrNoSlot) {
			if ref.VictimInUse() || ckParks(ref.Count(), ref.Capacity()) {
				failf("cuckoo%d: %v with the victim slot in use %v at load %.3f", fpBits[i], err, ref.VictimInUse(), ref.LoadFactor())
			}
			h.st.ckNoSlot++
		} else if full != ref.VictimInUse() {
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
		if m != n || !sameCuckooErr(err, refErr) {
			failf("cuckoo%d %s: AddHashes added %d (err %v), single adds %d of %d", fpBits[i], l.name, m, err, n, len(keys))
		}
	}
	h.addCuckooConcurrent(i, keys, hs, n, refErr)
	for _, k := range keys[:n] {
		h.ckModel[i][k]++
	}
	h.ckTotal[i] += uint64(n)
}

// Single-key forms of the cuckoo.Concurrent calls, which concForm takes
// in turn.
const (
	formBytes  = iota // Add, AddNew, Remove, Contains
	formString        // AddString, ...
	formHash          // AddHash, ...
	formUint64        // AddUint64, ... (only for a key of 8 bytes)
	numForms
)

// concForm returns the form the next single-key call of a Concurrent
// takes for key: the forms in turn, except that a key of 8 bytes (a fresh
// key with 7 bytes after its prefix) takes formUint64, the same key as
// its eight little-endian bytes, in formBytes' turn, and any other key
// formHash in formUint64's.
func (h *harness) concForm(key string) int {
	h.concCalls++
	f := h.concCalls % numForms
	if f == formUint64 && len(key) != 8 {
		return formHash
	}
	if f == formBytes && len(key) == 8 {
		return formUint64
	}
	return f
}

// keyUint64 is the uint64 key whose little-endian bytes are key (8 bytes).
func keyUint64(key string) uint64 { return binary.LittleEndian.Uint64([]byte(key)) }

// concAdd adds key (hash x) to c through the single-key form concForm
// picks.
func (h *harness) concAdd(c *cuckoo.Concurrent, key string, x uint64) error {
	switch h.concForm(key) {
	case formBytes:
		return c.Add([]byte(key))
	case formString:
		return c.AddString(key)
	case formUint64:
		return c.AddUint64(keyUint64(key))
	}
	return c.AddHash(x)
}

// concAddNew is concAdd for add-if-new.
func (h *harness) concAddNew(c *cuckoo.Concurrent, key string, x uint64) (bool, error) {
	switch h.concForm(key) {
	case formBytes:
		return c.AddNew([]byte(key))
	case formString:
		return c.AddNewString(key)
	case formUint64:
		return c.AddNewUint64(keyUint64(key))
	}
	return c.AddNewHash(x)
}

// concRemove is concAdd for Remove.
func (h *harness) concRemove(c *cuckoo.Concurrent, key string, x uint64) bool {
	switch h.concForm(key) {
	case formBytes:
		return c.Remove([]byte(key))
	case formString:
		return c.RemoveString(key)
	case formUint64:
		return c.RemoveUint64(keyUint64(key))
	}
	return c.RemoveHash(x)
}

// addCuckooConcurrent adds keys to the Concurrent of width index i, with
// the kernel set turnLane picks: one key through a single-key form
// (concAdd), more through AddHashes. The Concurrent stores what a Filter
// stores and, used from one goroutine, makes the same moves (its
// relocation and victim code is Filter's), so it must stop where the
// single lane stopped, n keys in, with the same error (refErr); a failed
// single add must change nothing. checkAll then compares its image with
// the single lane's, which shows the keys past the stop untouched.
func (h *harness) addCuckooConcurrent(i int, keys []string, hs []uint64, n int, refErr error) {
	c := h.ckConc[i]
	use(h.turnLane())
	var m int
	var err error
	if len(hs) == 1 {
		var before []byte
		if refErr != nil {
			before = image(c)
		}
		if err = h.concAdd(c, keys[0], hs[0]); err == nil {
			m = 1
		} else if before != nil && !bytes.Equal(before, image(c)) {
			failf("cuckoo%d Concurrent: a failed Add (%v) changed the filter", fpBits[i], err)
		}
	} else {
		m, err = c.AddHashes(hs)
		if err != nil && 0 < m && m < len(hs)-1 {
			h.st.ckConcStops++
		}
	}
	if m != n || !sameCuckooErr(err, refErr) {
		failf("cuckoo%d Concurrent: added %d of %d (err %v), the single lane %d (err %v)", fpBits[i], m, len(keys), err, n, refErr)
	}
}

// sameCuckooErr reports whether a and b are both nil or wrap the same one
// of the cuckoo errors the harness expects (ErrFull, ErrDuplicateLimit).
func sameCuckooErr(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	if errors.Is(a, cuckoo.ErrNoSlot) != errors.Is(b, cuckoo.ErrNoSlot) {
		return false
	}
	for _, e := range []error{cuckoo.ErrFull, cuckoo.ErrDuplicateLimit} {
		if errors.Is(a, e) && errors.Is(b, e) {
			return true
		}
	}
	return false
}

// ckParks reports whether a relocation walk that runs out of kicks in a
// cuckoo filter holding count fingerprints of capacity slots parks its
// homeless fingerprint as the victim: from 90% of the slots on (below,
// the walk is undone and the Add returns cuckoo.ErrNoSlot).
func ckParks(count, capacity uint64) bool { return count*10 >= capacity*9 }

// addNew is add-if-new: blocked.Filter, blocked.Concurrent, cuckoo.Filter
// and cuckoo.Concurrent add each key of keys and report whether it was
// new (see addNewBlocked and addNewCuckoo); the other filters add the keys as add does.
func (h *harness) addNew(keys []string) {
	hs := h.hashes(keys)
	if len(hs) > 1 {
		dup, shared := batchRepeats(hs, h.p.blocks)
		h.st.newDup += dup
		h.st.newShared += shared
	}
	want := h.addNewBlocked(keys, hs)
	h.addNewConcurrent(keys, hs, want)
	h.addOthers(keys, hs)
	for i := range h.ckModel {
		h.addNewCuckoo(i, keys, hs)
	}
}

// batchRepeats counts, for the seeds' targets, the keys of an add-if-new
// batch (by hash) that repeat an earlier key of it (dup) and those whose
// block, or group of a window, of n an earlier other key of it has
// (shared).
func batchRepeats(hs []uint64, n uint64) (dup, shared int) {
	first := map[uint64]bool{}
	block := map[uint64]uint64{}
	for _, x := range hs {
		if first[x] {
			dup++
			continue
		}
		first[x] = true
		b := kernel.BlockIndex(x, n)
		if o, ok := block[b]; ok && o != x {
			shared++
		}
		block[b] = x
	}
	return dup, shared
}

// singleNew reports whether the single lane's next add-if-new call takes
// the []byte form (else the string form): they take turns, so both
// hashing paths are covered.
func (h *harness) singleNew() (bytesForm bool) {
	h.newCalls++
	return h.newCalls%2 == 1
}

// addNewBlocked runs add-if-new on the blocked filters and returns the
// answers. The single lane adds key by key with AddNew or AddNewString: a
// key the model holds (added before, or earlier in this batch) must not be
// new, each answer must be the opposite of ContainsHash just before the
// call (which also catches a false positive reported new), and the key
// must be present after. Then the model holds the key. The batch lanes run
// one AddNewHashes with their kernel set: its answers, key by key, and its
// count must be the single lane's, and out past len(hs) must be left
// alone. checkAll then compares the images.
func (h *harness) addNewBlocked(keys []string, hs []uint64) []bool {
	want := make([]bool, len(keys))
	nNew := 0
	ref := h.lanes[0]
	use(ref)
	for j, k := range keys {
		before := ref.blocked.ContainsHash(hs[j])
		var isNew bool
		if h.singleNew() {
			isNew = ref.blocked.AddNew([]byte(k))
		} else {
			isNew = ref.blocked.AddNewString(k)
		}
		if isNew && h.bloom[k] {
			failf("single blocked AddNew(%q) = true, but the model holds it", k)
		}
		if isNew == before {
			failf("single blocked AddNew(%q) = %v with ContainsHash %v before", k, isNew, before)
		}
		if !ref.blocked.ContainsHash(hs[j]) {
			failf("false negative: single blocked lost %q just added by AddNew", k)
		}
		h.bloom[k] = true
		want[j] = isNew
		if isNew {
			nNew++
		}
	}
	for _, l := range h.lanes[1:] {
		use(l)
		out := h.newOuts(want, len(want))
		n := l.blocked.AddNewHashes(hs, out)
		h.checkNewAnswers(l.name+" blocked AddNewHashes", keys, out, want, len(want))
		if n != nNew {
			failf("%s blocked AddNewHashes returned %d, %d keys are new", l.name, n, nNew)
		}
	}
	return want
}

// newOuts returns an out slice for an add-if-new batch of len(want) keys
// whose first n answers are want: each of those set to the opposite
// answer, so an answer left unwritten shows, and the rest, one past the
// batch included, set to true, which no write of a call that stopped
// before them, or of a batch, may change.
func (h *harness) newOuts(want []bool, n int) []bool {
	out, _ := h.outs(len(want))
	for j := range out {
		out[j] = j >= n || !want[j]
	}
	return out
}

// checkNewAnswers checks out, as newOuts made it, after an add-if-new
// batch that went through n keys: the first n answers must be want's, the
// rest untouched.
func (h *harness) checkNewAnswers(name string, keys []string, out, want []bool, n int) {
	for j := range out {
		switch {
		case j < n && out[j] != want[j]:
			failf("%s: answer %d (%q) = %v, the single lane's %v (batch of %d)", name, j, keys[j], out[j], want[j], len(keys))
		case j >= n && !out[j]:
			failf("%s wrote out[%d], past the %d keys it went through (batch of %d)", name, j, n, len(keys))
		}
	}
}

// addNewConcurrent runs add-if-new on the Concurrent filter, whose answers
// must be the blocked single lane's, want: it has the same geometry and
// seed and, as checkAll checks after every step, the same image, and
// without races its add-if-new is the same test-and-set (a key is new when
// the add set one of its bits), so in the same order the answers are the
// same (its batch lookup first only answers false for keys already
// present, which stay present). A batch of one key goes through AddNew
// (the hashing path), a longer one through AddNewHashes, whose lookup runs
// only with an assembly kernel set (hence turnLane).
func (h *harness) addNewConcurrent(keys []string, hs []uint64, want []bool) {
	use(h.turnLane())
	out := h.newOuts(want, len(want))
	var n int
	if len(hs) == 1 {
		out[0] = h.conc.AddNew([]byte(keys[0]))
		if out[0] {
			n = 1
		}
	} else {
		n = h.conc.AddNewHashes(hs, out)
	}
	h.checkNewAnswers("Concurrent AddNewHashes", keys, out, want, len(want))
	m := 0
	for _, w := range want {
		if w {
			m++
		}
	}
	if n != m {
		failf("Concurrent AddNewHashes returned %d, %d keys are new", n, m)
	}
}

// addNewCuckoo runs add-if-new on the cuckoo filters of width index i.
// The single lane adds key by key (AddNew and AddNewString in turn): a key
// that is present before the call (ContainsHash) must give (false, nil)
// and change nothing, victim slot in use or not; an absent one must be
// added, (true, nil), Count one up, unless the victim slot is in use: then
// ErrFull, changing nothing, which stops the op at that key, as addCuckoo
// stops. A key the model holds must never be new, and every key gone
// through must be present after. The batch lanes (AddNewHash for one key,
// else AddNewHashes) must go through as many keys, stop with the same
// error, give the same answers and leave out from the stopping key on
// alone. Only the keys reported new enter the model.
func (h *harness) addNewCuckoo(i int, keys []string, hs []uint64) {
	ref := h.lanes[0].ck[i]
	name := fmt.Sprintf("single cuckoo%d", fpBits[i])
	use(h.lanes[0])
	want := make([]bool, len(keys))
	n := len(keys)
	var refErr error
	for j, k := range keys {
		present := ref.ContainsHash(hs[j])
		victim := ref.VictimInUse()
		count := ref.Count()
		before := image(ref)
		var isNew bool
		var err error
		if h.singleNew() {
			isNew, err = ref.AddNew([]byte(k))
		} else {
			isNew, err = ref.AddNewString(k)
		}
		if isNew && h.ckModel[i][k] > 0 {
			failf("%s AddNew(%q) = true, but the model holds it %d times", name, k, h.ckModel[i][k])
		}
		switch {
		case present:
			if isNew || err != nil {
				failf("%s AddNew(%q) of a present key = %v, %v (victim in use %v)", name, k, isNew, err, victim)
			}
			h.st.ckNewPresent++
			if victim {
				h.st.ckNewVictim++
				if victimKey(before, hs[j]) {
					h.st.ckNewVictimKey++
				}
			}
		case victim:
			if isNew || !errors.Is(err, cuckoo.ErrFull) {
				failf("%s AddNew(%q) of an absent key with the victim in use = %v, %v; want ErrFull", name, k, isNew, err)
			}
		case errors.Is(err, cuckoo.ErrNoSlot):
			// Walled in below 90% load: refused, nothing changed.
			if isNew || ckParks(ref.Count(), ref.Capacity()) {
				failf("%s AddNew(%q) of an absent key = %v, %v at load %.3f", name, k, isNew, err, ref.LoadFactor())
			}
			h.st.ckNoSlot++
		default:
			if !isNew || err != nil {
				failf("%s AddNew(%q) of an absent key = %v, %v; want it added", name, k, isNew, err)
			}
			if ref.VictimInUse() && !ckParks(count, ref.Capacity()) {
				failf("%s AddNew(%q) parked the victim at load %.3f, below 90%%", name, k, float64(count)/float64(ref.Capacity()))
			}
		}
		if !isNew && !bytes.Equal(before, image(ref)) {
			failf("%s AddNew(%q) = false, %v changed the filter", name, k, err)
		}
		if err != nil {
			h.st.ckFull++
			h.st.ckNewFull++
			n, refErr = j, err
			break
		}
		if !ref.ContainsHash(hs[j]) {
			failf("false negative: %s lost %q just added by AddNew", name, k)
		}
		if isNew && ref.Count() != count+1 {
			failf("%s AddNew(%q) added it, Count %d, was %d", name, k, ref.Count(), count)
		}
		want[j] = isNew
	}
	for _, l := range h.lanes[1:] {
		use(l)
		out := h.newOuts(want, n)
		var m int
		var err error
		if len(hs) == 1 {
			var isNew bool
			if isNew, err = l.ck[i].AddNewHash(hs[0]); err == nil {
				out[0], m = isNew, 1
			} else if isNew {
				failf("cuckoo%d %s: AddNewHash = true, %v", fpBits[i], l.name, err)
			}
		} else {
			m, err = l.ck[i].AddNewHashes(hs, out[:len(hs)+1])
		}
		if m != n || !sameCuckooErr(err, refErr) {
			failf("cuckoo%d %s: AddNewHashes went through %d keys (err %v), single AddNews %d of %d (err %v)", fpBits[i], l.name, m, err, n, len(keys), refErr)
		}
		h.checkNewAnswers(fmt.Sprintf("cuckoo%d %s AddNewHashes", fpBits[i], l.name), keys, out, want, n)
	}
	h.addNewCuckooConcurrent(i, keys, hs, want, n, refErr)
	for j, k := range keys[:n] {
		if want[j] {
			h.ckModel[i][k]++
			h.ckTotal[i]++
		}
	}
}

// addNewCuckooConcurrent runs add-if-new on the Concurrent of width index
// i, with the kernel set turnLane picks: one key through a single-key form
// (concAddNew), more through AddNewHashes. Without races its answers and
// errors are Filter's, key by key (see Concurrent.AddNewHash), and its
// table is too, so it must answer want, go through as many keys as the
// single lane, n, stop with the same error (refErr) and leave out from the
// stopping key on, one past the batch included, alone; a key the model
// holds is never new. A single call that fails must answer false and
// change nothing.
func (h *harness) addNewCuckooConcurrent(i int, keys []string, hs []uint64, want []bool, n int, refErr error) {
	c := h.ckConc[i]
	name := fmt.Sprintf("cuckoo%d Concurrent", fpBits[i])
	use(h.turnLane())
	out := h.newOuts(want, n)
	var m int
	var err error
	if len(hs) == 1 {
		var before []byte
		if refErr != nil {
			before = image(c)
		}
		var isNew bool
		if isNew, err = h.concAddNew(c, keys[0], hs[0]); err == nil {
			out[0], m = isNew, 1
		} else {
			if isNew {
				failf("%s AddNew(%q) = true, %v", name, keys[0], err)
			}
			if before != nil && !bytes.Equal(before, image(c)) {
				failf("%s: a failed AddNew (%v) changed the filter", name, err)
			}
		}
	} else {
		m, err = c.AddNewHashes(hs, out[:len(hs)+1])
		if err != nil && 0 < m && m < len(hs)-1 {
			h.st.ckConcStops++
		}
	}
	if m != n || !sameCuckooErr(err, refErr) {
		failf("%s: add-if-new went through %d keys (err %v), single AddNews %d of %d (err %v)", name, m, err, n, len(keys), refErr)
	}
	for j, k := range keys[:m] {
		if out[j] && h.ckModel[i][k] > 0 {
			failf("%s: AddNew(%q) = true, but the model holds it %d times", name, k, h.ckModel[i][k])
		}
	}
	h.checkNewAnswers(name+" AddNewHashes", keys, out, want, n)
}

// victimKey reports whether img, a cuckoo filter's encoding, holds the
// fingerprint of the key with hash x in its victim slot: FORMAT.md, kind
// 2, has the bucket count, the width and the victim's fingerprint, bucket
// and use in params 0, 1, 3, 4 and 5.
func victimKey(img []byte, x uint64) bool {
	param := func(j int) uint64 { return binary.LittleEndian.Uint64(img[48+8*j:]) }
	if param(5) == 0 {
		return false
	}
	t := kernel.CuckooTable{Buckets: param(0), FPBits: uint(param(1))}
	i1, i2, fp := modelCuckooBuckets(&t, x)
	return fp == param(3) && min(i1, i2) == param(4)
}

// contains asks every filter about keys: batch answers must equal
// single-key answers, copies of a filter must agree, and held keys must be
// present.
func (h *harness) contains(keys []string) {
	hs := h.hashes(keys)
	h.compareAnswers(keys, hs)
	h.concKeyForms(keys, hs)
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
	use(h.turnLane())
	sentinel()
	checkBatch("concurrent", h.conc.ContainsHashes(hs, out[:len(hs)+1]), h.conc.ContainsHash)
	for j, k := range keys {
		if h.lanes[0].blocked.Contains([]byte(k)) != out[j] {
			failf("blocked.Contains(%q) differs from ContainsHash(Hash(key))", k)
		}
	}
	for i, c := range h.ckConc {
		name := fmt.Sprintf("cuckoo%d Concurrent", fpBits[i])
		sentinel()
		checkBatch(name, c.ContainsHashes(hs, out[:len(hs)+1]), c.ContainsHash)
		f := h.lanes[0].ck[i]
		for j, k := range keys {
			if want := f.ContainsHash(hs[j]); out[j] != want {
				failf("%s answers %q %v, Filter %v", name, k, out[j], want)
			}
		}
	}
}

// concKeyForms checks that the Concurrents' single-key lookups by key
// (Contains, ContainsString, and ContainsUint64 for a key of 8 bytes),
// one form per key in turn, answer as ContainsHash of the key's hash
// (hs). contains runs it on the keys of contains operations; checkAll,
// which compares the batch and hash answers after every step, does not,
// to keep the hashing out of every step.
func (h *harness) concKeyForms(keys []string, hs []uint64) {
	for i, c := range h.ckConc {
		name := fmt.Sprintf("cuckoo%d Concurrent", fpBits[i])
		for j, k := range keys {
			h.concCalls++
			var got bool
			switch {
			case len(k) == 8:
				got = c.ContainsUint64(keyUint64(k))
			case h.concCalls%2 == 0:
				got = c.Contains([]byte(k))
			default:
				got = c.ContainsString(k)
			}
			if want := c.ContainsHash(hs[j]); got != want {
				failf("%s: the key form for %q answers %v, ContainsHash(Hash(key)) %v", name, k, got, want)
			}
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
				if !h.ckConc[i].ContainsHash(x) {
					failf("false negative: cuckoo%d Concurrent lost %q (held %d times)", fpBits[i], k, h.ckModel[i][k])
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
		if !bytes.Equal(ref, image(h.ckConc[i])) {
			failf("cuckoo%d Concurrent image differs from Filter's", fpBits[i])
		}
		if c := h.ckConc[i].Count(); c != h.ckTotal[i] {
			failf("cuckoo%d Concurrent Count %d, model holds %d", fpBits[i], c, h.ckTotal[i])
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
		c := h.ckConc[i]
		use(h.turnLane())
		var before []byte
		if !held {
			before = image(c)
		}
		if ok := h.concRemove(c, key, x); ok != held {
			failf("cuckoo%d Concurrent Remove(%q) = %v, model holds it %d times", fpBits[i], key, ok, h.ckModel[i][key])
		}
		if !held && !bytes.Equal(before, image(c)) {
			failf("cuckoo%d Concurrent: Remove of an absent key changed the filter", fpBits[i])
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
		h.unionConcurrent(i, other, refErr)
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

// unionConcurrent is Union for the Concurrent of width index i, which
// has none: what its API offers is its Snapshot, a plain Filter, which
// merges other, and on success the Concurrent decodes the result in
// place (UnmarshalBinary, replacing its contents). The merge must succeed
// or fail as the single lane's did (refErr), and a failed one leaves the
// Concurrent as it was (checkAll compares its image with the single
// lane's).
func (h *harness) unionConcurrent(i int, other *cuckoo.Filter, refErr error) {
	c := h.ckConc[i]
	use(h.turnLane())
	s := c.Snapshot()
	defer s.Close()
	err := s.Union(other)
	if !sameCuckooErr(err, refErr) {
		failf("cuckoo%d Concurrent's snapshot Union: %v, the single lane's %v", fpBits[i], err, refErr)
	}
	if err == nil {
		if err := c.UnmarshalBinary(image(s)); err != nil {
			failf("cuckoo%d Concurrent UnmarshalBinary of its merged snapshot: %v", fpBits[i], err)
		}
	}
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
	for i, c := range h.ckConc {
		c.Reset()
		n := h.newCuckoo(i)
		if !bytes.Equal(image(n), image(c)) || c.Count() != 0 {
			failf("cuckoo%d Concurrent after Reset differs from a new filter", fpBits[i])
		}
		n.Close()
	}
	h.scal.Reset()
	h.classic = h.newClassic()
	h.counting.Reset()
	if !h.counting.Equal(h.newCounting()) {
		failf("Counting after Reset differs from a new filter")
	}
	h.clearModels()
}
