package kernel

import (
	"fmt"
	"slices"

	"github.com/sift-go/sift/internal/cpu"
)

// kernelSet is the kernel set one operation runs, read by its Go wrapper
// (and by the single-key assembly entry points, which compare the byte
// with the constants below): one load and a compare per call, as the
// single bools it replaced.
type kernelSet uint8

// The values of a kernelSet. asm/blocked and asm/sbbf compare against
// setGeneric (0) and setAVX512 (2): keep the numbers.
const (
	setGeneric kernelSet = 0
	setAVX2    kernelSet = 1
	setAVX512  kernelSet = 2
	setNEON    kernelSet = 3
)

var setNames = map[string]kernelSet{cpu.Generic: setGeneric, cpu.AVX2: setAVX2, cpu.AVX512: setAVX512, cpu.NEON: setNEON}

// The kernel set of each operation, set by apply at start-up and by
// SetImpl. They are variables, not constants, so tests can run every
// kernel the CPU has. An operation that has no kernel of a set holds the
// set it runs instead (kernelFor).
var (
	blockedAdd1Set      kernelSet // BlockedAdd1 (blocked AddHash)
	blockedContains1Set kernelSet // BlockedContains1 (blocked ContainsHash)
	blockedAddSet       kernelSet // BlockedAdd (blocked AddHashes) under LargeBlocks blocks
	blockedContainsSet  kernelSet // BlockedContains (blocked ContainsHashes) under LargeBlocks blocks
	cuckooContainsSet   kernelSet // CuckooContains (cuckoo ContainsHashes)
	cuckooAddSet        kernelSet // CuckooLocate, CuckooAlternates (cuckoo AddHashes)
	sbbfAdd1Set         kernelSet // SBBFAdd1
	sbbfContains1Set    kernelSet // SBBFContains1
	sbbfAddSet          kernelSet // SBBFAdd
	sbbfContainsSet     kernelSet // SBBFContains
	blockedAddNew1Set   kernelSet // BlockedAddNew1 (blocked AddNewHash)
	blockedAddNewSet    kernelSet // BlockedAddNew (blocked AddNewHashes)
	// BlockedContains and BlockedAdd on filters of LargeBlocks blocks or more
	blockedContainsLargeSet kernelSet
	blockedAddLargeSet      kernelSet
	blockedAddNewLargeSet   kernelSet // BlockedAddNew from LargeBlocks blocks on
	windowContainsLargeSet  kernelSet // BlockedContainsGens from LargeBlocks lines on
)

// opVars maps each Op to its variable.
var opVars = [NumOps]*kernelSet{
	OpBlockedAdd1:      &blockedAdd1Set,
	OpBlockedContains1: &blockedContains1Set,
	OpBlockedAdd:       &blockedAddSet,
	OpBlockedContains:  &blockedContainsSet,
	OpCuckooContains:   &cuckooContainsSet,
	OpCuckooAdd:        &cuckooAddSet,
	OpSBBFAdd1:         &sbbfAdd1Set,
	OpSBBFContains1:    &sbbfContains1Set,
	OpSBBFAdd:          &sbbfAddSet,
	OpSBBFContains:     &sbbfContainsSet,
	OpBlockedAddNew1:   &blockedAddNew1Set,
	OpBlockedAddNew:    &blockedAddNewSet,
	OpWindowContains1:  &windowContains1Set,
	OpWindowContains:   &windowContainsSet,
	OpWindowAdd1:       &windowAdd1Set,
	OpWindowAddNew1:    &windowAddNew1Set,

	OpBlockedContainsLarge: &blockedContainsLargeSet,
	OpBlockedAddLarge:      &blockedAddLargeSet,
	OpBlockedAddNewLarge:   &blockedAddNewLargeSet,
	OpWindowContainsLarge:  &windowContainsLargeSet,
}

// LargeBlocks is the filter size, in blocks (4 MiB), from which blocked
// ContainsHashes, AddHashes and AddNewHashes run the kernel sets of
// OpBlockedContainsLarge, OpBlockedAddLarge and OpBlockedAddNewLarge
// instead of those of OpBlockedContains, OpBlockedAdd and
// OpBlockedAddNew, and a Window's ContainsHashes (its table in 64-byte
// lines) OpWindowContainsLarge's instead of OpWindowContains' (where the
// Zen 4 runs the other way round: avx2 below, avx512 above; table.go).
// Below it the batch kernels keep
// their block offsets in a ring (amd64's ringMaxBlocks, the same size);
// from it on they compute the offsets twice. On each of the three CPUs
// measured (an Intel Xeon family 6 model 207, AMD EPYC family 26 model 2
// (Zen 5) and family 25 model 17 (Zen 4)) the AVX-512 probe led at 1e6
// keys (1.2 MiB: in L2 on the Intel, 2 MiB a core; in L3 on the Zens, 1
// MiB of L2) and the AVX2 probe at 1e7 (12 MiB: past L2, still inside
// the L3 of all three machines; table.go has the figures). The inserts
// split the same way on the Intel and the Zen 5, the add-if-new batch on
// both Zens, and the window's lookup (by its own size) on the Zen 4
// (table.go's entries). The threshold between is this mode
// switch, not a measured crossover. Past the L3 (1e8 keys, 120 MB) on
// the AMD EPYC family 25 model 17 (Zen 4) VM the two probes measured
// level, both at the memory system's limit (table.go's Zen 4 entry), so
// there is no third size class.
const LargeBlocks = 1 << 16

