//go:build !linux

package mem

// MachineMemory returns 0: unknown here, so Alloc leaves the decision
// to the mapping call (see the package documentation).
func MachineMemory() uint64 { return 0 }

// AvailableMemory returns 0: unknown here (see MachineMemory).
func AvailableMemory() uint64 { return 0 }
