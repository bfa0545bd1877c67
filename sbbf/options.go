package sbbf

// Option configures a constructor (New, NewWithSize) or a loader (Open,
// FromBytes, ParseParquet, ReadParquet, ViewParquet, DecodeParquetHeader).
// Each option says which calls use it; the others ignore it.
type Option func(*options)

type options struct {
	skipChecksum bool
	maxBytes     uint64
}

func collect(opts []Option) options {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// WithMaxSize bounds the memory a filter may take to maxBytes bytes. New
// and NewWithSize return an error wrapping ErrTooLarge, allocating
// nothing, for a filter whose blocks would take more; Open, Load,
// FromBytes and ReadFilter reject a sift file whose payload declares more,
// and ParseParquet, ReadParquet, ViewParquet and DecodeParquetHeader a
// BloomFilterHeader whose numBytes does, before reading the bitset. A
// Filter made by New, NewWithSize or ReadFilter keeps the bound: its
// UnmarshalBinary, ReadFrom and UnmarshalParquet apply it. 0, the
// default, means no limit but MaxBlocks, the input's real length for
// buffers and files, and what the machine can provide.
func WithMaxSize(maxBytes uint64) Option {
	return func(o *options) { o.maxBytes = maxBytes }
}

// WithoutChecksum makes Open and FromBytes skip the pass over the payload
// that verifies its CRC-32C, for callers who trust their storage and want
// opening to cost nothing but the mapping. The header's own checksum and
// every size check still run, so hostile headers are still rejected; a
// damaged payload then gives wrong answers instead of an error. (Parquet's
// bytes carry no checksum.)
func WithoutChecksum() Option {
	return func(o *options) { o.skipChecksum = true }
}
