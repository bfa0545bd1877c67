package fuzz

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"

	"github.com/sift-go/sift/internal/kernel"
	"github.com/sift-go/sift/internal/kernel/kerneltest"
	"github.com/sift-go/sift/sbbf"
)

// Split-block (Parquet SBBF) targets:
//
//   - FuzzSBBFKernel feeds fuzzed geometry, hashes and memory to the
//     split-block batch and single-key kernels of every kernel set and
//     compares them with the Generic twins and with a model written here
//     from the Parquet specification's pseudocode (word by word, bit by
//     bit).
//   - FuzzDecodeParquet gives the same bytes to every decoder of a Parquet
//     column chunk's Bloom filter data (ParseParquet, ReadParquet through a
//     one-byte reader, ViewParquet, UnmarshalParquet): none may panic or
//     over-allocate, they must agree, their errors must wrap a sift
//     sentinel or sbbf.ErrUnsupported, and what they accept must
//     re-encode (MarshalParquet) to a header and bitset that decode to the
//     same filter. decodeSplitBlock does the same for sift's own format and
//     is part of FuzzDecode.

// specBlockCheck is the specification's block_check on a block given as
// eight words.
func specBlockCheck(b *kernel.SBBFBlock, x uint32) bool {
	salt := [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}
	for i := 0; i < 8; i++ {
		bit := (x * salt[i]) >> 27
		for j := uint32(0); j < 32; j++ {
			if j == bit && b[i]>>j&1 == 0 {
				return false
			}
		}
	}
	return true
}

func specBlockInsert(b *kernel.SBBFBlock, x uint32) {
	salt := [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}
	for i := 0; i < 8; i++ {
		b[i] |= 1 << ((x * salt[i]) >> 27)
	}
}

// specIndex is filter_insert's block index.
func specIndex(h uint64, z int) int { return int(((h >> 32) * uint64(z)) >> 32) }

// guardedSBBF returns nb blocks starting off uint32 words (0..7) into
// memory that ends at a guard page where the platform has one; with off = 0
// the blocks end exactly there.
func guardedSBBF(t *testing.T, nb, off int) []kernel.SBBFBlock {
	words := kerneltest.GuardedUint64s(t, nb*kernel.SBBFBlockWords/2+(off+1)/2)
	p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(words)), 4*off)
	return unsafe.Slice((*kernel.SBBFBlock)(p), nb)
}

func FuzzSBBFKernel(f *testing.F) {
	for _, s := range modeSeeds([][]byte{
		{0, 0, 0, 0, 0, 0},
		{7, 1, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8},
		{15, 200, 1, 0x35, 2, 7, 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88, 0x77, 0x66, 0x55},
		{8, 2, 0, 0x51, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33},
	}, 0, 4) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := decodeKernelInput(data)
		t.Logf("batch mode %q", forceBatchMode(t, in.hdr[0]>>4)) // hdr[0] bits 4-7
		nb := 1 + int(in.hdr[1]) + int(in.hdr[2]%4)*256 + int(in.hdr[0]%2)*1000
		blockOff := int(in.hdr[3] % 8)
		outOff := int(in.hdr[3] >> 3 % 8)
		split := int(in.hdr[4])
		fill := splitmix(uint64(in.hdr[4]))
		hs := in.hashes
		if len(hs) == 0 {
			hs = []uint64{}
		}
		start := make([]kernel.SBBFBlock, nb)
		if in.hdr[3]&0x40 != 0 {
			for i := range start {
				for w := range start[i] {
					start[i][w] = uint32(fill() & fill())
				}
			}
		}
		want := append([]kernel.SBBFBlock(nil), start...)
		for _, h := range hs {
			specBlockInsert(&want[specIndex(h, nb)], uint32(h))
		}
		probes := make([]uint64, 0, 2*len(hs))
		for i, h := range hs {
			probes = append(probes, h, h^1<<(i%64))
		}
		probes = guardedHashes(t, probes)
		gh := guardedHashes(t, hs)

		check := func(name string, add func([]kernel.SBBFBlock, []uint64), contains func([]kernel.SBBFBlock, []uint64, []bool) int) {
			b := guardedSBBF(t, nb, blockOff)
			copy(b, start)
			cut := min(split, len(gh))
			add(b, gh[:cut])
			add(b, gh[cut:])
			for i := range b {
				if b[i] != want[i] {
					t.Fatalf("%s: blocks=%d keys=%d (cut %d, offset %d): block %d is %x, want %x", name, nb, len(hs), cut, blockOff, i, b[i], want[i])
				}
			}
			out, guards := guardedOut(len(probes), outOff)
			for i := range out {
				out[i] = i%3 == 0
			}
			got := contains(b, probes, out)
			if msg := guards(); msg != "" {
				t.Fatalf("%s: %s", name, msg)
			}
			count := 0
			for i, p := range probes {
				m := specBlockCheck(&want[specIndex(p, nb)], uint32(p))
				if out[i] != m || kernel.SBBFContains1(&b, p) != m {
					t.Fatalf("%s: blocks=%d: probe %d answers %v (single-key %v), want %v", name, nb, i, out[i], kernel.SBBFContains1(&b, p), m)
				}
				if m {
					count++
				}
			}
			if got != count {
				t.Fatalf("%s: returned %d, %d are present", name, got, count)
			}
			// The single-key insert gives the same image.
			copy(b, start)
			for _, h := range gh {
				kernel.SBBFAdd1(&b, h)
			}
			for i := range b {
				if b[i] != want[i] {
					t.Fatalf("%s: single-key insert: block %d is %x, want %x", name, i, b[i], want[i])
				}
			}
		}
		check("generic", kernel.SBBFAddGeneric, kernel.SBBFContainsGeneric)
		eachImpl(t, func(impl string) { check("impl="+impl, kernel.SBBFAdd, kernel.SBBFContains) })
	})
}

