package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/cpu"
	"github.com/sift-go/sift/internal/kernel"
)

// The kernel comparison (sift bench -kernels): every kernel set this CPU
// has, for each operation kernel.Op names, in interleaved rounds.

// kernelRounds is how many interleaved rounds measure each set and op;
// the median counts.
const kernelRounds = 5

// kernelSample is how many keys one measurement runs: the first
// kernelSample present keys (random blocks over the whole filter, so an
// out-of-cache filter stays out of cache), all of them as often as needed
// when there are fewer, except for cuckoo.AddHashes, which fills a new
// filter with all n keys each time.
const kernelSample = 1 << 20

// kernelTolerance is how much slower than the fastest set the table's
// choice may measure and still count as the fastest.
const kernelTolerance = 0.03

// roundOrder is the j-th set a round measures: the sets rotated by the
// round, forwards in even rounds and backwards in odd ones.
func roundOrder(j, round, sets int) int {
	if round%2 == 1 {
		j = sets - 1 - j
	}
	return (j + round/2) % sets
}

// kernelSizes are the key counts -kernels measures unless -n is given:
// one filter in cache (1e6 keys, 1.2 MiB blocked) and one out of it.
var kernelSizes = []int{1_000_000, 10_000_000}

// kernelFixture holds the filters of one size, built once, that every
// set's measurement shares.
type kernelFixture struct {
	n      int
	hs     []uint64 // the n present hashes
	sample []uint64 // kernelSample of them (hs repeated when n is smaller)
	out    []bool

	bl   *blocked.Filter
	ck   *cuckoo.Filter
	sbbf []kernel.SBBFBlock
	// win is a window of 4 generations advancing by count, holding the n
	// keys in 3 slices: all live, every lookup probes all 4.
	win *blocked.Window
	// winAdd is a window built as win, which the window add measurements
	// add to (and rotate: a slice every n/3+1 adds, as in use), leaving
	// win's keys for the lookups.
	winAdd *blocked.Window
}

// kernelMeasure runs one operation with the kernel set in use and returns
// the time and the keys it covered; an error reports a false negative.
type kernelMeasure func(fx *kernelFixture, now func() time.Duration) (d time.Duration, keys int, err error)

