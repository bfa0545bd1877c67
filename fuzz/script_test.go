package fuzz

import (
	"bytes"
	"fmt"
	"io"

	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/classic"
	"github.com/sift-go/sift/cuckoo"
)

// A script is bytes: 7 parameter bytes (see decodeParams), then operations.
// Each operation is an op byte modulo numOps (11), naming 0 add, 1 add-batch,
// 2 contains, 3 contains-batch, 4 remove, 5 union, 6 reload, 7 reset, 8 fill,
// 9 add-new, 10 add-new-batch (add-if-new: see harness_test.go's addNew), and
// its arguments:
//
//	add, contains, remove, add-new
//	                        one key
//	add-batch, contains-batch, union, add-new-batch
//	                        a count byte c, then c%maxBatch keys (union: then a flags byte)
//	reload                  a mode byte: bit 0 ReadFrom instead of UnmarshalBinary,
//	                        bit 1 reload only the batch lanes (the single lane keeps
//	                        its filter, so later kicks test the restored PRNG),
//	                        bit 2 classic through Guava's stream format,
//	                        bit 3 the cuckoo Concurrents decode into themselves
//	                        (replacing their contents) rather than into zero values
//	reset                   nothing
//	fill                    a count byte: 1 + c%64 made-up keys, added as one batch
//
// A key is one byte below 0xe0, naming one of smallKeys keys (so keys
// repeat), or a byte 0xe0+n followed by n%8+1 bytes of a fresh key.
// Missing bytes read as zero, so every input is a valid script.

type input struct {
	b []byte
	i int
}

func (in *input) more() bool { return in.i < len(in.b) }

func (in *input) byte() byte {
	if in.i >= len(in.b) {
		return 0
	}
	c := in.b[in.i]
	in.i++
	return c
}

func smallKey(i int) string { return string([]byte{'k', byte(i)}) }

func (in *input) key() string {
	c := in.byte()
	if c < 0xe0 {
		return smallKey(int(c) % smallKeys)
	}
	n := int(c&7) + 1
	k := make([]byte, 1, n+1)
	k[0] = 0xfe
	for j := 0; j < n; j++ {
		k = append(k, in.byte())
	}
	return string(k)
}

func (in *input) keys() []string {
	n := int(in.byte()) % maxBatch
	keys := make([]string, n)
	for i := range keys {
		keys[i] = in.key()
	}
	return keys
}

// scriptBuilder writes scripts for the seed corpus and the example.
type scriptBuilder struct{ b []byte }

func newScript(k, blocks, ckCap, seed, kicks, scal, classicN byte) *scriptBuilder {
	return &scriptBuilder{b: []byte{k, blocks, ckCap, seed, kicks, scal, classicN}}
}

func (s *scriptBuilder) op(op int, args ...byte) *scriptBuilder {
	s.b = append(append(s.b, byte(op)), args...)
	return s
}

// batch appends a batch operation over the small keys ids.
func (s *scriptBuilder) batch(op int, ids ...byte) *scriptBuilder {
	s.b = append(append(s.b, byte(op), byte(len(ids))), ids...)
	return s
}

func (s *scriptBuilder) bytes() []byte { return s.b }

