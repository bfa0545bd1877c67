package sift

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/sift-go/sift/blocked"
	"github.com/sift-go/sift/cuckoo"
	"github.com/sift-go/sift/sbbf"
)

// switchView is the alternative to View's interface call that
// BenchmarkViewLookup measures: one pointer per kind and a switch on the
// kind in every lookup, which lets the compiler inline each kind's probe.
type switchView struct {
	kind Kind
	b    *blocked.View
	c    *cuckoo.View
	s    *sbbf.View
}

func (v *switchView) ContainsString(key string) bool {
	var r bool
	switch v.kind {
	case KindBlocked:
		r = v.b.ContainsString(key)
	case KindCuckoo:
		r = v.c.ContainsString(key)
	case KindSplitBlock:
		r = v.s.ContainsString(key)
	default:
		panic(errUse)
	}
	runtime.KeepAlive(v)
	return r
}

func (v *switchView) ContainsHash(h uint64) bool {
	var r bool
	switch v.kind {
	case KindBlocked:
		r = v.b.ContainsHash(h)
	case KindCuckoo:
		r = v.c.ContainsHash(h)
	case KindSplitBlock:
		r = v.s.ContainsHash(h)
	default:
		panic(errUse)
	}
	runtime.KeepAlive(v)
	return r
}

// BenchmarkViewLookup compares single-key lookups of a blocked filter
// through a *blocked.View (impl=direct), View (impl=view: its direct path
// for blocked's ContainsHash, an interface call otherwise), View with
// every lookup an interface call (impl=iface) and a kind switch
// (impl=switch), in cache (n=1e4) and in memory (n=1e7), half the keys
// present.
func BenchmarkViewLookup(b *testing.B) {
	for _, n := range []int{1e4, 1e7} {
		f, err := blocked.New(uint64(n), 0.01)
		if err != nil {
			b.Fatal(err)
		}
		keys := make([]string, 1<<16)
		for i := range keys {
			keys[i] = fmt.Sprint("key", i*(n/len(keys)+1))
		}
		for i := 0; i < n; i += 2 {
			f.AddString(fmt.Sprint("key", i))
		}
		data, err := f.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		bv, err := blocked.FromBytes(data)
		if err != nil {
			b.Fatal(err)
		}
		v, err := FromBytes(data)
		if err != nil {
			b.Fatal(err)
		}
		sv := &switchView{kind: KindBlocked, b: bv}
		iv := &View{m: v.m} // no direct path: every lookup an interface call
		hs := make([]uint64, len(keys))
		for i, k := range keys {
			hs[i] = bv.HashString(k)
		}
		impls := []struct {
			name     string
			str      func(string) bool
			withHash func(uint64) bool
		}{
			{"direct", bv.ContainsString, bv.ContainsHash},
			{"view", v.ContainsString, v.ContainsHash},
			{"iface", iv.ContainsString, iv.ContainsHash},
			{"switch", sv.ContainsString, sv.ContainsHash},
		}
		for _, op := range []string{"ContainsString", "ContainsHash"} {
			for _, impl := range impls {
				b.Run(fmt.Sprintf("op=%s/n=%.0e/impl=%s", op, float64(n), impl.name), func(b *testing.B) {
					found := 0
					i := 0
					switch op {
					case "ContainsString":
						// Method values hide the call's target from
						// the compiler as little as View's callers
						// would: call through the concrete types.
						switch impl.name {
						case "direct":
							for b.Loop() {
								if bv.ContainsString(keys[i&(len(keys)-1)]) {
									found++
								}
								i++
							}
						case "view":
							for b.Loop() {
								if v.ContainsString(keys[i&(len(keys)-1)]) {
									found++
								}
								i++
							}
						case "switch":
							for b.Loop() {
								if sv.ContainsString(keys[i&(len(keys)-1)]) {
									found++
								}
								i++
							}
						case "iface":
							for b.Loop() {
								if iv.ContainsString(keys[i&(len(keys)-1)]) {
									found++
								}
								i++
							}
						}
					case "ContainsHash":
						switch impl.name {
						case "direct":
							for b.Loop() {
								if bv.ContainsHash(hs[i&(len(hs)-1)]) {
									found++
								}
								i++
							}
						case "view":
							for b.Loop() {
								if v.ContainsHash(hs[i&(len(hs)-1)]) {
									found++
								}
								i++
							}
						case "switch":
							for b.Loop() {
								if sv.ContainsHash(hs[i&(len(hs)-1)]) {
									found++
								}
								i++
							}
						case "iface":
							for b.Loop() {
								if iv.ContainsHash(hs[i&(len(hs)-1)]) {
									found++
								}
								i++
							}
						}
					}
					if found == 0 {
						b.Fatal("no key found")
					}
				})
			}
		}
	}
}
