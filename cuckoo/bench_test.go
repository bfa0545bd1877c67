package cuckoo

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sift-go/sift/internal/kernel/kerneltest"
)

var benchCaps = []uint64{1e6, 1e7}

// filled returns a 16-bit filter of the given capacity filled to capacity
// (95% load) with hashes of 0..capacity-1, and those hashes.
func filled(b *testing.B, capacity uint64) (*Filter, []uint64) {
	f, err := New(capacity)
	if err != nil {
		b.Fatal(err)
	}
	hs := make([]uint64, capacity)
	for i := range hs {
		hs[i] = f.HashUint64(uint64(i))
		if err := f.AddHash(hs[i]); err != nil {
			b.Fatalf("filling to capacity: %v at %d", err, i)
		}
	}
	return f, hs
}

func absent(f *Filter, n int) []uint64 {
	hs := make([]uint64, n)
	for i := range hs {
		hs[i] = f.HashUint64(1<<40 + uint64(i))
	}
	return hs
}

func shuffled(hs []uint64, n int) []uint64 {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]uint64, n)
	for i := range out {
		out[i] = hs[rng.IntN(len(hs))]
	}
	return out
}

func BenchmarkContains(b *testing.B) {
	for _, c := range benchCaps {
		f, hs := filled(b, c)
		for _, kind := range []string{"present", "absent"} {
			keys := shuffled(hs, 1<<16)
			if kind == "absent" {
				keys = absent(f, 1<<16)
			}
			b.Run(fmt.Sprintf("n=%.0e/fpbits=16/keys=%s", float64(c), kind), func(b *testing.B) {
				hits := 0
				i := 0
				cpu0 := startCPU()
				for b.Loop() {
					if f.ContainsHash(keys[i&(1<<16-1)]) {
						hits++
					}
					i++
				}
				perKey(b, b.N, cpu0)
				_ = hits
			})
		}
		f.Close()
	}
}

func BenchmarkContainsHashes(b *testing.B) {
	for _, c := range benchCaps {
		f, hs := filled(b, c)
		for _, kind := range []string{"present", "absent"} {
			keys := shuffled(hs, 1<<16)
			if kind == "absent" {
				keys = absent(f, 1<<16)
			}
			out := make([]bool, len(keys))
			b.Run(fmt.Sprintf("n=%.0e/fpbits=16/keys=%s", float64(c), kind), func(b *testing.B) {
				kerneltest.Bench(b, func(b *testing.B, impl string) {
					cpu0 := startCPU()
					for b.Loop() {
						f.ContainsHashes(keys, out)
					}
					perKey(b, b.N*len(keys), cpu0)
				})
			})
		}
		f.Close()
	}
}

// BenchmarkInsert fills a filter to its capacity (95% load) per iteration.
func BenchmarkInsert(b *testing.B) {
	for _, c := range benchCaps {
		f, err := New(c)
		if err != nil {
			b.Fatal(err)
		}
		hs := make([]uint64, c)
		for i := range hs {
			hs[i] = f.HashUint64(uint64(i))
		}
		b.Run(fmt.Sprintf("n=%.0e/fpbits=16", float64(c)), func(b *testing.B) {
			cpu0 := startCPU()
			for b.Loop() {
				f.Reset()
				if n, err := f.AddHashes(hs); err != nil {
					b.Fatalf("full after %d: %v", n, err)
				}
			}
			perKey(b, b.N*len(hs), cpu0)
		})
		f.Close()
	}
}

// BenchmarkUint64 measures the single-key calls a user with uint64 keys
// makes, XXH3 hashing included: AddUint64 filling a reset filter to its
// capacity (95% load), then ContainsUint64 on the inserted keys and on as
// many absent ones, for both fingerprint widths, in cache and beyond it.
func BenchmarkUint64(b *testing.B) {
	for _, c := range []uint64{1e4, 1e6} {
		rng := rand.New(rand.NewPCG(3, 4))
		keys := make([]uint64, 2*c)
		for i := range keys {
			keys[i] = rng.Uint64()
		}
		present, missing := keys[:c], keys[c:]
		for _, w := range []int{16, 8} {
			f, err := New(c, WithFingerprintBits(w))
			if err != nil {
				b.Fatal(err)
			}
			name := fmt.Sprintf("n=%.0e/fpbits=%d", float64(c), w)
			b.Run(name+"/op=add", func(b *testing.B) {
				cpu0 := startCPU()
				for b.Loop() {
					f.Reset()
					for _, k := range present {
						if err := f.AddUint64(k); err != nil {
							b.Fatal(err)
						}
					}
				}
				perKey(b, b.N*len(present), cpu0)
			})
			for _, kind := range []string{"present", "absent"} {
				ks := present
				if kind == "absent" {
					ks = missing
				}
				b.Run(name+"/op=contains/keys="+kind, func(b *testing.B) {
					hits := 0
					cpu0 := startCPU()
					for b.Loop() {
						for _, k := range ks {
							if f.ContainsUint64(k) {
								hits++
							}
						}
					}
					perKey(b, b.N*len(ks), cpu0)
					if kind == "present" && hits < b.N*len(ks) {
						b.Fatalf("%d of %d present keys found", hits, b.N*len(ks))
					}
				})
			}
			f.Close()
		}
	}
}

