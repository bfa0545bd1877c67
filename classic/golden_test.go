package classic

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"
)

// The golden vectors in testdata/guava/vectors.json were written by the real
// Guava (testdata/guava/gen.sh runs GuavaVectors.java against Debian's
// libguava-java). These tests need neither Java nor Guava.

type guavaVectors struct {
	Guava  string `json:"guava"`
	Java   string `json:"java"`
	Murmur []struct {
		Funnel string `json:"funnel"`
		Key    string `json:"key"`
		Hash   string `json:"hash"`
	} `json:"murmur"`
	KeySets map[string][]string `json:"keySets"`
	Filters []struct {
		Strategy       int    `json:"strategy"`
		N              int64  `json:"n"`
		FppBits        string `json:"fppBits"`
		Funnel         string `json:"funnel"`
		Inserted       int    `json:"inserted"`
		Puts           string `json:"puts"`
		Answers        string `json:"answers"`
		ExpectedFppBit string `json:"expectedFppBits"`
		Approx         string `json:"approximateElementCount"`
		Serialized     string `json:"serialized"`
	} `json:"filters"`
	Unions []struct {
		Funnel         string `json:"funnel"`
		A              string `json:"a"`
		B              string `json:"b"`
		Union          string `json:"union"`
		ExpectedFppBit string `json:"expectedFppBits"`
		Approx         string `json:"approximateElementCount"`
	} `json:"unions"`
	Sizing []struct {
		N       string `json:"n"`
		FppBits string `json:"fppBits"`
		Bits    string `json:"bits"`
		K       *int   `json:"k"`
		Create  string `json:"create"`
	} `json:"sizing"`
	Log    [][2]string `json:"log"`
	Log1p  [][2]string `json:"log1p"`
	Pow    [][3]any    `json:"pow"`
	Decode []struct {
		Input        string `json:"input"`
		OK           bool   `json:"ok"`
		Reserialized string `json:"reserialized"`
	} `json:"decode"`
	StrictPow [][3]string `json:"strictPow"`
	UTF8      [][2]string `json:"utf8"`
	Sweep     []struct {
		BitSize     int64  `json:"bitSize"`
		K           int    `json:"k"`
		FppBits     string `json:"expectedFppBits"`
		Approximate string `json:"approximateElementCounts"`
		Digests     string `json:"digests"`
	} `json:"sweep"`
}

var (
	vectorsOnce sync.Once
	vectors     guavaVectors
	vectorsErr  error
)

func loadVectors(t testing.TB) *guavaVectors {
	t.Helper()
	vectorsOnce.Do(func() {
		data, err := os.ReadFile("testdata/guava/vectors.json")
		if err != nil {
			vectorsErr = err
			return
		}
		vectorsErr = json.Unmarshal(data, &vectors)
	})
	if vectorsErr != nil {
		t.Fatalf("loading golden vectors: %v", vectorsErr)
	}
	return &vectors
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func mustFloatBits(t testing.TB, s string) float64 {
	t.Helper()
	u, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		t.Fatalf("bad float bits %q: %v", s, err)
	}
	return math.Float64frombits(u)
}

// goldenKey is one key of a vector key set, in the Go form its funnel uses.
// A "chars" key (Funnels.unencodedCharsFunnel()) is spelled as its UTF-16
// code units, four hex digits each; u holds them, and s the same text as a
// Go string when the units are well-formed UTF-16 (no unpaired surrogates).
type goldenKey struct {
	funnel string
	b      []byte
	s      string
	i64    int64
	i32    int32
	u      []uint16
	sOK    bool // s holds the same characters as u
}

// parseUnits reads code units spelled as four hex digits each.
func parseUnits(t testing.TB, spelling string) []uint16 {
	t.Helper()
	b := mustHex(t, spelling)
	if len(b)%2 != 0 {
		t.Fatalf("odd UTF-16 spelling %q", spelling)
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.BigEndian.Uint16(b[2*i:])
	}
	return u
}

