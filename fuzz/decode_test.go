package fuzz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sift-go/sift"
	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/classic"
	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/internal/format"
	"github.com/sift-go/sift/sbbf"
)

// Decoder targets. The filter packages fuzz their own decoders for panics
// and round trips (blocked.FuzzUnmarshal, cuckoo.FuzzUnmarshal,
// classic.FuzzReadGuava, ...); these targets add what a package cannot see
// alone: every decoder gets every input (a cuckoo file at the blocked
// reader, a Guava stream at the native readers), each decode's allocation
// is measured against the input's length, the readers of one format must
// agree with each other, and FuzzDecodeRecord gets past the checksums to
// the field validation.

// Allocation bound for one decode of n input bytes: a decoder may copy the
// input a few times (aligned copies, a growing read buffer) plus a constant;
// on a big-endian machine once more (the payload's words are converted from
// little-endian into a copy instead of aliased).
func allocLimit(n int) uint64 {
	copies := uint64(4)
	if binary.NativeEndian.Uint16([]byte{0, 1}) == 1 { // big-endian
		copies = 5
	}
	return 64<<10 + copies*uint64(n)
}

// Mapped-memory bound: big filters live in mmap'd memory the Go heap
// statistics do not see, so the process's address space is checked too,
// loosely (the runtime reserves heap arenas in 64 MiB steps): a decoder
// that maps what a header claims rather than what the input holds shows.
func vmLimit(n int) uint64 { return 256<<20 + 8*uint64(n) }

var statm, _ = os.Open("/proc/self/statm")

// vmSize returns the process's virtual size in bytes, or 0 where unknown.
func vmSize() uint64 {
	if statm == nil {
		return 0
	}
	var buf [128]byte
	n, err := statm.ReadAt(buf[:], 0)
	if n == 0 || (err != nil && n == len(buf)) {
		return 0
	}
	f := strings.Fields(string(buf[:n]))
	if len(f) == 0 {
		return 0
	}
	pages, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}

// measure runs decode and fails if it allocated more than the bounds allow
// for an input of n bytes.
func measure(t *testing.T, name string, n int, decode func()) {
	t.Helper()
	if msg := allocExcess(n, decode); msg != "" {
		t.Fatalf("%s %s", name, msg)
	}
}

// allocExcess runs decode and says how it exceeded the allocation bounds
// for an input of n bytes, or returns "".
func allocExcess(n int, decode func()) string {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	vm := vmSize()
	decode()
	vm2 := vmSize()
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > allocLimit(n) {
		return fmt.Sprintf("allocated %d bytes for %d input bytes (limit %d)", d, n, allocLimit(n))
	}
	if vm != 0 && vm2 > vm && vm2-vm > vmLimit(n) {
		return fmt.Sprintf("grew the address space by %d bytes for %d input bytes (limit %d)", vm2-vm, n, vmLimit(n))
	}
	return ""
}

var sink []byte

// TestAllocCheckCatches keeps the allocation check honest: a decoder that
// allocates what a header claims rather than what the input holds fails it.
func TestAllocCheckCatches(t *testing.T) {
	if msg := allocExcess(100, func() { sink = make([]byte, 100) }); msg != "" {
		t.Errorf("a proportionate allocation fails the check: %s", msg)
	}
	if msg := allocExcess(100, func() { sink = make([]byte, 1<<20) }); msg == "" {
		t.Error("a 1 MiB allocation for 100 input bytes passes the check")
	}
	sink = nil
}

var sentinels = []error{sift.ErrMagic, sift.ErrVersion, sift.ErrKind, sift.ErrTruncated, sift.ErrChecksum, sift.ErrCorrupt, sift.ErrTooLarge}

func checkErr(t *testing.T, name string, err error) {
	t.Helper()
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("%s: error %q wraps no sift sentinel", name, err)
}

// probeHashes are the hashes every decoded filter is asked about.
var probeHashes = func() []uint64 {
	next := splitmix(42)
	hs := make([]uint64, 64)
	for i := range hs {
		hs[i] = next()
	}
	return hs
}()

type prober interface {
	ContainsHash(uint64) bool
	ContainsHashes([]uint64, []bool) int
}

