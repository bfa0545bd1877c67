package classic

import "math"

// javaLog1p returns log(1+x) exactly as Java's Math.log1p (fdlibm's
// s_log1p.c, which StrictMath specifies and HotSpot uses for Math.log1p) on
// every platform, for Guava's approximateElementCount.
//
// Go's math.Log1p implements the same algorithm, but the Go compiler may
// fuse a multiplication and an addition into one FMA instruction on some
// architectures (arm64, ppc64, s390x, riscv64), which changes the last bit
// of the result: measured under qemu, math.Log1p on arm64 differs from Java
// on the golden vectors. Here every product that feeds an addition is
// rounded explicitly with a float64 conversion, which the language
// specification says prevents fusion, so the result is fdlibm's everywhere.
//
// The method: write 1+x = 2^k (1+f) with sqrt(2)/2 < 1+f < sqrt(2), keep a
// correction c for the rounding of 1+x, then with s = f/(2+f),
// log(1+f) = f - (f^2/2 - s (f^2/2 + R(s^2))) where R is a degree-7
// minimax polynomial, and add k ln 2 in two parts.
func javaLog1p(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01 // 0x3fe62e42fee00000
		ln2Lo = 1.90821492927058770002e-10 // 0x3dea39ef35793c76
		two54 = 1 << 54
		lp1   = 6.666666666666735130e-01 // 0x3fe5555555555593
		lp2   = 3.999999999940941908e-01 // 0x3fd999999997fa04
		lp3   = 2.857142874366239149e-01 // 0x3fd2492494229359
		lp4   = 2.222219843214978396e-01 // 0x3fcc71c51d8e78af
		lp5   = 1.818357216161805012e-01 // 0x3fc7466496cb03de
		lp6   = 1.531383769920937332e-01 // 0x3fc39a09d078c69f
		lp7   = 1.479819860511658591e-01 // 0x3fc2f112df3e5244
	)
	hx := int32(math.Float64bits(x) >> 32) // high word, signed as in C
	ax := hx & 0x7fffffff

	k := int32(1)
	var f, c float64
	var hu int32
	if hx < 0x3fda827a { // x < 0.41422
		if ax >= 0x3ff00000 { // x <= -1
			if x == -1 {
				return math.Inf(-1)
			}
			return math.NaN()
		}
		if ax < 0x3e200000 { // |x| < 2^-29
			if ax < 0x3c900000 { // |x| < 2^-54
				return x
			}
			return x - float64(float64(x*x)*0.5)
		}
		if hx > 0 || hx <= int32(-0x402d413d) { // -0.2929 < x < 0.41422 (hx <= 0xbfd2bec3 as signed)
			k, f, hu = 0, x, 1
		}
	}
	if hx >= 0x7ff00000 {
		return x + x
	}
	if k != 0 {
		var u float64
		if hx < 0x43400000 {
			u = 1 + x
			hu = int32(math.Float64bits(u) >> 32)
			k = (hu >> 20) - 1023
			if k > 0 { // correction term for the rounding of 1+x
				c = 1 - (u - x)
			} else {
				c = x - (u - 1)
			}
			c /= u
		} else {
			u = x
			hu = int32(math.Float64bits(u) >> 32)
			k = (hu >> 20) - 1023
			c = 0
		}
		hu &= 0x000fffff
		low := math.Float64bits(u) & 0xffffffff
		if hu < 0x6a09e { // normalise u into [sqrt(2)/2, sqrt(2))
			u = math.Float64frombits(uint64(uint32(hu|0x3ff00000))<<32 | low)
		} else {
			k++
			u = math.Float64frombits(uint64(uint32(hu|0x3fe00000))<<32 | low)
			hu = (0x00100000 - hu) >> 2
		}
		f = u - 1
	}
	hfsq := float64(float64(0.5*f) * f)
	dk := float64(k)
	if hu == 0 { // |f| < 2^-20
		if f == 0 {
			if k == 0 {
				return 0
			}
			c += float64(dk * ln2Lo)
			return float64(dk*ln2Hi) + c
		}
		r := float64(hfsq * (1 - float64(0.66666666666666666*f)))
		if k == 0 {
			return f - r
		}
		return float64(dk*ln2Hi) - ((r - (float64(dk*ln2Lo) + c)) - f)
	}
	s := f / (2 + f)
	z := float64(s * s)
	// R = z*(lp1 + z*(lp2 + ... + z*lp7)), one rounded step at a time.
	r := float64(z * lp7)
	r = float64(z * (lp6 + r))
	r = float64(z * (lp5 + r))
	r = float64(z * (lp4 + r))
	r = float64(z * (lp3 + r))
	r = float64(z * (lp2 + r))
	r = float64(z * (lp1 + r))
	if k == 0 {
		return f - (hfsq - float64(s*(hfsq+r)))
	}
	return float64(dk*ln2Hi) - ((hfsq - (float64(s*(hfsq+r)) + (float64(dk*ln2Lo) + c))) - f)
}
