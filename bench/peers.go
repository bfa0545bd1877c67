package bench

import (
	"errors"
	"reflect"
	"unsafe"

	"github.com/AndreasBriese/bbloom"
	"github.com/FastFilter/xorfilter"
	bitsbloom "github.com/bits-and-blooms/bloom/v3"
	"github.com/greatroar/blobloom"
	linvon "github.com/linvon/cuckoo-filter"
	panmari "github.com/panmari/cuckoofilter"
	pqbloom "github.com/parquet-go/parquet-go/bloom"
	seiflotfy "github.com/seiflotfy/cuckoofilter"
)

// The peer libraries, each sized by its own API. jcalabro/gloom, also named
// in issue 8, is refused by this workplace's module proxy and has no
// adapter; see README.md.

func init() {
	register(Spec{
		Name:    "bits-and-blooms",
		Library: "github.com/bits-and-blooms/bloom/v3",
		Input:   InputBytes,
		Kind:    KindBloom,
		Note:    "classic Bloom, murmur3 of the bytes, NewWithEstimates(n, fpp)",
		New: func(n int, fpp float64) (Filter, error) {
			return &bitsBloomFilter{f: bitsbloom.NewWithEstimates(uint(n), fpp)}, nil
		},
	})
	register(Spec{
		Name:    "bbloom",
		Library: "github.com/AndreasBriese/bbloom",
		Input:   InputBytes,
		Kind:    KindBloom,
		Note:    "classic Bloom, size rounded up to a power of two, New(n, fpp)",
		New: func(n int, fpp float64) (Filter, error) {
			return &bbloomFilter{f: bbloom.New(float64(n), fpp)}, nil
		},
	})
	register(Spec{
		Name:    "parquet-sbbf",
		Library: "github.com/parquet-go/parquet-go/bloom",
		Input:   InputHash,
		Kind:    KindBloom,
		Note:    "split-block (256-bit blocks, 8 probes), AVX2 on amd64; sized with NumSplitBlocksOf(n, bits) at the fewest whole bits/key the split-block formula allows for fpp",
		New: func(n int, fpp float64) (Filter, error) {
			bits := uint(1)
			for SplitBlockFPR(float64(bits)) > fpp {
				bits++
			}
			return &parquetFilter{f: make(pqbloom.SplitBlockFilter, pqbloom.NumSplitBlocksOf(int64(n), bits))}, nil
		},
	})
	register(Spec{
		Name:    "blobloom",
		Library: "github.com/greatroar/blobloom",
		Input:   InputHash,
		Kind:    KindBloom,
		Note:    "blocked Bloom, 512-bit blocks of 32-bit words, block picked by the hash's low half, k-1 bits set by double hashing its two halves; sized by NewOptimized(Config{Capacity: n, FPRate: fpp}): 11 bits/key and k = 8 at 1%, 17 and 12 at 0.1%; no batch call",
		New: func(n int, fpp float64) (Filter, error) {
			return &blobloomFilter{f: blobloom.NewOptimized(blobloom.Config{Capacity: uint64(n), FPRate: fpp})}, nil
		},
	})
	register(Spec{
		Name:    "seiflotfy-cuckoo",
		Library: "github.com/seiflotfy/cuckoofilter",
		Input:   InputBytes,
		Kind:    KindCuckoo,
		Note:    "8-bit fingerprints (fixed, FPR ~3%), capacity rounded up to a power of two; joins the 1% group only",
		New: func(n int, fpp float64) (Filter, error) {
			if fpp < 0.01 {
				return nil, ErrUnsupported
			}
			return &seiflotfyFilter{f: seiflotfy.NewFilter(uint(n))}, nil
		},
	})
	register(Spec{
		Name:    "panmari-cuckoo16",
		Library: "github.com/panmari/cuckoofilter",
		Input:   InputBytes,
		Kind:    KindCuckoo,
		Note:    "16-bit fingerprints (fixed, FPR ~1e-4), metro hash of the bytes, NewFilter(n): power-of-two bucket count, doubled past 96% load; 0.1% group only",
		New: func(n int, fpp float64) (Filter, error) {
			if fpp >= 0.01 {
				return nil, ErrUnsupported
			}
			return &panmariFilter{f: panmari.NewFilter(uint(n))}, nil
		},
	})
	register(Spec{
		Name:    "linvon-cuckoo8",
		Library: "github.com/linvon/cuckoo-filter",
		Input:   InputBytes,
		Kind:    KindCuckoo,
		Note:    "8-bit tags (FPR ~3%), metro hash of the bytes, NewFilter(4, 8, n, TableTypeSingle): 4-slot buckets, power-of-two bucket count, doubled past 96% load; the table sits behind an interface inside the library, and Add allocates 4 bytes per key (its kick-out tag escapes); 1% group only",
		New: func(n int, fpp float64) (Filter, error) {
			if fpp < 0.01 {
				return nil, ErrUnsupported
			}
			return &linvonFilter{f: linvon.NewFilter(4, 8, uint(n), linvon.TableTypeSingle)}, nil
		},
	})
	register(Spec{
		Name:    "linvon-cuckoo16",
		Library: "github.com/linvon/cuckoo-filter",
		Input:   InputBytes,
		Kind:    KindCuckoo,
		Note:    "16-bit tags (FPR ~1e-4), otherwise as linvon-cuckoo8: NewFilter(4, 16, n, TableTypeSingle); 0.1% group only",
		New: func(n int, fpp float64) (Filter, error) {
			if fpp >= 0.01 {
				return nil, ErrUnsupported
			}
			return &linvonFilter{f: linvon.NewFilter(4, 16, uint(n), linvon.TableTypeSingle)}, nil
		},
	})
	register(Spec{
		Name:    "xor-fuse8",
		Library: "github.com/FastFilter/xorfilter",
		Input:   InputHash,
		Kind:    KindStatic,
		Note:    "binary fuse filter, 8-bit fingerprints (FPR 0.39%), static: insert = build from all keys; 1% group",
		New: func(n int, fpp float64) (Filter, error) {
			if fpp < 0.01 {
				return nil, ErrUnsupported
			}
			return newFuseFilter[uint8](n), nil
		},
	})
	register(Spec{
		Name:    "xor-fuse16",
		Library: "github.com/FastFilter/xorfilter",
		Input:   InputHash,
		Kind:    KindStatic,
		Note:    "binary fuse filter, 16-bit fingerprints (FPR 0.0015%), static; 0.1% group",
		New: func(n int, fpp float64) (Filter, error) {
			if fpp >= 0.01 {
				return nil, ErrUnsupported
			}
			return newFuseFilter[uint16](n), nil
		},
	})
}

