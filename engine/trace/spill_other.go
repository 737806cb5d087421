//go:build !unix

package trace

import (
	"errors"
	"os"
)

func mmap(*os.File, int) ([]byte, error) {
	return nil, errors.New("mapping files is supported on unix systems only")
}

func mapAnon(int) ([]byte, error) {
	return nil, errors.New("mapping memory is supported on unix systems only")
}

func unmap([]byte) {}

func prefault([]byte) {}

func hugePages([]byte) {}

func release([]byte, int) {}

func remap([]byte, int) ([]byte, error) {
	return nil, errors.New("mapping memory is supported on unix systems only")
}

func idleThread() bool { return false }