var kernelMeasures = [kernel.NumOps]kernelMeasure{
	kernel.OpBlockedContainsLarge: measureBlockedContains,
	kernel.OpBlockedContains:      measureBlockedContains,
	kernel.OpBlockedAdd1: func(fx *kernelFixture, now func() time.Duration) (time.Duration, int, error) {
		start := now()
		for _, h := range fx.sample {
			fx.bl.AddHash(h)
		}
		return now() - start, len(fx.sample), nil
	},
	kernel.OpBlockedContains1: func(fx *kernelFixture, now func() time.Duration) (time.Duration, int, error) {
		found := 0
		start := now()
		for _, h := range fx.sample {
			if fx.bl.ContainsHash(h) {
				found++
			}
		}
		d := now() - start
		return d, len(fx.sample), falseNegatives(found, len(fx.sample))
	},
	kernel.OpBlockedAdd:      measureBlockedAdd,
	kernel.OpBlockedAddLarge: measureBlockedAdd,
	kernel.OpCuckooContains: func(fx *kernelFixture, now func() time.Duration) (time.Duration, int, error) {
		return measureLookups(fx, now, fx.ck.ContainsHashes)
	},
	kernel.OpCuckooAdd: func(fx *kernelFixture, now func() time.Duration) (time.Duration, int, error) {
		f, err := cuckoo.New(uint64(fx.n), cuckoo.WithFingerprintBits(16))
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		var addErr error
		start := now()
		batches(fx.hs, func(hs []uint64) {
			if _, err := f.AddHashes(hs); err != nil && addErr == nil {
				addErr = err
			}
		})
		return now() - start, fx.n, addErr
	},
	kernel.OpSBBFAdd1: func(fx *kernelFixture, now func() time.Duration) (time.Duration, int, error) {
		start := now()
		for _, h := range fx.sample {
			kernel.SBBFAdd1(&fx.sbbf, h)
		}
		return now() - start, len(fx.sample), nil
	},
	kernel.OpSBBFContains1: func(fx *kernelFixture, now func() time.Duration) (time.Duration, int, error) {
		found := 0
		start := now()
		for _, h := range fx.sample {
			if kernel.SBBFContains1(&fx.sbbf, h) {
				found++
			}
		}
		d := now() - start
		return d, len(fx.sample), falseNegatives(found, len(fx.sample))
	},
	kernel.OpSBBFAdd: func(fx *kernelFixture, now func() time.Duration) (time.Duration, int, error) {
		start := now()
		batches(fx.sample, func(hs []uint64) { kernel.SBBFAdd(fx.sbbf, hs) })
		return now() - start, len(fx.sample), nil
	},
	kernel.OpSBBFContains: func(fx *kernelFixture, now func() time.Duration) (time.Duration, int, error) {
		return measureLookups(fx, now, func(hs []uint64, out []bool) int { return kernel.SBBFContains(fx.sbbf, hs, out) })
	},
	// The add-if-new calls add keys already present: each must answer
	// "not new" (a "new" is a false negative of the lookup it fuses).
	kernel.OpBlockedAddNew1: func(fx *kernelFixture, now func() time.Duration) (time.Duration, int, error) {
		isNew := 0
		start := now()
		for _, h := range fx.sample {
			if fx.bl.AddNewHash(h) {
				isNew++
			}
		}
		d := now() - start
		return d, len(fx.sample), falseNegatives(len(fx.sample)-isNew, len(fx.sample))
	},
	kernel.OpBlockedAddNew:      measureBlockedAddNew,
	kernel.OpBlockedAddNewLarge: measureBlockedAddNew,
	kernel.OpWindowContains1: func(fx *kernelFixture, now func() time.Duration) (time.Duration, int, error) {
		found := 0
		start := now()
		for _, h := range fx.sample {
			if fx.win.ContainsHash(h) {
				found++
			}
		}
		d := now() - start
		return d, len(fx.sample), falseNegatives(found, len(fx.sample))
	},
	kernel.OpWindowContains:      measureWindowContains,
	kernel.OpWindowContainsLarge: measureWindowContains,
	// The window's adds rotate it (a slice every n/3+1 adds) and forget
	// the oldest generation's keys: the add-if-new answers have no fixed
	// count to check, and are not checked.
	kernel.OpWindowAdd1: func(fx *kernelFixture, now func() time.Duration) (time.Duration, int, error) {
		start := now()
		for _, h := range fx.sample {
			fx.winAdd.AddHash(h)
		}
		return now() - start, len(fx.sample), nil
	},
	kernel.OpWindowAddNew1: func(fx *kernelFixture, now func() time.Duration) (time.Duration, int, error) {
		start := now()
		for _, h := range fx.sample {
			fx.winAdd.AddNewHash(h)
		}
		return now() - start, len(fx.sample), nil
	},
}

// measureBlockedAdd measures blocked AddHashes, which is OpBlockedAdd or
// OpBlockedAddLarge by the filter's size (kernelApplies).
func measureBlockedAdd(fx *kernelFixture, now func() time.Duration) (time.Duration, int, error) {
	start := now()
	batches(fx.sample, fx.bl.AddHashes)
	return now() - start, len(fx.sample), nil
}

// measureBlockedAddNew measures blocked AddNewHashes of keys the filter
// holds, which is OpBlockedAddNew or OpBlockedAddNewLarge by the filter's
// size (kernelApplies); a key reported new was a false negative.
func measureBlockedAddNew(fx *kernelFixture, now func() time.Duration) (time.Duration, int, error) {
	isNew := 0
	start := now()
	batches(fx.sample, func(hs []uint64) { isNew += fx.bl.AddNewHashes(hs, fx.out) })
	d := now() - start
	return d, len(fx.sample), falseNegatives(len(fx.sample)-isNew, len(fx.sample))
}

