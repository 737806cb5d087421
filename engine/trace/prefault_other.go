//go:build unix && !linux

package trace

func prefault([]byte) {}
