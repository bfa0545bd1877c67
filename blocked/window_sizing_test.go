package blocked

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"
)

// TestLaneModelMatchesBlock checks the lane model against the block model
// it generalizes: at eight words a lane (a 512-bit block) laneMoments must
// give blockMoments' rate and square for every k and a range of loads,
// and at two and four words it must agree with a direct computation of
// the rate (every word's c probes all finding set bits, no collision
// term) where the probes cannot coincide (one probe a word).
func TestLaneModelMatchesBlock(t *testing.T) {
	for k := 1; k <= MaxK; k++ {
		ones, twos := wordsByProbes(k)
		for _, load := range []float64{0, 1, 3, 7.5, 20, 60} {
			hit, sq := laneMoments(load, k, 8)
			wantHit, wantSq := blockMoments(load, ones, twos)
			if math.Abs(hit-wantHit) > 1e-12*math.Max(wantHit, 1e-300)+1e-300 || math.Abs(sq-wantSq) > 1e-9*wantSq+1e-300 {
				t.Fatalf("k=%d load %g: lane model %g / %g, block model %g / %g", k, load, hit, sq, wantHit, wantSq)
			}
		}
	}
	// One probe a word (k <= w): the word's bit is set after load draws
	// with 1-(63/64)^load, and the words are independent.
	for _, w := range []int{2, 4} {
		for k := 1; k <= w; k++ {
			for _, load := range []float64{1, 10, 40} {
				hit, _ := laneMoments(load, k, w)
				want := math.Pow(1-math.Pow(63.0/64, load), float64(k))
				collide := -math.Expm1(load * math.Log1p(-0x1p-32))
				want += (1 - want) * collide
				if math.Abs(hit-want) > 1e-12 {
					t.Fatalf("w=%d k=%d load %g: %g, want %g", w, k, load, hit, want)
				}
			}
		}
	}
}

// TestOptimalWindowSizeMatchesNewWindow checks that OptimalWindowSize gives
// the shape NewWindow allocates (generations, capacity, groups, k, blocks,
// lane bits and bytes) over a range of n, fpp, G and WithSliceKeys, and
// the same error for parameters NewWindow refuses.
func TestOptimalWindowSizeMatchesNewWindow(t *testing.T) {
	epoch := WithClock(func() time.Time { return time.Unix(0, 0) })
	check := func(name string, n uint64, fpp float64, window time.Duration, opts ...Option) {
		t.Helper()
		size, err := OptimalWindowSize(n, fpp, opts...)
		w, werr := NewWindow(n, fpp, window, append([]Option{epoch}, opts...)...)
		if werr != nil {
			if err == nil || err.Error() != werr.Error() {
				t.Errorf("%s: OptimalWindowSize: %+v, %v; NewWindow: %v", name, size, err, werr)
			}
			return
		}
		defer w.Close()
		if err != nil {
			t.Errorf("%s: OptimalWindowSize: %v; NewWindow made a window", name, err)
			return
		}
		got := [...]uint64{uint64(size.Generations), size.Capacity, size.Groups, uint64(size.K), size.Blocks(), uint64(size.LaneBits()), size.SizeBytes()}
		want := [...]uint64{uint64(w.Generations()), w.Capacity(), w.Groups(), uint64(w.K()), w.Blocks(), uint64(w.LaneBits()), w.SizeBytes()}
		if got != want {
			t.Errorf("%s: OptimalWindowSize gives G, capacity, groups, k, blocks, lane bits, bytes %v; NewWindow %v", name, got, want)
		}
	}
	ns := []uint64{0, 1, 2, 3, 7, 100, 12_345, 1_000_000}
	fpps := []float64{0.5, 0.01, 1e-3, 1e-5}
	if testing.Short() {
		ns, fpps = []uint64{0, 1, 3, 100, 12_345}, []float64{0.5, 0.01, 1e-5}
	}
	for _, g := range []int{2, 4, 8, 16, 32, 64} {
		for _, n := range ns {
			for _, fpp := range fpps {
				check(fmt.Sprintf("n=%d fpp=%g G=%d", n, fpp, g), n, fpp, time.Hour, WithGenerations(g))
			}
			check(fmt.Sprintf("n=%d G=%d slice keys 50", n, g), n, 0.01, 0, WithGenerations(g), WithSliceKeys(50))
		}
	}
	check("default G", 1000, 0.01, time.Hour)
	// Refused: each must give NewWindow's error, of the sentinel named.
	for _, c := range []struct {
		name   string
		n      uint64
		fpp    float64
		opts   []Option
		target error
	}{
		{"G = 3", 1000, 0.01, []Option{WithGenerations(3)}, ErrInvalidOption},
		{"G = 128", 1000, 0.01, []Option{WithGenerations(128)}, ErrInvalidOption},
		{"fpp 0", 1000, 0, nil, ErrInvalidFPP},
		{"fpp 1", 1000, 1, nil, ErrInvalidFPP},
		{"fpp NaN", 1000, math.NaN(), nil, ErrInvalidFPP},
		{"fpp below MinFPP", 1000, 1e-9, nil, ErrFPPTooLow},
		{"a generation's rate below MinFPP", 1000, 2e-8, nil, ErrFPPTooLow},
		{"n too large", 1e15, 0.01, nil, ErrTooLarge},
		{"n = MaxUint64", math.MaxUint64, 0.01, nil, ErrTooLarge},
		{"WithMaxSize", 1_000_000, 0.01, []Option{WithMaxSize(1 << 20)}, ErrTooLarge},
	} {
		_, err := OptimalWindowSize(c.n, c.fpp, c.opts...)
		if !errors.Is(err, c.target) {
			t.Errorf("%s: OptimalWindowSize: %v, want an error wrapping %v", c.name, err, c.target)
		}
		check(c.name, c.n, c.fpp, time.Hour, c.opts...)
	}
}

// TestWindowSlice: window/(g-1) rounded up, so that g-1 slices cover the
// window and fit a time.Duration; refused for a window shorter than g-1 ns,
// one whose slices would overflow, and a g a Window does not take.
func TestWindowSlice(t *testing.T) {
	for _, c := range []struct {
		window time.Duration
		g      int
		want   time.Duration
	}{
		{time.Hour, 4, 20 * time.Minute},
		{10 * time.Second, 4, 3333333334},
		{3, 4, 1},
		{math.MaxInt64 / 3 * 3, 4, math.MaxInt64 / 3},
	} {
		got, err := WindowSlice(c.window, c.g)
		if err != nil || got != c.want {
			t.Errorf("WindowSlice(%d, %d) = %d, %v; want %d", c.window, c.g, got, err, c.want)
		}
	}
	for _, c := range []struct {
		window time.Duration
		g      int
	}{{2, 4}, {math.MaxInt64, 4}, {time.Hour, 3}, {time.Hour, 1}, {time.Hour, 2 * MaxGenerations}} {
		if got, err := WindowSlice(c.window, c.g); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("WindowSlice(%d, %d) = %d, %v; want ErrInvalidOption", c.window, c.g, got, err)
		}
	}
}