// measureWindowContains measures the window's ContainsHashes, which is
// OpWindowContains or OpWindowContainsLarge by the window's size
// (kernelApplies).
func measureWindowContains(fx *kernelFixture, now func() time.Duration) (time.Duration, int, error) {
	return measureLookups(fx, now, fx.win.ContainsHashes)
}

// measureBlockedContains measures blocked ContainsHashes, which is
// OpBlockedContains or OpBlockedContainsLarge by the filter's size
// (kernelApplies).
func measureBlockedContains(fx *kernelFixture, now func() time.Duration) (time.Duration, int, error) {
	return measureLookups(fx, now, fx.bl.ContainsHashes)
}

// measureLookups times contains (a filter's ContainsHashes) over the
// sample, every key of which the filter holds, in batches; a key reported
// absent was a false negative.
func measureLookups(fx *kernelFixture, now func() time.Duration, contains func(hs []uint64, out []bool) int) (time.Duration, int, error) {
	found := 0
	start := now()
	batches(fx.sample, func(hs []uint64) { found += contains(hs, fx.out) })
	d := now() - start
	return d, len(fx.sample), falseNegatives(found, len(fx.sample))
}

// kernelApplies reports whether op runs on a blocked filter of blocks
// blocks or a window of winLines 64-byte lines: blocked ContainsHashes,
// AddHashes and AddNewHashes are two operations each, OpBlockedContains,
// OpBlockedAdd and OpBlockedAddNew under kernel.LargeBlocks blocks and
// OpBlockedContainsLarge, OpBlockedAddLarge and OpBlockedAddNewLarge from
// there on, and so is the window's ContainsHashes (OpWindowContains and
// OpWindowContainsLarge, by its own size); each size measures the ones it
// runs.
func kernelApplies(op kernel.Op, blocks, winLines uint64) bool {
	large := blocks >= kernel.LargeBlocks
	switch op {
	case kernel.OpBlockedContains, kernel.OpBlockedAdd, kernel.OpBlockedAddNew:
		return !large
	case kernel.OpBlockedContainsLarge, kernel.OpBlockedAddLarge, kernel.OpBlockedAddNewLarge:
		return large
	case kernel.OpWindowContains:
		return winLines < kernel.LargeBlocks
	case kernel.OpWindowContainsLarge:
		return winLines >= kernel.LargeBlocks
	}
	return true
}

func falseNegatives(found, keys int) error {
	if found != keys {
		return fmt.Errorf("%d of %d added keys were reported absent: false negatives are a bug", keys-found, keys)
	}
	return nil
}

// repeatSample returns hs's first m keys, or hs repeated up to m keys
// when it is shorter (one allocation, not one per repetition: a sample of
// 2^20 from 10 keys took 105 s that way on the AMD EPYC family 26 model 2,
// Zen 5, VM).
func repeatSample(hs []uint64, m int) []uint64 {
	if len(hs) >= m || len(hs) == 0 {
		return hs[:min(len(hs), m)]
	}
	s := make([]uint64, 0, m)
	for len(s) < m {
		s = append(s, hs[:min(len(hs), m-len(s))]...)
	}
	return s
}