// checkSplitErr fails unless err wraps a sift sentinel or
// sbbf.ErrUnsupported and carries the package prefix.
func checkSplitErr(t *testing.T, name string, err error) {
	t.Helper()
	if errors.Is(err, sbbf.ErrUnsupported) {
		return
	}
	checkErr(t, name, err)
	if !strings.HasPrefix(err.Error(), "sbbf: ") {
		t.Fatalf("%s: error %q lacks the package prefix", name, err)
	}
}

func bitset(f interface{ AppendBitset([]byte) []byte }) []byte { return f.AppendBitset(nil) }

func decodeParquet(t *testing.T, data []byte) {
	var (
		p, r       *sbbf.Filter
		v          *sbbf.View
		u          sbbf.Filter
		n, vn      int
		m          int64
		perr, rerr error
		verr, uerr error
	)
	measure(t, "sbbf.ParseParquet", len(data), func() { p, n, perr = sbbf.ParseParquet(data) })
	measure(t, "sbbf.ReadParquet", len(data), func() { r, m, rerr = sbbf.ReadParquet(iotest.OneByteReader(bytes.NewReader(data))) })
	measure(t, "sbbf.ViewParquet", len(data), func() { v, vn, verr = sbbf.ViewParquet(data) })
	measure(t, "sbbf.Filter.UnmarshalParquet", len(data), func() { uerr = u.UnmarshalParquet(data) })
	if perr != nil {
		checkSplitErr(t, "ParseParquet", perr)
		for name, err := range map[string]error{"ReadParquet": rerr, "ViewParquet": verr, "UnmarshalParquet": uerr} {
			if err == nil {
				t.Fatalf("%s accepts what ParseParquet rejects: %v", name, perr)
			}
			checkSplitErr(t, name, err)
		}
		return
	}
	if rerr != nil || verr != nil || m != int64(n) || vn != n {
		t.Fatalf("Parquet decoders disagree: ParseParquet %d bytes; ReadParquet %d, %v; ViewParquet %d, %v", n, m, rerr, vn, verr)
	}
	if (uerr == nil) != (n == len(data)) {
		t.Fatalf("UnmarshalParquet: %v for a filter of %d of %d bytes", uerr, n, len(data))
	}
	want := bitset(p)
	sameBytes(t, "ReadParquet bitset", bitset(r), want)
	sameBytes(t, "ViewParquet bitset", bitset(v), want)
	enc, err := p.MarshalParquet()
	if err != nil {
		t.Fatal(err)
	}
	back, k, err := sbbf.ParseParquet(enc)
	if err != nil || k != len(enc) {
		t.Fatalf("MarshalParquet's output does not decode: %v", err)
	}
	sameBytes(t, "re-encoded bitset", bitset(back), want)
	if hl := len(enc) - int(p.NumBytes()); bytes.Equal(data[:hl], enc[:hl]) {
		sameBytes(t, "canonical input", enc, data[:n])
	}
	p.AddInt64(7)
	if !p.ContainsInt64(7) {
		t.Fatal("decoded filter lost a key")
	}
}

func decodeSplitBlock(t *testing.T, data []byte) {
	var g, r sbbf.Filter
	var v *sbbf.View
	var err, rerr, verr error
	var n int64
	measure(t, "sbbf.Filter.UnmarshalBinary", len(data), func() { err = g.UnmarshalBinary(data) })
	measure(t, "sbbf.Filter.ReadFrom", len(data), func() { n, rerr = r.ReadFrom(bytes.NewReader(data)) })
	measure(t, "sbbf.FromBytes", len(data), func() { v, verr = sbbf.FromBytes(data) })
	if err != nil {
		checkSplitErr(t, "sbbf.Filter.UnmarshalBinary", err)
		if verr == nil {
			t.Fatalf("sbbf.FromBytes accepts what UnmarshalBinary rejects: %v", err)
		}
		checkSplitErr(t, "sbbf.FromBytes", verr)
		if rerr == nil && n >= int64(len(data)) {
			t.Fatalf("sbbf.Filter.ReadFrom accepts the %d bytes UnmarshalBinary rejects: %v", len(data), err)
		}
		return
	}
	if rerr != nil || n != int64(len(data)) || verr != nil {
		t.Fatalf("split-block decoders disagree: ReadFrom %d bytes, %v; sbbf.FromBytes %v", n, rerr, verr)
	}
	sameBytes(t, "sbbf.Filter: re-encoding", image(&g), data)
	sameBytes(t, "sbbf.View: re-encoding", image(v), data)
	sameBytes(t, "sbbf.Filter.ReadFrom bitset", bitset(&r), bitset(&g))
	agree(t, "sbbf.Filter", &g, &r, v)
	g.AddString("fuzz")
	if !g.ContainsString("fuzz") {
		t.Fatal("sbbf.Filter: decoded filter lost a key")
	}
}

func FuzzDecodeParquet(f *testing.F) {
	for _, numBytes := range []uint64{32, 96, 1024} {
		s, _ := sbbf.NewWithSize(numBytes)
		for i := int64(0); i < int64(numBytes/8); i++ {
			s.AddInt64(i)
		}
		enc, _ := s.MarshalParquet()
		f.Add(enc)
		f.Add(append(enc, "PAR1"...))
	}
	f.Add([]byte{})
	f.Add(sbbf.AppendParquetHeader(nil, 1<<30)) // a large bitset declared, none sent
	f.Fuzz(decodeParquet)
}