type bitsBloomFilter struct{ f *bitsbloom.BloomFilter }

func (a *bitsBloomFilter) Insert(k *Keys) error {
	for i := range k.Len() {
		a.f.Add(k.Key(i))
	}
	return nil
}

func (a *bitsBloomFilter) CountContains(k *Keys, lo, hi int) int {
	c := 0
	for i := lo; i < hi; i++ {
		if a.f.Test(k.Key(i)) {
			c++
		}
	}
	return c
}

func (a *bitsBloomFilter) SizeBytes() int { return int(a.f.Cap()+63) / 64 * 8 }

// Prefault clears every word of the bit set (ClearAll).
func (a *bitsBloomFilter) Prefault() { a.f.ClearAll() }

type bbloomFilter struct{ f bbloom.Bloom }

func (a *bbloomFilter) Insert(k *Keys) error {
	for i := range k.Len() {
		a.f.Add(k.Key(i))
	}
	return nil
}

func (a *bbloomFilter) CountContains(k *Keys, lo, hi int) int {
	c := 0
	for i := lo; i < hi; i++ {
		if a.f.Has(k.Key(i)) {
			c++
		}
	}
	return c
}

// SizeBytes reads bbloom's unexported size field (the bit count minus one)
// with reflect: the library has no accessor.
func (a *bbloomFilter) SizeBytes() int {
	bits := reflect.ValueOf(a.f).FieldByName("size").Uint() + 1
	return int(bits / 8)
}

// Prefault clears every word of the bit set (Clear).
func (a *bbloomFilter) Prefault() { a.f.Clear() }

type parquetFilter struct{ f pqbloom.SplitBlockFilter }

func (a *parquetFilter) Insert(k *Keys) error {
	for _, h := range k.Hashes {
		a.f.Insert(h)
	}
	return nil
}

func (a *parquetFilter) InsertBatch(k *Keys) error {
	a.f.InsertBulk(k.Hashes)
	return nil
}

func (a *parquetFilter) CountContains(k *Keys, lo, hi int) int {
	c := 0
	for _, h := range k.Hashes[lo:hi] {
		if a.f.Check(h) {
			c++
		}
	}
	return c
}

func (a *parquetFilter) SizeBytes() int { return len(a.f) * pqbloom.BlockSize }

// Prefault clears every block (Reset).
func (a *parquetFilter) Prefault() { a.f.Reset() }

type blobloomFilter struct{ f *blobloom.Filter }

func (a *blobloomFilter) Insert(k *Keys) error {
	for _, h := range k.Hashes {
		a.f.Add(h)
	}
	return nil
}

func (a *blobloomFilter) CountContains(k *Keys, lo, hi int) int {
	c := 0
	for _, h := range k.Hashes[lo:hi] {
		if a.f.Has(h) {
			c++
		}
	}
	return c
}

