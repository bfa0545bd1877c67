package classic

import "math"

// strictPow returns x**y exactly as Java's StrictMath.pow: the algorithm of
// fdlibm's e_pow.c (Sun's freely distributable math library), which the Java
// specification requires of StrictMath.pow, evaluated with the same float64
// operations in the same order, so that every result agrees to the last bit.
//
// The method:
//
//  1. Write |x| = 2^n * m with m in [sqrt(2)/2, sqrt(2)) relative to a base
//     b of 1 or 1.5, and compute log2|x| = n + log2(b) + 2/(3 ln 2) *
//     (s + s^3/3 + ...), s = (m-b)/(m+b), as a sum t1 + t2 whose first part
//     has its low 32 bits zero, so that products with it are exact.
//  2. Multiply by y = y1 + y2 (y1 likewise truncated) in two parts to get
//     y*log2|x| = z = ph + pl without losing the bits that matter.
//  3. Split z = n + f with |f| <= 1/2, approximate 2^f = e^(f ln 2) by
//     1 + r + r R(r)/(2 - R(r)) with a degree-5 minimax polynomial R, and
//     add n to the exponent.
//
// Special arguments follow Java's StrictMath.pow (y = 0, 1, -1, 2, 1/2,
// infinities, NaNs, zeros, negative x with integral or non-integral y).
//
// Go may fuse a product and a sum into one fused multiply-add on arm64,
// ppc64, riscv64 and s390x, which changes last bits; every product that
// feeds an addition is therefore converted to float64 explicitly, which the
// language specification says forces the rounding, so the result is the
// same on every platform.
func strictPow(x, y float64) float64 {
	const (
		// log2 by the series in s, around the bases 1 and 1.5.
		cp   = 0x1.ec709dc3a03fdp-1   // 2/(3 ln 2)
		cpH  = 0x1.ec709ep-1          // cp rounded to 24 bits
		cpL  = -0x1.e2fe0145b01f5p-28 // cp - cpH
		l1   = 0x1.3333333333303p-1   // polynomial for (3/2)(log(x) - 2s - 2s^3/3)
		l2   = 0x1.b6db6db6fabffp-2
		l3   = 0x1.55555518f264dp-2
		l4   = 0x1.17460a91d4101p-2
		l5   = 0x1.d864a93c9db65p-3
		l6   = 0x1.a7e284a454eefp-3
		dpH1 = 0x1.2b8034p-1         // log2(1.5), high part
		dpL1 = 0x1.cfdeb43cfd006p-27 // log2(1.5) - dpH1

		// log2 for |x| within 2^-20 of 1, when |y| is huge.
		invLn2  = 0x1.71547652b82fep0   // 1/ln 2
		invLn2H = 0x1.715476p0          // 24 bits of it
		invLn2L = 0x1.4ae0bf85ddf44p-26 // the rest

		// 2^f.
		p1   = 0x1.555555555553ep-3
		p2   = -0x1.6c16c16bebd93p-9
		p3   = 0x1.1566aaf25de2cp-14
		p4   = -0x1.bbd41c5d26bf1p-20
		p5   = 0x1.6376972bea4d0p-25
		lg2  = 0x1.62e42fefa39efp-1      // ln 2
		lg2H = 0x1.62e43p-1              // ln 2 to 24 bits
		lg2L = -0x1.05c610ca86c39p-29    // ln 2 - lg2H
		ovt  = 8.0085662595372944372e-17 // -(1024 - log2(MaxFloat64 + ulp/2))
	)

	if y == 0 {
		return 1
	}
	if x != x || y != y {
		return x + y
	}
	ya, xa := math.Abs(y), math.Abs(x)
	switch {
	case y == 2:
		return x * x
	case y == 0.5:
		if x >= -math.MaxFloat64 { // -Inf is handled below
			return math.Sqrt(x + 0) // -0 + 0 is +0
		}
	case ya == 1:
		if y == 1 {
			return x
		}
		return 1 / x
	case math.IsInf(y, 0):
		switch {
		case xa == 1:
			return math.NaN()
		case xa > 1:
			if y > 0 {
				return y
			}
			return 0
		}
		if y < 0 {
			return -y
		}
		return 0
	}

	hx := hiWord(x)
	ix := hx & 0x7fffffff

	// For x < 0: is y an odd integer (1), an even one (2) or neither (0)?
	yIsInt := int32(0)
	if hx < 0 {
		if ya >= 1<<53 {
			yIsInt = 2 // every float64 this large is even
		} else if ya >= 1 {
			if l := int64(ya); float64(l) == ya {
				yIsInt = 2 - int32(l&1)
			}
		}
	}

	// x is ±0, ±Inf or ±1.
	if xa == 0 || math.IsInf(xa, 0) || xa == 1 {
		z := xa
		if y < 0 {
			z = 1 / z
		}
		if hx < 0 {
			if ix == 0x3ff00000 && yIsInt == 0 {
				return math.NaN() // (-1)**non-integer
			}
			if yIsInt == 1 {
				z = -z
			}
		}
		return z
	}

	if hx < 0 && yIsInt == 0 {
		return math.NaN() // negative**non-integer
	}
	s := 1.0 // sign of the result
	if hx < 0 && yIsInt == 1 {
		s = -1
	}

	// t1 + t2 = log2|x|, t1 with its low word zero.
	var t1, t2 float64
	if ya > 0x1.00000ffffffffp31 {
		// |y| > about 2^31: the result over- or underflows unless |x| is
		// within 2^-20 of 1, where four terms of log(1+t) suffice.
		if xa < 0x1.fffff00000000p-1 {
			if y < 0 {
				return s * math.Inf(1)
			}
			return s * 0
		}
		if xa > 0x1.00000ffffffffp0 {
			if y > 0 {
				return s * math.Inf(1)
			}
			return s * 0
		}
		t := xa - 1
		w := float64(t*t) * (0.5 - float64(t*(0.3333333333333333333333-float64(t*0.25))))
		u := float64(invLn2H * t)
		v := float64(t*invLn2L) - float64(w*invLn2)
		t1 = clearLo(u + v)
		t2 = v - (t1 - u)
	} else {
		n := int32(0)
		if ix < 0x00100000 { // subnormal x: scale it up
			xa *= 1 << 53
			n -= 53
			ix = hiWord(xa)
		}
		n += ix>>20 - 0x3ff
		j := ix & 0x000fffff
		ix = j | 0x3ff00000 // the mantissa as a number in [1, 2)
		k := int32(0)       // the base: 1 (k = 0) or 1.5 (k = 1)
		switch {
		case j <= 0x3988e: // below sqrt(3/2)
		case j < 0xbb67a: // below sqrt(3)
			k = 1
		default: // halve it
			n++
			ix -= 0x00100000
		}
		xa = withHi(xa, ix)
		bp, dpH, dpL := 1.0, 0.0, 0.0
		if k == 1 {
			bp, dpH, dpL = 1.5, dpH1, dpL1
		}

		// ss = sh + sl = (xa - bp) / (xa + bp), sh with its low word zero.
		u := xa - bp
		v := 1 / (xa + bp)
		ss := float64(u * v)
		sh := clearLo(ss)
		th := fromHi(uint32(ix>>1|0x20000000) + 0x00080000 + uint32(k)<<18) // xa + bp, high part
		tl := xa - (th - bp)
		sl := float64(v * ((u - float64(sh*th)) - float64(sh*tl)))

		// log(xa) in terms of ss.
		s2 := float64(ss * ss)
		r := float64(float64(s2*s2) * (l1 + float64(s2*(l2+float64(s2*(l3+float64(s2*(l4+float64(s2*(l5+float64(s2*l6)))))))))))
		r += float64(sl * (sh + ss))
		s2 = float64(sh * sh)
		th = clearLo(3 + s2 + r)
		tl = r - ((th - 3) - s2)
		// u + v = ss * (1 + ...)
		u = float64(sh * th)
		v = float64(sl*th) + float64(tl*ss)
		// 2/(3 ln 2) * (ss + ...)
		ph := clearLo(u + v)
		pl := v - (ph - u)
		zh := float64(cpH * ph)
		zl := float64(cpL*ph) + float64(pl*cp) + dpL
		// log2(xa) = n + dpH + zh + zl
		t := float64(n)
		t1 = clearLo(((zh + zl) + dpH) + t)
		t2 = zl - (((t1 - t) - dpH) - zh)
	}

	// z = ph + pl = y * (t1 + t2), with y split as y1 + (y - y1).
	y1 := clearLo(y)
	pl := float64((y-y1)*t1) + float64(y*t2)
	ph := float64(y1 * t1)
	z := pl + ph
	j := hiWord(z)
	i := loWord(z)
	if j >= 0x40900000 { // z >= 1024
		if j != 0x40900000 || i != 0 || pl+ovt > z-ph {
			return s * math.Inf(1) // overflow
		}
	} else if j&0x7fffffff >= 0x4090cc00 { // z <= -1075
		if uint32(j) != 0xc090cc00 || i != 0 || pl <= z-ph {
			return s * 0 // underflow
		}
	}

	// Split z into an integer n and |f| <= 1/2 (taken off ph).
	i = uint32(j & 0x7fffffff)
	k := int32(i>>20) - 0x3ff
	n := int32(0)
	if i > 0x3fe00000 { // |z| > 1/2: n = [z + 1/2]
		n = j + 0x00100000>>(k+1)
		k = (n&0x7fffffff)>>20 - 0x3ff // the exponent of n
		t := fromHi(uint32(n &^ (0x000fffff >> k)))
		n = (n&0x000fffff | 0x00100000) >> (20 - k)
		if j < 0 {
			n = -n
		}
		ph -= t
	}
	// 2^f = e^(f ln 2), f = ph + pl split as z + w.
	t := clearLo(pl + ph)
	u := float64(t * lg2H)
	v := float64((pl-(t-ph))*lg2) + float64(t*lg2L)
	z = u + v
	w := v - (z - u)
	t = float64(z * z)
	t1 = z - float64(t*(p1+float64(t*(p2+float64(t*(p3+float64(t*(p4+float64(t*p5)))))))))
	r := float64(z*t1)/(t1-2) - (w + float64(z*w))
	z = 1 - (r - z)
	if (hiWord(z)+n<<20)>>20 <= 0 {
		z = math.Ldexp(z, int(n)) // the result is subnormal: round once
	} else {
		z = withHi(z, hiWord(z)+n<<20)
	}
	return s * z
}

// hiWord returns the high 32 bits of x's representation, as a signed int
// (fdlibm's __HI).
func hiWord(x float64) int32 { return int32(math.Float64bits(x) >> 32) }

// loWord returns the low 32 bits of x's representation (fdlibm's __LO).
func loWord(x float64) uint32 { return uint32(math.Float64bits(x)) }

// withHi returns x with its high word replaced by hi.
func withHi(x float64, hi int32) float64 {
	return math.Float64frombits(uint64(uint32(hi))<<32 | math.Float64bits(x)&0xffffffff)
}

// fromHi returns the float64 whose high word is hi and low word zero.
func fromHi(hi uint32) float64 { return math.Float64frombits(uint64(hi) << 32) }

// clearLo returns x with the low 32 bits of its representation zeroed.
func clearLo(x float64) float64 { return math.Float64frombits(math.Float64bits(x) &^ 0xffffffff) }