// utf16String returns the Go string of well-formed UTF-16 units.
func utf16String(u []uint16) (string, bool) {
	s := string(utf16.Decode(u))
	return s, slices.Equal(utf16.Encode([]rune(s)), u)
}

func parseKey(t testing.TB, funnel, spelling string) goldenKey {
	t.Helper()
	k := goldenKey{funnel: funnel}
	switch funnel {
	case "bytes":
		k.b = mustHex(t, spelling)
	case "string":
		k.s = spelling
	case "int64":
		v, err := strconv.ParseInt(spelling, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		k.i64 = v
	case "int32":
		v, err := strconv.ParseInt(spelling, 10, 32)
		if err != nil {
			t.Fatal(err)
		}
		k.i32 = int32(v)
	case "chars":
		k.u = parseUnits(t, spelling)
		k.s, k.sOK = utf16String(k.u)
	default:
		t.Fatalf("unknown funnel %q", funnel)
	}
	return k
}

// put adds k in the form its funnel uses; a chars key alternates, by the
// parity of its index i, between its Go string form (when it has one) and
// its code units.
func (k goldenKey) put(f *Filter, i int) bool {
	switch k.funnel {
	case "bytes":
		return f.Put(k.b)
	case "string":
		return f.PutString(k.s)
	case "int64":
		return f.PutInt64(k.i64)
	case "chars":
		if k.sOK && i%2 == 0 {
			return f.PutUnencodedChars(k.s)
		}
		return f.PutUTF16(k.u)
	}
	return f.PutInt32(k.i32)
}

// mightContain probes k; a chars key is probed in both of its forms, which
// must agree.
func (k goldenKey) mightContain(t testing.TB, f *Filter) bool {
	switch k.funnel {
	case "bytes":
		return f.MightContain(k.b)
	case "string":
		return f.MightContainString(k.s)
	case "int64":
		return f.MightContainInt64(k.i64)
	case "chars":
		got := f.MightContainUTF16(k.u)
		if k.sOK && f.MightContainUnencodedChars(k.s) != got {
			t.Errorf("MightContainUnencodedChars(%q) != MightContainUTF16(%x)", k.s, k.u)
		}
		return got
	}
	return f.MightContainInt32(k.i32)
}

// hash128 hashes k as its funnel does, through the specialised paths.
func (k goldenKey) hash128() (uint64, uint64) {
	switch k.funnel {
	case "bytes":
		return murmur3(k.b)
	case "string":
		return murmur3([]byte(k.s))
	case "int64":
		return murmur3Int64(k.i64)
	case "chars":
		return murmur3UTF16(k.u)
	}
	return murmur3Int32(k.i32)
}

func keySet(t testing.TB, v *guavaVectors, funnel string) []goldenKey {
	t.Helper()
	spellings, ok := v.KeySets[funnel]
	if !ok {
		t.Fatalf("no key set %q", funnel)
	}
	keys := make([]goldenKey, len(spellings))
	for i, s := range spellings {
		keys[i] = parseKey(t, funnel, s)
	}
	return keys
}

func TestGoldenMurmur3(t *testing.T) {
	v := loadVectors(t)
	t.Logf("vectors from Guava %s on Java %s", v.Guava, v.Java)
	if len(v.Murmur) < 90 {
		t.Fatalf("only %d murmur vectors", len(v.Murmur))
	}
	chars := 0
	for _, m := range v.Murmur {
		k := parseKey(t, m.Funnel, m.Key)
		h1, h2 := k.hash128()
		got := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, h1), h2)
		if want := mustHex(t, m.Hash); !bytes.Equal(got, want) {
			t.Errorf("murmur3_128(%s %q) = %x, Guava %x", m.Funnel, m.Key, got, want)
		}
		// The specialised int paths must equal hashing the funnelled bytes.
		var le []byte
		switch m.Funnel {
		case "int64":
			le = binary.LittleEndian.AppendUint64(nil, uint64(k.i64))
		case "int32":
			le = binary.LittleEndian.AppendUint32(nil, uint32(k.i32))
		}
		if le != nil {
			if b1, b2 := murmur3(le); b1 != h1 || b2 != h2 {
				t.Errorf("%s %s: specialised hash differs from murmur3 of its bytes", m.Funnel, m.Key)
			}
		}
		// The string form of a chars key hashes the same units.
		if m.Funnel == "chars" {
			chars++
			if k.sOK {
				if s1, s2 := murmur3Chars(k.s); s1 != h1 || s2 != h2 {
					t.Errorf("murmur3Chars(%q) differs from Guava's hash of the same units", k.s)
				}
			}
		}
	}
	if chars < 40 {
		t.Errorf("only %d chars-funnel murmur vectors", chars)
	}
}

