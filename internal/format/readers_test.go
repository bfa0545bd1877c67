package format

import "testing"

// TestReaders: a package names its own calls bare and another's
// qualified, joined as a sentence; a kind no package reads has none.
func TestReaders(t *testing.T) {
	for _, c := range []struct {
		k    Kind
		pkg  string
		want string
	}{
		{KindWindow, "blocked", "ReadWindow or ReadConcurrentWindow"},
		{KindWindow, "cuckoo", "blocked.ReadWindow or blocked.ReadConcurrentWindow"},
		{KindBlocked, "sbbf", "blocked.ReadFilter, blocked.ReadConcurrent or blocked.Open"},
		{KindCounting, "sift", "classic.ReadCounting"},
		{KindClassic, "classic", "ReadFilter"},
		{0, "blocked", ""},
		{MaxKind + 1, "blocked", ""},
		{255, "sift", ""},
	} {
		if got := Readers(c.k, c.pkg); got != c.want {
			t.Errorf("Readers(%d, %q) = %q, want %q", c.k, c.pkg, got, c.want)
		}
	}
}
