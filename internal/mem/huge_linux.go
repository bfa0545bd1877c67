package mem

import "golang.org/x/sys/unix"

// adviseHuge asks Linux to back b with transparent huge pages.
func adviseHuge(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }
