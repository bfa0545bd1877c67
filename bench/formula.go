package bench

import "math"

// ClassicFPR is the false-positive rate of a classic Bloom filter with
// bitsPerKey bits per key and k probes: (1 - e^(-k/bitsPerKey))^k.
func ClassicFPR(bitsPerKey float64, k int) float64 {
	return math.Pow(1-math.Exp(-float64(k)/bitsPerKey), float64(k))
}

// ClassicBestFPR is ClassicFPR at the best integer k.
func ClassicBestFPR(bitsPerKey float64) float64 {
	best := 1.0
	for k := 1; k <= 32; k++ {
		best = math.Min(best, ClassicFPR(bitsPerKey, k))
	}
	return best
}

// poissonMixture returns sum over the block load L ~ Poisson(lambda) of
// P(L) * inBlock(L): the Putze–Sanders–Singler model of a blocked filter,
// where lambda is the mean number of keys per block.
func poissonMixture(lambda float64, inBlock func(load int) float64) float64 {
	hi := int(lambda + 12*math.Sqrt(lambda) + 30)
	sum := 0.0
	logP := -lambda // log P(L = 0)
	for load := 0; load <= hi; load++ {
		if load > 0 {
			logP += math.Log(lambda) - math.Log(float64(load))
		}
		sum += math.Exp(logP) * inBlock(load)
	}
	return sum
}

// BlockedFPR models a 512-bit blocked Bloom filter whose k probes are spread
// over the block's eight 64-bit words (probe j in word j mod 8, as sift's
// blocked filter does), at bitsPerKey bits per key.
func BlockedFPR(bitsPerKey float64, k int) float64 {
	var perWord [8]int
	for j := range k {
		perWord[j%8]++
	}
	return poissonMixture(512/bitsPerKey, func(load int) float64 {
		p := 1.0
		for _, c := range perWord {
			if c > 0 {
				set := 1 - math.Pow(1-1.0/64, float64(c*load))
				p *= math.Pow(set, float64(c))
			}
		}
		return p
	})
}

// BlockedBestFPR is BlockedFPR at the best k in 1..16.
func BlockedBestFPR(bitsPerKey float64) float64 {
	best := 1.0
	for k := 1; k <= 16; k++ {
		best = math.Min(best, BlockedFPR(bitsPerKey, k))
	}
	return best
}

// BlockedMinBits is the smallest bits per key (to 0.01) at which a 512-bit
// blocked filter reaches fpp with its best k.
func BlockedMinBits(fpp float64) float64 {
	lo, hi := 1.0, 64.0
	for hi-lo > 0.01 {
		mid := (lo + hi) / 2
		if BlockedBestFPR(mid) <= fpp {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// SplitBlockFPR models the Parquet split-block Bloom filter: 256-bit blocks
// of eight 32-bit words, one bit set in every word per key.
func SplitBlockFPR(bitsPerKey float64) float64 {
	return poissonMixture(256/bitsPerKey, func(load int) float64 {
		return math.Pow(1-math.Pow(1-1.0/32, float64(load)), 8)
	})
}

// CuckooFPR is the false-positive rate of a cuckoo filter with 4-slot
// buckets, fingerprints of f bits and load factor alpha: a lookup compares
// against up to 8*alpha stored fingerprints.
func CuckooFPR(f int, alpha float64) float64 {
	return 1 - math.Pow(1-math.Pow(2, -float64(f)), 8*alpha)
}

// FuseFPR is the false-positive rate of a binary fuse (or xor) filter with
// f-bit fingerprints: 2^-f.
func FuseFPR(f int) float64 { return math.Pow(2, -float64(f)) }

// ProbeBytes is the size of the array the memory-limit probe reads for n
// keys at fpp: a 512-bit blocked filter at BlockedMinBits(fpp) bits per
// key, in whole 64-byte lines.
func ProbeBytes(n int, fpp float64) int {
	lines := int(math.Ceil(float64(n) * BlockedMinBits(fpp) / 512))
	return max(lines, 1) * 64
}