func TestGoldenFilters(t *testing.T) {
	v := loadVectors(t)
	if len(v.Filters) < 100 {
		t.Fatalf("only %d filter vectors", len(v.Filters))
	}
	keys := map[string][]goldenKey{}
	for _, name := range []string{"bytes", "string", "int64", "int32", "chars"} {
		keys[name] = keySet(t, v, name)
	}
	for _, g := range v.Filters {
		fpp := mustFloatBits(t, g.FppBits)
		name := g.Funnel + "/" + Strategy(g.Strategy).String() + "/n=" + strconv.FormatInt(g.N, 10) + "/fpp=" + strconv.FormatFloat(fpp, 'g', -1, 64)
		t.Run(name, func(t *testing.T) {
			ks := keys[g.Funnel]
			f, err := New(g.N, fpp, WithStrategy(Strategy(g.Strategy)))
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			for i := 0; i < g.Inserted; i++ {
				if got, want := ks[i].put(f, i), g.Puts[i] == '1'; got != want {
					t.Fatalf("put #%d returned %v, Guava %v", i, got, want)
				}
			}
			want := mustHex(t, g.Serialized)
			if got := mustGuava(f); !bytes.Equal(got, want) {
				t.Fatalf("serialized filter differs from Guava's:\n go    %x\n guava %x", got, want)
			}
			var buf bytes.Buffer
			if n, err := f.WriteGuava(&buf); err != nil || n != int64(len(want)) || !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("WriteGuava = %d, %v; bytes equal %v", n, err, bytes.Equal(buf.Bytes(), want))
			}
			// Guava's bytes read back: same filter, same bytes out.
			back, err := ReadGuava(bytes.NewReader(want))
			if err != nil {
				t.Fatalf("ReadGuava(Guava's bytes): %v", err)
			}
			if !back.Equal(f) || back.BitCount() != f.BitCount() || !bytes.Equal(mustGuava(back), want) {
				t.Fatal("ReadGuava of Guava's bytes does not round-trip")
			}
			for _, filter := range []*Filter{f, back} {
				for i, k := range ks {
					if got, want := k.mightContain(t, filter), g.Answers[i] == '1'; got != want {
						t.Fatalf("mightContain(key #%d) = %v, Guava %v", i, got, want)
					}
				}
			}
			if got, want := f.StrictExpectedFpp(), mustFloatBits(t, g.ExpectedFppBit); got != want {
				t.Errorf("StrictExpectedFpp = %v (%#x), Guava %v (%#x)", got, math.Float64bits(got), want, math.Float64bits(want))
			}
			got := f.ApproximateElementCount()
			if g.Approx == "ArithmeticException" {
				if got != math.MaxInt64 {
					t.Errorf("ApproximateElementCount of a full filter = %d, want MaxInt64 (Guava throws)", got)
				}
			} else if want, _ := strconv.ParseInt(g.Approx, 10, 64); got != want {
				t.Errorf("ApproximateElementCount = %d, Guava %d", got, want)
			}
		})
	}
}

