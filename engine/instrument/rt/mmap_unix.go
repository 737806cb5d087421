//go:build unix

package adirt

import (
	"os"
	"syscall"
)

// mapSegment grows f to off+size bytes and maps that range.
func mapSegment(f *os.File, off int64, size int) ([]byte, error) {
	if err := f.Truncate(off + int64(size)); err != nil {
		return nil, err
	}
	return syscall.Mmap(int(f.Fd()), off, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}
