package kernel

// The windowed filter's lane masks, unrolled as blockedAdd1Go's probes are
// (a switch on k falling through the probes, the salts as immediates): the
// mask of a key for the single-key adds and the Go probes. With a loop
// over BlockMask and a fold instead, the Window's AddHash took 41-58 ns at
// n = 1e6, G = 4, and with these about 20, against 8 for a Filter's
// (BenchmarkWindowAdd in package blocked; AMD EPYC, Zen 5).

// laneMask2 returns the lane mask of x = uint32(h) for two-word lanes
// (g >= 4): probe p's bit in word p%2, that is laneMask4's words folded
// (word p%4 is word p%2 of the first or the second half).
func laneMask2(x uint32, k int) (a, b uint64) {
	a, b, c, d := laneMask4(x, k)
	return a | c, b | d
}

// laneMask4 returns the lane mask of x = uint32(h) for four-word lanes
// (g = 2): probe p's bit in word p%4.
func laneMask4(x uint32, k int) (a, b, c, d uint64) {
	switch k {
	case 16:
		d |= 1 << (x * Salt15 >> 26)
		fallthrough
	case 15:
		c |= 1 << (x * Salt14 >> 26)
		fallthrough
	case 14:
		b |= 1 << (x * Salt13 >> 26)
		fallthrough
	case 13:
		a |= 1 << (x * Salt12 >> 26)
		fallthrough
	case 12:
		d |= 1 << (x * Salt11 >> 26)
		fallthrough
	case 11:
		c |= 1 << (x * Salt10 >> 26)
		fallthrough
	case 10:
		b |= 1 << (x * Salt9 >> 26)
		fallthrough
	case 9:
		a |= 1 << (x * Salt8 >> 26)
		fallthrough
	case 8:
		d |= 1 << (x * Salt7 >> 26)
		fallthrough
	case 7:
		c |= 1 << (x * Salt6 >> 26)
		fallthrough
	case 6:
		b |= 1 << (x * Salt5 >> 26)
		fallthrough
	case 5:
		a |= 1 << (x * Salt4 >> 26)
		fallthrough
	case 4:
		d |= 1 << (x * Salt3 >> 26)
		fallthrough
	case 3:
		c |= 1 << (x * Salt2 >> 26)
		fallthrough
	case 2:
		b |= 1 << (x * Salt1 >> 26)
		fallthrough
	default:
		a |= 1 << (x * Salt0 >> 26)
	}
	return
}
