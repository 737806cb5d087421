package trace

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// prefault makes the whole pages in m present and writable (Linux 5.14 and
// later; on an older kernel they are faulted in when written, as without
// it).
func prefault(m []byte) {
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(m))) & (pageSize - 1))
	if len(m) < skip+pageSize {
		return
	}
	m = m[skip:]
	unix.Madvise(m[:len(m)&^(pageSize-1)], unix.MADV_POPULATE_WRITE)
}

// remap moves the anonymous mapping m to one of size bytes, keeping its
// contents (the kernel moves the pages, it does not copy them).
func remap(m []byte, size int) ([]byte, error) {
	return unix.Mremap(m, size, unix.MREMAP_MAYMOVE)
}
