package classic

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactPow is x^k computed exactly with math/big and rounded once, written
// independently of bigPow: exponentiation by squaring in big.Float at a
// precision that holds every product exactly.
func exactPow(x float64, k int) float64 {
	prec := uint(53*k + 64)
	b := new(big.Float).SetPrec(prec).SetFloat64(x)
	p := new(big.Float).SetPrec(prec).SetFloat64(1)
	for n := k; n > 0; n >>= 1 {
		if n&1 != 0 {
			p.Mul(p, b)
		}
		b.Mul(b, b)
	}
	f, _ := p.Float64()
	return f
}

// TestPowIntCorrectlyRounded checks powInt, which ExpectedFpp uses, against
// the exact power rounded once, on Guava-shaped states (bitCount/bitSize
// with bitSize a multiple of 64, k up to 255), the state of issue 17, exact
// midpoints (ties to even), and results in the subnormal range.
func TestPowIntCorrectlyRounded(t *testing.T) {
	type state struct {
		x float64
		k int
	}
	states := []state{
		{7720.0 / 10432, 3},               // issue 17
		{(1<<27 - 1) / float64(1<<27), 2}, // x^2 = (2^54 - 2^28 + 1) 2^-54: a midpoint
		{(1<<27 + 1) / float64(1<<28), 2}, // below 1/2: another binade
		{1 - 0x1p-30, 255},
		{0x1p-37, 28},     // 2^-1036: subnormal
		{0x1p-25, 43},     // 2^-1075: half the least subnormal, rounds to 0
		{5 * 0x1p-215, 5}, // 1562.5 * 2^-1074: a subnormal midpoint, rounds to 1562
		{3 * 0x1p-215, 5}, // 121.5 * 2^-1074: rounds to 122
		{3 * 0x1p-40, 27},
		{0x1p-5, 255}, // 2^-1275: 0
		{1 / 3.0, 255},
	}
	r := rand.New(rand.NewPCG(17, 17))
	n := 100_000
	if testing.Short() {
		n = 3_000 // math/big is slow under the race detector and emulators
	}
	for range n {
		words := 1 + r.Uint64N(1<<uint(r.IntN(25)))
		bitSize := 64 * words
		bitCount := r.Uint64N(bitSize + 1)
		k := 1 + r.IntN(30)
		if r.IntN(4) == 0 {
			k = 1 + r.IntN(MaxHashFunctions)
		}
		states = append(states, state{float64(bitCount) / float64(bitSize), k})
	}
	for _, s := range states {
		got, want := powInt(s.x, s.k), exactPow(s.x, s.k)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("powInt(%v, %d) = %v (%#x), correctly rounded %v (%#x)", s.x, s.k, got, math.Float64bits(got), want, math.Float64bits(want))
		}
		if b := bigPow(s.x, s.k); math.Float64bits(b) != math.Float64bits(want) {
			t.Fatalf("bigPow(%v, %d) = %v, correctly rounded %v", s.x, s.k, b, want)
		}
	}
	// The midpoint rounds to even, as only the exact fallback can decide.
	x := (1<<27 - 1) / float64(1<<27)
	if got, below := powInt(x, 2), 1-0x1p-26; got != below {
		t.Errorf("midpoint (1-2^-27)^2 = %v, want %v (the even neighbour)", got, below)
	}
	// Subnormal midpoints round to even too.
	if got := powInt(0x1p-25, 43); got != 0 {
		t.Errorf("2^-1075 -> %v, want 0", got)
	}
	if got, want := powInt(5*0x1p-215, 5), math.Ldexp(1562, -1074); got != want {
		t.Errorf("1562.5 * 2^-1074 -> %v, want %v", got, want)
	}
}

// TestExpectedFppIssue17 checks the two values of the state of issue 17
// ((7720/10432)^3): Guava on x86-64 HotSpot returns the correctly rounded
// power, Guava where Math.pow is StrictMath.pow returns fdlibm's.
func TestExpectedFppIssue17(t *testing.T) {
	f := newFilter(make([]uint64, 10432/64), 3, Murmur128Mitz64)
	for i := range 7720 {
		f.words[i/64] |= 1 << (i % 64)
	}
	f.bitCount = 7720
	if got, want := f.ExpectedFpp(), 0.4052743947269663; got != want {
		t.Errorf("ExpectedFpp = %v, want %v (correctly rounded)", got, want)
	}
	if got, want := f.StrictExpectedFpp(), 0.40527439472696625; got != want {
		t.Errorf("StrictExpectedFpp = %v, want %v (StrictMath.pow)", got, want)
	}
	c := &Counting{words: make([]uint64, 10432/16), m: 10432, k: 3, nonzero: 7720}
	if got, want := c.ExpectedFpp(), 0.4052743947269663; got != want {
		t.Errorf("Counting.ExpectedFpp = %v, want %v", got, want)
	}
}

func BenchmarkPowInt(b *testing.B) {
	x := 7720.0 / 10432
	var sink float64
	for b.Loop() {
		sink += powInt(x, 7)
	}
	_ = sink
}
