//go:build unix

package trace

import (
	"os"

	"golang.org/x/sys/unix"
)

// The mappings are made, moved and removed with x/sys/unix's functions
// alike: each keeps a table of the mappings it made.

func mmap(f *os.File, size int) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
}

func unmap(m []byte) { unix.Munmap(m) }

// mapAnon maps size bytes of anonymous memory, its pages made as they are
// first written (and in huge pages where the system makes them on
// request: see hugePages).
func mapAnon(size int) ([]byte, error) {
	m, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE)
	if err == nil {
		hugePages(m)
	}
	return m, err
}
