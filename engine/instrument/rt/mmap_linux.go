//go:build linux

package adirt

import (
	"os"
	"syscall"
	"unsafe"
)

// mapSegment grows f to off+size bytes and maps that range, its blocks
// allocated and its pages made writable at once: a page of a shared file
// mapping otherwise takes a fault on its first write, on the hot path
// (MAP_POPULATE makes the pages for reading only). Allocating the whole
// range with fallocate spares the file system a block reservation per
// page.
func mapSegment(f *os.File, off int64, size int) ([]byte, error) {
	if err := syscall.Fallocate(int(f.Fd()), 0, off, int64(size)); err != nil {
		// A file system without fallocate: a sparse file.
		if err := f.Truncate(off + int64(size)); err != nil {
			return nil, err
		}
	}
	m, err := syscall.Mmap(int(f.Fd()), off, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	// Before Linux 5.14 (EINVAL) the pages are made by the first writes.
	syscall.Syscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(unsafe.SliceData(m))), uintptr(size), madvPopulateWrite)
	return m, nil
}

// madvPopulateWrite is Linux's MADV_POPULATE_WRITE (5.14).
const madvPopulateWrite = 23
