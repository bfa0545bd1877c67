package bench

import "github.com/sift-go/sift/blocked"

func init() {
	register(Spec{
		Name:    "sift-blocked",
		Library: "github.com/sift-go/sift/blocked",
		Input:   InputHash,
		Kind:    KindBloom,
		Sift:    true,
		Note:    "512-bit blocks, sized by New(n, fpp); ContainsHash per key, ContainsHashes in batch",
		New: func(n int, fpp float64) (Filter, error) {
			f, err := blocked.New(uint64(n), fpp)
			if err != nil {
				return nil, err
			}
			return &siftBlocked{f: f}, nil
		},
	})
	register(Spec{
		Name:    "sift-blocked-bytes",
		Library: "github.com/sift-go/sift/blocked",
		Input:   InputBytes,
		Kind:    KindBloom,
		Sift:    true,
		Note:    "sift-blocked fed key bytes (Add/Contains hash with XXH3 inside), for comparison with the byte-input peers",
		New: func(n int, fpp float64) (Filter, error) {
			f, err := blocked.New(uint64(n), fpp)
			if err != nil {
				return nil, err
			}
			return &siftBlockedBytes{f: f}, nil
		},
	})
}

type siftBlocked struct{ f *blocked.Filter }

func (a *siftBlocked) Insert(k *Keys) error {
	for _, h := range k.Hashes {
		a.f.AddHash(h)
	}
	return nil
}

func (a *siftBlocked) InsertBatch(k *Keys) error {
	a.f.AddHashes(k.Hashes)
	return nil
}

func (a *siftBlocked) CountContains(k *Keys, lo, hi int) int {
	c := 0
	for _, h := range k.Hashes[lo:hi] {
		if a.f.ContainsHash(h) {
			c++
		}
	}
	return c
}

func (a *siftBlocked) CountContainsBatch(hs []uint64, out []bool) int {
	return a.f.ContainsHashes(hs, out)
}

func (a *siftBlocked) SizeBytes() int { return int(a.f.Bits() / 8) }

// Prefault does nothing: the constructor touched every page (mem.Alloc).
func (a *siftBlocked) Prefault() {}

func (a *siftBlocked) Close() error { return a.f.Close() }

type siftBlockedBytes struct{ f *blocked.Filter }

func (a *siftBlockedBytes) Insert(k *Keys) error {
	for i := range k.Len() {
		a.f.Add(k.Key(i))
	}
	return nil
}

func (a *siftBlockedBytes) CountContains(k *Keys, lo, hi int) int {
	c := 0
	for i := lo; i < hi; i++ {
		if a.f.Contains(k.Key(i)) {
			c++
		}
	}
	return c
}

func (a *siftBlockedBytes) SizeBytes() int { return int(a.f.Bits() / 8) }

// Prefault does nothing: the constructor touched every page (mem.Alloc).
func (a *siftBlockedBytes) Prefault() {}

func (a *siftBlockedBytes) Close() error { return a.f.Close() }