// BenchmarkConcurrent measures Concurrent's batch calls against loops of
// its single-key calls on the same hashes (what the batch calls did before
// they prefetched): filling a reset filter to capacity (95% load) and
// looking up present and absent keys, one goroutine.
func BenchmarkConcurrent(b *testing.B) {
	for _, c := range benchCaps {
		f, err := NewConcurrent(c)
		if err != nil {
			b.Fatal(err)
		}
		hs := make([]uint64, c)
		for i := range hs {
			hs[i] = f.f.HashUint64(uint64(i))
		}
		name := fmt.Sprintf("n=%.0e/fpbits=16", float64(c))
		for _, call := range []string{"loop", "batch"} {
			batch := call == "batch"
			b.Run(name+"/op=add/call="+call, func(b *testing.B) {
				cpu0 := startCPU()
				for b.Loop() {
					f.Reset()
					if batch {
						if n, err := f.AddHashes(hs); err != nil {
							b.Fatalf("full after %d: %v", n, err)
						}
						continue
					}
					for _, h := range hs {
						if err := f.AddHash(h); err != nil {
							b.Fatal(err)
						}
					}
				}
				perKey(b, b.N*len(hs), cpu0)
			})
		}
		f.Reset()
		if _, err := f.AddHashes(hs); err != nil {
			b.Fatal(err)
		}
		for _, kind := range []string{"present", "absent"} {
			keys := shuffled(hs, 1<<16)
			if kind == "absent" {
				keys = absent(f.f, 1<<16)
			}
			out := make([]bool, len(keys))
			for _, call := range []string{"loop", "batch"} {
				batch := call == "batch"
				b.Run(name+"/op=contains/keys="+kind+"/call="+call, func(b *testing.B) {
					cpu0 := startCPU()
					for b.Loop() {
						if batch {
							f.ContainsHashes(keys, out)
							continue
						}
						for i, h := range keys {
							out[i] = f.ContainsHash(h)
						}
					}
					perKey(b, b.N*len(keys), cpu0)
				})
			}
		}
		f.Close()
	}
}

// BenchmarkAddNew compares add-if-new with a plain add: each iteration
// resets a 16-bit filter and fills it to 3/4 load with new keys, one at a
// time (call=single: AddHash, AddNewHash) or in one batch (call=batch:
// AddHashes, AddNewHashes). Every key is new, so add-if-new does all of
// the add's work plus its test.
//
//	go test -run '^$' -bench AddNew -count 5 ./cuckoo
func BenchmarkAddNew(b *testing.B) {
	caps := benchCaps
	if testing.Short() {
		caps = caps[:1]
	}
	for _, c := range caps {
		f, err := New(c)
		if err != nil {
			b.Fatal(err)
		}
		hs := make([]uint64, 3*f.Capacity()/4)
		for i := range hs {
			hs[i] = f.HashUint64(uint64(i))
		}
		out := make([]bool, len(hs))
		for _, call := range []string{"single", "batch"} {
			for _, op := range []string{"add", "addnew"} {
				b.Run(fmt.Sprintf("n=%.0e/fpbits=16/call=%s/op=%s", float64(c), call, op), func(b *testing.B) {
					cpu0 := startCPU()
					for b.Loop() {
						f.Reset()
						var err error
						switch {
						case call == "batch" && op == "add":
							_, err = f.AddHashes(hs)
						case call == "batch":
							_, err = f.AddNewHashes(hs, out)
						case op == "add":
							for _, h := range hs {
								err = f.AddHash(h)
							}
						default:
							for _, h := range hs {
								_, err = f.AddNewHash(h)
							}
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					perKey(b, b.N*len(hs), cpu0)
				})
			}
		}
		f.Close()
	}
}
