package classic

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// Benchmarks report ns/key; run them side by side with -count and compare
// with benchstat:
//
//	go test -run x -bench . -count 5 ./classic/ | tee new.txt && benchstat new.txt

const benchBatch = 4096

func benchKeys(seed uint64, n int) [][]byte {
	r := rand.New(rand.NewPCG(seed, seed))
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, r.Uint64()), r.Uint64())
	}
	return keys
}

var benchSizes = []struct {
	name string
	n    int64
}{{"1e5", 1e5}, {"1e6", 1e6}}

func reportPerKey(b *testing.B, start time.Time, keys int) {
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*keys), "ns/key")
}

// BenchmarkPut adds 16-byte keys to a filter sized for n at 1%.
func BenchmarkPut(b *testing.B) {
	keys := benchKeys(1, benchBatch)
	for _, s := range []Strategy{Murmur128Mitz32, Murmur128Mitz64} {
		for _, size := range benchSizes {
			b.Run(fmt.Sprintf("strategy=%s/n=%s", strategyShort(s), size.name), func(b *testing.B) {
				f, err := New(size.n, 0.01, WithStrategy(s))
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				for b.Loop() {
					for _, k := range keys {
						f.Put(k)
					}
				}
				reportPerKey(b, start, len(keys))
			})
		}
	}
}

// BenchmarkMightContain probes a filter holding n keys at 1% with keys of
// which half are present.
func BenchmarkMightContain(b *testing.B) {
	for _, s := range []Strategy{Murmur128Mitz32, Murmur128Mitz64} {
		for _, size := range benchSizes {
			b.Run(fmt.Sprintf("strategy=%s/n=%s", strategyShort(s), size.name), func(b *testing.B) {
				f, err := New(size.n, 0.01, WithStrategy(s))
				if err != nil {
					b.Fatal(err)
				}
				present := benchKeys(2, int(size.n))
				for _, k := range present {
					f.Put(k)
				}
				probe := benchKeys(3, benchBatch)
				for i := 0; i < len(probe); i += 2 {
					probe[i] = present[i]
				}
				found := 0
				start := time.Now()
				for b.Loop() {
					for _, k := range probe {
						if f.MightContain(k) {
							found++
						}
					}
				}
				reportPerKey(b, start, len(probe))
				if found == 0 {
					b.Fatal("no key found")
				}
			})
		}
	}
}

func strategyShort(s Strategy) string {
	if s == Murmur128Mitz32 {
		return "32"
	}
	return "64"
}

// BenchmarkCounting measures the counting filter at n = 1e6, 1%.
func BenchmarkCounting(b *testing.B) {
	c, err := NewCounting(1e6, 0.01)
	if err != nil {
		b.Fatal(err)
	}
	present := benchKeys(4, 1e6)
	for _, k := range present {
		c.Add(k)
	}
	probe := benchKeys(5, benchBatch)
	for i := 0; i < len(probe); i += 2 {
		probe[i] = present[i]
	}
	b.Run("op=add", func(b *testing.B) {
		d := c.Clone()
		start := time.Now()
		for b.Loop() {
			for _, k := range probe {
				d.Add(k)
			}
		}
		reportPerKey(b, start, len(probe))
	})
	b.Run("op=contains", func(b *testing.B) {
		start := time.Now()
		for b.Loop() {
			for _, k := range probe {
				c.Contains(k)
			}
		}
		reportPerKey(b, start, len(probe))
	})
	b.Run("op=remove+add", func(b *testing.B) {
		d := c.Clone()
		start := time.Now()
		for b.Loop() {
			for _, k := range present[:benchBatch] {
				_ = d.Remove(k)
				d.Add(k)
			}
		}
		reportPerKey(b, start, benchBatch)
	})
}

// BenchmarkProbe64 compares the Murmur128Mitz64 index computation by
// Barrett reduction with the direct one (a 64-bit division per probe, as Guava writes
// it), to keep the reduction justified.
func BenchmarkProbe64(b *testing.B) {
	ix := newIndexer(149767) // n = 1e6 at 1%
	r := rand.New(rand.NewPCG(6, 7))
	hs := make([][2]uint64, benchBatch)
	for i := range hs {
		hs[i] = [2]uint64{r.Uint64(), r.Uint64()}
	}
	const k = 7
	b.Run("impl=barrett", func(b *testing.B) {
		var sink uint64
		start := time.Now()
		for b.Loop() {
			for _, h := range hs {
				c := h[0]
				for i := 0; i < k; i++ {
					sink += ix.mod64(c & mask63)
					c += h[1]
				}
			}
		}
		reportPerKey(b, start, len(hs))
		benchSink = sink
	})
	b.Run("impl=divide", func(b *testing.B) {
		m := ix.bitSize
		var sink uint64
		start := time.Now()
		for b.Loop() {
			for _, h := range hs {
				c := h[0]
				for i := 0; i < k; i++ {
					sink += (c & mask63) % m
					c += h[1]
				}
			}
		}
		reportPerKey(b, start, len(hs))
		benchSink = sink
	})
}

var benchSink uint64

// BenchmarkSizing measures New's sizing arithmetic (the 256-bit logarithm),
// paid once per filter.
func BenchmarkSizing(b *testing.B) {
	for b.Loop() {
		if _, _, err := guavaSize(1e6, 0.01); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBigLog measures the uncached 160-bit logarithm.
func BenchmarkBigLog(b *testing.B) {
	x := 0.01
	for b.Loop() {
		benchFloat = bigLog(x)
	}
}

var benchFloat float64

// BenchmarkKeyHash compares hashing a key through the chars funnel (Go
// string decoded to UTF-16 on the fly, or code units) with the UTF-8 one.
func BenchmarkKeyHash(b *testing.B) {
	ascii := "user:123456@example.com/some/longer/path"
	mixed := "Grüße aus Köln, 東京 und 😀 — ein Schlüssel"
	for _, c := range []struct {
		name string
		fn   func() (uint64, uint64)
	}{
		{"utf8/ascii", func() (uint64, uint64) { return murmur3(keyBytes(ascii)) }},
		{"chars/ascii", func() (uint64, uint64) { return murmur3Chars(ascii) }},
		{"utf16/ascii", func() func() (uint64, uint64) {
			u := javaUnits(ascii)
			return func() (uint64, uint64) { return murmur3UTF16(u) }
		}()},
		{"utf8/mixed", func() (uint64, uint64) { return murmur3(keyBytes(mixed)) }},
		{"chars/mixed", func() (uint64, uint64) { return murmur3Chars(mixed) }},
		{"utf16/mixed", func() func() (uint64, uint64) {
			u := javaUnits(mixed)
			return func() (uint64, uint64) { return murmur3UTF16(u) }
		}()},
	} {
		b.Run(c.name, func(b *testing.B) {
			var sink uint64
			for b.Loop() {
				h1, _ := c.fn()
				sink += h1
			}
			_ = sink
		})
	}
}
