package classic

import (
	"math"
	"math/big"
	"sync"
	"sync/atomic"
)

// javaLog returns the natural logarithm of x > 0, correctly rounded to
// float64, for Guava's sizing formulas.
//
// Guava sizes filters with Java's Math.log, which on HotSpot returns the
// correctly rounded logarithm for the inputs the golden vectors pin (for
// example Math.log(0.01) is 0xc0126bb1bbb55515). Go's math.Log is allowed
// one ulp of error and takes it there (…16), which moved the bit count of a
// filter for 2^50 keys by 2; and on amd64 it is wrong by about 5% for
// subnormal inputs such as Double.MIN_VALUE, which Guava substitutes for
// fpp = 0 (golang/go#56600). Sizing runs once per filter, so this evaluates
// the logarithm in 160-bit arithmetic instead and rounds once (some
// microseconds), and remembers the last result, since programs tend to
// build filters with one fpp.
func javaLog(x float64) float64 {
	if c := lastLog.Load(); c != nil && c.x == x {
		return c.log
	}
	y := bigLog(x)
	lastLog.Store(&logEntry{x, y})
	return y
}

type logEntry struct{ x, log float64 }

var lastLog atomic.Pointer[logEntry]

// bigLog is javaLog without the cache.
func bigLog(x float64) float64 {
	switch {
	case x != x || x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return x
	case x == 1:
		return 0
	}
	const prec = logPrec
	// x = frac * 2^exp exactly, frac in [0.5, 1); move frac into
	// [sqrt(1/2), sqrt(2)) so the series below converges fast.
	frac, exp := math.Frexp(x)
	if frac < math.Sqrt2/2 {
		frac *= 2
		exp--
	}
	// ln(frac) = 2 atanh(s), s = (frac-1)/(frac+1), |s| < 0.172.
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	m := new(big.Float).SetPrec(prec).SetFloat64(frac)
	num := new(big.Float).SetPrec(prec).Sub(m, one)
	den := new(big.Float).SetPrec(prec).Add(m, one)
	s := new(big.Float).SetPrec(prec).Quo(num, den)
	sum := atanhSeries(s, prec)
	sum.Mul(sum, big.NewFloat(2).SetPrec(prec))
	if exp != 0 {
		e := new(big.Float).SetPrec(prec).SetInt64(int64(exp))
		sum.Add(sum, e.Mul(e, bigLn2()))
	}
	r, _ := sum.Float64() // round to nearest even
	return r
}

// atanhSeries returns atanh(s) = s + s^3/3 + s^5/5 + ... to prec bits, for
// |s| <= 1/3.
func atanhSeries(s *big.Float, prec uint) *big.Float {
	s2 := new(big.Float).SetPrec(prec).Mul(s, s)
	term := new(big.Float).SetPrec(prec).Set(s) // s^(2i+1)
	sum := new(big.Float).SetPrec(prec).Set(s)
	q := new(big.Float).SetPrec(prec)
	d := new(big.Float).SetPrec(prec)
	for i := int64(1); ; i++ {
		term.Mul(term, s2)
		if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -int(prec)-8 {
			return sum
		}
		q.Quo(term, d.SetInt64(2*i+1))
		sum.Add(sum, q)
	}
}

var (
	ln2Once sync.Once
	ln2Big  *big.Float
)

// logPrec is the working precision of bigLog: 107 bits beyond float64's
// 53, so a wrong rounding needs ln x within 2^-107 relative of a halfway
// point between two doubles.
const logPrec = 160

// bigLn2 returns ln 2 to logPrec bits: 2 atanh(1/3).
func bigLn2() *big.Float {
	ln2Once.Do(func() {
		const prec = logPrec
		third := new(big.Float).SetPrec(prec).Quo(big.NewFloat(1).SetPrec(prec), big.NewFloat(3).SetPrec(prec))
		v := atanhSeries(third, prec)
		ln2Big = v.Mul(v, big.NewFloat(2).SetPrec(prec))
	})
	return ln2Big
}
