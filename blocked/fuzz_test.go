package blocked

import (
	"bytes"
	"errors"
	"testing"
)

var sentinels = []error{ErrMagic, ErrVersion, ErrKind, ErrTruncated, ErrChecksum, ErrCorrupt, ErrTooLarge}

func isSentinel(err error) bool {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// FuzzUnmarshal feeds arbitrary bytes to every blocked decoder: none may
// panic, every error must be one of the sift sentinels with the package
// prefix, and whatever decodes must re-encode to the same bytes and agree
// across decoders.
func FuzzUnmarshal(f *testing.F) {
	for _, k := range []int{1, 8, 16} {
		g, _ := NewWithSize(3*512, k, WithSeed(uint64(k)))
		g.AddHashes(hashes(20, uint64(k)))
		b, _ := g.MarshalBinary()
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add(craft([8]uint64{1, 0}, make([]byte, 64)))
	f.Fuzz(func(t *testing.T, data []byte) {
		var g Filter
		err := g.UnmarshalBinary(data)
		var r Filter
		_, rerr := r.ReadFrom(bytes.NewReader(data))
		v, verr := FromBytes(data)
		if err != nil {
			if !isSentinel(err) || err.Error()[:8] != "blocked:" {
				t.Fatalf("error %q is not a prefixed sift sentinel", err)
			}
			if verr == nil {
				t.Fatalf("FromBytes accepted what UnmarshalBinary rejected: %v", err)
			}
			return
		}
		defer g.Close()
		if verr != nil || rerr != nil {
			t.Fatalf("decoders disagree: %v / %v", verr, rerr)
		}
		defer v.Close()
		defer r.Close()
		again, _ := g.MarshalBinary()
		if !bytes.Equal(again, data) {
			t.Fatal("re-encoding differs from the input")
		}
		sameFilter(t, "FromBytes", &g.core, &v.core)
		sameFilter(t, "ReadFrom", &g.core, &r.core)
		g.AddUint64(1)
		if !g.ContainsUint64(1) {
			t.Fatal("decoded filter lost a key")
		}
	})
}

// FuzzUnmarshalScalable is FuzzUnmarshal for the scalable decoders.
func FuzzUnmarshalScalable(f *testing.F) {
	s, _ := NewScalable(4, 0.1, WithSeed(3))
	for i := range uint64(30) {
		s.AddUint64(i)
	}
	b, _ := s.MarshalBinary()
	f.Add(b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Scalable
		err := d.UnmarshalBinary(data)
		var r Scalable
		_, rerr := r.ReadFrom(bytes.NewReader(data))
		if err != nil {
			if !isSentinel(err) || err.Error()[:8] != "blocked:" {
				t.Fatalf("error %q is not a prefixed sift sentinel", err)
			}
			return
		}
		defer d.Close()
		if rerr != nil {
			t.Fatalf("ReadFrom rejected what UnmarshalBinary accepted: %v", rerr)
		}
		defer r.Close()
		again, _ := d.MarshalBinary()
		if !bytes.Equal(again, data) {
			t.Fatal("re-encoding differs from the input")
		}
		if err := d.AddUint64(1 << 60); err == nil && !d.ContainsUint64(1<<60) {
			t.Fatal("decoded chain lost a key")
		}
	})
}
