package classic

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// Fuzz targets for every decoder of the package. Each checks that a decoder
// never panics, that it fails only with a sift error (or a prefixed read
// error), that whatever it accepts is a usable filter, and that it encodes
// back to the same filter. The fuzz package's suite reuses them.

func fuzzGuavaSeeds(f *testing.F) {
	for _, s := range []Strategy{Murmur128Mitz32, Murmur128Mitz64} {
		for _, n := range []int64{0, 5, 100} {
			g, _ := New(n, 0.01, WithStrategy(s))
			for i := int64(0); i < n; i++ {
				g.PutInt64(i)
			}
			f.Add(mustGuava(g))
		}
	}
	f.Add([]byte{})
	f.Add(guavaStream(1, 0, 1, []uint64{1}))
	f.Add(guavaStream(2, 3, 1, []uint64{1}))
	f.Add(guavaStream(1, 255, 1, []uint64{1}))
	f.Add(guavaStream(1, 3, -1, nil))
	f.Add(guavaStream(1, 3, 1<<31-1, []uint64{1, 2}))
}

func FuzzReadGuava(f *testing.F) {
	fuzzGuavaSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		g, err := ReadGuava(r, WithMaxSize(1<<20))
		if err != nil {
			if g != nil {
				t.Fatal("a filter and an error")
			}
			if !isSiftError(err) {
				t.Fatalf("error is not a sift error: %v", err)
			}
			return
		}
		consumed := len(data) - r.Len()
		if got := mustGuava(g); !bytes.Equal(got, data[:consumed]) {
			t.Fatalf("re-encoding differs from the %d bytes read", consumed)
		}
		exercise(t, g)
	})
}

// exercise uses a decoded filter: it must answer, accept keys, and keep its
// statistics in range.
func exercise(t *testing.T, g *Filter) {
	g.MightContain([]byte("probe"))
	g.MightContainInt64(-1)
	if !g.PutString("fuzz") && !g.MightContainString("fuzz") {
		t.Fatal("Put returned false for a key the filter does not contain")
	}
	if !g.MightContainString("fuzz") {
		t.Fatal("false negative right after Put")
	}
	if p := g.ExpectedFpp(); !(p >= 0 && p <= 1) {
		t.Fatalf("ExpectedFpp %v", p)
	}
	if g.ApproximateElementCount() < 0 {
		t.Fatal("negative ApproximateElementCount")
	}
}

func FuzzUnmarshalFilter(f *testing.F) {
	for _, s := range []Strategy{Murmur128Mitz32, Murmur128Mitz64} {
		g, _ := New(50, 0.01, WithStrategy(s))
		for i := int64(0); i < 50; i++ {
			g.PutInt64(i)
		}
		b, _ := g.MarshalBinary()
		f.Add(b)
	}
	f.Add(craft(classicHeader(1, 0, 1), make([]byte, 8), nil))
	f.Add(craft(classicHeader(1, 3, 1<<31), make([]byte, 8), nil))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var g Filter
		err := g.UnmarshalBinary(data)
		r := bytes.NewReader(data)
		h, rerr := ReadFilter(r, WithMaxSize(1<<20))
		var j Filter
		n, jerr := j.ReadFrom(bytes.NewReader(data))
		if (jerr == nil) != (rerr == nil) || rerr == nil && (n != int64(len(data)-r.Len()) || !j.Equal(h)) {
			t.Fatalf("ReadFrom (%d bytes, %v) disagrees with ReadFilter (%v)", n, jerr, rerr)
		}
		if err != nil {
			if !isSiftError(err) {
				t.Fatalf("error is not a sift error: %v", err)
			}
			if rerr == nil && r.Len() == 0 {
				t.Fatalf("UnmarshalBinary rejects (%v) what ReadFilter accepts", err)
			}
			return
		}
		if rerr != nil || !h.Equal(&g) {
			t.Fatalf("ReadFilter disagrees with UnmarshalBinary: %v", rerr)
		}
		b, _ := g.MarshalBinary()
		var back Filter
		if err := back.UnmarshalBinary(b); err != nil || !back.Equal(&g) || back.BitCount() != g.BitCount() {
			t.Fatalf("re-encoding does not decode to the same filter: %v", err)
		}
		exercise(t, &g)
	})
}

func fuzzCountingSeeds(f *testing.F) {
	for _, n := range []int{0, 10, 200} {
		c, _ := NewCounting(uint64(n), 0.05, WithSeed(uint64(n)))
		for i := 0; i < n; i++ {
			c.AddUint64(uint64(i))
		}
		b, _ := c.MarshalBinary()
		f.Add(b)
	}
	f.Add(craft(countingHeader(16, 0), make([]byte, 8), nil))
	f.Add(craft(countingHeader(17, 3), make([]byte, 8), nil))
	f.Add([]byte{})
}

func FuzzUnmarshalCounting(f *testing.F) {
	fuzzCountingSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Counting
		err := c.UnmarshalBinary(data)
		if err != nil {
			if !isSiftError(err) {
				t.Fatalf("error is not a sift error: %v", err)
			}
			return
		}
		b, _ := c.MarshalBinary()
		var back Counting
		if err := back.UnmarshalBinary(b); err != nil || !back.Equal(&c) {
			t.Fatalf("re-encoding does not decode to the same filter: %v", err)
		}
		exerciseCounting(t, &c)
	})
}

func FuzzReadCounting(f *testing.F) {
	fuzzCountingSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		c, err := ReadCounting(r, WithMaxSize(1<<20))
		if err != nil {
			if c != nil || !isSiftError(err) {
				t.Fatalf("bad failure: %v, %v", c, err)
			}
			return
		}
		var d Counting
		if err := d.UnmarshalBinary(data[:len(data)-r.Len()]); err != nil || !d.Equal(c) {
			t.Fatalf("UnmarshalBinary disagrees with ReadCounting: %v", err)
		}
		exerciseCounting(t, c)
	})
}

func exerciseCounting(t *testing.T, c *Counting) {
	var key [8]byte
	binary.LittleEndian.PutUint64(key[:], 12345)
	c.Add(key[:])
	if !c.ContainsUint64(12345) {
		t.Fatal("false negative right after Add")
	}
	if err := c.Remove(key[:]); err != nil {
		t.Fatalf("Remove after Add: %v", err)
	}
	_ = c.RemoveString("maybe absent")
	if p := c.ExpectedFpp(); !(p >= 0 && p <= 1) {
		t.Fatalf("ExpectedFpp %v", p)
	}
	if c.nonzero != c.countNonzero() {
		t.Fatal("nonzero count out of step")
	}
}