func TestGoldenUnions(t *testing.T) {
	v := loadVectors(t)
	if len(v.Unions) == 0 {
		t.Fatal("no union vectors")
	}
	for _, u := range v.Unions {
		a, err := ReadGuava(bytes.NewReader(mustHex(t, u.A)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := ReadGuava(bytes.NewReader(mustHex(t, u.B)))
		if err != nil {
			t.Fatal(err)
		}
		if err := a.PutAll(b); err != nil {
			t.Fatalf("PutAll: %v", err)
		}
		if got, want := mustGuava(a), mustHex(t, u.Union); !bytes.Equal(got, want) {
			t.Errorf("%s: union differs from Guava's", u.Funnel)
		}
		if got, want := a.StrictExpectedFpp(), mustFloatBits(t, u.ExpectedFppBit); got != want {
			t.Errorf("%s: union StrictExpectedFpp = %v, Guava %v", u.Funnel, got, want)
		}
		if want, _ := strconv.ParseInt(u.Approx, 10, 64); a.ApproximateElementCount() != want {
			t.Errorf("%s: union ApproximateElementCount = %d, Guava %d", u.Funnel, a.ApproximateElementCount(), want)
		}
	}
}

func TestGoldenSizing(t *testing.T) {
	v := loadVectors(t)
	if len(v.Sizing) < 500 {
		t.Fatalf("only %d sizing vectors", len(v.Sizing))
	}
	for _, s := range v.Sizing {
		n, err := strconv.ParseInt(s.N, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		fpp := mustFloatBits(t, s.FppBits)
		if s.Bits != "" {
			nn := max(n, 1)
			wantBits, _ := strconv.ParseInt(s.Bits, 10, 64)
			if got := optimalNumOfBits(nn, fpp); got != wantBits {
				t.Errorf("optimalNumOfBits(%d, %v) = %d, Guava %d", nn, fpp, got, wantBits)
			}
			if got := optimalNumOfHashFunctions(nn, wantBits); got != *s.K {
				t.Errorf("optimalNumOfHashFunctions(%d, %d) = %d, Guava %d", nn, wantBits, got, *s.K)
			}
		}
		words, k, err := guavaSize(n, fpp)
		switch s.Create {
		case "ok":
			if err != nil {
				t.Errorf("guavaSize(%d, %v): %v; Guava accepts", n, fpp, err)
			}
		case "error":
			if err == nil {
				t.Errorf("guavaSize(%d, %v) = %d words, k=%d; Guava rejects", n, fpp, words, k)
			}
		case "skipped":
			// Too big to build in the generator: its word count is within
			// Guava's limits, so only k decides.
			if ok := *s.K <= MaxHashFunctions; ok != (err == nil) {
				t.Errorf("guavaSize(%d, %v): err=%v with k=%d", n, fpp, err, *s.K)
			}
		default:
			t.Fatalf("bad create verdict %q", s.Create)
		}
		if s.Create == "ok" && s.Bits != "" {
			wantBits, _ := strconv.ParseInt(s.Bits, 10, 64)
			if words != (wantBits+63)/64 || k != *s.K {
				t.Errorf("guavaSize(%d, %v) = %d words k=%d, Guava %d bits k=%d", n, fpp, words, k, wantBits, *s.K)
			}
		}
	}
}

func TestGoldenDecode(t *testing.T) {
	v := loadVectors(t)
	if len(v.Decode) < 40 {
		t.Fatalf("only %d decode vectors", len(v.Decode))
	}
	for i, d := range v.Decode {
		in := mustHex(t, d.Input)
		f, err := ReadGuava(bytes.NewReader(in))
		if d.OK != (err == nil) {
			t.Errorf("decode #%d (%x): Go err=%v, Guava ok=%v", i, in, err, d.OK)
			continue
		}
		if d.OK {
			if got := mustGuava(f); !bytes.Equal(got, mustHex(t, d.Reserialized)) {
				t.Errorf("decode #%d: re-serialized %x, Guava %s", i, got, d.Reserialized)
			}
		}
	}
}

func TestGoldenMathLog(t *testing.T) {
	v := loadVectors(t)
	if len(v.Log) < 500 {
		t.Fatalf("only %d log vectors", len(v.Log))
	}
	mismatchStd := 0
	for _, l := range v.Log {
		x, want := mustFloatBits(t, l[0]), mustFloatBits(t, l[1])
		if got := bigLog(x); got != want {
			t.Errorf("javaLog(%v) = %v (%#x), Java Math.log %v (%#x)", x, got, math.Float64bits(got), want, math.Float64bits(want))
		}
		if math.Log(x) != want {
			mismatchStd++
		}
	}
	// Documents why javaLog exists; not a requirement on the standard library.
	t.Logf("math.Log differs from Java's Math.log on %d of %d inputs", mismatchStd, len(v.Log))
}

func TestGoldenMathPow(t *testing.T) {
	v := loadVectors(t)
	if len(v.Pow) < 500 {
		t.Fatalf("only %d pow vectors", len(v.Pow))
	}
	mismatchStd := 0
	for _, p := range v.Pow {
		x := mustFloatBits(t, p[0].(string))
		k := int(p[1].(float64))
		want := mustFloatBits(t, p[2].(string))
		if got := strictPow(x, float64(k)); got != want {
			t.Errorf("strictPow(%v, %d) = %v (%#x), Java Math.pow %v (%#x)", x, k, got, math.Float64bits(got), want, math.Float64bits(want))
		}
		if math.Pow(x, float64(k)) != want {
			mismatchStd++
		}
	}
	t.Logf("math.Pow differs from Java's Math.pow on %d of %d inputs", mismatchStd, len(v.Pow))
}

func TestGoldenMathLog1p(t *testing.T) {
	v := loadVectors(t)
	if len(v.Log1p) < 500 {
		t.Fatalf("only %d log1p vectors", len(v.Log1p))
	}
	mismatchStd := 0
	for _, l := range v.Log1p {
		x, want := mustFloatBits(t, l[0]), mustFloatBits(t, l[1])
		if got := javaLog1p(x); got != want {
			t.Errorf("javaLog1p(%v) = %v (%#x), Java Math.log1p %v (%#x)", x, got, math.Float64bits(got), want, math.Float64bits(want))
		}
		if math.Log1p(x) != want {
			mismatchStd++
		}
	}
	t.Logf("math.Log1p differs from Java's Math.log1p on %d of %d inputs on %s", mismatchStd, len(v.Log1p), runtime.GOARCH)
}

func TestGoldenStrictPow(t *testing.T) {
	v := loadVectors(t)
	if len(v.StrictPow) < 500 {
		t.Fatalf("only %d StrictMath.pow vectors", len(v.StrictPow))
	}
	for _, p := range v.StrictPow {
		x, y, want := mustFloatBits(t, p[0]), mustFloatBits(t, p[1]), mustFloatBits(t, p[2])
		got := strictPow(x, y)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("strictPow(%v, %v) = %v (%#x), Java StrictMath.pow %v (%#x)", x, y, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
}

// TestGoldenUTF8 checks that a Go string holding arbitrary bytes hashes, for
// the chars funnel, as the String Java decodes from the same bytes.
func TestGoldenUTF8(t *testing.T) {
	v := loadVectors(t)
	if len(v.UTF8) < 1000 {
		t.Fatalf("only %d UTF-8 decoding vectors", len(v.UTF8))
	}
	for _, row := range v.UTF8 {
		in, want := mustHex(t, row[0]), parseUnits(t, row[1])
		if got := javaUnits(string(in)); !slices.Equal(got, want) {
			t.Errorf("%x decodes to %04x, Java %04x", in, got, want)
			continue
		}
		h1, h2 := murmur3Chars(string(in))
		if w1, w2 := murmur3UTF16(want); h1 != w1 || h2 != w2 {
			t.Errorf("murmur3Chars(%x) differs from the hash of Java's %04x", in, want)
		}
	}
}

// TestGoldenSweep compares StrictExpectedFpp and ApproximateElementCount
// with Guava's (run with StrictMath's pow, see testdata/guava/README.md)
// for small filters at every bit count and every k: the listed
// values one by one, the rest through per-k digests of the same sequence.
func TestGoldenSweep(t *testing.T) {
	v := loadVectors(t)
	listed, digested := 0, 0
	for _, sw := range v.Sweep {
		words := int(sw.BitSize / 64)
		if sw.Digests == "" {
			fpps := mustHex(t, sw.FppBits)
			counts := strings.Split(sw.Approximate, ",")
			if len(fpps) != 8*(int(sw.BitSize)+1) || len(counts) != int(sw.BitSize)+1 {
				t.Fatalf("sweep bitSize=%d k=%d: malformed row", sw.BitSize, sw.K)
			}
			forEachBitCount(words, sw.K, func(c int, f *Filter) {
				want := math.Float64frombits(binary.BigEndian.Uint64(fpps[8*c:]))
				if got := f.StrictExpectedFpp(); got != want {
					t.Errorf("bitSize=%d k=%d bitCount=%d: StrictExpectedFpp = %v (%#x), Guava %v (%#x)", sw.BitSize, sw.K, c, got, math.Float64bits(got), want, math.Float64bits(want))
				}
				if got, want := strconv.FormatInt(f.ApproximateElementCount(), 10), counts[c]; got != want {
					t.Errorf("bitSize=%d k=%d bitCount=%d: ApproximateElementCount = %s, Guava %s", sw.BitSize, sw.K, c, got, want)
				}
				listed++
			})
			continue
		}
		digests := mustHex(t, sw.Digests)
		if len(digests) != 8*MaxHashFunctions {
			t.Fatalf("sweep bitSize=%d: %d digest bytes", sw.BitSize, len(digests))
		}
		for k := 1; k <= MaxHashFunctions; k++ {
			h := sha256.New()
			var rec [16]byte
			forEachBitCount(words, k, func(c int, f *Filter) {
				binary.BigEndian.PutUint64(rec[:], math.Float64bits(f.StrictExpectedFpp()))
				binary.BigEndian.PutUint64(rec[8:], uint64(f.ApproximateElementCount()))
				h.Write(rec[:])
				digested++
			})
			if got, want := h.Sum(nil)[:8], digests[8*(k-1):8*k]; !bytes.Equal(got, want) {
				t.Errorf("bitSize=%d k=%d: the statistics over every bit count differ from Guava's (digest %x, Guava %x)", sw.BitSize, k, got, want)
			}
		}
	}
	if listed < 500 || digested < 1_000_000 {
		t.Fatalf("sweep covers %d listed and %d digested states", listed, digested)
	}
	t.Logf("%d filter states compared one by one, %d by digest", listed, digested)
}

// forEachBitCount calls fn with a filter of the given words and k holding
// c = 0..64*words set bits (the lowest ones), as the generator builds them.
func forEachBitCount(words, k int, fn func(c int, f *Filter)) {
	w := make([]uint64, words)
	f := newFilter(w, k, Strategy(k%2))
	for c := 0; ; c++ {
		if f.BitCount() != int64(c) {
			panic("forEachBitCount: bit count out of step")
		}
		fn(c, f)
		if c == 64*words {
			return
		}
		setBit(f.words, uint64(c))
		f.bitCount++
	}
}

// javaUnits is the reference for murmur3Chars' decoding: the UTF-16 code
// units of the String Java decodes from s's bytes.
func javaUnits(s string) []uint16 {
	var u []uint16
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= 0x80 {
			r, size = javaDecodeRune(s[i:])
		}
		u = utf16.AppendRune(u, r)
		i += size
	}
	return u
}

// mathPowVectors is a testdata/guava/mathpow-*.json file: expectedFpp of
// real Guava filters with a JVM's own Math.pow (see gen.sh).
type mathPowVectors struct {
	Java   string  `json:"java"`
	VM     string  `json:"vm"`
	Arch   string  `json:"arch"`
	Flags  string  `json:"flags"`
	Pow    string  `json:"pow"` // "intrinsic", or "strict" where it was StrictMath.pow throughout
	Differ int     `json:"differFromStrictMath"`
	States [][]any `json:"states"` // words, bitCount, k, expectedFpp's raw bits
}

// TestGoldenMathPowJVM compares ExpectedFpp with expectedFpp computed by
// real Guava on each JVM recorded in testdata/guava/mathpow-*.json (x86-64
// HotSpot with default flags, whose Math.pow is an intrinsic). It cannot
// require equality: the intrinsic is correctly rounded except within about
// 0.004 ulp of a rounding midpoint, where it rounds either way by no rule
// one could reproduce (measured on 200,000 states per k: about 0.05% of
// states differ from the correctly rounded power, by one ulp). So it
// requires at least 99.5% of states equal and every state within one ulp.
// A JVM recorded as "strict" (Math.pow was StrictMath.pow on every state,
// as on aarch64 HotSpot) must match StrictExpectedFpp exactly.
func TestGoldenMathPowJVM(t *testing.T) {
	files, err := filepath.Glob("testdata/guava/mathpow-*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no mathpow vectors: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var v mathPowVectors
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(v.States) < 10000 {
			t.Fatalf("%s: only %d states", file, len(v.States))
		}
		equal, strictEqual, issue := 0, 0, ""
		for _, s := range v.States {
			words, bitCount, k := int(s[0].(float64)), int(s[1].(float64)), int(s[2].(float64))
			want := mustFloatBits(t, s[3].(string))
			f := withBitCount(words, k, bitCount)
			got, strict := f.ExpectedFpp(), f.StrictExpectedFpp()
			if strict == want {
				strictEqual++
			}
			if got == want {
				equal++
			} else if math.Abs(got-want) > ulpOf(want) {
				t.Errorf("%s: words=%d bitCount=%d k=%d: ExpectedFpp = %v (%#x), Guava %v (%#x): more than one ulp apart",
					file, words, bitCount, k, got, math.Float64bits(got), want, math.Float64bits(want))
			}
			if words == 10432/64 && bitCount == 7720 && k == 3 {
				// One of the rare states where the intrinsic is not
				// correctly rounded (it gives StrictMath's value there).
				issue = fmt.Sprintf("(7720/10432)^3: Guava %v, ExpectedFpp %v, StrictExpectedFpp %v", want, got, strict)
			}
		}
		if issue == "" {
			t.Errorf("%s: no state of issue 17", file)
		}
		n := len(v.States)
		switch v.Pow {
		case "strict":
			if strictEqual != n {
				t.Errorf("%s (%s, %s): StrictExpectedFpp equals Guava's on %d of %d states, want all", file, v.VM, v.Arch, strictEqual, n)
			}
		case "intrinsic":
			if equal*1000 < n*995 {
				t.Errorf("%s (%s, %s): ExpectedFpp equals Guava's on %d of %d states, want at least 99.5%%", file, v.VM, v.Arch, equal, n)
			}
			if n-strictEqual != v.Differ || v.Differ < n/50 {
				t.Errorf("%s: StrictExpectedFpp differs on %d states, the generator counted %d", file, n-strictEqual, v.Differ)
			}
		default:
			t.Errorf("%s: unknown pow %q", file, v.Pow)
		}
		t.Logf("%s (Java %s, %s, %s, flags %q): ExpectedFpp equals Guava's expectedFpp on %d of %d states (the rest one ulp apart); StrictExpectedFpp on %d; %s",
			file, v.Java, v.VM, v.Arch, v.Flags, equal, n, strictEqual, issue)
	}
}

// withBitCount returns a filter of the given words and k whose lowest
// bitCount bits are set, as the generator builds it.
func withBitCount(words, k, bitCount int) *Filter {
	w := make([]uint64, words)
	for i := range bitCount / 64 {
		w[i] = ^uint64(0)
	}
	if r := bitCount % 64; r != 0 {
		w[bitCount/64] = 1<<r - 1
	}
	return newFilter(w, k, Strategy(k%2))
}

// ulpOf returns the gap between x (positive) and the next double up.
func ulpOf(x float64) float64 { return math.Nextafter(x, math.Inf(1)) - x }