// bySize returns large on a filter of nblocks blocks from LargeBlocks on,
// else small: the set of a size-split operation.
func bySize(nblocks uint64, small, large kernelSet) kernelSet {
	if nblocks >= LargeBlocks {
		return large
	}
	return small
}

// blockedContainsSetFor returns the set BlockedContains runs on a filter
// of nblocks blocks.
func blockedContainsSetFor(nblocks uint64) kernelSet {
	return bySize(nblocks, blockedContainsSet, blockedContainsLargeSet)
}

// blockedAddSetFor returns the set BlockedAdd runs on a filter of nblocks
// blocks.
func blockedAddSetFor(nblocks uint64) kernelSet {
	return bySize(nblocks, blockedAddSet, blockedAddLargeSet)
}

// windowContainsSetFor returns the set BlockedContainsGens runs on a
// windowed table of nb groups of g generations: by its size in 64-byte
// lines, nb*WindowLines(g).
func windowContainsSetFor(nb uint64, g int) kernelSet {
	return bySize(nb*uint64(WindowLines(g)), windowContainsSet, windowContainsLargeSet)
}

// blockedAddNewSetFor returns the set BlockedAddNew runs on a filter of
// nblocks blocks.
func blockedAddNewSetFor(nblocks uint64) kernelSet {
	return bySize(nblocks, blockedAddNewSet, blockedAddNewLargeSet)
}

// impl is cpu.Auto while the table chooses, else the set forced for every
// operation; choice[op] is the set op runs, why[op] the reason.
var (
	impl   string
	choice [NumOps]string
	why    [NumOps]string
)

func init() { apply(cpu.Selected(), false) }

// apply selects name for every operation, or the table's choice for each
// when name is cpu.Auto. name is one of cpu.Available() or cpu.Auto;
// forced says that SetImpl asked for it (SIFT_KERNEL's choice comes
// through cpu.Selected).
func apply(name string, forced bool) {
	impl = name
	avail := cpu.Available()
	var e *tableEntry
	if name == cpu.Auto {
		e = entryFor(cpu.Current())
	}
	reason := "forced"
	switch {
	case !forced && avail[0] == cpu.Generic:
		// A purego build, another architecture or a CPU without the
		// kernels' features: nothing to choose, whatever SIFT_KERNEL says.
		reason = "the only set"
	case !forced && fallback():
		// SIFT_KERNEL named a set this CPU or build lacks.
		reason = "fallback: " + cpu.EnvVar + " names no set of this CPU"
	}
	for op := range NumOps {
		if e != nil {
			choice[op], why[op] = e.choose(op, avail)
		} else {
			choice[op], why[op] = kernelFor(op, name), reason
		}
		if note := choiceNote(op, choice[op]); note != "" {
			why[op] += " (" + note + ")"
		}
		*opVars[op] = setNames[choice[op]]
	}
}

// fallback is cpu.Fallback, which tests replace.
var fallback = cpu.Fallback

// Impl returns the name of the kernel set in use for every operation
// ("avx512", "avx2", "neon" or "generic"), or "auto" when the table in
// table.go chooses per operation (see Choice).
func Impl() string { return impl }

// Impls returns the kernel sets this CPU and build can run, best first.
func Impls() []string { return cpu.Available() }

// Choice returns the kernel set op runs now (a set the op has a kernel
// of) and why: "forced" (SIFT_KERNEL or SetImpl), "the only set" (generic
// where the build or the CPU runs no assembly), "fallback: ..." (generic
// where SIFT_KERNEL named a set this CPU or build lacks), or the table
// entry and the measurement behind it; a note in parentheses follows where
// the set's kernel runs only in part on this CPU (choiceNote).
func Choice(op Op) (set, reason string) { return choice[op], why[op] }

// TableChoice returns the set the table picks for op on this CPU, whatever
// is in use now (for `sift bench -kernels`, which forces each set in turn),
// and the reason.
func TableChoice(op Op) (set, reason string) {
	return entryFor(cpu.Current()).choose(op, cpu.Available())
}

// SetImpl switches every operation to the kernel set name, or back to the
// table's per-operation choice with "auto", for tests and benchmarks, and
// returns a function that restores the previous selection. It is not safe
// to call while filters are in use by other goroutines.
func SetImpl(name string) (restore func(), err error) {
	avail := cpu.Available()
	if name != cpu.Auto && !slices.Contains(avail, name) || name == cpu.Auto && avail[0] == cpu.Generic {
		return nil, fmt.Errorf("kernel: %q is not available on this CPU/build (have %v)", name, avail)
	}
	restore = saved()
	apply(name, true)
	return restore, nil
}

// saved returns a function that puts back the selection in use now, the
// sets and their reasons: apply alone would call a generic set that
// SetImpl forced "the only set".
func saved() (restore func()) {
	prev, prevWhy := impl, why
	return func() { apply(prev, false); why = prevWhy }
}
