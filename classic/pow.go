package classic

import (
	"math"
	"math/big"
)

// powInt returns x^k correctly rounded (to nearest, ties to even), for
// 0 <= x <= 1 and 0 <= k <= 255 (MaxHashFunctions), the subnormal range
// included.
//
// Guava's expectedFpp is Java's Math.pow(fraction, k). HotSpot's Math.pow on
// x86-64 (an intrinsic) returns the correctly rounded power in all but about
// 0.05% of such states, where it is one ulp off (see ExpectedFpp); Go's
// math.Pow multiplies by repeated squaring in plain float64 and drifts by
// several ulps for k near 255. So this squares in double-double arithmetic
// (an exact product via FMA plus a correction word), which carries a
// relative error below 2^-98 for k <= 255, and rounds once at the end. When
// the double-double value lies so close to a rounding boundary (a midpoint
// between two doubles) that the error could put the exact value on either
// side, about once in 2^27 calls, it computes the power exactly with
// math/big instead.
func powInt(x float64, k int) float64 {
	switch {
	case k == 0 || x == 1:
		return 1
	case x == 0:
		return 0
	case x != x:
		return x
	}
	// x = frac * 2^exp with frac in [0.5, 1): frac^k >= 2^-255 cannot
	// underflow, and the exponent is applied exactly at the end.
	frac, exp := math.Frexp(x)
	rh, rl := 1.0, 0.0 // frac^k, as a double-double: rh = fl(rh + rl)
	bh, bl := frac, 0.0
	for n := k; ; {
		if n&1 != 0 {
			rh, rl = ddMul(rh, rl, bh, bl)
		}
		n >>= 1
		if n == 0 {
			break
		}
		bh, bl = ddMul(bh, bl, bh, bl)
	}
	// The result is (rh + rl) * 2^(exp*k). Measure rh + rl in units of
	// the result's last place, q: 2^(e-53) for a result in [2^(e-1), 2^e)
	// of the normal range, 2^-1074 below it. The scaling is by a power of
	// two, exact for rh (and for rl unless it underflows, where it is too
	// small to matter).
	m, e := math.Frexp(rh)
	e += exp * k // rh * 2^(exp*k) = m * 2^e, m in [0.5, 1)
	qexp := max(e-53, -1074)
	a := math.Ldexp(rh, exp*k-qexp) // an integer in [2^52, 2^53) for a normal result
	b := math.Ldexp(rl, exp*k-qexp) // |b| <= 1/2 there
	// tol bounds the double-double's error in these units: 2^-80 of a
	// value below 2^53.
	const tol = 0x1p-27
	if e-53 >= -1074 {
		// Normal: the nearest doubles are a - 1 (a - 1/2 when m = 1/2,
		// the binade below being twice as fine) and a + 1, so the result
		// is a unless b is at a midpoint, within the tolerance.
		if math.Abs(b) > 0.5-tol || m == 0.5 && math.Abs(b+0.25) < tol {
			return bigPow(x, k)
		}
		return math.Ldexp(m, e)
	}
	// Subnormal (or zero): round a + b to an integer number of 2^-1074.
	lo := math.Floor(a)
	t := (a - lo) + b + 0.5 // the exact value of a + b lies within tol of lo + t - 1/2
	if f := t - math.Floor(t); f < tol || f > 1-tol {
		return bigPow(x, k)
	}
	return math.Ldexp(lo+math.Floor(t), -1074)
}

// ddMul multiplies two double-double numbers (ah+al)*(bh+bl) and returns
// the product normalised so that hi = fl(hi + lo).
func ddMul(ah, al, bh, bl float64) (float64, float64) {
	p := float64(ah * bh)                // the conversion forbids fusing this product into p + e below
	e := math.FMA(ah, bh, -p)            // the exact rounding error of ah*bh
	e += float64(ah*bl) + float64(al*bh) // rounded as written on every platform
	hi := p + e
	lo := e - (hi - p)
	return hi, lo
}

// bigPow returns x^k correctly rounded, computed exactly: x = m 2^e with m
// an integer of at most 53 bits, so x^k = m^k 2^(ek), an integer of at most
// 53k bits (math/big's Exp) scaled by a power of two, rounded once.
func bigPow(x float64, k int) float64 {
	frac, e := math.Frexp(x)
	m := new(big.Int).SetUint64(uint64(math.Ldexp(frac, 53))) // exact
	m.Exp(m, big.NewInt(int64(k)), nil)
	f := new(big.Float).SetPrec(uint(m.BitLen()) + 1).SetInt(m) // exact
	f.SetMantExp(f, (e-53)*k)
	r, _ := f.Float64()
	return r
}
