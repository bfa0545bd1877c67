package fuzz

import (
	"encoding/binary"
	"fmt"
	"testing"
	"unsafe"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

// Kernel targets: fuzzed geometry, hashes and memory straight into the batch
// kernels of every kernel set, compared with the Generic twins and with a
// per-key model written here from the documented geometry (package
// internal/kernel's doc), so that a bug the Generic twin shares is caught
// too. Hashes and filter memory end at a PROT_NONE page where the platform
// has one, so an over-read faults; the outputs sit between guard bytes.

// kernelInput decodes a kernel target's input: a 6-byte header, then the
// hashes as little-endian uint64s (a short tail is zero-padded). The last
// header byte can stretch a short input into a long batch (see
// decodeHashes). The targets probe every hash and a neighbour one bit
// away from it.
type kernelInput struct {
	hdr    [6]byte
	hashes []uint64
}

func decodeKernelInput(data []byte) kernelInput {
	var in kernelInput
	n := copy(in.hdr[:], data)
	in.hashes = decodeHashes(data[n:], int(in.hdr[5]%8))
	return in
}

// decodeHashes reads data as little-endian uint64s (a short tail is
// zero-padded) and, for rep > 0, grows the list into a batch that
// exercises the unrolled loops: rep rounds of multiplicative variants of
// every hash are appended, up to about 600 (a deterministic function of
// the input, so failures replay).
func decodeHashes(data []byte, rep int) []uint64 {
	var hs []uint64
	for len(data) > 0 {
		var w [8]byte
		c := copy(w[:], data)
		data = data[c:]
		hs = append(hs, binary.LittleEndian.Uint64(w[:]))
	}
	if rep > 0 {
		base := hs
		for i := 0; i < rep && len(hs) < 600; i++ {
			for _, h := range base {
				hs = append(hs, h*0x9e3779b97f4a7c15+uint64(i+1)*0xbf58476d1ce4e5b9)
			}
		}
	}
	return hs
}

// repeatHashes makes hs repeat itself, deterministically from seed, so
// that a batch holds in-batch duplicates and keys sharing a block: with
// dup&1, about one hash in eight becomes the hash before it and one in
// eight a copy of an earlier one; with dup&2, about one in four takes an
// earlier hash's high half (its block or group) and keeps its own low
// half (its bits).
func repeatHashes(hs []uint64, dup byte, seed uint64) {
	rnd := splitmix(seed)
	for i := 1; i < len(hs); i++ {
		r := rnd()
		j := r >> 8 % uint64(i)
		switch {
		case dup&1 != 0 && r%8 == 0:
			hs[i] = hs[i-1]
		case dup&1 != 0 && r%8 == 1:
			hs[i] = hs[j]
		case dup&2 != 0 && r%8 >= 6:
			hs[i] = hs[j]&^0xffffffff | hs[i]&0xffffffff
		}
	}
}

// kernelSeed returns a seed input: hdr, then n pseudo-random hashes.
func kernelSeed(hdr []byte, n int) []byte {
	rnd := splitmix(uint64(n))
	for range n {
		hdr = binary.LittleEndian.AppendUint64(hdr, rnd())
	}
	return hdr
}

// splitmix returns a deterministic stream of words from seed.
func splitmix(seed uint64) func() uint64 {
	return func() uint64 {
		seed += 0x9e3779b97f4a7c15
		z := seed
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
}

// guardedBlocks returns nb blocks starting off words (0..7) past a 64-byte
// boundary. With off = 0 they end exactly at a guard page where the
// platform has one (a page end is 64-byte aligned, so a misaligned array
// cannot end there too).
func guardedBlocks(t *testing.T, nb, off int) []kernel.Block {
	words := kerneltest.GuardedUint64s(t, nb*kernel.BlockWords+(8-off)%8)
	return unsafe.Slice((*kernel.Block)(unsafe.Pointer(unsafe.SliceData(words))), nb)
}

// guardedHashes copies hs into memory that ends at a guard page.
func guardedHashes(t *testing.T, hs []uint64) []uint64 {
	g := kerneltest.GuardedUint64s(t, len(hs))
	copy(g, hs)
	return g
}

// guardedOut is an output slice of n bools between guard bytes, off bytes
// into its buffer; check reports a guard that was written or an output
// byte that is not a bool.
func guardedOut(n, off int) (out []bool, check func() string) {
	const guard, pad = 0xa5, 16
	buf := make([]byte, n+off+2*pad)
	for i := range buf {
		buf[i] = guard
	}
	lo := pad + off
	out = unsafe.Slice((*bool)(unsafe.Pointer(&buf[lo])), n)
	return out, func() string {
		for i, c := range buf {
			in := i >= lo && i < lo+n
			if !in && c != guard {
				return "a guard byte around the output was overwritten"
			}
			if in && c > 1 {
				return "an output byte is not a bool"
			}
		}
		return ""
	}
}

// forceBatchMode forces kernel.BatchModes[sel%len(kernel.BatchModes)] on the kernels until t
// ends, and returns its name ("" where the kernels have no modes). Without
// it a fuzzed table, at most a few thousand lines, would never reach the
// prefetch loops, which start at 65536.
func forceBatchMode(t *testing.T, sel byte) string {
	if kernel.SetBatchModes == nil {
		return ""
	}
	m := kernel.BatchModes[int(sel)%len(kernel.BatchModes)]
	t.Cleanup(kernel.SetBatchModes(m))
	return m.Name
}

// modeSeeds returns seeds, then each seed again with batch modes 1, 2 and 3
// (forceBatchMode) in bits shift and up of byte at (seeds too short to
// have it are kept once).
func modeSeeds(seeds [][]byte, at int, shift uint) [][]byte {
	out := append([][]byte(nil), seeds...)
	for m := byte(1); m < byte(len(kernel.BatchModes)); m++ {
		for _, s := range seeds {
			if len(s) > at {
				v := append([]byte(nil), s...)
				v[at] = v[at]&^(3<<shift) | m<<shift
				out = append(out, v)
			}
		}
	}
	return out
}

// eachImpl calls f with every kernel set the CPU and build have selected in
// turn, and restores the selection even when f fails the test.
func eachImpl(t *testing.T, f func(impl string)) {
	prev := kernel.Impl()
	defer func() {
		if _, err := kernel.SetImpl(prev); err != nil {
			panic(err)
		}
	}()
	for _, impl := range kernel.Impls() {
		if _, err := kernel.SetImpl(impl); err != nil {
			t.Fatal(err)
		}
		f(impl)
	}
}

// modelProbeBit is the documented bit of probe j of the key with hash h
// in its word: bit (uint32(h)*Salts[j])>>26.
func modelProbeBit(h uint64, j int) uint64 { return 1 << (uint32(h) * kernel.Salts[j] >> 26) }

// modelBlockedAdd is the documented insert, key by key.
func modelBlockedAdd(blocks []kernel.Block, k int, hs []uint64) {
	n := uint64(len(blocks))
	for _, h := range hs {
		b := &blocks[(h>>32)*n>>32]
		for j := 0; j < k; j++ {
			b[j%8] |= modelProbeBit(h, j)
		}
	}
}

// modelBlockedContains is the documented probe of one key.
func modelBlockedContains(blocks []kernel.Block, k int, h uint64) bool {
	n := uint64(len(blocks))
	b := &blocks[(h>>32)*n>>32]
	for j := 0; j < k; j++ {
		if b[j%8]&modelProbeBit(h, j) == 0 {
			return false
		}
	}
	return true
}

// modelBlockedAddNew is the documented add-if-new, key by key: key i is
// new when one of its probe bits is clear after the keys before it (a
// probe just before its insert would answer absent). It inserts hs into
// blocks and returns the answers and how many are true.
func modelBlockedAddNew(blocks []kernel.Block, k int, hs []uint64) ([]bool, int) {
	isNew := make([]bool, len(hs))
	count := 0
	for i, h := range hs {
		isNew[i] = !modelBlockedContains(blocks, k, h)
		modelBlockedAdd(blocks, k, hs[i:i+1])
		if isNew[i] {
			count++
		}
	}
	return isNew, count
}

// blockedKernels is one kernel set's blocked calls, or their Generic twins.
type blockedKernels struct {
	add      func([]kernel.Block, int, []uint64)
	contains func([]kernel.Block, int, []uint64, []bool) int
	addNew   func([]kernel.Block, int, []uint64, []bool) int
	addNew1  func(*kernel.BlockedTable, uint64) bool
}

// FuzzBlockedKernel: the header is k (hdr[0]%16), the batch mode
// (forceBatchMode(hdr[0]>>4)), the
// block count (hdr[1], hdr[2]%4), the repeats of repeatHashes (hdr[2]>>2
// %4), the blocks' and the output's misalignment and a sparse or dense
// random start (hdr[3]), the batch split and the start's seed (hdr[4])
// and the growth of decodeHashes (hdr[5]%8). Every set's add, batch
// probe, batch add-if-new and single-key add-if-new must match the
// models.
func FuzzBlockedKernel(f *testing.F) {
	for _, s := range modeSeeds([][]byte{
		{0, 0, 0, 0, 0, 0},
		{7, 1, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8},
		{15, 200, 1, 0x35, 2, 7, 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88, 0x77, 0x66, 0x55},
		{8, 2, 0, 0x11, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33},
		// Repeats and shared blocks (hdr[2] bits 2-3): k = 1, 8, 9 and 16,
		// one block to a thousand, batches longer than any vector width
		// and the prefetch distance.
		kernelSeed([]byte{0, 0, 0x0c, 0x40, 5, 7}, 9),
		kernelSeed([]byte{15, 2, 0x0c, 0x5b, 9, 7}, 12),
		kernelSeed([]byte{7, 40, 0x04, 0x2a, 100, 3}, 30),
		kernelSeed([]byte{8, 0, 0x0b, 0x47, 0, 1}, 50),
		kernelSeed([]byte{15, 231, 0x0b, 0x2c, 77, 0}, 70),
		kernelSeed([]byte{13, 30, 0x0c, 0x83, 42, 3}, 40),
		kernelSeed([]byte{4, 0, 0x04, 0xf5, 250, 7}, 25),
	}, 0, 4) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := decodeKernelInput(data)
		mode := forceBatchMode(t, in.hdr[0]>>4)
		k := 1 + int(in.hdr[0]%kernel.MaxK)
		nb := 1 + int(in.hdr[1]) + int(in.hdr[2]%4)*256
		blockOff := int(in.hdr[3] % 8)
		outOff := int(in.hdr[3] >> 3 % 8)
		split := int(in.hdr[4])
		fill := splitmix(uint64(in.hdr[4]))
		hs := in.hashes
		if len(hs) == 0 {
			hs = []uint64{}
		}
		// Bits 2-3 of hdr[2] (the block count takes bits 0-1; no input
		// before them set these) repeat hashes within the batch.
		repeatHashes(hs, in.hdr[2]>>2%4, uint64(in.hdr[4])<<8|uint64(in.hdr[2]))
		// Starting memory: empty, sparse random bits (hdr[3] bit 6), or
		// dense ones (bit 7, which no input before it set), where most
		// keys are present or miss one bit: the add-if-new's hard case.
		start := make([]kernel.Block, nb)
		if in.hdr[3]&0xc0 != 0 {
			dense := in.hdr[3]&0x80 != 0
			for i := range start {
				for w := range start[i] {
					start[i][w] = fill() & fill() & fill()
					if dense {
						start[i][w] = ^start[i][w]
					}
				}
			}
		}
		want := append([]kernel.Block(nil), start...)
		modelBlockedAdd(want, k, hs)
		wantNew, newCount := modelBlockedAddNew(append([]kernel.Block(nil), start...), k, hs)
		// Probes: the added keys and their neighbours one bit away.
		probes := make([]uint64, 0, 2*len(hs))
		for i, h := range hs {
			probes = append(probes, h, h^1<<(i%64))
		}
		probes = guardedHashes(t, probes)
		gh := guardedHashes(t, hs)

		check := func(name string, kn blockedKernels) {
			b := guardedBlocks(t, nb, blockOff)
			copy(b, start)
			// Two calls, split at a fuzzed point, to vary batch lengths.
			cut := min(split, len(gh))
			kn.add(b, k, gh[:cut])
			kn.add(b, k, gh[cut:])
			for i := range b {
				if b[i] != want[i] {
					t.Fatalf("%s: k=%d blocks=%d keys=%d (cut %d, offset %d words): block %d is %x, want %x", name, k, nb, len(hs), cut, blockOff, i, b[i], want[i])
				}
			}
			out, guards := guardedOut(len(probes), outOff)
			for i := range out {
				out[i] = i%3 == 0 // stale values the kernel must overwrite
			}
			got := kn.contains(b, k, probes, out)
			if msg := guards(); msg != "" {
				t.Fatalf("%s: %s", name, msg)
			}
			count := 0
			for i, p := range probes {
				m := modelBlockedContains(want, k, p)
				if out[i] != m {
					t.Fatalf("%s: k=%d blocks=%d probes=%d: probe %d answers %v, want %v", name, k, nb, len(probes), i, out[i], m)
				}
				if m {
					count++
				}
			}
			if got != count {
				t.Fatalf("%s: returned %d, %d are present", name, got, count)
			}
			checkBlockedAddNew(t, name, kn, b, start, want, k, gh, cut, outOff, wantNew, newCount)
		}
		check("generic", blockedKernels{kernel.BlockedAddGeneric, kernel.BlockedContainsGeneric, kernel.BlockedAddNewGeneric, blockedAddNew1Generic})
		eachImpl(t, func(impl string) {
			check("impl="+impl+" mode="+mode, blockedKernels{kernel.BlockedAdd, kernel.BlockedContains, kernel.BlockedAddNew, kernel.BlockedAddNew1})
		})
	})
}

