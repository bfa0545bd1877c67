package blocked

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sift-go/sift/hash"
	"github.com/sift-go/sift/internal/format"
)

// TestScalableGrowth adds 100 times the initial capacity: no false
// negatives, stages as expected, and a measured false-positive rate within
// the bound.
func TestScalableGrowth(t *testing.T) {
	initial, bound := uint64(10_000), 0.01
	queries := 2_000_000
	if testing.Short() {
		initial, queries = 1000, 200_000
	}
	s, err := NewScalable(initial, bound, WithSeed(5))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 100 * initial
	for i := uint64(0); i < n; i++ {
		if err := s.AddUint64(i); err != nil {
			t.Fatal(err)
		}
	}
	for i := uint64(0); i < n; i++ {
		if !s.ContainsUint64(i) {
			t.Fatalf("key %d lost", i)
		}
	}
	// 100x the first stage with growth 2: stages of 1+2+...+64 = 127x hold it.
	if s.Stages() != 7 {
		t.Errorf("%d stages, want 7", s.Stages())
	}
	if c := s.Count(); c > n || c < n-n/100 {
		t.Errorf("Count %d for %d distinct adds", c, n)
	}
	hs := make([]uint64, queries)
	for i := range hs {
		hs[i] = hash.Uint64(1<<40+uint64(i), 5)
	}
	out := make([]bool, len(hs))
	fp := s.ContainsHashes(hs, out)
	for i, h := range hs[:1000] {
		if out[i] != s.ContainsHash(h) {
			t.Fatal("ContainsHashes disagrees with ContainsHash")
		}
	}
	rate := float64(fp) / float64(queries)
	sigma := math.Sqrt(bound / float64(queries))
	t.Logf("%d keys, %d stages, %.2f bits/key: measured %.5f, FPP() %.5f, bound %v", n, s.Stages(), float64(s.Bits())/float64(n), rate, s.FPP(), bound)
	if rate > bound+3*sigma {
		t.Errorf("measured rate %v exceeds the bound %v", rate, bound)
	}
	if f := s.FPP(); f > bound {
		t.Errorf("FPP() %v exceeds the bound", f)
	}
	// Duplicates use no capacity.
	before := s.Count()
	for i := uint64(0); i < 1000; i++ {
		s.AddUint64(i)
	}
	if s.Count() != before {
		t.Error("re-adding present keys changed Count")
	}
}

func TestScalableOptions(t *testing.T) {
	s, err := NewScalable(100, 0.05, WithGrowth(4), WithTightening(0.5), WithSeed(8))
	if err != nil {
		t.Fatal(err)
	}
	for i := range uint64(2000) {
		s.AddUint64(i)
	}
	// 100 + 400 + 1600 >= 2000.
	if s.Stages() != 3 || s.Seed() != 8 || s.Bound() != 0.05 {
		t.Fatalf("stages %d seed %d bound %v", s.Stages(), s.Seed(), s.Bound())
	}
	for i, want := range []float64{0.025, 0.0125, 0.00625} {
		if got := s.stageFPP(i); math.Abs(got-want) > 1e-15 {
			t.Fatalf("stage %d rate %v, want %v", i, got, want)
		}
	}
	c := s.Clone()
	s.Reset()
	if s.Stages() != 1 || s.Count() != 0 || s.ContainsUint64(5) {
		t.Fatal("Reset left keys or stages")
	}
	if c.Stages() != 3 || !c.ContainsUint64(5) {
		t.Fatal("Clone shares state")
	}
	c.Close()
	s.Close()
}

// TestScalableLimit: when the next stage cannot be made, Add fails and
// leaves everything as it was; it never drops a key silently.
func TestScalableLimit(t *testing.T) {
	// A capacity that overflows uint64 after one growth step.
	s, err := NewScalable(1<<63, 0.5, WithGrowth(2))
	if err != nil {
		// 2^63 keys need more than MaxBits: the first stage already fails.
		if !errors.Is(err, ErrTooLarge) {
			t.Fatal(err)
		}
	} else {
		t.Fatal("a 2^63-key stage was made")
	}
	s, err = NewScalable(1, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.AddUint64(1)
	// Pretend the chain has grown to where the next stage overflows.
	s.initial = 1 << 62
	s.caps[0] = s.counts[0]
	if err := s.AddUint64(2); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Add past the limit: %v", err)
	}
	if s.Stages() != 1 || s.Count() != 1 {
		t.Fatal("failed Add changed the filter")
	}
	if err := s.AddUint64(1); err != nil {
		t.Fatal("re-adding a present key must succeed:", err)
	}
}