// newKernelFixture builds the filters for n keys with the kernels in use
// (every set produces the same memory image: internal/kernel's tests).
func newKernelFixture(n int, seed uint64) (*kernelFixture, error) {
	fx := &kernelFixture{n: n, hs: make([]uint64, n), out: make([]bool, batchSize)}
	for i := range fx.hs {
		fx.hs[i] = hash.Uint64(benchKey(seed, uint64(i)), seed)
	}
	// At least kernelSample keys a measurement: the present keys repeated
	// when n is smaller (a short run measures the clock more than the kernel).
	fx.sample = repeatSample(fx.hs, kernelSample)
	var err error
	if fx.bl, err = blocked.New(uint64(n), 0.01); err != nil {
		return nil, err
	}
	batches(fx.hs, fx.bl.AddHashes)
	if fx.ck, err = cuckoo.New(uint64(n), cuckoo.WithFingerprintBits(16)); err != nil {
		return nil, err
	}
	for _, h := range fx.hs {
		if err := fx.ck.AddHash(h); err != nil {
			return nil, fmt.Errorf("cuckoo: %w", err)
		}
	}
	// A split-block filter of 10 bits a key (about 1% false positives).
	fx.sbbf = make([]kernel.SBBFBlock, (10*n+255)/256)
	batches(fx.hs, func(hs []uint64) { kernel.SBBFAdd(fx.sbbf, hs) })
	if fx.win, err = blocked.NewWindow(uint64(n), 0.01, 0, blocked.WithGenerations(4), blocked.WithSliceKeys(uint64(n)/3+1)); err != nil {
		return nil, err
	}
	for _, h := range fx.hs {
		fx.win.AddHash(h)
	}
	if fx.winAdd, err = blocked.NewWindow(uint64(n), 0.01, 0, blocked.WithGenerations(4), blocked.WithSliceKeys(uint64(n)/3+1)); err != nil {
		return nil, err
	}
	for _, h := range fx.hs {
		fx.winAdd.AddHash(h)
	}
	return fx, nil
}

func (fx *kernelFixture) close() {
	fx.bl.Close()
	fx.ck.Close()
	fx.win.Close()
	fx.winAdd.Close()
}

// kernelRow is one operation at one size: the median ns/key of each set
// (0 where the op has no kernel of the set: kernelFor), the table's choice.
type kernelRow struct {
	op     kernel.Op
	n      int
	ns     []float64 // per set of sets
	chosen string
}

// runBenchKernels measures every kernel set for every operation at each
// size and prints the comparison.
func runBenchKernels(e *env, sizes []int, seed uint64, p *progress) (int, error) {
	sets := kernel.Impls()
	if len(sets) < 2 {
		return exitError, fmt.Errorf("-kernels: this CPU/build has one kernel set (%s): nothing to compare", strings.Join(sets, " "))
	}
	// Restore whatever was in use (SIFT_KERNEL or the table) at the end.
	restore, err := kernel.SetImpl(kernel.Impl())
	if err != nil {
		return exitError, err
	}
	defer restore()
	now, clock := benchClock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	var rows []kernelRow
	for _, n := range sizes {
		if err := checkMemory(40*float64(n), fmt.Sprintf("bench -kernels at n=%d", n)); err != nil {
			return exitError, err
		}
		p.phase(fmt.Sprintf("bench -kernels: building the filters for n=%s", countString(int64(n))), -1)
		fx, err := newKernelFixture(n, seed)
		if err != nil {
			return exitError, err
		}
		times := make([][][]float64, kernel.NumOps) // [op][set][round]
		for op := range kernel.NumOps {
			times[op] = make([][]float64, len(sets))
		}
		blocks, winLines := fx.bl.Blocks(), fx.win.Blocks()
		for round := range kernelRounds {
			p.phase(fmt.Sprintf("bench -kernels: n=%s, round %d/%d", countString(int64(n)), round+1, kernelRounds), -1)
			for op := range kernel.NumOps {
				if !kernelApplies(op, blocks, winLines) {
					continue
				}
				// Each round starts with another set, so none always
				// runs right after the filter was built or warmed, and
				// every other round goes through the sets backwards, so
				// none always follows the same one.
				for j := range sets {
					s := roundOrder(j, round, len(sets))
					if !ownKernel(op, sets[s]) {
						continue
					}
					r, err := kernel.SetImpl(sets[s])
					if err != nil {
						return exitError, err
					}
					d, keys, err := measureWarm(op, fx, now)
					r()
					if err != nil {
						return exitError, fmt.Errorf("-kernels: %s with %s: %w", op, sets[s], err)
					}
					times[op][s] = append(times[op][s], perKey(d, keys))
				}
			}
		}
		fx.close()
		for op := range kernel.NumOps {
			if !kernelApplies(op, blocks, winLines) {
				continue
			}
			row := kernelRow{op: op, n: n, ns: make([]float64, len(sets))}
			row.chosen, _ = kernel.TableChoice(op)
			for s := range sets {
				row.ns[s] = median(times[op][s])
			}
			rows = append(rows, row)
		}
		runtime.GC()
	}
	p.finish()
	return exitOK, printBenchKernels(e.stdout, sets, rows, clock)
}