// blockedAddNew1Generic is kernel.BlockedAddNew1Generic on a table.
func blockedAddNew1Generic(t *kernel.BlockedTable, h uint64) bool {
	return kernel.BlockedAddNew1Generic(t.Blocks, t.K, h)
}

// checkBlockedAddNew runs kn's add-if-new kernels on b, filled with start
// before each: the batch call in two calls split at cut (the first given
// all of out, which it must leave alone past cut), then the single-key
// call key by key. The memory must end as want (the add's image), every
// answer must be wantNew's, the batch's count newCount, and the guards
// around out untouched.
func checkBlockedAddNew(t *testing.T, name string, kn blockedKernels, b, start, want []kernel.Block, k int, hs []uint64, cut, outOff int, wantNew []bool, newCount int) {
	t.Helper()
	where := func() string {
		return fmt.Sprintf("k=%d blocks=%d keys=%d (cut %d)", k, len(b), len(hs), cut)
	}
	sameImage := func(call string) {
		for i := range b {
			if b[i] != want[i] {
				t.Fatalf("%s: %s, %s: block %d is %x, want %x", name, call, where(), i, b[i], want[i])
			}
		}
	}
	copy(b, start)
	out, guards := guardedOut(len(hs), outOff)
	for i := range out {
		out[i] = i%3 == 0
	}
	n := kn.addNew(b, k, hs[:cut], out)
	for i := cut; i < len(out); i++ {
		if out[i] != (i%3 == 0) {
			t.Fatalf("%s: add-if-new, %s: the first call wrote out[%d], past its %d keys", name, where(), i, cut)
		}
	}
	n += kn.addNew(b, k, hs[cut:], out[cut:])
	if msg := guards(); msg != "" {
		t.Fatalf("%s: add-if-new: %s", name, msg)
	}
	sameImage("add-if-new")
	for i := range hs {
		if out[i] != wantNew[i] {
			t.Fatalf("%s: add-if-new, %s: key %d (hash %#x) answers new=%v, want %v", name, where(), i, hs[i], out[i], wantNew[i])
		}
	}
	if n != newCount {
		t.Fatalf("%s: add-if-new, %s: returned %d, %d keys are new", name, where(), n, newCount)
	}
	copy(b, start)
	tab := &kernel.BlockedTable{Blocks: b, K: k}
	for i, h := range hs {
		if got := kn.addNew1(tab, h); got != wantNew[i] {
			t.Fatalf("%s: single-key add-if-new, %s: key %d (hash %#x) answers new=%v, want %v", name, where(), i, h, got, wantNew[i])
		}
	}
	sameImage("single-key add-if-new")
}

