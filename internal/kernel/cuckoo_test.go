package kernel_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

func TestCuckooAltInvolution(t *testing.T) {
	ns := []uint64{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 100, 101, 255, 256, 257, 1000, 1001, 65535, 65537}
	for n := uint64(1); n <= 130; n++ {
		ns = append(ns, n)
	}
	ns = append(ns, 1<<20+7, 1<<31-1, 1<<31, 1<<31+1, kernel.MaxCuckooBuckets-1, kernel.MaxCuckooBuckets)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range ns {
		for _, fpBits := range []uint{8, 16} {
			fpMax := uint64(1)<<fpBits - 1
			check := func(i, fp uint64) {
				a := kernel.CuckooAlt(i, fp, n)
				if a >= n {
					t.Fatalf("n=%d fp=%d: alt(%d) = %d out of range", n, fp, i, a)
				}
				if b := kernel.CuckooAlt(a, fp, n); b != i {
					t.Fatalf("n=%d fp=%d: alt(alt(%d)) = alt(%d) = %d", n, fp, i, a, b)
				}
			}
			if n <= 300 {
				for fp := uint64(1); fp <= fpMax; fp += 1 + fpMax/300 {
					for i := uint64(0); i < n; i++ {
						check(i, fp)
					}
				}
				continue
			}
			for range 2000 {
				check(rng.Uint64N(n), 1+rng.Uint64N(fpMax))
			}
			check(0, 1)
			check(n-1, fpMax)
		}
	}
}

func TestCuckooFingerprintRange(t *testing.T) {
	for _, fpBits := range []uint{8, 16} {
		fpMax := uint64(1)<<fpBits - 1
		seen := make([]int, fpMax+1)
		for _, h := range []uint64{0, 1, 1<<32 - 1, 1 << 32, ^uint64(0), 0xffffffff00000000} {
			if fp := kernel.CuckooFingerprint(h, fpMax); fp < 1 || fp > fpMax {
				t.Fatalf("fp(%#x) = %d", h, fp)
			}
		}
		// Uniform over [1, fpMax]: every value is hit by equally spaced
		// 32-bit inputs.
		step := uint64(1<<32) / (fpMax * 16)
		for x := uint64(0); x < 1<<32; x += step {
			seen[kernel.CuckooFingerprint(x, fpMax)]++
		}
		lo, hi := seen[1], seen[1]
		for _, c := range seen[1:] {
			lo, hi = min(lo, c), max(hi, c)
		}
		if seen[0] != 0 || hi-lo > 1 {
			t.Fatalf("%d bits: fingerprint counts from %d to %d (zero %d)", fpBits, lo, hi, seen[0])
		}
	}
}

// cuckooRef is the naive lookup, slot by slot, independent of the kernels.
func cuckooRef(tb *kernel.CuckooTable, h uint64) bool {
	n, f := tb.Buckets, tb.FPBits
	fpMax := uint64(1)<<f - 1
	i1 := kernel.CuckooIndex(h, n)
	fp := kernel.CuckooFingerprint(h, fpMax)
	i2 := kernel.CuckooAlt(i1, fp, n)
	for _, i := range []uint64{i1, i2} {
		for s := range uint64(4) {
			if slot(tb, i, s) == fp {
				return true
			}
		}
	}
	return tb.Victim != 0 && tb.Victim == kernel.CuckooTag(fp, min(i1, i2))
}

func slot(tb *kernel.CuckooTable, i, s uint64) uint64 {
	f := uint64(tb.FPBits)
	if f == 8 {
		return tb.Words[i/2] >> (32*(i%2) + 8*s) & 0xff
	}
	return tb.Words[i] >> (16 * s) & 0xffff
}

func setSlot(tb *kernel.CuckooTable, i, s, fp uint64) {
	f := uint64(tb.FPBits)
	w, sh := i, 16*s
	if f == 8 {
		w, sh = i/2, 32*(i%2)+8*s
	}
	mask := uint64(1)<<f - 1
	tb.Words[w] = tb.Words[w]&^(mask<<sh) | fp<<sh
}

