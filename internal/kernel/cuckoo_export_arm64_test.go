//go:build gc && !purego

package kernel

func init() {
	SetCuckooScalar = func(scalar bool) (restore func()) {
		prev := cuckooScalar
		cuckooScalar = scalar
		return func() { cuckooScalar = prev }
	}
}