// modelCuckooContains is the documented lookup of one key, slot by slot.
func modelCuckooContains(t *kernel.CuckooTable, h uint64) bool {
	i1, i2, fp := modelCuckooBuckets(t, h)
	for _, i := range []uint64{i1, i2} {
		for s := uint64(0); s < kernel.CuckooSlots; s++ {
			if cuckooSlot(t, i, s) == fp {
				return true
			}
		}
	}
	return t.Victim != 0 && t.Victim == fp<<32|min(i1, i2)
}

func cuckooSlot(t *kernel.CuckooTable, i, s uint64) uint64 {
	if t.FPBits == 16 {
		return t.Words[i] >> (16 * s) & 0xffff
	}
	return t.Words[i/2] >> (32*(i%2) + 8*s) & 0xff
}

func setCuckooSlot(t *kernel.CuckooTable, i, s, fp uint64) {
	if t.FPBits == 16 {
		t.Words[i] = t.Words[i]&^(0xffff<<(16*s)) | fp<<(16*s)
		return
	}
	sh := 32*(i%2) + 8*s
	t.Words[i/2] = t.Words[i/2]&^(0xff<<sh) | fp<<sh
}

func FuzzCuckooKernel(f *testing.F) {
	for _, s := range [][]byte{
		{0, 0, 0, 0, 0, 0},
		{1, 7, 0, 0x83, 0x10, 3, 1, 2, 3, 4, 5, 6, 7, 8},
		{0, 0, 1, 0xff, 0x37, 7, 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88, 0x77},
		{3, 40, 0, 0x45, 0x92, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25},
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := decodeKernelInput(data)
		bits := [2]uint{8, 16}[in.hdr[0]&1]
		n := 1 + uint64(in.hdr[1]) + uint64(in.hdr[2]%4)*256
		plant := in.hdr[3] // which fraction of the keys is stored
		noise := in.hdr[4] // density of random fingerprints
		hs := in.hashes
		words := kerneltest.GuardedUint64s(t, int(kernel.CuckooWords(n, bits)))
		tab := &kernel.CuckooTable{Words: words, Buckets: n, FPBits: bits}
		rnd := splitmix(uint64(noise) | uint64(plant)<<8)
		fpMax := uint64(1)<<bits - 1
		for i := uint64(0); i < n; i++ {
			for s := uint64(0); s < kernel.CuckooSlots; s++ {
				if rnd()%8 < uint64(noise%9) {
					setCuckooSlot(tab, i, s, rnd()%fpMax+1)
				}
			}
		}
		for j, h := range hs {
			if uint64(j*37+int(plant))%8 >= uint64(plant%9) {
				continue
			}
			i := kernel.CuckooIndex(h, n)
			fp := kernel.CuckooFingerprint(h, fpMax)
			if j&1 == 1 {
				i = kernel.CuckooAlt(i, fp, n)
			}
			setCuckooSlot(tab, i, uint64(j)%kernel.CuckooSlots, fp)
		}
		switch {
		case in.hdr[0]&6 == 2 && len(hs) > 0: // the victim is one of the keys
			h := hs[int(in.hdr[4])%len(hs)]
			i := kernel.CuckooIndex(h, n)
			fp := kernel.CuckooFingerprint(h, fpMax)
			tab.Victim = kernel.CuckooTag(fp, min(i, kernel.CuckooAlt(i, fp, n)))
		case in.hdr[0]&6 == 4: // a random victim
			tab.Victim = kernel.CuckooTag(rnd()%fpMax+1, rnd()%n)
		}
		probes := make([]uint64, 0, 2*len(hs))
		for i, h := range hs {
			probes = append(probes, h, h^1<<(i%64))
		}
		probes = guardedHashes(t, probes)
		want := make([]bool, len(probes))
		count := 0
		for i, p := range probes {
			want[i] = modelCuckooContains(tab, p)
			if want[i] {
				count++
			}
		}
		outOff := int(in.hdr[5] >> 3 % 8)
		check := func(name string, contains func(*kernel.CuckooTable, []uint64, []bool) int) {
			out, guards := guardedOut(len(probes), outOff)
			for i := range out {
				out[i] = i%3 == 0
			}
			got := contains(tab, probes, out)
			if msg := guards(); msg != "" {
				t.Fatalf("%s: %s", name, msg)
			}
			for i := range probes {
				if out[i] != want[i] {
					t.Fatalf("%s: f=%d buckets=%d victim=%#x probes=%d: probe %d answers %v, want %v", name, bits, n, tab.Victim, len(probes), i, out[i], want[i])
				}
			}
			if got != count {
				t.Fatalf("%s: returned %d, %d are present", name, got, count)
			}
		}
		check("generic", kernel.CuckooContainsGeneric)
		eachImpl(t, func(impl string) { check("impl="+impl, kernel.CuckooContains) })
	})
}