// cuckooCase builds a table where about half of keys are placed in one of
// their buckets (so lookups hit), the rest of the slots filled with random
// fingerprints, and returns the table and a hash list mixing those keys and
// absent ones.
func cuckooCase(rng *rand.Rand, n uint64, fpBits uint, victim bool, keys int) (*kernel.CuckooTable, []uint64) {
	words := make([]uint64, kernel.CuckooWords(n, fpBits)+8)
	tb := &kernel.CuckooTable{Words: words[:kernel.CuckooWords(n, fpBits)], Buckets: n, FPBits: fpBits}
	fpMax := uint64(1)<<fpBits - 1
	// Random fingerprints in about 60% of the slots.
	for i := range n {
		for s := range uint64(4) {
			if rng.IntN(10) < 6 {
				setSlot(tb, i, s, 1+rng.Uint64N(fpMax))
			}
		}
	}
	hs := make([]uint64, keys)
	for k := range hs {
		h := rng.Uint64()
		hs[k] = h
		if k%2 == 0 {
			i1 := kernel.CuckooIndex(h, n)
			fp := kernel.CuckooFingerprint(h, fpMax)
			i := i1
			if k%4 == 0 {
				i = kernel.CuckooAlt(i1, fp, n)
			}
			setSlot(tb, i, uint64(k/2)%4, fp)
		}
	}
	// Small tables keep only the last keys planted; spread those over the
	// list so every length sees hits.
	rng.Shuffle(len(hs), func(i, j int) { hs[i], hs[j] = hs[j], hs[i] })
	if victim && len(hs) > 1 {
		h := hs[1]
		i1 := kernel.CuckooIndex(h, n)
		fp := kernel.CuckooFingerprint(h, fpMax)
		tb.Victim = kernel.CuckooTag(fp, min(i1, kernel.CuckooAlt(i1, fp, n)))
	}
	return tb, hs
}

func TestCuckooContainsEquivalence(t *testing.T) {
	// Send every batch, however short, to the assembly kernels.
	defer kernel.SetCuckooBatchMin(1)()
	kerneltest.Run(t, func(t *testing.T, impl string) {
		if impl == "neon" {
			t.Run("variant=scalar", func(t *testing.T) {
				defer kernel.SetCuckooScalar(true)()
				cuckooEquivalence(t)
			})
		}
		cuckooEquivalence(t)
	})
}

func cuckooEquivalence(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	buckets := []uint64{1, 2, 3, 5, 16, 17, 255, 1000, 4099}
	if !testing.Short() {
		buckets = append(buckets, 1<<20+3)
	}
	for _, n := range buckets {
		for _, fpBits := range []uint{8, 16} {
			for _, victim := range []bool{false, true} {
				name := fmt.Sprintf("n=%d/f=%d/victim=%v", n, fpBits, victim)
				tb, all := cuckooCase(rng, n, fpBits, victim, 340)
				want := make([]bool, len(all))
				for i, h := range all {
					want[i] = cuckooRef(tb, h)
				}
				g := newGuards(t, 300)
				for length := 0; length <= 300; length++ {
					for _, off := range []int{0, 1, 3} {
						if off+length > len(all) || (off > 0 && length%7 != 0 && length > 40) {
							continue
						}
						checkCuckoo(t, name, tb, all[off:off+length], want[off:off+length], g)
					}
				}
			}
		}
	}
}

// guards are slices ending at a PROT_NONE page; checkCuckoo uses their
// tails, so one mapping serves every length.
type guards struct {
	hs  []uint64
	out []bool
}

func newGuards(t *testing.T, n int) guards {
	return guards{kerneltest.GuardedUint64s(t, n), kerneltest.GuardedBools(t, n)}
}

func checkCuckoo(t *testing.T, name string, tb *kernel.CuckooTable, hs []uint64, want []bool, g guards) {
	t.Helper()
	const guard = 17
	out := make([]bool, len(hs)+guard)
	for i := range out {
		out[i] = true
	}
	wantCount := 0
	for _, w := range want {
		if w {
			wantCount++
		}
	}
	got := kernel.CuckooContains(tb, hs, out[:len(hs)])
	for i := range hs {
		if out[i] != want[i] {
			t.Fatalf("%s len=%d: out[%d] = %v, want %v", name, len(hs), i, out[i], want[i])
		}
	}
	for i := len(hs); i < len(out); i++ {
		if !out[i] {
			t.Fatalf("%s len=%d: guard byte %d overwritten", name, len(hs), i-len(hs))
		}
	}
	if got != wantCount {
		t.Fatalf("%s len=%d: count %d, want %d", name, len(hs), got, wantCount)
	}
	// The generic twin agrees, and so do the PROT_NONE-ended copies.
	gen := make([]bool, len(hs))
	if c := kernel.CuckooContainsGeneric(tb, hs, gen); c != wantCount {
		t.Fatalf("%s len=%d: generic count %d, want %d", name, len(hs), c, wantCount)
	}
	ghs := g.hs[len(g.hs)-len(hs):]
	copy(ghs, hs)
	gout := g.out[len(g.out)-len(hs):]
	if c := kernel.CuckooContains(tb, ghs, gout); c != wantCount {
		t.Fatalf("%s len=%d: guarded count %d, want %d", name, len(hs), c, wantCount)
	}
	for i := range hs {
		if gout[i] != want[i] || gen[i] != want[i] {
			t.Fatalf("%s len=%d: guarded/generic out[%d] = %v/%v, want %v", name, len(hs), i, gout[i], gen[i], want[i])
		}
	}
}

// TestCuckooGuardedTable puts the bucket array itself at the end of a
// PROT_NONE-guarded mapping, so a kernel reading past the last bucket faults.
func TestCuckooGuardedTable(t *testing.T) {
	defer kernel.SetCuckooBatchMin(1)()
	kerneltest.Run(t, func(t *testing.T, impl string) {
		for _, scalar := range []bool{false, true} {
			restore := kernel.SetCuckooScalar(scalar)
			cuckooGuardedTable(t)
			restore()
		}
	})
}

func cuckooGuardedTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []uint64{1, 2, 3, 7, 64, 65} {
		for _, fpBits := range []uint{8, 16} {
			tb, hs := cuckooCase(rng, n, fpBits, n%2 == 1, 100)
			w := kerneltest.GuardedUint64s(t, len(tb.Words))
			copy(w, tb.Words)
			tb.Words = w
			want := make([]bool, len(hs))
			for i, h := range hs {
				want[i] = cuckooRef(tb, h)
			}
			checkCuckoo(t, fmt.Sprintf("guarded n=%d f=%d", n, fpBits), tb, hs, want, newGuards(t, len(hs)))
		}
	}
}

func TestCuckooContainsPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a short out slice")
		}
	}()
	tb := &kernel.CuckooTable{Words: make([]uint64, 1), Buckets: 1, FPBits: 16}
	kernel.CuckooContains(tb, make([]uint64, 3), make([]bool, 2))
}

func TestCuckooContainsAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tb, hs := cuckooCase(rng, 1000, 16, true, 256)
	out := make([]bool, len(hs))
	kerneltest.Run(t, func(t *testing.T, impl string) {
		if a := testing.AllocsPerRun(100, func() { kernel.CuckooContains(tb, hs, out) }); a != 0 {
			t.Fatalf("%v allocations per call", a)
		}
	})
}

func BenchmarkCuckooContains(b *testing.B) {
	for _, n := range []uint64{1 << 12, 1 << 22} {
		rng := rand.New(rand.NewPCG(5, 6))
		tb, _ := cuckooCase(rng, n, 16, false, 0)
		hs := make([]uint64, 4096)
		for i := range hs {
			hs[i] = rng.Uint64()
		}
		out := make([]bool, len(hs))
		b.Run(fmt.Sprintf("buckets=%d", n), func(b *testing.B) {
			kerneltest.Bench(b, func(b *testing.B, impl string) {
				for b.Loop() {
					kernel.CuckooContains(tb, hs, out)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(hs)), "ns/key")
			})
		})
	}
}

