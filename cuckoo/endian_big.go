//go:build !(386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm)

package cuckoo

// w32Flip: on a big-endian machine the low half of a uint64 word, bucket
// 2i, is its second uint32 (see endian_little.go).
const w32Flip = 1