// reload serializes every filter, decodes it again, checks that the copy
// re-encodes to the same bytes and answers exactly like the original on
// every key seen (and so does a zero-copy view where there is one, and a
// cuckoo.Concurrent's Snapshot and NewConcurrentFrom), and continues with
// the copies.
func (h *harness) reload(mode byte) {
	h.st.reloads++
	viaReader := mode&1 != 0
	for li, l := range h.lanes {
		if li == 0 && mode&2 != 0 {
			continue
		}
		use(l)
		l.blocked = reloadBlocked(l.name, l.blocked, viaReader, h.knownH)
		for i, c := range l.ck {
			l.ck[i] = reloadCuckoo(fmt.Sprintf("%s cuckoo%d", l.name, fpBits[i]), c, viaReader, h.knownH)
		}
	}
	use(h.turnLane())
	for i, c := range h.ckConc {
		h.ckConc[i] = reloadCuckooConcurrent(fmt.Sprintf("cuckoo%d Concurrent", fpBits[i]), c, viaReader, mode&8 != 0, h.knownH)
		h.checkConcurrentGeometry(i)
	}
	{
		data := image(h.conc)
		var g blocked.Concurrent
		if err := g.UnmarshalBinary(data); err != nil {
			failf("Concurrent reload: %v", err)
		}
		if !bytes.Equal(data, image(&g)) {
			failf("Concurrent reload re-encodes differently")
		}
		sameAnswers("Concurrent reload", h.conc.ContainsHash, g.ContainsHash, h.knownH)
		h.conc.Close()
		h.conc = &g
	}
	{
		data := image(h.scal)
		var g blocked.Scalable
		decodeInto("Scalable", &g, data, viaReader)
		if !bytes.Equal(data, image(&g)) {
			failf("Scalable reload re-encodes differently")
		}
		if g.Count() != h.scal.Count() || g.Stages() != h.scal.Stages() {
			failf("Scalable reload: count %d stages %d, was %d and %d", g.Count(), g.Stages(), h.scal.Count(), h.scal.Stages())
		}
		sameAnswers("Scalable reload", h.scal.ContainsHash, g.ContainsHash, h.knownH)
		h.scal.Close()
		h.scal = &g
	}
	{
		var g *classic.Filter
		if mode&4 != 0 {
			var buf bytes.Buffer
			if _, err := h.classic.WriteGuava(&buf); err != nil {
				failf("classic WriteGuava: %v", err)
			}
			data := buf.Bytes()
			if !bytes.Equal(data, guavaImage(h.classic)) || int64(len(data)) != h.classic.GuavaSize() {
				failf("classic WriteGuava, AppendGuava and GuavaSize disagree")
			}
			var err error
			if g, err = classic.ReadGuava(bytes.NewReader(data)); err != nil {
				failf("classic ReadGuava: %v", err)
			}
		} else {
			data := image(h.classic)
			g = new(classic.Filter)
			if err := g.UnmarshalBinary(data); err != nil {
				failf("classic UnmarshalBinary: %v", err)
			}
			if !bytes.Equal(data, image(g)) {
				failf("classic reload re-encodes differently")
			}
		}
		if !g.Equal(h.classic) || g.BitCount() != h.classic.BitCount() {
			failf("classic reload differs")
		}
		for _, k := range h.known {
			if g.MightContain([]byte(k)) != h.classic.MightContain([]byte(k)) {
				failf("classic reload answers %q differently", k)
			}
		}
		h.classic = g
	}
	{
		data := image(h.counting)
		var g *classic.Counting
		if viaReader {
			r := bytes.NewReader(data)
			var err error
			if g, err = classic.ReadCounting(r); err != nil || r.Len() != 0 {
				failf("ReadCounting: %v (%d bytes left)", err, r.Len())
			}
		} else {
			g = new(classic.Counting)
			if err := g.UnmarshalBinary(data); err != nil {
				failf("Counting UnmarshalBinary: %v", err)
			}
		}
		if !g.Equal(h.counting) || !bytes.Equal(data, image(g)) {
			failf("Counting reload differs")
		}
		sameAnswers("Counting reload", h.counting.ContainsHash, g.ContainsHash, h.knownH)
		h.counting = g
	}
}

// decoder is what the reload decodes into: every filter type's ReadFrom
// and UnmarshalBinary.
type decoder interface {
	ReadFrom(r io.Reader) (int64, error)
	UnmarshalBinary(data []byte) error
}

// decodeInto decodes data into g with ReadFrom (viaReader, which must read
// all of it) or UnmarshalBinary, and fails with name on an error.
func decodeInto(name string, g decoder, data []byte, viaReader bool) {
	if viaReader {
		n, err := g.ReadFrom(bytes.NewReader(data))
		if err != nil || n != int64(len(data)) {
			failf("%s ReadFrom: %d of %d bytes, %v", name, n, len(data), err)
		}
	} else if err := g.UnmarshalBinary(data); err != nil {
		failf("%s UnmarshalBinary: %v", name, err)
	}
}

func sameAnswers(name string, a, b func(uint64) bool, hs []uint64) {
	for i, x := range hs {
		if a(x) != b(x) {
			failf("%s answers differently for key %d", name, i)
		}
	}
}

