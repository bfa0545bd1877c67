package kerneltest

import "testing"

func TestGuarded(t *testing.T) {
	for _, n := range []int{0, 1, 7, 512, 513, 4096} {
		u := GuardedUint64s(t, n)
		b := GuardedBools(t, n)
		if len(u) != n || len(b) != n {
			t.Fatalf("n=%d: lengths %d %d", n, len(u), len(b))
		}
		for i := range u {
			u[i] = uint64(i)
			b[i] = true
		}
	}
}