func TestScalableRoundTrip(t *testing.T) {
	for _, keys := range []uint64{0, 50, 5000} {
		s, err := NewScalable(100, 0.01, WithSeed(keys), WithGrowth(3), WithTightening(0.9))
		if err != nil {
			t.Fatal(err)
		}
		for i := range keys {
			s.AddUint64(i)
		}
		enc, _ := s.MarshalBinary()
		var buf bytes.Buffer
		if n, err := s.WriteTo(&buf); err != nil || n != int64(len(enc)) || !bytes.Equal(buf.Bytes(), enc) {
			t.Fatal("WriteTo differs from MarshalBinary")
		}
		var d, r Scalable
		if err := d.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		buf.WriteByte(0xff)
		if n, err := r.ReadFrom(&buf); err != nil || n != int64(len(enc)) || buf.Len() != 1 {
			t.Fatalf("ReadFrom: %d %v", n, err)
		}
		for _, got := range []*Scalable{&d, &r} {
			again, _ := got.MarshalBinary()
			if !bytes.Equal(again, enc) {
				t.Fatal("round trip changed the encoding")
			}
			for i := range keys {
				if !got.ContainsUint64(i) {
					t.Fatal("round trip lost a key")
				}
			}
			// The decoded chain keeps growing exactly like the original.
			got.AddUint64(1 << 50)
			if got.Count() != s.Count()+1 && !s.ContainsUint64(1<<50) {
				t.Fatal("decoded chain does not add")
			}
			got.Close()
		}
		s.Close()
	}
}

func TestScalableDecodeErrors(t *testing.T) {
	s, _ := NewScalable(10, 0.01, WithSeed(4))
	for i := range uint64(100) {
		s.AddUint64(i)
	}
	valid, _ := s.MarshalBinary()
	h, payload, _, err := format.Decode(valid, format.KindScalable, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	with := func(edit func(*format.Header, []byte) []byte) []byte {
		hh := h
		p := edit(&hh, bytes.Clone(payload))
		return format.Encode(hh, p)
	}
	// restage re-checksums stage 0's header after an edit of its params.
	restage := func(p []byte, param int, v uint64) []byte {
		binary.LittleEndian.PutUint64(p[48+8*param:], v)
		binary.LittleEndian.PutUint32(p[124:], format.Checksum(p[:124]))
		return p
	}
	// resum re-checksums stage 0's header after an edit.
	resum := func(p []byte) []byte { return restage(p, 0, binary.LittleEndian.Uint64(p[48:])) }
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"blocked kind", func() []byte { f := mustNewSize(t, 512, 3); b, _ := f.MarshalBinary(); return b }(), ErrKind},
		{"zero stages", with(func(h *format.Header, p []byte) []byte { h.Params[paramStages] = 0; return p }), ErrCorrupt},
		{"2^40 stages", with(func(h *format.Header, p []byte) []byte { h.Params[paramStages] = 1 << 40; return p }), ErrCorrupt},
		{"one stage missing", with(func(h *format.Header, p []byte) []byte { h.Params[paramStages]++; return p }), ErrCorrupt},
		{"stage left over", with(func(h *format.Header, p []byte) []byte { h.Params[paramStages]--; return p }), ErrCorrupt},
		{"bound 0", with(func(h *format.Header, p []byte) []byte { h.Params[paramBound] = 0; return p }), ErrCorrupt},
		{"bound NaN", with(func(h *format.Header, p []byte) []byte { h.Params[paramBound] = math.Float64bits(math.NaN()); return p }), ErrCorrupt},
		{"growth 1", with(func(h *format.Header, p []byte) []byte { h.Params[paramGrowth] = 1; return p }), ErrCorrupt},
		{"ratio 1", with(func(h *format.Header, p []byte) []byte { h.Params[paramRatio] = math.Float64bits(1); return p }), ErrCorrupt},
		{"initial 0", with(func(h *format.Header, p []byte) []byte { h.Params[paramInitial] = 0; return p }), ErrCorrupt},
		{"initial differs", with(func(h *format.Header, p []byte) []byte { h.Params[paramInitial]++; return p }), ErrCorrupt},
		{"total count", with(func(h *format.Header, p []byte) []byte { h.Params[paramTotalCount]++; return p }), ErrCorrupt},
		{"seed differs", with(func(h *format.Header, p []byte) []byte { h.Seed++; return p }), ErrCorrupt},
		{"unknown param", with(func(h *format.Header, p []byte) []byte { h.Params[7] = 1; return p }), ErrCorrupt},
		{"stage over capacity", with(func(h *format.Header, p []byte) []byte { return restage(p, paramCount, 11) }), ErrCorrupt},
		{"stage k=0", with(func(h *format.Header, p []byte) []byte { return restage(p, paramK, 0) }), ErrCorrupt},
		// A stage that is not a blocked filter of a known version inside
		// a payload whose outer header and checksum hold is damage to
		// this file, not a file of another kind or version.
		{"stage damaged", with(func(h *format.Header, p []byte) []byte { p[5] ^= 1; return p }), ErrCorrupt},
		{"stage magic", with(func(h *format.Header, p []byte) []byte { p[1] = 'X'; return resum(p) }), ErrCorrupt},
		{"stage kind", with(func(h *format.Header, p []byte) []byte { p[10] = byte(format.KindCuckoo); return resum(p) }), ErrCorrupt},
		{"stage version", with(func(h *format.Header, p []byte) []byte { p[8] = 3; return resum(p) }), ErrCorrupt},
		{"stage header crc", with(func(h *format.Header, p []byte) []byte { p[60] ^= 1; return p }), ErrChecksum},
		// Each stage carries its own payload CRC (FORMAT.md): one that is
		// stale, or a stage payload changed under an outer checksum that
		// was recomputed, is refused, as a reader built from the format
		// refuses it. A stage in version 2 (a generation) is a writer's
		// mistake: the generation belongs to the outer header.
		{"stage payload crc", with(func(h *format.Header, p []byte) []byte { p[40] ^= 1; return resum(p) }), ErrChecksum},
		{"stage payload flip", with(func(h *format.Header, p []byte) []byte { p[format.HeaderSize] ^= 1; return p }), ErrChecksum},
		{"stage version 2", with(func(h *format.Header, p []byte) []byte {
			p[8] = 2
			binary.LittleEndian.PutUint64(p[112:], 5)
			return resum(p)
		}), ErrCorrupt},
		{"payload bit flip", func() []byte { b := bytes.Clone(valid); b[len(b)-1] ^= 1; return b }(), ErrChecksum},
		{"trailing", append(bytes.Clone(valid), 0), ErrCorrupt},
	}
	for _, tc := range cases {
		var d Scalable
		err := d.UnmarshalBinary(tc.in)
		if !errors.Is(err, tc.want) {
			t.Errorf("UnmarshalBinary(%s): %v, want %v", tc.name, err, tc.want)
		}
		// One prefix: a stage's error read "blocked: stage 0: blocked: ...".
		if msg := fmt.Sprint(err); strings.Count(msg, "blocked: ") != 1 || strings.Contains(msg, "sift: ") {
			t.Errorf("UnmarshalBinary(%s): %q does not carry one prefix", tc.name, msg)
		}
		var r Scalable
		if tc.name == "trailing" {
			continue
		}
		if _, err := r.ReadFrom(bytes.NewReader(tc.in)); !errors.Is(err, tc.want) {
			t.Errorf("ReadFrom(%s): %v, want %v", tc.name, err, tc.want)
		}
	}
	// WithoutChecksum skips the stages' payload CRCs with the outer one.
	stale := with(func(h *format.Header, p []byte) []byte { p[40] ^= 1; return resum(p) })
	if d, err := ReadScalable(bytes.NewReader(stale), WithoutChecksum()); err != nil {
		t.Errorf("ReadScalable(stale stage CRC, WithoutChecksum): %v", err)
	} else {
		d.Close()
	}
	for i := 0; i < len(valid); i++ {
		var d Scalable
		if err := d.UnmarshalBinary(valid[:i]); !errors.Is(err, ErrTruncated) {
			t.Fatalf("truncated to %d: %v", i, err)
		}
	}
	s.Close()
}