// TestCuckooLocateEquivalence checks every locate kernel against the
// bucket formulas, for every length up to 300 (so every remainder mod 4),
// unaligned starts, both widths and bucket counts from 1 up: the results,
// the generic twin's, and those of hash and result slices that end at a
// PROT_NONE page must all equal the reference, and nothing past len(hs)
// may be written.
func TestCuckooLocateEquivalence(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		if got, want := kernel.CuckooLocatePrefetches(), impl != "generic"; got != want {
			t.Errorf("CuckooLocatePrefetches() = %v with impl %s", got, impl)
		}
		rng := rand.New(rand.NewPCG(11, 12))
		buckets := []uint64{1, 2, 3, 5, 16, 17, 255, 1000, 4099, 1<<31 + 5, kernel.MaxCuckooBuckets}
		all := make([]uint64, 340)
		for i := range all {
			all[i] = rng.Uint64()
		}
		all[0], all[1], all[2] = 0, ^uint64(0), 0xffffffff
		ghs := kerneltest.GuardedUint64s(t, len(all))
		glocs := kerneltest.GuardedUint64s(t, len(all))
		for _, n := range buckets {
			for _, fpBits := range []uint{8, 16} {
				// The kernels only prefetch the table, never load it: a
				// one-word table serves every bucket count.
				tb := &kernel.CuckooTable{Words: make([]uint64, 1), Buckets: n, FPBits: fpBits}
				fpMax := uint64(1)<<fpBits - 1
				want := make([]uint64, len(all))
				for i, h := range all {
					i1 := kernel.CuckooIndex(h, n)
					want[i] = i1 | kernel.CuckooAlt(i1, kernel.CuckooFingerprint(h, fpMax), n)<<32
				}
				for length := 0; length <= 300; length++ {
					for _, off := range []int{0, 1, 3} {
						if off+length > len(all) || (off > 0 && length%7 != 0 && length > 40) {
							continue
						}
						name := fmt.Sprintf("n=%d f=%d len=%d off=%d", n, fpBits, length, off)
						hs, w := all[off:off+length], want[off:off+length]
						const guard = 9
						locs := make([]uint64, length+guard)
						for i := range locs {
							locs[i] = 0xdead
						}
						kernel.CuckooLocate(tb, hs, locs[:length])
						gen := make([]uint64, length)
						kernel.CuckooLocateGeneric(tb, hs, gen)
						gh := ghs[len(ghs)-length:]
						copy(gh, hs)
						gl := glocs[len(glocs)-length:]
						kernel.CuckooLocate(tb, gh, gl)
						for i := range w {
							if locs[i] != w[i] || gen[i] != w[i] || gl[i] != w[i] {
								t.Fatalf("%s: locs[%d] = %#x (generic %#x, guarded %#x), want %#x", name, i, locs[i], gen[i], gl[i], w[i])
							}
						}
						for i := length; i < len(locs); i++ {
							if locs[i] != 0xdead {
								t.Fatalf("%s: wrote locs[%d] past the batch", name, i)
							}
						}
					}
				}
			}
		}
	})
}

func TestCuckooLocatePanicsAndAllocs(t *testing.T) {
	tb := &kernel.CuckooTable{Words: make([]uint64, 8), Buckets: 8, FPBits: 16}
	hs, locs := make([]uint64, 64), make([]uint64, 64)
	kerneltest.Run(t, func(t *testing.T, impl string) {
		if a := testing.AllocsPerRun(100, func() { kernel.CuckooLocate(tb, hs, locs) }); a != 0 {
			t.Fatalf("%v allocations per call", a)
		}
	})
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a short locs slice")
		}
	}()
	kernel.CuckooLocate(tb, hs, locs[:63])
}

