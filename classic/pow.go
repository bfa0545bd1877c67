package classic

import "math"

// powInt returns x^k for 0 <= x <= 1 and k >= 0, correctly rounded except in
// cases within about 2^-100 of a rounding tie (and in the subnormal range,
// where it may be one unit in the last place off).
//
// Guava's expectedFpp is Java's Math.pow(fraction, k). HotSpot's Math.pow is
// accurate to well under one ulp and in practice returns the correctly
// rounded power; Go's math.Pow multiplies by repeated squaring in plain
// float64 and drifts by several ulps for k near 255. So this squares in
// double-double arithmetic (an exact product via FMA plus a correction word)
// and rounds once at the end.
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
	rh, rl := 1.0, 0.0 // result, as a double-double
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
	// rh is the double nearest to rh + rl (ddMul keeps the pair normalised).
	// Fold in the exponent: exact unless the result is subnormal.
	m, e := math.Frexp(rh)
	e += exp * k
	if e < -1021 {
		// Subnormal or zero: let Ldexp round; the correction word would
		// only matter at an exact tie.
		return math.Ldexp(rh+rl, exp*k)
	}
	return math.Ldexp(m, e)
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