// TestScalableDecodeCountOverflow: stages whose key counts each pass their
// own checks but add up to more than 2^64 are refused, not summed modulo
// 2^64 into a total that the header was written to match.
func TestScalableDecodeCountOverflow(t *testing.T) {
	s, err := NewScalable(1, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := uint64(0); s.Stages() < 2; i++ {
		if err := s.AddUint64(i); err != nil {
			t.Fatal(err)
		}
	}
	const c0 = 0x6000000000000000 // stage 1 holds 2*c0 < 2^64; the sum wraps
	s.initial = c0
	s.caps = []uint64{c0, 2 * c0}
	s.counts = []uint64{c0, 2 * c0}
	s.count = s.counts[0] + s.counts[1]
	data, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var d Scalable
	if err := d.UnmarshalBinary(data); !errors.Is(err, ErrCorrupt) {
		t.Errorf("stages of %#x and %#x keys: %v (Count %#x), want ErrCorrupt", uint64(c0), uint64(2*c0), err, d.Count())
	}
}

// TestScalableContainsHashesMembers: the batch lookup finds every member
// of every stage, in an order that mixes the stages within each of its
// chunks and at a length that is not a multiple of them (a lookup that
// skipped a stage passed the tests that probe non-members only).
func TestScalableContainsHashesMembers(t *testing.T) {
	s, err := NewScalable(1000, 0.01, WithSeed(5))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hs := make([]uint64, 0, 20_003)
	for i := uint64(0); i < 20_003; i++ {
		h := s.HashUint64(i)
		if err := s.AddHash(h); err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	if s.Stages() < 3 {
		t.Fatalf("%d stages", s.Stages())
	}
	rand.New(rand.NewPCG(5, 6)).Shuffle(len(hs), func(i, j int) { hs[i], hs[j] = hs[j], hs[i] })
	out := make([]bool, len(hs))
	if n := s.ContainsHashes(hs, out); n != len(hs) {
		t.Errorf("ContainsHashes found %d of %d members", n, len(hs))
	}
	for i, ok := range out {
		if !ok {
			t.Fatalf("member %d reported absent", i)
		}
	}
}