func (a *blobloomFilter) SizeBytes() int { return int(a.f.NumBits() / 8) }

// Prefault clears every block (Clear).
func (a *blobloomFilter) Prefault() { a.f.Clear() }

type seiflotfyFilter struct{ f *seiflotfy.Filter }

func (a *seiflotfyFilter) Insert(k *Keys) error {
	for i := range k.Len() {
		if !a.f.Insert(k.Key(i)) {
			return ErrFull
		}
	}
	return nil
}

func (a *seiflotfyFilter) CountContains(k *Keys, lo, hi int) int {
	c := 0
	for i := lo; i < hi; i++ {
		if a.f.Lookup(k.Key(i)) {
			c++
		}
	}
	return c
}

// SizeBytes reads the unexported bucket slice with reflect: 4 one-byte
// slots per bucket.
func (a *seiflotfyFilter) SizeBytes() int {
	return reflect.ValueOf(a.f).Elem().FieldByName("buckets").Len() * 4
}

// Prefault empties every bucket (Reset).
func (a *seiflotfyFilter) Prefault() { a.f.Reset() }

type panmariFilter struct{ f *panmari.Filter }

// Insert returns ErrFull at the first refused key: panmari's Insert has
// then already evicted a fingerprint it cannot place again.
func (a *panmariFilter) Insert(k *Keys) error {
	for i := range k.Len() {
		if !a.f.Insert(k.Key(i)) {
			return ErrFull
		}
	}
	return nil
}

func (a *panmariFilter) CountContains(k *Keys, lo, hi int) int {
	c := 0
	for i := lo; i < hi; i++ {
		if a.f.Lookup(k.Key(i)) {
			c++
		}
	}
	return c
}

// SizeBytes reads the unexported bucket slice with reflect: 4 two-byte
// slots per bucket (Encode would copy the table to measure it).
func (a *panmariFilter) SizeBytes() int {
	return reflect.ValueOf(a.f).Elem().FieldByName("buckets").Len() * 8
}

// Prefault empties every bucket (Reset).
func (a *panmariFilter) Prefault() { a.f.Reset() }

type linvonFilter struct{ f *linvon.Filter }

func (a *linvonFilter) Insert(k *Keys) error {
	for i := range k.Len() {
		if !a.f.Add(k.Key(i)) {
			return ErrFull
		}
	}
	return nil
}

func (a *linvonFilter) CountContains(k *Keys, lo, hi int) int {
	c := 0
	for i := lo; i < hi; i++ {
		if a.f.Contain(k.Key(i)) {
			c++
		}
	}
	return c
}

func (a *linvonFilter) SizeBytes() int { return int(a.f.SizeInBytes()) }

// Prefault zeroes every bucket word of the table (Reset).
func (a *linvonFilter) Prefault() { a.f.Reset() }

// fuseFilter is a FastFilter binary fuse filter with T-bit fingerprints.
type fuseFilter[T uint8 | uint16] struct {
	f *xorfilter.BinaryFuse[T]
	// scratch is the copy of the keys' hashes NewBinaryFuse works on (it
	// may reorder and deduplicate its argument), allocated by New for n
	// keys so that the timed build is charged for the copy (a memmove)
	// but not for the harness's allocation or its page faults.
	scratch []uint64
}

func newFuseFilter[T uint8 | uint16](n int) *fuseFilter[T] {
	return &fuseFilter[T]{scratch: make([]uint64, n)}
}

func (a *fuseFilter[T]) Insert(k *Keys) error {
	if cap(a.scratch) < k.Len() {
		a.scratch = make([]uint64, k.Len())
	}
	a.scratch = a.scratch[:k.Len()]
	copy(a.scratch, k.Hashes)
	f, err := xorfilter.NewBinaryFuse[T](a.scratch)
	if err != nil {
		return err
	}
	a.f = f
	return nil
}

// Prefault writes the scratch copy's pages. The filter's own arrays do not
// exist before the build: NewBinaryFuse allocates them (and its working
// arrays) inside the timed build, and their page faults are part of what
// building a static filter costs.
func (a *fuseFilter[T]) Prefault() { clear(a.scratch) }

func (a *fuseFilter[T]) CountContains(k *Keys, lo, hi int) int {
	c := 0
	for _, h := range k.Hashes[lo:hi] {
		if a.f.Contains(h) {
			c++
		}
	}
	return c
}

func (a *fuseFilter[T]) SizeBytes() int {
	if a.f == nil {
		return 0
	}
	var zero T
	return len(a.f.Fingerprints) * int(unsafe.Sizeof(zero))
}

// ErrFull is returned by Insert when a filter refuses a key.
var ErrFull = errors.New("bench: filter full")