// agree checks that decoders' results answer alike, batch and single.
func agree(t *testing.T, name string, fs ...prober) {
	t.Helper()
	out := make([]bool, len(probeHashes))
	for i, f := range fs {
		f.ContainsHashes(probeHashes, out)
		for j, h := range probeHashes {
			if s := f.ContainsHash(h); s != out[j] {
				t.Fatalf("%s #%d: ContainsHashes and ContainsHash differ on probe %d", name, i, j)
			}
			if s := fs[0].ContainsHash(h); s != out[j] {
				t.Fatalf("%s: decoder #%d answers probe %d differently from #0", name, i, j)
			}
		}
	}
}

func decodeBlocked(t *testing.T, data []byte) {
	var g, r blocked.Filter
	var err, rerr, verr error
	var n int64
	var v *blocked.View
	measure(t, "blocked.UnmarshalBinary", len(data), func() { err = g.UnmarshalBinary(data) })
	measure(t, "blocked.ReadFrom", len(data), func() { n, rerr = r.ReadFrom(bytes.NewReader(data)) })
	measure(t, "blocked.FromBytes", len(data), func() { v, verr = blocked.FromBytes(data) })
	if rerr == nil {
		defer r.Close()
	}
	if err != nil {
		checkErr(t, "blocked.UnmarshalBinary", err)
		if verr == nil {
			v.Close()
			t.Fatalf("blocked.FromBytes accepts what UnmarshalBinary rejects: %v", err)
		}
		checkErr(t, "blocked.FromBytes", verr)
		if rerr == nil {
			// ReadFrom reads one filter and stops: the input has more.
			var h blocked.Filter
			if n >= int64(len(data)) || h.UnmarshalBinary(data[:n]) != nil {
				t.Fatalf("blocked.ReadFrom accepts %d of %d bytes that UnmarshalBinary rejects: %v", n, len(data), err)
			}
			h.Close()
		} else {
			checkErr(t, "blocked.ReadFrom", rerr)
		}
		return
	}
	defer g.Close()
	if rerr != nil || n != int64(len(data)) || verr != nil {
		t.Fatalf("blocked decoders disagree: ReadFrom %d bytes, %v; FromBytes %v", n, rerr, verr)
	}
	defer v.Close()
	sameBytes(t, "blocked: re-encoding", image(&g), data)
	sameBytes(t, "blocked view: re-encoding", image(v), data)
	agree(t, "blocked", &g, &r, v)
	g.AddUint64(7)
	if !g.ContainsUint64(7) {
		t.Fatal("blocked: decoded filter lost a key")
	}
}

func decodeScalable(t *testing.T, data []byte) {
	var g, r blocked.Scalable
	var err, rerr error
	var n int64
	measure(t, "Scalable.UnmarshalBinary", len(data), func() { err = g.UnmarshalBinary(data) })
	measure(t, "Scalable.ReadFrom", len(data), func() { n, rerr = r.ReadFrom(bytes.NewReader(data)) })
	if rerr == nil {
		defer r.Close()
	}
	if err != nil {
		checkErr(t, "Scalable.UnmarshalBinary", err)
		if rerr == nil {
			var h blocked.Scalable
			if n >= int64(len(data)) || h.UnmarshalBinary(data[:n]) != nil {
				t.Fatalf("Scalable.ReadFrom accepts %d of %d bytes that UnmarshalBinary rejects: %v", n, len(data), err)
			}
			h.Close()
		} else {
			checkErr(t, "Scalable.ReadFrom", rerr)
		}
		return
	}
	defer g.Close()
	if rerr != nil || n != int64(len(data)) {
		t.Fatalf("Scalable decoders disagree: ReadFrom %d bytes, %v", n, rerr)
	}
	sameBytes(t, "Scalable: re-encoding", image(&g), data)
	if g.Count() != r.Count() || g.Stages() != r.Stages() {
		t.Fatal("Scalable decoders disagree on count or stages")
	}
	agree(t, "Scalable", &g, &r)
	if err := g.AddUint64(7); err == nil && !g.ContainsUint64(7) {
		t.Fatal("Scalable: decoded filter lost a key")
	}
}