// TestCuckooAlternatesEquivalence checks the alternates kernels against
// CuckooAlt slot by slot, for 0..70 buckets per call, random and extreme
// bucket values, both widths and bucket counts from 1 up, and that nothing
// past 4*len(is) is written.
func TestCuckooAlternatesEquivalence(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		rng := rand.New(rand.NewPCG(13, 14))
		for _, n := range []uint64{1, 2, 3, 17, 1000, 4099, 1<<31 + 5, kernel.MaxCuckooBuckets} {
			for _, fpBits := range []uint{8, 16} {
				tb := &kernel.CuckooTable{Words: make([]uint64, 1), Buckets: n, FPBits: fpBits}
				fpMax := uint64(1)<<fpBits - 1
				is, bs := make([]uint64, 70), make([]uint64, 70)
				for k := range is {
					is[k], bs[k] = rng.Uint64N(n), rng.Uint64()
				}
				is[0], bs[0] = n-1, ^uint64(0)
				is[1], bs[1] = 0, 0
				for length := 0; length <= len(is); length++ {
					name := fmt.Sprintf("n=%d f=%d len=%d", n, fpBits, length)
					const guard = 5
					alts := make([]uint64, 4*length+guard)
					for i := range alts {
						alts[i] = 0xdead
					}
					kernel.CuckooAlternates(tb, is[:length], bs[:length], alts[:4*length])
					gen := make([]uint64, 4*length)
					kernel.CuckooAlternatesGeneric(tb, is[:length], bs[:length], gen)
					for k := range length {
						for s := range uint64(4) {
							fp := bs[k] >> (uint64(fpBits) * s) & fpMax
							want := kernel.CuckooAlt(is[k], fp, n)
							if got := alts[4*k+int(s)]; got != want || gen[4*k+int(s)] != want {
								t.Fatalf("%s: bucket %d slot %d: got %d (generic %d), want %d", name, k, s, got, gen[4*k+int(s)], want)
							}
						}
					}
					for i := 4 * length; i < len(alts); i++ {
						if alts[i] != 0xdead {
							t.Fatalf("%s: wrote alts[%d] past the batch", name, i)
						}
					}
				}
			}
		}
	})
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a short alts slice")
		}
	}()
	tb := &kernel.CuckooTable{Words: make([]uint64, 1), Buckets: 1, FPBits: 16}
	kernel.CuckooAlternates(tb, make([]uint64, 2), make([]uint64, 2), make([]uint64, 7))
}

// refInsert places h as a loop of single adds would (the insert contract):
// into the lowest free slot of the emptier bucket, the first on a tie,
// unless ifNew and its fingerprint is in one of them. It reports whether
// it added h; ok is false when it could not (both buckets full).
func refInsert(tb *kernel.CuckooTable, h uint64, ifNew bool) (added, ok bool) {
	n, f := tb.Buckets, tb.FPBits
	fpMax := uint64(1)<<f - 1
	i1 := kernel.CuckooIndex(h, n)
	fp := kernel.CuckooFingerprint(h, fpMax)
	i2 := kernel.CuckooAlt(i1, fp, n)
	var free [2]uint64 // free-slot masks, slot s at bit s
	for j, i := range []uint64{i1, i2} {
		for s := range uint64(4) {
			switch slot(tb, i, s) {
			case 0:
				free[j] |= 1 << s
			case fp:
				if ifNew {
					return false, true
				}
			}
		}
	}
	i, m := i1, free[0]
	if free[0] < free[1] {
		i, m = i2, free[1]
	}
	if m == 0 {
		return false, false
	}
	for s := range uint64(4) {
		if m&(1<<s) != 0 {
			setSlot(tb, i, s, fp)
			return true, true
		}
	}
	panic("unreachable")
}

// TestCuckooInsertEquivalence runs CuckooInsert (the kernel of the set in
// use) and CuckooInsertGeneric on copies of tables filled to several
// loads, both widths, bucket counts from 1 up, with keys that repeat,
// share buckets and are already present, both forms (add, add-if-new), 0..90
// keys a call: n, added, out and every table word must agree, nothing past
// the table or out[:n] may change, the keys gone through must equal a
// loop of single adds (refInsert), and the group at n (if a whole one)
// must have a reason to stop.
func TestCuckooInsertEquivalence(t *testing.T) {
	kerneltest.Run(t, func(t *testing.T, impl string) {
		if got := kernel.CuckooInsertKernel(); got && impl != "avx512" {
			t.Errorf("CuckooInsertKernel() with impl %s", impl)
		}
		rng := rand.New(rand.NewPCG(21, 22))
		// Both prefetch distances (64 keys, and 128 from 4 MiB on):
		// the second run sends every table the longer one.
		for _, far := range []bool{false, true} {
			if far {
				defer kernel.SetCuckooInsertAheadFrom(0)()
			}
			for _, n := range []uint64{1, 2, 3, 5, 16, 17, 1000, 4099, 65537} {
				for _, fpBits := range []uint{8, 16} {
					for _, load := range []int{0, 3, 6, 9} {
						for _, ifNew := range []bool{false, true} {
							insertCase(t, rng, n, fpBits, load, ifNew)
						}
					}
				}
			}
		}
	})
}

