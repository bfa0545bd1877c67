package kernel

// BlockedAdd inserts every hash of hs into blocks with k probes per key,
// using the kernel set in use (see the package doc for the contract).
func BlockedAdd(blocks []Block, k int, hs []uint64) {
	blockedAdd(blocks, k, hs)
}

// BlockedContains probes every hash of hs, writes out[i], and returns the
// number present, using the kernel set in use. It panics if len(out) < len(hs).
func BlockedContains(blocks []Block, k int, hs []uint64, out []bool) int {
	if len(out) < len(hs) {
		panic("kernel: BlockedContains: len(out) < len(hs)")
	}
	return blockedContains(blocks, k, hs, out)
}