func decodeCuckoo(t *testing.T, data []byte) {
	var g, r cuckoo.Filter
	var err, rerr, verr error
	var n int64
	var v *cuckoo.View
	measure(t, "cuckoo.UnmarshalBinary", len(data), func() { err = g.UnmarshalBinary(data) })
	measure(t, "cuckoo.ReadFrom", len(data), func() { n, rerr = r.ReadFrom(bytes.NewReader(data)) })
	measure(t, "cuckoo.FromBytes", len(data), func() { v, verr = cuckoo.FromBytes(data) })
	if verr == nil {
		defer v.Close()
	} else {
		checkErr(t, "cuckoo.FromBytes", verr)
	}
	if rerr == nil {
		defer r.Close()
	}
	if err != nil {
		checkErr(t, "cuckoo.UnmarshalBinary", err)
		if rerr == nil {
			var h cuckoo.Filter
			if n >= int64(len(data)) || h.UnmarshalBinary(data[:n]) != nil {
				t.Fatalf("cuckoo.ReadFrom accepts %d of %d bytes that UnmarshalBinary rejects: %v", n, len(data), err)
			}
		} else {
			checkErr(t, "cuckoo.ReadFrom", rerr)
		}
		return
	}
	defer g.Close()
	if rerr != nil || n != int64(len(data)) || verr != nil {
		t.Fatalf("cuckoo decoders disagree: ReadFrom %d bytes, %v; FromBytes %v", n, rerr, verr)
	}
	sameBytes(t, "cuckoo: re-encoding", image(&g), data)
	if g.Count() != r.Count() || g.Count() != v.Count() || g.VictimInUse() != v.VictimInUse() {
		t.Fatal("cuckoo decoders disagree on count or victim")
	}
	agree(t, "cuckoo", &g, &r, v)
	c := g.Count()
	for i := uint64(0); i < 64; i++ {
		if err := g.AddUint64(i); err != nil {
			if !errors.Is(err, cuckoo.ErrFull) && !errors.Is(err, cuckoo.ErrDuplicateLimit) {
				t.Fatalf("cuckoo Add on a decoded filter: %v", err)
			}
			break
		}
		c++
		if !g.ContainsUint64(i) || g.Count() != c {
			t.Fatal("cuckoo: decoded filter lost a key or miscounts")
		}
	}
}

func decodeCounting(t *testing.T, data []byte) {
	var g classic.Counting
	var r *classic.Counting
	var err, rerr error
	rd := bytes.NewReader(data)
	measure(t, "Counting.UnmarshalBinary", len(data), func() { err = g.UnmarshalBinary(data) })
	measure(t, "ReadCounting", len(data), func() { r, rerr = classic.ReadCounting(rd) })
	n := len(data) - rd.Len()
	if err != nil {
		checkErr(t, "Counting.UnmarshalBinary", err)
		if rerr == nil {
			var h classic.Counting
			if n >= len(data) || h.UnmarshalBinary(data[:n]) != nil {
				t.Fatalf("ReadCounting accepts %d of %d bytes that UnmarshalBinary rejects: %v", n, len(data), err)
			}
		} else {
			checkErr(t, "ReadCounting", rerr)
		}
		return
	}
	if rerr != nil || n != len(data) || !r.Equal(&g) {
		t.Fatalf("Counting decoders disagree: ReadCounting %d bytes, %v", n, rerr)
	}
	sameBytes(t, "Counting: re-encoding", image(&g), data)
	g.AddUint64(7)
	if !g.ContainsUint64(7) {
		t.Fatal("Counting: decoded filter lost a key")
	}
	if err := g.RemoveUint64(7); err != nil {
		t.Fatalf("Counting: Remove after Add: %v", err)
	}
}