func insertCase(t *testing.T, rng *rand.Rand, n uint64, fpBits uint, load int, ifNew bool) {
	const guard = 8
	nw := kernel.CuckooWords(n, fpBits)
	words := make([]uint64, nw+guard)
	for i := range words {
		words[i] = rng.Uint64()
	}
	base := &kernel.CuckooTable{Words: words[:nw], Buckets: n, FPBits: fpBits}
	fpMax := uint64(1)<<fpBits - 1
	for i := range n {
		for s := range uint64(4) {
			fp := uint64(0)
			if rng.IntN(10) < load {
				fp = 1 + rng.Uint64N(fpMax)
			}
			setSlot(base, i, s, fp)
		}
	}
	for i := range 30 { // keys already present
		h := rng.Uint64()
		setSlot(base, kernel.CuckooIndex(h, n), uint64(i%4), kernel.CuckooFingerprint(h, fpMax))
		if i%3 == 0 {
			i1 := kernel.CuckooIndex(h, n)
			setSlot(base, kernel.CuckooAlt(i1, kernel.CuckooFingerprint(h, fpMax), n), 3, kernel.CuckooFingerprint(h, fpMax))
		}
	}
	clone := func() *kernel.CuckooTable {
		w := append([]uint64(nil), words...)
		return &kernel.CuckooTable{Words: w[:nw], Buckets: n, FPBits: fpBits}
	}
	prng := rand.New(rand.NewPCG(uint64(n), uint64(load)))
	for length := 0; length <= 150; length++ { // past both prefetch distances, 64 and 128
		if n > 5000 && length%16 != 6 || n <= 5000 && length > 90 && length%8 != 0 && length%8 != 7 {
			continue // large tables: a few lengths (copying them is slow)
		}
		// Ending at a guard page: a prefetch read past hs faults.
		hs := kerneltest.GuardedUint64s(t, length)
		for i := range hs {
			switch r := prng.IntN(10); {
			case r == 0 && i > 0:
				hs[i] = hs[prng.IntN(i)] // a repeat
			default:
				hs[i] = prng.Uint64()
			}
		}
		name := fmt.Sprintf("n=%d f=%d load=%d ifNew=%v len=%d", n, fpBits, load, ifNew, length)
		a, g, r := clone(), clone(), clone()
		var outA, outG []bool // nil: add
		if ifNew {
			outA, outG = make([]bool, length+guard), make([]bool, length)
		}
		var na, addedA int
		if ifNew {
			na, addedA = kernel.CuckooInsert(a, hs, outA[:length])
		} else {
			na, addedA = kernel.CuckooInsert(a, hs, nil)
		}
		ng, addedG := kernel.CuckooInsertGeneric(g, hs, outG)
		if na != ng || addedA != addedG || na%8 != 0 || na > length {
			t.Fatalf("%s: kernel went through %d (added %d), generic %d (added %d)", name, na, addedA, ng, addedG)
		}
		for i := range a.Words[:nw+guard] {
			if wa, wg := a.Words[:nw+guard][i], g.Words[:nw+guard][i]; wa != wg {
				t.Fatalf("%s: word %d: kernel %#x, generic %#x", name, i, wa, wg)
			}
			if i >= int(nw) && a.Words[:nw+guard][i] != words[i] {
				t.Fatalf("%s: wrote past the table", name)
			}
		}
		added := 0
		for i, h := range hs[:ng] {
			ad, ok := refInsert(r, h, ifNew)
			if !ok {
				t.Fatalf("%s: key %d went through with both buckets full", name, i)
			}
			if ad {
				added++
			}
			if ifNew && (outA[i] != ad || outG[i] != ad) {
				t.Fatalf("%s: out[%d]: kernel %v, generic %v, want %v", name, i, outA[i], outG[i], ad)
			}
		}
		if ifNew {
			for i := na; i < len(outA); i++ {
				if outA[i] {
					t.Fatalf("%s: kernel wrote out[%d] past n = %d", name, i, na)
				}
			}
		}
		if added != addedG {
			t.Fatalf("%s: added %d, the loop of single adds %d", name, addedG, added)
		}
		for i := range r.Words {
			if r.Words[i] != g.Words[i] {
				t.Fatalf("%s: word %d differs from the loop of single adds", name, i)
			}
		}
		if ng+8 <= length && !insertStops(r, hs[ng:ng+8], ifNew) {
			t.Fatalf("%s: stopped at %d without a reason", name, ng)
		}
	}
}

