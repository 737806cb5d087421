//go:build unix && !linux

package trace

func prefault([]byte) {}

func hugePages([]byte) {}

func release([]byte, int) {}

// remap moves the anonymous mapping m to one of size bytes, keeping its
// contents.
func remap(m []byte, size int) ([]byte, error) {
	b, err := mapAnon(size)
	if err != nil {
		return nil, err
	}
	copy(b, m)
	unmap(m)
	return b, nil
}

func idleThread() bool { return false }