func decodeClassicNative(t *testing.T, data []byte) {
	var g, h classic.Filter
	var r *classic.Filter
	var err, rerr, herr error
	var hn int64
	rd := bytes.NewReader(data)
	measure(t, "classic.UnmarshalBinary", len(data), func() { err = g.UnmarshalBinary(data) })
	measure(t, "classic.ReadFilter", len(data), func() { r, rerr = classic.ReadFilter(rd) })
	measure(t, "classic.Filter.ReadFrom", len(data), func() { hn, herr = h.ReadFrom(bytes.NewReader(data)) })
	n := len(data) - rd.Len()
	if (herr == nil) != (rerr == nil) || rerr == nil && (hn != int64(n) || !h.Equal(r)) {
		t.Fatalf("classic stream decoders disagree: ReadFrom %d bytes, %v; ReadFilter %d bytes, %v", hn, herr, n, rerr)
	}
	if err != nil {
		checkErr(t, "classic.UnmarshalBinary", err)
		if rerr == nil {
			var h classic.Filter
			if n >= len(data) || h.UnmarshalBinary(data[:n]) != nil {
				t.Fatalf("ReadFilter accepts %d of %d bytes that UnmarshalBinary rejects: %v", n, len(data), err)
			}
		} else {
			checkErr(t, "classic.ReadFilter", rerr)
			checkErr(t, "classic.Filter.ReadFrom", herr)
		}
		return
	}
	if rerr != nil || n != len(data) || !r.Equal(&g) {
		t.Fatalf("classic decoders disagree: ReadFilter %d bytes, %v", n, rerr)
	}
	sameBytes(t, "classic: re-encoding", image(&g), data)
	exerciseClassic(t, &g)
}

func decodeGuava(t *testing.T, data []byte) {
	var g *classic.Filter
	var err error
	rd := bytes.NewReader(data)
	measure(t, "classic.ReadGuava", len(data), func() { g, err = classic.ReadGuava(rd) })
	consumed := len(data) - rd.Len()
	if err != nil {
		checkErr(t, "classic.ReadGuava", err)
		return
	}
	sameBytes(t, "Guava: re-encoding", guavaImage(g), data[:consumed])
	// The sift form of a Guava filter round-trips too.
	var back classic.Filter
	if err := back.UnmarshalBinary(image(g)); err != nil || !back.Equal(g) {
		t.Fatalf("Guava filter does not round-trip through sift's format: %v", err)
	}
	exerciseClassic(t, g)
}

// guavaImage is g in Guava's stream format.
func guavaImage(g *classic.Filter) []byte {
	b, err := g.AppendGuava(nil)
	if err != nil {
		panic(err)
	}
	return b
}

func exerciseClassic(t *testing.T, g *classic.Filter) {
	t.Helper()
	before := g.MightContainString("fuzz")
	if changed := g.PutString("fuzz"); changed == before {
		t.Fatalf("classic Put = %v with MightContain %v before", changed, before)
	}
	if !g.MightContainString("fuzz") {
		t.Fatal("classic: false negative right after Put")
	}
}

// sameBytes fails unless got equals want, naming the first difference
// (for sift's format, offsets 48..111 are the header's Params[0..7]).
func sameBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	where := ""
	if i >= 48 && i < 112 {
		where = fmt.Sprintf(" (header Params[%d])", (i-48)/8)
	}
	t.Fatalf("%s differs from the input at byte %d%s of %d/%d", what, i, where, len(got), len(want))
}

// decodeAll gives data to every decoder.
func decodeAll(t *testing.T, data []byte) {
	decodeBlocked(t, data)
	decodeScalable(t, data)
	decodeCuckoo(t, data)
	decodeCounting(t, data)
	decodeClassicNative(t, data)
	decodeGuava(t, data)
	decodeSplitBlock(t, data)
	decodeWindow(t, data)
}

