package bench

import "github.com/sift-go/sift/classic"

func init() {
	register(Spec{
		Name:    "sift-classic",
		Library: "github.com/sift-go/sift/classic",
		Input:   InputBytes,
		Kind:    KindBloom,
		Sift:    true,
		Note:    "Guava-compatible classic Bloom (MURMUR128_MITZ_64), New(n, fpp, Murmur128Mitz64)",
		New: func(n int, fpp float64) (Filter, error) {
			f, err := classic.New(int64(n), fpp)
			if err != nil {
				return nil, err
			}
			return &siftClassic{f: f}, nil
		},
	})
}

type siftClassic struct{ f *classic.Filter }

func (a *siftClassic) Insert(k *Keys) error {
	for i := range k.Len() {
		a.f.Put(k.Key(i))
	}
	return nil
}

func (a *siftClassic) CountContains(k *Keys, lo, hi int) int {
	c := 0
	for i := lo; i < hi; i++ {
		if a.f.MightContain(k.Key(i)) {
			c++
		}
	}
	return c
}

func (a *siftClassic) SizeBytes() int { return int(a.f.BitSize() / 8) }

// Prefault does nothing: the constructor touched every page (mem.Alloc).
func (a *siftClassic) Prefault() {}

func (a *siftClassic) Close() error { return a.f.Close() }
