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