// validEncodings are one small valid encoding of every kind, the decoders'
// seeds.
func validEncodings() map[string][]byte {
	enc := map[string][]byte{}
	b, _ := blocked.NewWithSize(3*512, 5, blocked.WithSeed(9))
	for i := range uint64(40) {
		b.AddUint64(i)
	}
	enc["blocked"] = image(b)
	s, _ := blocked.NewScalable(4, 0.1, blocked.WithSeed(3))
	for i := range uint64(20) {
		s.AddUint64(i)
	}
	enc["scalable"] = image(s)
	for _, bits := range []int{8, 16} {
		c, _ := cuckoo.New(6, cuckoo.WithFingerprintBits(bits), cuckoo.WithMaxKicks(0))
		for i := uint64(0); c.AddUint64(i) == nil; i++ {
		}
		enc["cuckoo"+strconv.Itoa(bits)] = image(c)
	}
	n, _ := classic.NewCounting(10, 0.1, classic.WithSeed(1))
	for i := range uint64(12) {
		n.AddUint64(i)
	}
	enc["counting"] = image(n)
	g, _ := classic.New(30, 0.05)
	for i := range int64(30) {
		g.PutInt64(i)
	}
	enc["classic"] = image(g)
	enc["guava"] = guavaImage(g)
	g32, _ := classic.New(5, 0.2, classic.WithStrategy(classic.Murmur128Mitz32))
	g32.PutString("x")
	enc["guava32"] = guavaImage(g32)
	sb, _ := sbbf.NewWithSize(96)
	for i := range int64(20) {
		sb.AddInt64(i)
	}
	enc["sbbf"] = image(sb)
	for name, e := range windowEncodings() {
		enc[name] = e
	}
	return enc
}

// FuzzDecode gives the same bytes to every decoder: none may panic or
// over-allocate, the readers of one format must agree, and what decodes
// must re-encode to the input.
func FuzzDecode(f *testing.F) {
	for _, e := range validEncodings() {
		f.Add(e)
	}
	f.Add([]byte{})
	f.Add([]byte{1, 3, 0x7f, 0xff, 0xff, 0xff}) // Guava: 2^31-1 words declared, none sent
	f.Fuzz(decodeAll)
}

// FuzzDecodeRecord builds a record of sift's format with valid checksums
// around fuzzed header fields and payload, so that the decoders' checks of
// every field are fuzzed instead of stopping at the CRC. A scalable
// record's payload is built from stage records (see stagesPayload).
func FuzzDecodeRecord(f *testing.F) {
	for _, e := range validEncodings() {
		h, payload, _, err := format.Decode(e, 0, format.Options{})
		if err != nil {
			continue // the Guava streams
		}
		if h.Kind == format.KindScalable {
			payload = stagesSpec(payload)
		}
		f.Add(uint8(h.Kind), uint8(h.Hash), h.Seed, h.Params[0], h.Params[1], h.Params[2], h.Params[3], h.Params[4], h.Params[5], h.Params[6], h.Params[7], payload)
	}
	f.Fuzz(func(t *testing.T, kind, hashAlg uint8, seed, p0, p1, p2, p3, p4, p5, p6, p7 uint64, payload []byte) {
		h := format.Header{Kind: recordKind(kind), Hash: format.Hash(hashAlg % 4), Seed: seed,
			Params: [format.NumParams]uint64{p0, p1, p2, p3, p4, p5, p6, p7}}
		if h.Kind == format.KindScalable {
			payload = stagesPayload(payload, seed)
		}
		decodeAll(t, format.Encode(h, payload))
	})
}

// recordKind maps FuzzDecodeRecord's kind byte to a kind: every kind up
// to format.MaxKind as itself (the retired window kinds included), larger
// bytes modulo 8, as every byte was before the window kinds, so that the
// corpus keeps its meaning.
func recordKind(b uint8) format.Kind {
	if format.Kind(b) <= format.MaxKind {
		return format.Kind(b)
	}
	return format.Kind(b % 8)
}

// A scalable payload spec is a sequence of stages, each: a k byte, a
// count byte, a capacity byte, a block-count byte b, then 64*b bytes of
// blocks (zero-padded when the spec ends early). stagesPayload turns it into
// stage records with valid checksums; stagesSpec is its inverse for the
// seeds (it keeps up to 255 blocks, counts and capacities up to 255).
func stagesPayload(spec []byte, seed uint64) []byte {
	var out []byte
	for len(spec) >= 4 && len(out) < 1<<16 {
		k, count, capacity, nb := uint64(spec[0]), uint64(spec[1]), uint64(spec[2]), int(spec[3])
		spec = spec[4:]
		blocks := make([]byte, 64*nb)
		spec = spec[copy(blocks, spec):]
		h := format.Header{Kind: format.KindBlocked, Hash: format.HashXXH3, Seed: seed,
			Params: [format.NumParams]uint64{uint64(nb), k, count, capacity}}
		out = append(out, format.Encode(h, blocks)...)
	}
	return out
}

