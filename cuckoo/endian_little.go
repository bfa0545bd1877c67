//go:build 386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm

package cuckoo

// w32Flip is the index of bucket 0 within its uint64 word when the word is
// viewed as two uint32s: on a little-endian machine the low half, bucket
// 2i, is the first (see Filter.w32).
const w32Flip = 0
