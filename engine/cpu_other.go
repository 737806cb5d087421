//go:build !linux

package engine

// oneCPU does nothing here (see cpu_linux.go).
func oneCPU() (undo func()) { return func() {} }