func stagesSpec(payload []byte) []byte {
	var spec []byte
	for len(payload) > 0 {
		h, blocks, n, err := format.Decode(payload, format.KindBlocked, format.Options{})
		if err != nil || h.Params[0] > 255 || h.Params[2] > 255 || h.Params[3] > 255 {
			break
		}
		spec = append(spec, byte(h.Params[1]), byte(h.Params[2]), byte(h.Params[3]), byte(h.Params[0]))
		spec = append(spec, blocks...)
		payload = payload[n:]
	}
	return spec
}

// TestDecodeSeedsAreValid keeps the decoder seeds meaningful: every valid
// encoding must decode (FuzzDecode's checks then run on the success path),
// and the record builder must reproduce it byte for byte.
func TestDecodeSeedsAreValid(t *testing.T) {
	for name, e := range validEncodings() {
		t.Run(name, func(t *testing.T) {
			decodeAll(t, e)
			var err error
			switch name {
			case "blocked":
				err = new(blocked.Filter).UnmarshalBinary(e)
			case "scalable":
				err = new(blocked.Scalable).UnmarshalBinary(e)
			case "cuckoo8", "cuckoo16":
				err = new(cuckoo.Filter).UnmarshalBinary(e)
			case "counting":
				err = new(classic.Counting).UnmarshalBinary(e)
			case "classic":
				err = new(classic.Filter).UnmarshalBinary(e)
			case "sbbf":
				err = new(sbbf.Filter).UnmarshalBinary(e)
			case "window", "window-count":
				err = new(blocked.Window).UnmarshalBinary(e)
			default:
				_, err = classic.ReadGuava(bytes.NewReader(e))
			}
			if err != nil {
				t.Fatalf("seed does not decode: %v", err)
			}
			h, payload, _, err := format.Decode(e, 0, format.Options{})
			if strings.HasPrefix(name, "guava") {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.Kind == format.KindScalable {
				payload = stagesPayload(stagesSpec(payload), h.Seed)
			}
			if again := format.Encode(h, payload); !bytes.Equal(again, e) {
				t.Fatal("record builder does not reproduce the encoding")
			}
		})
	}
}

// TestDecodeLargeWithinBounds runs the decoder checks on encodings of a
// few hundred KiB to a few MiB, so the allocation bounds are known to hold
// for real filters, not only for the small inputs fuzzing makes.
func TestDecodeLargeWithinBounds(t *testing.T) {
	next := splitmix(11)
	b, _ := blocked.NewWithSize(20_000*512, 7)
	s, _ := blocked.NewScalable(1_000, 0.01)
	c, _ := cuckoo.New(200_000, cuckoo.WithFingerprintBits(16))
	c8, _ := cuckoo.New(300_000, cuckoo.WithFingerprintBits(8))
	n, _ := classic.NewCounting(100_000, 0.01)
	g, _ := classic.New(200_000, 0.01)
	w, _ := blocked.NewWindow(100_000, 0.01, 3*time.Second, blocked.WithClock(windowClock))
	defer w.Close()
	for i := 0; i < 100_000; i++ {
		h := next()
		b.AddHash(h)
		if i < 40_000 {
			if err := s.AddHash(h); err != nil {
				t.Fatal(err)
			}
		}
		if c.AddHash(h) != nil || c8.AddHash(h) != nil {
			t.Fatal("cuckoo add failed below capacity")
		}
		n.AddHash(h)
		g.PutInt64(int64(h))
		w.AddHash(h)
	}
	for name, e := range map[string][]byte{
		"blocked": image(b), "scalable": image(s), "cuckoo16": image(c), "cuckoo8": image(c8),
		"counting": image(n), "classic": image(g), "guava": guavaImage(g), "window": image(w),
	} {
		t.Run(name, func(t *testing.T) {
			t.Logf("%d bytes", len(e))
			decodeAll(t, e)
		})
	}
}
