package mem

import "golang.org/x/sys/unix"

// MachineMemory returns the machine's RAM plus swap in bytes, what
// Alloc compares big allocations with, or 0 when unknown.
func MachineMemory() uint64 {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil {
		return 0
	}
	unit := uint64(si.Unit)
	if unit == 0 {
		unit = 1
	}
	return (uint64(si.Totalram) + uint64(si.Totalswap)) * unit
}
