package blocked

// Option configures a constructor (New, NewWithSize, NewConcurrent,
// NewConcurrentWithSize, NewScalable) or a loader (Open, FromBytes,
// ReadFilter, ReadScalable). Each option says which calls use it; the others
// ignore it. A value out of range is reported by the call that uses it, as
// an error wrapping ErrInvalidOption.
type Option func(*options)

type options struct {
	seed         uint64
	growth       uint64
	ratio        float64
	skipChecksum bool
	maxBytes     uint64
	win          windowOptions // NewWindow's and ReadWindow's (window.go)
}

const (
	// DefaultGrowth is how much larger each Scalable stage is than the one
	// before it.
	DefaultGrowth = 2
	// DefaultTightening is the ratio between consecutive Scalable stages'
	// false-positive rates (Almeida et al. 2007 suggest 0.8 to 0.9).
	DefaultTightening = 0.85
)

func collect(opts []Option) options {
	o := options{growth: DefaultGrowth, ratio: DefaultTightening, win: windowOptions{generations: DefaultGenerations}}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// WithSeed sets the hash seed (default 0) used by New, NewWithSize,
// NewConcurrent, NewConcurrentWithSize and NewScalable. Filters are only
// combinable (Union, Intersect) and only answer for pre-hashed keys
// (ContainsHash) when built with the same seed. The seed is stored in the
// serialized filter.
//
// With the default seed anyone can compute which keys collide in a filter.
// When keys come from an adversary, use a secret random seed per
// deployment: WithSeed(hash.RandomSeed()).
func WithSeed(seed uint64) Option {
	return func(o *options) { o.seed = seed }
}

// WithGrowth sets how many times larger each Scalable stage is than the
// previous one (default DefaultGrowth = 2; must be at least 2). Used only by
// NewScalable.
func WithGrowth(factor uint) Option {
	return func(o *options) { o.growth = uint64(factor) }
}

// WithTightening sets the ratio r in (0, 1) between the false-positive rates
// of consecutive Scalable stages (default DefaultTightening = 0.85). Smaller
// ratios make later stages larger but let more of the budget go to the
// first stages. Used only by NewScalable.
func WithTightening(r float64) Option {
	return func(o *options) { o.ratio = r }
}

// WithoutChecksum makes Open, FromBytes, ReadFilter and ReadScalable skip
// the pass over the payload that verifies its CRC-32C, for callers who
// trust their storage and want opening to cost nothing but the mapping. The
// header's own checksum and every size check still run, so hostile headers
// are still rejected; a damaged payload then gives wrong answers instead of
// an error.
func WithoutChecksum() Option {
	return func(o *options) { o.skipChecksum = true }
}

// WithMaxSize bounds the memory a filter may take to maxBytes bytes. The
// constructors (New, NewWithSize, NewConcurrent, NewConcurrentWithSize)
// return an error wrapping ErrTooLarge, allocating nothing, for a filter
// whose blocks would take more; NewScalable refuses a first stage that
// large, and a Scalable's Add returns such an error, adding nothing, when
// a new stage would bring the chain's blocks past it. Open, Load, FromBytes,
// ReadFilter and ReadScalable reject an encoding whose payload declares
// more, before reading it. A filter made with the option (by a constructor,
// ReadFilter or ReadScalable) keeps the bound for its own UnmarshalBinary
// and ReadFrom, and Union of Scalables respects it. 0, the default, means
// no limit but the defaults: MaxBits for the constructors (a filter's block
// index has 32 bits), the input's real length for the decoders of buffers
// and files, the machine's memory for stream decoders (see Filter.ReadFrom),
// and what the machine can provide (see New).
func WithMaxSize(maxBytes uint64) Option {
	return func(o *options) { o.maxBytes = maxBytes }
}
