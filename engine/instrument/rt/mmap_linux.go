//go:build linux

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
	return syscall.Mmap(int(f.Fd()), off, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|mapPopulate)
}

// mapPopulate is Linux's MAP_POPULATE: the segment's pages are made at
// once, rather than by a page fault each on the hot path.
const mapPopulate = 0x8000