// measureWarm runs op's measurement twice and returns the second. Without
// it (and with the sets in the same cyclic order every round, so that
// avx512 always ran after generic and avx2 after avx512), on the 2-core
// AMD EPYC development VM (Zen 4, family 25 model 17), a set's time
// depended on what ran before it. blocked.ContainsHashes at n = 1e7
// measured avx2 ahead in every round of 8 invocations, by 1.4-2x, while
// internal/kernel's BenchmarkBlockedContains (many passes of each set)
// had the two level. Three invocations without the untimed pass and four
// with it, alternated, avx2/avx512 (medians of the medians) at n = 1e7:
// blocked AddHashes 0.68 without, 0.88 with; ContainsHashes 0.64 / 0.93;
// AddNewHashes 0.65 / 0.90; sbbf ContainsHashes 0.66 / 1.02.
func measureWarm(op kernel.Op, fx *kernelFixture, now func() time.Duration) (time.Duration, int, error) {
	kernelMeasures[op](fx, now) // a false negative shows again in the timed run
	return kernelMeasures[op](fx, now)
}

// ownKernel reports whether op has a kernel of set (not one it borrows
// from another set, which -kernels need not measure twice).
func ownKernel(op kernel.Op, set string) bool {
	r, err := kernel.SetImpl(set)
	if err != nil {
		return false
	}
	got, _ := kernel.Choice(op)
	r()
	return got == set
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func printBenchKernels(w io.Writer, sets []string, rows []kernelRow, clock string) error {
	fmt.Fprintf(w, "sift bench -kernels: every kernel set for every operation, %d interleaved rounds, median ns/key by %s\n", kernelRounds, clock)
	fmt.Fprintf(w, "cpu:    %s (%s), %s/%s, %s\n", cpu.Current(), cpu.Name(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	_, entry := kernel.TableChoice(0)
	fmt.Fprintf(w, "table:  %s\n", entry)
	fmt.Fprintf(w, "in use: %s (%s)\n", kernel.Impl(), cpu.Reason())
	fmt.Fprintf(w, "* marks the table's choice; a set with no kernel of its own for an operation runs another's and shows -\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "operation\tn\t")
	for _, s := range sets {
		fmt.Fprintf(tw, "%s\t", s)
	}
	fmt.Fprintf(tw, "chosen\tfastest\t\n")
	var misses []string
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t", r.op, countString(int64(r.n)))
		fastest, chosen := -1, -1
		for s, v := range r.ns {
			mark := ""
			if sets[s] == r.chosen {
				mark, chosen = "*", s
			}
			if v == 0 {
				fmt.Fprintf(tw, "-%s\t", mark)
				continue
			}
			if fastest < 0 || v < r.ns[fastest] {
				fastest = s
			}
			fmt.Fprintf(tw, "%s%s\t", nsString(v), mark)
		}
		verdict := "yes"
		switch {
		case chosen < 0 || fastest < 0:
			verdict = "?"
		case r.ns[chosen] > r.ns[fastest]*(1+kernelTolerance):
			verdict = fmt.Sprintf("no: %s %.0f%% faster", sets[fastest], 100*(r.ns[chosen]/r.ns[fastest]-1))
			misses = append(misses, fmt.Sprintf("%s at n=%s", r.op, countString(int64(r.n))))
		case fastest != chosen:
			verdict = fmt.Sprintf("yes (within %.0f%%)", 100*kernelTolerance)
		}
		fmt.Fprintf(tw, "%s\t%s\t\n", r.chosen, verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(misses) > 0 {
		fmt.Fprintf(w, "\nThe table's choice measured more than %.0f%% slower than the fastest set for: %s.\n"+
			"Run again to rule out noise; if it holds, the table entry in internal/kernel/table.go can change (cite this output).\n",
			100*kernelTolerance, strings.Join(misses, ", "))
	}
	return nil
}

func nsString(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