func reloadBlocked(name string, f *blocked.Filter, viaReader bool, hs []uint64) *blocked.Filter {
	data := image(f)
	g := new(blocked.Filter)
	decodeInto(name+" blocked", g, data, viaReader)
	if !bytes.Equal(data, image(g)) {
		failf("%s blocked reload re-encodes differently", name)
	}
	if g.K() != f.K() || g.Bits() != f.Bits() || g.Seed() != f.Seed() {
		failf("%s blocked reload changed the geometry", name)
	}
	sameAnswers(name+" blocked reload", f.ContainsHash, g.ContainsHash, hs)
	v, err := blocked.FromBytes(data)
	if err != nil {
		failf("%s blocked FromBytes: %v", name, err)
	}
	out := make([]bool, len(hs))
	v.ContainsHashes(hs, out)
	for i, x := range hs {
		if out[i] != f.ContainsHash(x) || v.ContainsHash(x) != out[i] {
			failf("%s blocked view answers key %d differently", name, i)
		}
	}
	v.Close()
	f.Close()
	return g
}

// reloadCuckooConcurrent round-trips the Concurrent c through its
// encoding and returns the filter to continue with. MarshalBinary,
// AppendBinary and (viaReader) WriteTo must give the same bytes, and so
// must Snapshot, a plain Filter, and NewConcurrentFrom of it, which must
// also answer like the snapshot on every key seen (hs). The bytes are
// decoded with ReadFrom (viaReader) or UnmarshalBinary, into a zero
// Concurrent or, inPlace, into c itself, replacing its contents; the
// result must re-encode to the same bytes, count the same and answer like
// the snapshot.
func reloadCuckooConcurrent(name string, c *cuckoo.Concurrent, viaReader, inPlace bool, hs []uint64) *cuckoo.Concurrent {
	data := image(c)
	if b, err := c.AppendBinary([]byte{1}); err != nil || !bytes.Equal(b[1:], data) || b[0] != 1 {
		failf("%s AppendBinary differs from MarshalBinary (%v)", name, err)
	}
	s := c.Snapshot()
	defer s.Close()
	if !bytes.Equal(data, image(s)) || s.Count() != c.Count() {
		failf("%s Snapshot differs", name)
	}
	from := cuckoo.NewConcurrentFrom(s)
	if !bytes.Equal(data, image(from)) || from.Count() != c.Count() {
		failf("%s NewConcurrentFrom(Snapshot) differs", name)
	}
	sameAnswers(name+" NewConcurrentFrom(Snapshot)", s.ContainsHash, from.ContainsHash, hs)
	from.Close()
	if viaReader {
		var buf bytes.Buffer
		if n, err := c.WriteTo(&buf); err != nil || n != int64(len(data)) || !bytes.Equal(data, buf.Bytes()) {
			failf("%s WriteTo: %d bytes, %v; differs from MarshalBinary", name, n, err)
		}
	}
	g := c
	if !inPlace {
		g = new(cuckoo.Concurrent)
	}
	decodeInto(name, g, data, viaReader)
	if !bytes.Equal(data, image(g)) || g.Count() != s.Count() {
		failf("%s reload re-encodes differently, or counts %d, was %d", name, g.Count(), s.Count())
	}
	sameAnswers(name+" reload", s.ContainsHash, g.ContainsHash, hs)
	if !inPlace {
		c.Close()
	}
	return g
}

func reloadCuckoo(name string, f *cuckoo.Filter, viaReader bool, hs []uint64) *cuckoo.Filter {
	data := image(f)
	g := new(cuckoo.Filter)
	decodeInto(name, g, data, viaReader)
	if !bytes.Equal(data, image(g)) {
		failf("%s reload re-encodes differently", name)
	}
	if g.Count() != f.Count() || g.VictimInUse() != f.VictimInUse() || g.MaxKicks() != f.MaxKicks() {
		failf("%s reload: count %d victim %v, was %d %v", name, g.Count(), g.VictimInUse(), f.Count(), f.VictimInUse())
	}
	sameAnswers(name+" reload", f.ContainsHash, g.ContainsHash, hs)
	v, err := cuckoo.FromBytes(data)
	if err != nil {
		failf("%s FromBytes: %v", name, err)
	}
	out := make([]bool, len(hs))
	v.ContainsHashes(hs, out)
	for i, x := range hs {
		if out[i] != f.ContainsHash(x) {
			failf("%s view answers key %d differently", name, i)
		}
	}
	if v.Count() != f.Count() {
		failf("%s view Count %d, want %d", name, v.Count(), f.Count())
	}
	v.Close()
	f.Close()
	return g
}