// insertStops reports whether the group hs (eight keys) gives CuckooInsert
// a reason to stop on table tb: a bucket index twice among the sixteen, or
// a key to place with both buckets full.
func insertStops(tb *kernel.CuckooTable, hs []uint64, ifNew bool) bool {
	n := tb.Buckets
	fpMax := uint64(1)<<tb.FPBits - 1
	seen := map[uint64]bool{}
	for _, h := range hs {
		i1 := kernel.CuckooIndex(h, n)
		i2 := kernel.CuckooAlt(i1, kernel.CuckooFingerprint(h, fpMax), n)
		if seen[i1] || seen[i2] || i1 == i2 {
			return true
		}
		seen[i1], seen[i2] = true, true
	}
	for _, h := range hs {
		if _, ok := refInsert(tb, h, ifNew); !ok {
			return true
		}
	}
	return false
}

func TestCuckooInsertPanicsAndAllocs(t *testing.T) {
	tb := &kernel.CuckooTable{Words: make([]uint64, 1<<12), Buckets: 1 << 12, FPBits: 16}
	hs, out := make([]uint64, 64), make([]bool, 64)
	for i := range hs {
		hs[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	kerneltest.Run(t, func(t *testing.T, impl string) {
		if a := testing.AllocsPerRun(100, func() {
			clear(tb.Words)
			kernel.CuckooInsert(tb, hs, nil)
			kernel.CuckooInsert(tb, hs, out)
		}); a != 0 {
			t.Fatalf("%v allocations per call", a)
		}
	})
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a short out slice")
		}
	}()
	kernel.CuckooInsert(tb, hs, out[:63])
}

// BenchmarkCuckooInsert fills a 16-bit table from empty to a quarter of its
// slots with CuckooInsert (the kernel set in use; groups it stops at are
// skipped), per set, as an add and as add-if-new: the kernel's own cost
// per key, in cache (2^10 buckets, 8 KiB) and beyond L2 (2^18, 2 MiB).
func BenchmarkCuckooInsert(b *testing.B) {
	for _, n := range []uint64{1 << 10, 1 << 18} {
		tb := &kernel.CuckooTable{Words: make([]uint64, n), Buckets: n, FPBits: 16}
		hs := make([]uint64, n)
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range hs {
			hs[i] = rng.Uint64()
		}
		out := make([]bool, len(hs))
		for _, op := range []string{"add", "addnew"} {
			b.Run(fmt.Sprintf("buckets=%d/op=%s", n, op), func(b *testing.B) {
				kerneltest.Bench(b, func(b *testing.B, impl string) {
					for b.Loop() {
						clear(tb.Words)
						for part, o := hs, out; len(part) >= 8; {
							var m int
							if op == "add" {
								m, _ = kernel.CuckooInsert(tb, part, nil)
							} else {
								m, _ = kernel.CuckooInsert(tb, part, o)
							}
							part, o = part[min(len(part), m+8):], o[min(len(o), m+8):]
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(hs)), "ns/key")
				})
			})
		}
	}
}
