package bench

import "github.com/sift-go/sift/cuckoo"

func init() {
	register(Spec{
		Name:    "sift-cuckoo8",
		Library: "github.com/sift-go/sift/cuckoo",
		Input:   InputHash,
		Kind:    KindCuckoo,
		Sift:    true,
		Note:    "8-bit fingerprints (FPR ~3% at 95% load), New(n) sized for n keys at 95% load; 1% group",
		New: func(n int, fpp float64) (Filter, error) {
			if fpp < 0.01 {
				return nil, ErrUnsupported
			}
			return newSiftCuckoo(n, 8)
		},
	})
	register(Spec{
		Name:    "sift-cuckoo16",
		Library: "github.com/sift-go/sift/cuckoo",
		Input:   InputHash,
		Kind:    KindCuckoo,
		Sift:    true,
		Note:    "16-bit fingerprints (FPR ~1.2e-4 at 95% load); 0.1% group",
		New: func(n int, fpp float64) (Filter, error) {
			if fpp >= 0.01 {
				return nil, ErrUnsupported
			}
			return newSiftCuckoo(n, 16)
		},
	})
	register(Spec{
		Name:    "sift-cuckoo8-bytes",
		Library: "github.com/sift-go/sift/cuckoo",
		Input:   InputBytes,
		Kind:    KindCuckoo,
		Sift:    true,
		Note:    "sift-cuckoo8 fed key bytes (Add/Contains hash with XXH3 inside), for comparison with the byte-input cuckoo peers; 1% group",
		New: func(n int, fpp float64) (Filter, error) {
			if fpp < 0.01 {
				return nil, ErrUnsupported
			}
			return newSiftCuckooBytes(n, 8)
		},
	})
	register(Spec{
		Name:    "sift-cuckoo16-bytes",
		Library: "github.com/sift-go/sift/cuckoo",
		Input:   InputBytes,
		Kind:    KindCuckoo,
		Sift:    true,
		Note:    "sift-cuckoo16 fed key bytes (Add/Contains), for comparison with the byte-input cuckoo peers; 0.1% group",
		New: func(n int, fpp float64) (Filter, error) {
			if fpp >= 0.01 {
				return nil, ErrUnsupported
			}
			return newSiftCuckooBytes(n, 16)
		},
	})
}

func newSiftCuckoo(n, bits int) (Filter, error) {
	f, err := cuckoo.New(uint64(n), cuckoo.WithFingerprintBits(bits))
	if err != nil {
		return nil, err
	}
	return &siftCuckoo{f: f}, nil
}

type siftCuckoo struct{ f *cuckoo.Filter }

func (a *siftCuckoo) Insert(k *Keys) error {
	for _, h := range k.Hashes {
		if err := a.f.AddHash(h); err != nil {
			return err
		}
	}
	return nil
}

func (a *siftCuckoo) InsertBatch(k *Keys) error {
	_, err := a.f.AddHashes(k.Hashes)
	return err
}

func (a *siftCuckoo) CountContains(k *Keys, lo, hi int) int {
	c := 0
	for _, h := range k.Hashes[lo:hi] {
		if a.f.ContainsHash(h) {
			c++
		}
	}
	return c
}

func (a *siftCuckoo) CountContainsBatch(hs []uint64, out []bool) int {
	return a.f.ContainsHashes(hs, out)
}

func (a *siftCuckoo) SizeBytes() int { return int(a.f.SizeBytes()) }

// Prefault does nothing: the constructor touched every page (mem.Alloc).
func (a *siftCuckoo) Prefault() {}

func (a *siftCuckoo) Close() error { return a.f.Close() }

func newSiftCuckooBytes(n, bits int) (Filter, error) {
	f, err := cuckoo.New(uint64(n), cuckoo.WithFingerprintBits(bits))
	if err != nil {
		return nil, err
	}
	return &siftCuckooBytes{f: f}, nil
}

// siftCuckooBytes is sift's cuckoo filter hashing each key's bytes itself
// (Add and Contains: XXH3 of the key, as sift-blocked-bytes does), the
// input the cuckoo peers take.
type siftCuckooBytes struct{ f *cuckoo.Filter }

func (a *siftCuckooBytes) Insert(k *Keys) error {
	for i := range k.Len() {
		if err := a.f.Add(k.Key(i)); err != nil {
			return err
		}
	}
	return nil
}

func (a *siftCuckooBytes) CountContains(k *Keys, lo, hi int) int {
	c := 0
	for i := lo; i < hi; i++ {
		if a.f.Contains(k.Key(i)) {
			c++
		}
	}
	return c
}

func (a *siftCuckooBytes) SizeBytes() int { return int(a.f.SizeBytes()) }

// Prefault does nothing: the constructor touched every page (mem.Alloc).
func (a *siftCuckooBytes) Prefault() {}

func (a *siftCuckooBytes) Close() error { return a.f.Close() }
