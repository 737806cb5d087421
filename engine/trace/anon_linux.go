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

// release gives the kernel back the whole pages of m past its first used
// bytes (they read as zeros again when next touched).
func release(m []byte, used int) {
	start := (used + pageSize - 1) &^ (pageSize - 1)
	if start >= len(m) {
		return
	}
	// m starts at a page: a mapping does.
	unix.Madvise(m[start:len(m)&^(pageSize-1)], unix.MADV_DONTNEED)
}

// hugePages asks for m to be made of huge pages (2 MB on amd64) where the
// system makes them on request (transparent huge pages in "madvise" mode).
// A page fault costs microseconds on some virtual machines: a huge page
// takes one fault for 512 pages' worth.
func hugePages(m []byte) {
	unix.Madvise(m, unix.MADV_HUGEPAGE)
}

// remap moves the anonymous mapping m to one of size bytes, keeping its
// contents (the kernel moves the pages, it does not copy them).
func remap(m []byte, size int) ([]byte, error) {
	return unix.Mremap(m, size, unix.MREMAP_MAYMOVE)
}

// idleThread makes the calling thread run only when a core is idle
// (SCHED_IDLE); false if it cannot be.
func idleThread() bool {
	return unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}, 0) == nil
}
